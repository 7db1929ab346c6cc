-- qgen 0.1.0: pending_view ghosts.testq_pending, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "ghosts"."testq_pending" AS
SELECT "job"."id", "job"."filler", "job"."enqueued_at"
FROM "ghosts"."testq" AS "job"
WHERE 1 = 1;
ALTER VIEW "ghosts"."testq_pending" OWNER TO "ghosts_owner";
