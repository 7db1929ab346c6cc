-- qgen 0.1.0: control_table rainfall.rainfall_transfer_control, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which role). Every
-- claim reads it first (a plain read: a pause or resume counts from its commit, and no claim waits
-- on one left open). A missing row (deleted by hand) reads as running.
CREATE TABLE IF NOT EXISTS "rainfall"."rainfall_transfer_control"
(
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    "paused" boolean NOT NULL DEFAULT FALSE,
    "changed_at" timestamptz NULL,
    "changed_by" varchar(128) NULL,
    PRIMARY KEY ("one_row")
);
ALTER TABLE "rainfall"."rainfall_transfer_control" OWNER TO "rainfall_owner";
INSERT INTO "rainfall"."rainfall_transfer_control" ("paused") VALUES (FALSE) ON CONFLICT DO NOTHING;
