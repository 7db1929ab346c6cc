-- qgen 0.1.0: pending_view four.four_queue_pending, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "four"."four_queue_pending" AS
SELECT "job"."id", "job"."reputation", "job"."available_at", "job"."enqueued_at", "job"."attempts", "job"."last_error"
FROM "four"."four_queue" AS "job"
WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE;
ALTER VIEW "four"."four_queue_pending" OWNER TO "four_owner";
