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
    v_sequence regclass := pg_catalog.pg_get_serial_sequence('"four"."four_queue"', 'id')::regclass;
    v_ordinal integer;
    v_id bigint;
    v_enqueued boolean;
    v_key_1 integer;
BEGIN
    FOR v_ordinal, v_id, v_enqueued, v_key_1 IN
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "j"."ordinality"::integer) AS "ordinal",
                   "j"."reputation"
            FROM jsonb_populate_recordset(NULL::"four"."four_queue_batch", "four_queue_enqueue_batch"."jobs") WITH ORDINALITY AS "j"
        ),
        "numbered" AS
        (
            -- A volatile target list runs after ORDER BY, so the ids follow the ordinals.
            SELECT "i".*, nextval(v_sequence) AS "new_id"
            FROM "input" AS "i"
            ORDER BY "i"."ordinal"
        ),
        "inserted" AS
        (
            INSERT INTO "four"."four_queue" AS "job" ("id", "reputation")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new_id", "n"."reputation"
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            -- A key already queued, or repeated in the batch, is skipped here and reported below.
            ON CONFLICT ("reputation") DO NOTHING
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal",
               CASE WHEN "k"."id" IS NOT NULL THEN "n"."new_id"
                    ELSE coalesce(
                        -- A job queued before this statement ...
                        (SELECT "e"."id" FROM "four"."four_queue" AS "e" WHERE "e"."reputation" = "n"."reputation"),
                        -- ... or the first job of this batch with that key.
                        (SELECT min("d"."new_id") FROM "numbered" AS "d" INNER JOIN "inserted" AS "x" ON "x"."id" = "d"."new_id"
                         WHERE "d"."reputation" = "n"."reputation"))
               END,
               "k"."id" IS NOT NULL,
               "n"."reputation"
        FROM "numbered" AS "n"
        LEFT JOIN "inserted" AS "k" ON "k"."id" = "n"."new_id"
        ORDER BY "n"."ordinal"
    LOOP
        IF v_id IS NULL THEN
            -- Another session committed this key while the statement ran (ON CONFLICT saw it, the
            -- statement's snapshot did not): a new statement sees it.
            SELECT "e"."id" INTO v_id
            FROM "four"."four_queue" AS "e"
            WHERE "e"."reputation" = v_key_1;
        END IF;
        "ordinal" := v_ordinal;
        "id" := v_id;
        "enqueued" := v_enqueued;
        RETURN NEXT;
    END LOOP;
END
$qgen$;
REVOKE ALL ON FUNCTION "four"."four_queue_enqueue_batch" FROM PUBLIC;
