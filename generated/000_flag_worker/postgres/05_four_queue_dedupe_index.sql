-- qgen 0.1.0: dedupe_index four.four_queue_dedupe_ux, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there (processed rows included: dedupe.scope: ever).
CREATE UNIQUE INDEX IF NOT EXISTS "four_queue_dedupe_ux"
    ON "four"."four_queue" ("reputation");
-- dedupe.scope: ever: a finished job keeps its key in four_queue_dead until purge removes it; enqueue looks
-- here, and the index refuses a second job with the key even if something bypassed enqueue.
CREATE UNIQUE INDEX IF NOT EXISTS "four_queue_dead_dedupe_ux"
    ON "four"."four_queue_dead" ("reputation");
