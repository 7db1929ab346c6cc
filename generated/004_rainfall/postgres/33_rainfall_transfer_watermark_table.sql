-- qgen 0.1.0: watermark_table rainfall.rainfall_transfer_watermark, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their index range here instead of
-- walking the dead index entries that claimed or deleted rows leave at the low end.
CREATE TABLE IF NOT EXISTS "rainfall"."rainfall_transfer_watermark"
(
    "id" bigint NOT NULL,
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    -- When the table was last searched below the watermark (by a dequeue's rescan or
    -- watermark_correct): a dequeue rescans when this is watermark.rescan old.
    "corrected_at" timestamptz NOT NULL DEFAULT '-infinity',
    -- Where claims start the due index: no deferred job a claim may take is due before due_from,
    -- see postgres__due_bound_move. due_moved_at: when a dequeue last moved it.
    "due_from" timestamptz NOT NULL DEFAULT '-infinity',
    "due_moved_at" timestamptz NOT NULL DEFAULT '-infinity',
    PRIMARY KEY ("one_row")
);
ALTER TABLE "rainfall"."rainfall_transfer_watermark" OWNER TO "rainfall_owner";
INSERT INTO "rainfall"."rainfall_transfer_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;
