-- qgen 0.1.0: processed_index rainfall.rainfall_events_processed_ix, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes processed jobs by age: only processed rows are indexed, by when they were processed.
CREATE INDEX IF NOT EXISTS "rainfall_events_processed_ix"
    ON "rainfall"."rainfall_events" ("processed_at")
    WHERE "processed";
