-- qgen 0.1.0: table four.four_queue, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- fillfactor: room on each page, so a lease update can put the new row version next to the old one.
CREATE TABLE IF NOT EXISTS "four"."four_queue"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "reputation" integer NOT NULL,
    "available_at" timestamptz NOT NULL DEFAULT now(),
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    "attempts" integer NOT NULL DEFAULT 0,
    "lease_token" uuid NULL,
    "lease_owner" varchar(128) NULL,
    "lease_expires_at" timestamptz NULL,
    "last_error" varchar(4000) NULL,
    "processed" boolean NOT NULL DEFAULT FALSE,
    "processed_at" timestamptz NULL,
    PRIMARY KEY ("id")
) WITH (fillfactor = 85);
