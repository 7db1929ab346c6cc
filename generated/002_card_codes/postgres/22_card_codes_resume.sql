-- qgen 0.1.0: resume cards.card_codes_resume, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again. Returns 1 when this call
-- resumed the queue, 0 when it was not paused.
CREATE OR REPLACE FUNCTION "cards"."card_codes_resume"()
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$changed integer;
BEGIN
    UPDATE "cards"."card_codes_control" AS "c"
    SET "paused" = FALSE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row" AND "c"."paused";
    GET DIAGNOSTICS v$changed = ROW_COUNT;
    RETURN v$changed;
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_resume" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_resume" FROM PUBLIC;
