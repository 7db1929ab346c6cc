-- qgen 0.1.0: table rainfall.rainfall_transfer, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Storage fit for a queue table, whose rows are inserted, and deleted all day:
-- autovacuum_vacuum_scale_factor 0.01 (default 0.2): vacuum once 1% of the rows are dead, not 20%:
--   on a queue with a backlog, dead entries at the head of the claim index are what every claim
--   walks through, and 20% of a million-row backlog is 200,000 of them.
-- autovacuum_vacuum_threshold 1000 (default 50): but on a nearly empty queue, not after every 50
--   deleted jobs: a few vacuums a minute at most on a busy small queue.
-- autovacuum_analyze_scale_factor 0.02 (default 0.1): the row count swings with the backlog; keep
--   the statistics the planner sees close to it.
CREATE TABLE IF NOT EXISTS "rainfall"."rainfall_transfer"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "rainfall_id" bigint NOT NULL,
    "summary" varchar(400) NOT NULL,
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("id")
)
WITH (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
      autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "rainfall"."rainfall_transfer" OWNER TO "rainfall_owner";
