-- qgen 0.1.0: watermark_table four.four_queue_watermark, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their index range here instead of
-- walking the dead index entries that claimed or deleted rows leave at the low end.
CREATE TABLE IF NOT EXISTS "four"."four_queue_watermark"
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
ALTER TABLE "four"."four_queue_watermark" OWNER TO "four_owner";
INSERT INTO "four"."four_queue_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;
