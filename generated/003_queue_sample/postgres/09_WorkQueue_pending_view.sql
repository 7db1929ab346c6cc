-- qgen 0.1.0: pending_view QueueSample.WorkQueue_Pending, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "QueueSample"."WorkQueue_Pending" AS
SELECT "job"."id", "job"."JobType", "job"."JobInfo", "job"."available_at", "job"."enqueued_at", "job"."enqueued_by", "job"."attempts", "job"."last_error"
FROM "QueueSample"."WorkQueue" AS "job"
WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE;
ALTER VIEW "QueueSample"."WorkQueue_Pending" OWNER TO "QueueSample_owner";
