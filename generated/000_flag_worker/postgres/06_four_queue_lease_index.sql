-- qgen 0.1.0: lease_index four.four_queue_lease_ix, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
CREATE INDEX IF NOT EXISTS "four_queue_lease_ix"
    ON "four"."four_queue" ("lease_token") INCLUDE ("lease_expires_at", "attempts")
    WHERE "lease_token" IS NOT NULL;
