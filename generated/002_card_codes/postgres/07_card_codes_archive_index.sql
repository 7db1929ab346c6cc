-- qgen 0.1.0: archive_index cards.card_codes_archive_ix, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes archived jobs by age: it finds the old ones here instead of scanning the archive.
CREATE INDEX IF NOT EXISTS "card_codes_archive_ix"
    ON "cards"."card_codes_archive" ("completed_at");
