-- qgen 0.1.0: pending_view rainfall.rainfall_transfer_pending, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "rainfall"."rainfall_transfer_pending" AS
SELECT "job"."id", "job"."rainfall_id", "job"."summary", "job"."enqueued_at"
FROM "rainfall"."rainfall_transfer" AS "job"
WHERE 1 = 1;
ALTER VIEW "rainfall"."rainfall_transfer_pending" OWNER TO "rainfall_owner";
