-- qgen 0.1.0: claim_index four.four_queue_claim_ix, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Rows in claim order, leased ones included (a claim writes no column this index names: a HOT
-- update); a claim starts at the watermark and steps over the jobs in flight there.
CREATE INDEX IF NOT EXISTS "four_queue_claim_ix"
    ON "four"."four_queue" ("id")
    WHERE "processed" = FALSE
    ;
