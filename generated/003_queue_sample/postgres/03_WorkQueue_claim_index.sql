-- qgen 0.1.0: claim_index QueueSample.WorkQueue_claim_ix, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Rows in claim order, leased ones included (a claim writes no column this index names: a HOT
-- update); a claim starts at the watermark and steps over the jobs in flight there.
-- Deferred jobs (delayed, or released with a backoff) are left out of it: see the due index below.
CREATE INDEX IF NOT EXISTS "WorkQueue_claim_ix"
    ON "QueueSample"."WorkQueue" ("JobType", "id")
    WHERE "processed" = FALSE AND "available_at" <= "enqueued_at"
    ;
-- The due index: deferred jobs not yet claimed (a claim takes a job out of it), by the time they
-- become available. A claim takes the due ones from here first, so however many wait for their
-- time, no claim and no watermark steps over them.
CREATE INDEX IF NOT EXISTS "WorkQueue_claim_ix_due"
    ON "QueueSample"."WorkQueue" ("available_at", "id")
    WHERE "available_at" > "enqueued_at" AND "processed" = FALSE;
