-- qgen 0.1.0: enqueue_batch cards.card_codes_enqueue_batch, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job: a job already
-- queued, or repeated earlier in the batch, returns that id with enqueued = false.
CREATE OR REPLACE FUNCTION "cards"."card_codes_enqueue_batch"
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
    v$sequence regclass := pg_catalog.pg_get_serial_sequence('"cards"."card_codes"', 'id')::regclass;
    v$over integer;
    v$over_column text;
    v$ordinal integer;
    v$id bigint;
    v$enqueued boolean;
    v$key_1 varchar(32);
    v$existing bigint;
    -- Jobs of this batch withdrawn for a key a finished job turned out to hold, and that job's id.
    v$withdrawn bigint[] := '{}';
    v$instead bigint[] := '{}';
BEGIN

    SELECT coalesce("j"."ordinal", "e"."position$"::integer),
           CASE WHEN pg_catalog.length("j"."card_number") > 32 THEN 'card_number; accepted: string(32), at most 32 characters' WHEN pg_catalog.length("j"."card_secret") > 64 THEN 'card_secret; accepted: string(64), at most 64 characters' END
    INTO v$over, v$over_column
    FROM jsonb_array_elements("card_codes_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
    CROSS JOIN LATERAL jsonb_populate_record(NULL::"cards"."card_codes_batch", "e"."job$") AS "j"
    WHERE pg_catalog.length("j"."card_number") > 32 OR pg_catalog.length("j"."card_secret") > 64
    ORDER BY "e"."position$"
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = pg_catalog.format('qgen: job %s of the batch has a value past its column''s limit in cards.card_codes_enqueue_batch: column %s', v$over, v$over_column);
    END IF;
    FOR v$ordinal, v$id, v$enqueued, v$key_1 IN
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "e"."position$"::integer) AS "ordinal",
                   "j"."card_number", "j"."card_secret"
            -- The array position and the new id are qgen's own columns beside the job's: their names
            -- hold a $, which no spec column can.
            FROM jsonb_array_elements("card_codes_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
            CROSS JOIN LATERAL jsonb_populate_record(NULL::"cards"."card_codes_batch", "e"."job$") AS "j"
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
            INSERT INTO "cards"."card_codes" AS "job" ("id", "card_number", "card_secret")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new$id", "n"."card_number", "n"."card_secret"
            FROM "numbered" AS "n"
            -- dedupe.scope: ever: a key a finished job holds is skipped too.
            WHERE coalesce((SELECT "f"."id" FROM "cards"."card_codes_archive" AS "f" WHERE "f"."card_number" = "n"."card_number")) IS NULL
            ORDER BY "n"."ordinal"
            -- A key already queued, or repeated in the batch, is skipped here and reported below.
            ON CONFLICT ("card_number") DO NOTHING
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal",
               CASE WHEN "k"."id" IS NOT NULL THEN "n"."new$id"
                    ELSE coalesce(
                        -- A job queued before this statement ...
                        (SELECT "e"."id" FROM "cards"."card_codes" AS "e" WHERE "e"."card_number" = "n"."card_number"),
                        -- ... or finished (dedupe.scope: ever) ...
                        coalesce((SELECT "f"."id" FROM "cards"."card_codes_archive" AS "f" WHERE "f"."card_number" = "n"."card_number")),
                        -- ... or the first job of this batch with that key.
                        (SELECT min("d"."new$id") FROM "numbered" AS "d" INNER JOIN "inserted" AS "x" ON "x"."id" = "d"."new$id"
                         WHERE "d"."card_number" = "n"."card_number"))
               END,
               "k"."id" IS NOT NULL,
               "n"."card_number"

        FROM "numbered" AS "n"
        LEFT JOIN "inserted" AS "k" ON "k"."id" = "n"."new$id"
        ORDER BY "n"."ordinal"
    LOOP
        IF v$enqueued THEN
            -- The same key may have been moving to the archive or the dead letters while this
            -- insert waited for it on the unique index: then that job holds it, not this one.
            v$existing := coalesce(coalesce((SELECT "f"."id" FROM "cards"."card_codes_archive" AS "f" WHERE "f"."card_number" = v$key_1)), (SELECT "o"."id" FROM "cards"."card_codes" AS "o" WHERE "o"."card_number" = v$key_1 AND "o"."id" <> v$id LIMIT 1));
            IF v$existing IS NOT NULL THEN
                DELETE FROM "cards"."card_codes" AS "job" WHERE "job"."id" = v$id;
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
            FROM "cards"."card_codes" AS "e"
            WHERE "e"."card_number" = v$key_1;
            IF v$id IS NULL THEN
                v$id := coalesce((SELECT "f"."id" FROM "cards"."card_codes_archive" AS "f" WHERE "f"."card_number" = v$key_1));
            END IF;
        END IF;
        "ordinal" := v$ordinal;
        "id" := v$id;
        "enqueued" := v$enqueued;
        RETURN NEXT;
    END LOOP;
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_enqueue_batch" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_enqueue_batch" FROM PUBLIC;
