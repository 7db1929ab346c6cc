-- qgen 0.1.0: metrics rainfall.rainfall_transfer_metrics, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_metrics"()
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
        count(*) FILTER (WHERE 1 = 1),
        0::bigint,
        0::bigint,
        0::bigint,
        0::bigint,
        0::bigint,
        0::bigint,
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE 1 = 1)))::bigint, 0),
        (SELECT "w"."id" FROM "rainfall"."rainfall_transfer_watermark" AS "w"),
        min("job"."id") FILTER (WHERE 1 = 1),
        -- on_complete: delete leaves no trace of a completion to count.
        NULL::bigint,
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        coalesce(min("job"."id") FILTER (WHERE 1 = 1), max("job"."id") + 1)
            - (SELECT "w"."id" FROM "rainfall"."rainfall_transfer_watermark" AS "w"),
        NOT EXISTS (SELECT 1 FROM "rainfall"."rainfall_transfer_control" AS "c" WHERE NOT "c"."paused")
    FROM "rainfall"."rainfall_transfer" AS "job";
END
$qgen$;
ALTER FUNCTION "rainfall"."rainfall_transfer_metrics" OWNER TO "rainfall_owner";
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_metrics" FROM PUBLIC;
