-- qgen 0.1.0: archive_table cards.card_codes_archive, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Completed jobs, moved here by dequeue and removed by purge after the retention period.
-- Keyed by an identity of its own: "id" is the job's id, which repeats once the queue's identity is
-- restarted (or when a job reaches the archive twice).
CREATE TABLE IF NOT EXISTS "cards"."card_codes_archive"
(
    "entry_id" bigint GENERATED ALWAYS AS IDENTITY,
    "id" bigint NOT NULL,
    "card_number" varchar(32) NOT NULL,
    "card_secret" varchar(64) NOT NULL,
    "enqueued_at" timestamptz NOT NULL,
    "completed_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("entry_id")
);
ALTER TABLE "cards"."card_codes_archive" OWNER TO "cards_owner";
