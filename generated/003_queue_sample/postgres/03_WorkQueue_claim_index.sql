-- qgen 0.1.0: claim_index QueueSample.WorkQueue_claim_ix, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
CREATE INDEX IF NOT EXISTS "WorkQueue_claim_ix"
    ON "QueueSample"."WorkQueue" ("JobType", "id")
    WHERE "processed" = FALSE
    ;
