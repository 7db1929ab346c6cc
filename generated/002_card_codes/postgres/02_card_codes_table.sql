-- qgen 0.1.0: table cards.card_codes, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
CREATE TABLE IF NOT EXISTS "cards"."card_codes"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "card_number" varchar(32) NOT NULL,
    "card_secret" varchar(64) NOT NULL,
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("id")
);
