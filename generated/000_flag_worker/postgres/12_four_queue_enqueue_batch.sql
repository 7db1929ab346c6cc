-- qgen 0.1.0: enqueue_batch four.four_queue_enqueue_batch, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job: a job already
-- queued, or repeated earlier in the batch, returns that id with enqueued = false.
CREATE OR REPLACE FUNCTION "four"."four_queue_enqueue_batch"
(
    "jobs" jsonb
)
RETURNS TABLE ("ordinal" integer, "id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    -- The ids are drawn before the insert, so each input job knows its id whether or not it is inserted.
    v$sequence regclass := pg_catalog.pg_get_serial_sequence('"four"."four_queue"', 'id')::regclass;
    v$ordinal integer;
    v$id bigint;
    v$enqueued boolean;
    v$key_1 integer;
    v$existing bigint;
    -- Jobs of this batch withdrawn for a key a finished job turned out to hold, and that job's id.
    v$withdrawn bigint[] := '{}';
    v$instead bigint[] := '{}';
BEGIN

    FOR v$ordinal, v$id, v$enqueued, v$key_1 IN
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "e"."position$"::integer) AS "ordinal",
                   "j"."reputation"
            -- The array position and the new id are qgen's own columns beside the job's: their names
            -- hold a $, which no spec column can.
            FROM jsonb_array_elements("four_queue_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
            CROSS JOIN LATERAL jsonb_populate_record(NULL::"four"."four_queue_batch", "e"."job$") AS "j"
        ),
        "numbered" AS
        (
            -- A volatile target list runs after ORDER BY, so the ids follow the ordinals.
            SELECT "i".*, nextval(v$sequence) AS "new$id"
            FROM "input" AS "i"
            ORDER BY "i"."ordinal"
        ),
        "inserted" AS
        (
            INSERT INTO "four"."four_queue" AS "job" ("id", "reputation")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new$id", "n"."reputation"
            FROM "numbered" AS "n"
            -- dedupe.scope: ever: a key a finished job holds is skipped too.
            WHERE coalesce((SELECT "f"."id" FROM "four"."four_queue_dead" AS "f" WHERE "f"."reputation" = "n"."reputation")) IS NULL
            ORDER BY "n"."ordinal"
            -- A key already queued, or repeated in the batch, is skipped here and reported below.
            ON CONFLICT ("reputation") DO NOTHING
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal",
               CASE WHEN "k"."id" IS NOT NULL THEN "n"."new$id"
                    ELSE coalesce(
                        -- A job queued before this statement ...
                        (SELECT "e"."id" FROM "four"."four_queue" AS "e" WHERE "e"."reputation" = "n"."reputation"),
                        -- ... or finished (dedupe.scope: ever) ...
                        coalesce((SELECT "f"."id" FROM "four"."four_queue_dead" AS "f" WHERE "f"."reputation" = "n"."reputation")),
                        -- ... or the first job of this batch with that key.
                        (SELECT min("d"."new$id") FROM "numbered" AS "d" INNER JOIN "inserted" AS "x" ON "x"."id" = "d"."new$id"
                         WHERE "d"."reputation" = "n"."reputation"))
               END,
               "k"."id" IS NOT NULL,
               "n"."reputation"

        FROM "numbered" AS "n"
        LEFT JOIN "inserted" AS "k" ON "k"."id" = "n"."new$id"
        ORDER BY "n"."ordinal"
    LOOP
        IF v$enqueued THEN
            -- The same key may have been moving to the archive or the dead letters while this
            -- insert waited for it on the unique index: then that job holds it, not this one.
            v$existing := coalesce(coalesce((SELECT "f"."id" FROM "four"."four_queue_dead" AS "f" WHERE "f"."reputation" = v$key_1)), (SELECT "o"."id" FROM "four"."four_queue" AS "o" WHERE "o"."reputation" = v$key_1 AND "o"."id" <> v$id LIMIT 1));
            IF v$existing IS NOT NULL THEN
                DELETE FROM "four"."four_queue" AS "job" WHERE "job"."id" = v$id;
                v$withdrawn := v$withdrawn || v$id;
                v$instead := v$instead || v$existing;
                v$id := v$existing;
                v$enqueued := FALSE;
            END IF;
        ELSIF v$id = ANY (v$withdrawn) THEN
            -- A repeat of a key whose first job in this batch was withdrawn above.
            v$id := v$instead[array_position(v$withdrawn, v$id)];
        END IF;
        IF v$id IS NULL THEN
            -- Another session committed this key while the statement ran (ON CONFLICT saw it, the
            -- statement's snapshot did not): a new statement sees it.
            SELECT "e"."id" INTO v$id
            FROM "four"."four_queue" AS "e"
            WHERE "e"."reputation" = v$key_1;
            IF v$id IS NULL THEN
                v$id := coalesce((SELECT "f"."id" FROM "four"."four_queue_dead" AS "f" WHERE "f"."reputation" = v$key_1));
            END IF;
        END IF;
        "ordinal" := v$ordinal;
        "id" := v$id;
        "enqueued" := v$enqueued;
        RETURN NEXT;
    END LOOP;
END
$qgen$;
ALTER FUNCTION "four"."four_queue_enqueue_batch" OWNER TO "four_owner";
REVOKE ALL ON FUNCTION "four"."four_queue_enqueue_batch" FROM PUBLIC;
