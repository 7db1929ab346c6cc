-- qgen 0.1.0: dead_letter_index cards.card_codes_dead_ix, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
CREATE INDEX IF NOT EXISTS "card_codes_dead_ix"
    ON "cards"."card_codes_dead" ("dead_at");
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
CREATE INDEX IF NOT EXISTS "card_codes_dead_id_ix"
    ON "cards"."card_codes_dead" ("id");
