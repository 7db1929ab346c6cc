-- qgen 0.1.0: claim_index four.four_queue_claim_ix, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
CREATE INDEX IF NOT EXISTS "four_queue_claim_ix"
    ON "four"."four_queue" ("id")
    WHERE "processed" = FALSE
    ;
