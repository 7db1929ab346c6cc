-- qgen 0.1.0: claim_index rainfall.rainfall_events_claim_ix, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
CREATE INDEX IF NOT EXISTS "rainfall_events_claim_ix"
    ON "rainfall"."rainfall_events" ("id")
    WHERE "processed" = FALSE
    ;
