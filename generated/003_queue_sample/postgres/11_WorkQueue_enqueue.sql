-- qgen 0.1.0: enqueue QueueSample.QueueJob, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "QueueSample"."QueueJob"
(
    "JobType" uuid,
    "JobInfo" xml DEFAULT NULL,
    "enqueued_by" varchar(128) DEFAULT NULL
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF pg_catalog.length("QueueJob"."enqueued_by") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: enqueued_by is past its column''s limit in QueueSample.QueueJob; accepted: string(128), at most 128 characters';
    END IF;
    RETURN QUERY
        INSERT INTO "QueueSample"."WorkQueue" AS "job" ("JobType", "JobInfo", "enqueued_by")
        VALUES ("QueueJob"."JobType", "QueueJob"."JobInfo", coalesce("QueueJob"."enqueued_by", session_user::text))
        RETURNING "job"."id", TRUE;
END
$qgen$;
ALTER FUNCTION "QueueSample"."QueueJob" OWNER TO "QueueSample_owner";
REVOKE ALL ON FUNCTION "QueueSample"."QueueJob" FROM PUBLIC;
