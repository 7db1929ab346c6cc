-- qgen 0.1.0: resume four.four_queue_resume, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again. Returns 1 when this call
-- resumed the queue, 0 when it was not paused.
CREATE OR REPLACE FUNCTION "four"."four_queue_resume"()
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$changed integer;
BEGIN
    UPDATE "four"."four_queue_control" AS "c"
    SET "paused" = FALSE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row" AND "c"."paused";
    GET DIAGNOSTICS v$changed = ROW_COUNT;
    RETURN v$changed;
END
$qgen$;
ALTER FUNCTION "four"."four_queue_resume" OWNER TO "four_owner";
REVOKE ALL ON FUNCTION "four"."four_queue_resume" FROM PUBLIC;
