-- qgen 0.1.0: metrics rainfall.rainfall_events_metrics, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_metrics"()
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
        (SELECT count(*) FROM "rainfall"."rainfall_events_dead"),
        0::bigint,
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."available_at" <= now())))::bigint, 0),
        (SELECT "w"."id" FROM "rainfall"."rainfall_events_watermark" AS "w"),
        min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE),
        count(*) FILTER (WHERE "job"."processed" AND "job"."processed_at" >= now() - interval '1 minute'),
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        coalesce(min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE), max("job"."id") + 1)
            - (SELECT "w"."id" FROM "rainfall"."rainfall_events_watermark" AS "w"),
        NOT EXISTS (SELECT 1 FROM "rainfall"."rainfall_events_control" AS "c" WHERE NOT "c"."paused")
    FROM "rainfall"."rainfall_events" AS "job";
END
$qgen$;
ALTER FUNCTION "rainfall"."rainfall_events_metrics" OWNER TO "rainfall_owner";
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_metrics" FROM PUBLIC;
