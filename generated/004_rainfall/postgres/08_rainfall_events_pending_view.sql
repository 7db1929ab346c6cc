-- qgen 0.1.0: pending_view rainfall.rainfall_events_pending, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "rainfall"."rainfall_events_pending" AS
SELECT "job"."id", "job"."rainfall_id", "job"."available_at", "job"."enqueued_at", "job"."attempts", "job"."last_error"
FROM "rainfall"."rainfall_events" AS "job"
WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE;
ALTER VIEW "rainfall"."rainfall_events_pending" OWNER TO "rainfall_owner";
