-- qgen 0.1.0: metrics QueueSample.WorkQueue_metrics, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "QueueSample"."WorkQueue_metrics"()
RETURNS TABLE
(
    "ready" bigint,
    "scheduled" bigint,
    "in_flight" bigint,
    "expired" bigint,
    "processed" bigint,
    "dead" bigint,
    "archived" bigint,
    "oldest_ready_age_seconds" bigint,
    "watermark" bigint,
    "lowest_pending_id" bigint,
    "completed_last_minute" bigint,
    "watermark_lag" bigint,
    "paused" boolean
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT
        count(*) FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."available_at" <= now()),
        count(*) FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."available_at" > now()),
        count(*) FILTER (WHERE "job"."lease_token" IS NOT NULL),
        count(*) FILTER (WHERE "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < now()),
        count(*) FILTER (WHERE "job"."processed"),
        (SELECT count(*) FROM "QueueSample"."WorkQueue_dead"),
        0::bigint,
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."available_at" <= now())))::bigint, 0),
        (SELECT "w"."id" FROM "QueueSample"."WorkQueue_watermark" AS "w"),
        min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE),
        count(*) FILTER (WHERE "job"."processed" AND "job"."processed_at" >= now() - interval '1 minute'),
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        coalesce(min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE), max("job"."id") + 1)
            - (SELECT "w"."id" FROM "QueueSample"."WorkQueue_watermark" AS "w"),
        NOT EXISTS (SELECT 1 FROM "QueueSample"."WorkQueue_control" AS "c" WHERE NOT "c"."paused")
    FROM "QueueSample"."WorkQueue" AS "job";
END
$qgen$;
ALTER FUNCTION "QueueSample"."WorkQueue_metrics" OWNER TO "QueueSample_owner";
REVOKE ALL ON FUNCTION "QueueSample"."WorkQueue_metrics" FROM PUBLIC;
