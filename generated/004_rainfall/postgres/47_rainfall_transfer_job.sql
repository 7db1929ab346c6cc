-- qgen 0.1.0: job rainfall.rainfall_transfer_job, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One job's state by id, wherever it is: queued, scheduled (delayed, or backing off after a failure),
-- in_flight (leased: lease_expires_at, lease_owner), processed (on_complete: mark), archived, dead (with
-- last_error), or not_found. Reads only, one row always: plain snapshot reads, which take no row
-- lock, never wait on one and make no worker wait. It looks where a job goes in the order it goes
-- there (the queue table, then the dead letters, then the archive), one statement each: a job that
-- moves meanwhile is found where it arrived (each statement's snapshot is at least as new as the
-- one before), never missed. A job a delete-mode claim holds in an open transaction is still
-- queued here (the last committed state). The archive has no index on id (every completion would
-- pay for one): it is read from its newest entry back.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_job"
(
    "job_id" bigint
)
RETURNS TABLE
(
    "id" bigint,
    "state" text,
    "enqueued_at" timestamptz,
    "attempts" integer,
    "last_error" text,
    "finished_at" timestamptz
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "rainfall_transfer_job"."job_id" IS NULL OR "rainfall_transfer_job"."job_id" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: job_id ' || coalesce("rainfall_transfer_job"."job_id"::text, 'NULL') || ' is out of range for rainfall.rainfall_transfer_job; accepted: a job id, 1 or more';
    END IF;
    RETURN QUERY
    SELECT "j"."id", 'queued'::text,
        "j"."enqueued_at",
        NULL::integer,
        NULL::text, NULL::timestamptz
    FROM "rainfall"."rainfall_transfer" AS "j"
    WHERE "j"."id" = "rainfall_transfer_job"."job_id";
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "rainfall_transfer_job"."job_id", 'not_found'::text, NULL::timestamptz, NULL::integer,
        NULL::text, NULL::timestamptz;
END
$qgen$;
ALTER FUNCTION "rainfall"."rainfall_transfer_job" OWNER TO "rainfall_owner";
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_job" FROM PUBLIC;
