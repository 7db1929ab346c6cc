-- qgen 0.1.0: dedupe_index cards.card_codes_dedupe_ux, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there.
CREATE UNIQUE INDEX IF NOT EXISTS "card_codes_dedupe_ux"
    ON "cards"."card_codes" ("card_number");
-- dedupe.scope: ever: a finished job keeps its key in card_codes_archive until purge removes it; enqueue looks
-- here, and the index refuses a second job with the key even if something bypassed enqueue.
CREATE UNIQUE INDEX IF NOT EXISTS "card_codes_archive_dedupe_ux"
    ON "cards"."card_codes_archive" ("card_number");
