-- qgen 0.1.0: dead_letter_table QueueSample.WorkQueue_dead, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: "id" is the job's id, which repeats once the queue's identity is restarted.
CREATE TABLE IF NOT EXISTS "QueueSample"."WorkQueue_dead"
(
    "entry_id" bigint GENERATED ALWAYS AS IDENTITY,
    "id" bigint NOT NULL,
    "JobType" uuid NOT NULL,
    "JobInfo" xml NULL,
    "enqueued_at" timestamptz NOT NULL,
    "enqueued_by" varchar(128) NULL,
    "claimed_at" timestamptz NULL,
    "claimed_by" varchar(128) NULL,
    "attempts" integer NOT NULL,
    "last_error" varchar(4000) NULL,
    "dead_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("entry_id")
);
ALTER TABLE "QueueSample"."WorkQueue_dead" OWNER TO "QueueSample_owner";
