-- qgen 0.1.0: processed_index QueueSample.WorkQueue_processed_ix, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes processed jobs by age: only processed rows are indexed, by when they were processed.
CREATE INDEX IF NOT EXISTS "WorkQueue_processed_ix"
    ON "QueueSample"."WorkQueue" ("processed_at")
    WHERE "processed";
