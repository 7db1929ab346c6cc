-- qgen 0.1.0: dedupe_index cards.card_codes_dedupe_ux, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there.
CREATE UNIQUE INDEX IF NOT EXISTS "card_codes_dedupe_ux"
    ON "cards"."card_codes" ("card_number");
