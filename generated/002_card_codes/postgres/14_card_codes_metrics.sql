-- qgen 0.1.0: metrics cards.card_codes_metrics, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "cards"."card_codes_metrics"()
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
        (SELECT count(*) FROM "cards"."card_codes_dead"),
        (SELECT count(*) FROM "cards"."card_codes_archive"),
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE 1 = 1)))::bigint, 0),
        NULL::bigint,
        min("job"."id") FILTER (WHERE 1 = 1),
        (SELECT count(*) FROM "cards"."card_codes_archive" AS "a" WHERE "a"."completed_at" >= now() - interval '1 minute'),
        NULL::bigint,
        NOT EXISTS (SELECT 1 FROM "cards"."card_codes_control" AS "c" WHERE NOT "c"."paused")
    FROM "cards"."card_codes" AS "job";
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_metrics" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_metrics" FROM PUBLIC;
