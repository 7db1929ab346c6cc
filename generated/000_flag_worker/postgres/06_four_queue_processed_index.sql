-- qgen 0.1.0: processed_index four.four_queue_processed_ix, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes processed jobs by age: only processed rows are indexed, by when they were processed.
CREATE INDEX IF NOT EXISTS "four_queue_processed_ix"
    ON "four"."four_queue" ("processed_at")
    WHERE "processed";
