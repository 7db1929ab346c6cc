-- qgen 0.1.0: claim_index rainfall.rainfall_events_claim_ix, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Rows in claim order, leased ones included (a claim writes no column this index names: a HOT
-- update); a claim starts at the watermark and steps over the jobs in flight there.
CREATE INDEX IF NOT EXISTS "rainfall_events_claim_ix"
    ON "rainfall"."rainfall_events" ("id")
    WHERE "processed" = FALSE
    ;
