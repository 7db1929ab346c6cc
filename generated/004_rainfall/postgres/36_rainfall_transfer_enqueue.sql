-- qgen 0.1.0: enqueue rainfall.rainfall_transfer_enqueue, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_enqueue"
(
    "rainfall_id" bigint,
    "summary" varchar(400)
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF pg_catalog.length("rainfall_transfer_enqueue"."summary") > 400 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: summary is past its column''s limit in rainfall.rainfall_transfer_enqueue; accepted: string(400), at most 400 characters';
    END IF;
    RETURN QUERY
        INSERT INTO "rainfall"."rainfall_transfer" AS "job" ("rainfall_id", "summary")
        VALUES ("rainfall_transfer_enqueue"."rainfall_id", "rainfall_transfer_enqueue"."summary")
        RETURNING "job"."id", TRUE;
END
$qgen$;
ALTER FUNCTION "rainfall"."rainfall_transfer_enqueue" OWNER TO "rainfall_owner";
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_enqueue" FROM PUBLIC;
