-- qgen 0.1.0: purge_batch cards.card_codes_purge_batch, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds: at most batch_size rows (1000 by default, refused above 4000) over all
-- those tables together, in the caller's transaction. purge (a procedure) calls it in a loop and
-- commits after each batch; a client can call it in a loop of its own, one transaction per call.
CREATE OR REPLACE FUNCTION "cards"."card_codes_purge_batch"
(
    "older_than_seconds" integer DEFAULT 31536000,
    "batch_size" integer DEFAULT 1000
)
RETURNS TABLE ("archived" integer, "processed" integer, "dead" integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$cutoff timestamptz;
    v$left integer := "card_codes_purge_batch"."batch_size";
    v$deleted integer;
BEGIN
    IF "card_codes_purge_batch"."batch_size" IS NULL OR "card_codes_purge_batch"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("card_codes_purge_batch"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF "card_codes_purge_batch"."older_than_seconds" IS NULL OR "card_codes_purge_batch"."older_than_seconds" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: older_than_seconds ' || coalesce("card_codes_purge_batch"."older_than_seconds"::text, 'NULL') || ' is out of range; accepted: 0 or more';
    END IF;
    v$cutoff := now() - pg_catalog.make_interval(secs => "card_codes_purge_batch"."older_than_seconds");
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    IF v$left > 0 THEN
        DELETE FROM "cards"."card_codes_archive" AS "x"
        WHERE "x"."entry_id" = ANY (ARRAY(
            SELECT "y"."entry_id" FROM "cards"."card_codes_archive" AS "y"
            WHERE "y"."completed_at" < v$cutoff
            LIMIT v$left
            FOR UPDATE SKIP LOCKED));
        GET DIAGNOSTICS v$deleted = ROW_COUNT;
        "archived" := v$deleted;
        v$left := v$left - v$deleted;
    END IF;
    IF v$left > 0 THEN
        DELETE FROM "cards"."card_codes_dead" AS "x"
        WHERE "x"."entry_id" = ANY (ARRAY(
            SELECT "y"."entry_id" FROM "cards"."card_codes_dead" AS "y"
            WHERE "y"."dead_at" < v$cutoff
            LIMIT v$left
            FOR UPDATE SKIP LOCKED));
        GET DIAGNOSTICS v$deleted = ROW_COUNT;
        "dead" := v$deleted;
        v$left := v$left - v$deleted;
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_purge_batch" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_purge_batch" FROM PUBLIC;
