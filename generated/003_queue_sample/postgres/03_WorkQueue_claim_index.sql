-- qgen 0.1.0: claim_index QueueSample.WorkQueue_claim_ix, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Rows in claim order, leased ones included (a claim writes no column this index names: a HOT
-- update); a claim starts at the watermark and steps over the jobs in flight there.
CREATE INDEX IF NOT EXISTS "WorkQueue_claim_ix"
    ON "QueueSample"."WorkQueue" ("JobType", "id")
    WHERE "processed" = FALSE
    ;
