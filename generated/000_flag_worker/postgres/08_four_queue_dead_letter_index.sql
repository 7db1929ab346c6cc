-- qgen 0.1.0: dead_letter_index four.four_queue_dead_ix, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
CREATE INDEX IF NOT EXISTS "four_queue_dead_ix"
    ON "four"."four_queue_dead" ("dead_at");
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
CREATE INDEX IF NOT EXISTS "four_queue_dead_id_ix"
    ON "four"."four_queue_dead" ("id");
