-- qgen 0.1.0: archive_table cards.card_codes_archive, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Completed jobs, moved here by dequeue and removed by purge after the retention period.
CREATE TABLE IF NOT EXISTS "cards"."card_codes_archive"
(
    "id" bigint NOT NULL,
    "card_number" varchar(32) NOT NULL,
    "card_secret" varchar(64) NOT NULL,
    "enqueued_at" timestamptz NOT NULL,
    "completed_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("id")
);
-- purge deletes by age.
CREATE INDEX IF NOT EXISTS "card_codes_archive_completed_at_ix" ON "cards"."card_codes_archive" ("completed_at");
