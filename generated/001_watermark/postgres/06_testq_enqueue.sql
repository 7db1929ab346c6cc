-- qgen 0.1.0: enqueue ghosts.testq_enqueue, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "ghosts"."testq_enqueue"
(
    "filler" varchar(400)
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF pg_catalog.length("testq_enqueue"."filler") > 400 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: filler is past its column''s limit in ghosts.testq_enqueue; accepted: string(400), at most 400 characters';
    END IF;
    RETURN QUERY
        INSERT INTO "ghosts"."testq" AS "job" ("filler")
        VALUES ("testq_enqueue"."filler")
        RETURNING "job"."id", TRUE;
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_enqueue" OWNER TO "ghosts_owner";
REVOKE ALL ON FUNCTION "ghosts"."testq_enqueue" FROM PUBLIC;
