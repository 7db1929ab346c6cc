-- qgen 0.1.0: job four.four_queue_job, rendered for PostgreSQL from 000_flag_worker.yaml.
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
CREATE OR REPLACE FUNCTION "four"."four_queue_job"
(
    "job_id" bigint
)
RETURNS TABLE
(
    "id" bigint,
    "state" text,
    "enqueued_at" timestamptz,
    "available_at" timestamptz,
    "attempts" integer,
    "lease_owner" text,
    "lease_expires_at" timestamptz,
    "last_error" text,
    "finished_at" timestamptz
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "four_queue_job"."job_id" IS NULL OR "four_queue_job"."job_id" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: job_id ' || coalesce("four_queue_job"."job_id"::text, 'NULL') || ' is out of range for four.four_queue_job; accepted: a job id, 1 or more';
    END IF;
    RETURN QUERY
    SELECT "j"."id", CASE WHEN "j"."processed" THEN 'processed' WHEN "j"."lease_token" IS NOT NULL THEN 'in_flight' WHEN "j"."available_at" > now() THEN 'scheduled' ELSE 'queued' END,
        "j"."enqueued_at", "j"."available_at",
        "j"."attempts", "j"."lease_owner"::text, "j"."lease_expires_at",
        "j"."last_error"::text, "j"."processed_at"
    FROM "four"."four_queue" AS "j"
    WHERE "j"."id" = "four_queue_job"."job_id";
    IF FOUND THEN
        RETURN;
    END IF;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is restarted.
    RETURN QUERY
    SELECT "x"."id", 'dead'::text, "x"."enqueued_at", NULL::timestamptz, "x"."attempts", NULL::text, NULL::timestamptz,
        "x"."last_error"::text, "x"."dead_at"
    FROM "four"."four_queue_dead" AS "x"
    WHERE "x"."id" = "four_queue_job"."job_id"
    ORDER BY "x"."entry_id" DESC
    LIMIT 1;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "four_queue_job"."job_id", 'not_found'::text, NULL::timestamptz, NULL::timestamptz, NULL::integer, NULL::text, NULL::timestamptz,
        NULL::text, NULL::timestamptz;
END
$qgen$;
ALTER FUNCTION "four"."four_queue_job" OWNER TO "four_owner";
REVOKE ALL ON FUNCTION "four"."four_queue_job" FROM PUBLIC;
