-- qgen 0.1.0: table QueueSample.WorkQueue, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Storage fit for a queue table, whose rows are inserted, updated (leased, released) and deleted all day:
-- fillfactor 50: half of each page left free, so that a claim can put the new version of every row
--   of the page next to the old one, even for a batch that takes the whole page: a HOT update,
--   which writes no index entry (no index names a column a claim writes; see the claim index).
--   With 85, a batch of 10 claimed on 400-byte rows was HOT for 22% of its rows; with 50, 100%.
-- autovacuum_vacuum_scale_factor 0.01 (default 0.2): vacuum once 1% of the rows are dead, not 20%:
--   on a queue with a backlog, dead entries at the head of the claim index are what every claim
--   walks through, and 20% of a million-row backlog is 200,000 of them.
-- autovacuum_vacuum_threshold 1000 (default 50): but on a nearly empty queue, not after every 50
--   deleted jobs: a few vacuums a minute at most on a busy small queue.
-- autovacuum_analyze_scale_factor 0.02 (default 0.1): the row count swings with the backlog; keep
--   the statistics the planner sees close to it.
CREATE TABLE IF NOT EXISTS "QueueSample"."WorkQueue"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "JobType" uuid NOT NULL,
    "JobInfo" xml NULL,
    "available_at" timestamptz NOT NULL DEFAULT now(),
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    "enqueued_by" varchar(128) NULL,
    "attempts" integer NOT NULL DEFAULT 0,
    "lease_token" uuid NULL,
    "lease_owner" varchar(128) NULL,
    "lease_expires_at" timestamptz NULL,
    "claimed_at" timestamptz NULL,
    "claimed_by" varchar(128) NULL,
    "last_error" varchar(4000) NULL,
    "processed" boolean NOT NULL DEFAULT FALSE,
    "processed_at" timestamptz NULL,
    PRIMARY KEY ("id")
)
WITH (fillfactor = 50, autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
      autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "QueueSample"."WorkQueue" OWNER TO "QueueSample_owner";
