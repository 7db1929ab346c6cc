-- qgen 0.1.0: claim_order_index QueueSample.WorkQueue_claim_order_ix, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A dequeue without a job type claims from every sub-queue, in queue order: WorkQueue_claim_ix is keyed
-- by job type first and cannot give that order, so this one does.
CREATE INDEX IF NOT EXISTS "WorkQueue_claim_order_ix"
    ON "QueueSample"."WorkQueue" ("id")
    WHERE "processed" = FALSE AND "available_at" <= "enqueued_at"
    ;
