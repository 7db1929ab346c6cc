-- qgen 0.1.0: every object of 000_flag_worker.yaml, for PostgreSQL, in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema four, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
CREATE SCHEMA IF NOT EXISTS "four";

-- qgen 0.1.0: roles four_admin, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'four_producer') THEN
        CREATE ROLE "four_producer" NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'four_consumer') THEN
        CREATE ROLE "four_consumer" NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'four_admin') THEN
        CREATE ROLE "four_admin" NOLOGIN;
    END IF;
END
$qgen$;

-- qgen 0.1.0: table four.four_queue, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- fillfactor: room on each page, so a lease update can put the new row version next to the old one.
CREATE TABLE IF NOT EXISTS "four"."four_queue"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "reputation" integer NOT NULL,
    "available_at" timestamptz NOT NULL DEFAULT now(),
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    "attempts" integer NOT NULL DEFAULT 0,
    "lease_token" uuid NULL,
    "lease_owner" varchar(128) NULL,
    "lease_expires_at" timestamptz NULL,
    "last_error" varchar(4000) NULL,
    "processed" boolean NOT NULL DEFAULT FALSE,
    "processed_at" timestamptz NULL,
    PRIMARY KEY ("id")
) WITH (fillfactor = 85);

-- qgen 0.1.0: claim_index four.four_queue_claim_ix, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
CREATE INDEX IF NOT EXISTS "four_queue_claim_ix"
    ON "four"."four_queue" ("id")
    WHERE "lease_token" IS NULL AND "processed" = FALSE
    ;

-- qgen 0.1.0: dedupe_index four.four_queue_dedupe_ux, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there.
CREATE UNIQUE INDEX IF NOT EXISTS "four_queue_dedupe_ux"
    ON "four"."four_queue" ("reputation");

-- qgen 0.1.0: lease_index four.four_queue_lease_ix, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
CREATE INDEX IF NOT EXISTS "four_queue_lease_ix"
    ON "four"."four_queue" ("lease_token") INCLUDE ("lease_expires_at", "attempts")
    WHERE "lease_token" IS NOT NULL;

-- qgen 0.1.0: watermark_table four.four_queue_watermark, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their index range here instead of
-- walking the dead index entries that claimed or deleted rows leave at the low end.
CREATE TABLE IF NOT EXISTS "four"."four_queue_watermark"
(
    "id" bigint NOT NULL,
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    PRIMARY KEY ("one_row")
);
INSERT INTO "four"."four_queue_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dead_letter_table four.four_queue_dead, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged.
CREATE TABLE IF NOT EXISTS "four"."four_queue_dead"
(
    "id" bigint NOT NULL,
    "reputation" integer NOT NULL,
    "enqueued_at" timestamptz NOT NULL,
    "attempts" integer NOT NULL,
    "last_error" varchar(4000) NULL,
    "dead_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("id")
);

-- qgen 0.1.0: pending_view four.four_queue_pending, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "four"."four_queue_pending" AS
SELECT "job"."id", "job"."reputation", "job"."available_at", "job"."enqueued_at", "job"."attempts", "job"."last_error"
FROM "four"."four_queue" AS "job"
WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE;

-- qgen 0.1.0: batch_type four.four_queue_batch, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) when missing, and the table rejects a missing required column.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"four"."four_queue_batch"') IS NULL THEN
        CREATE TYPE "four"."four_queue_batch" AS
        (
            "ordinal" integer,
            "reputation" integer
        );
    END IF;
END
$qgen$;

-- qgen 0.1.0: enqueue four.four_queue_enqueue, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "four"."four_queue_enqueue"
(
    "reputation" integer
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- ON CONFLICT waits for a concurrent insert of the same key to commit or roll back, so two
    -- sessions can never both enqueue it, and no subtransaction is needed to catch the violation.
    -- The existing row can be finished and deleted between the conflict and the lookup: then try again.
    LOOP
        INSERT INTO "four"."four_queue" AS "job" ("reputation")
            VALUES ("four_queue_enqueue"."reputation")
            ON CONFLICT ("reputation") DO NOTHING
            RETURNING "job"."id" INTO "id";
        IF FOUND THEN
            "enqueued" := TRUE;
            RETURN NEXT;
            RETURN;
        END IF;
        SELECT "e"."id" INTO "id"
        FROM "four"."four_queue" AS "e"
        WHERE "e"."reputation" = "four_queue_enqueue"."reputation";
        IF FOUND THEN
            "enqueued" := FALSE;
            RETURN NEXT;
            RETURN;
        END IF;
    END LOOP;
END
$qgen$;
REVOKE ALL ON FUNCTION "four"."four_queue_enqueue" FROM PUBLIC;

-- qgen 0.1.0: enqueue_batch four.four_queue_enqueue_batch, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job: a job already
-- queued, or repeated earlier in the batch, returns that id with enqueued = false.
CREATE OR REPLACE FUNCTION "four"."four_queue_enqueue_batch"
(
    "jobs" jsonb
)
RETURNS TABLE ("ordinal" integer, "id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    -- The ids are drawn before the insert, so each input job knows its id whether or not it is inserted.
    v_sequence regclass := pg_catalog.pg_get_serial_sequence('"four"."four_queue"', 'id')::regclass;
    v_ordinal integer;
    v_id bigint;
    v_enqueued boolean;
    v_key_1 integer;
BEGIN
    FOR v_ordinal, v_id, v_enqueued, v_key_1 IN
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "j"."ordinality"::integer) AS "ordinal",
                   "j"."reputation"
            FROM jsonb_populate_recordset(NULL::"four"."four_queue_batch", "four_queue_enqueue_batch"."jobs") WITH ORDINALITY AS "j"
        ),
        "numbered" AS
        (
            -- A volatile target list runs after ORDER BY, so the ids follow the ordinals.
            SELECT "i".*, nextval(v_sequence) AS "new_id"
            FROM "input" AS "i"
            ORDER BY "i"."ordinal"
        ),
        "inserted" AS
        (
            INSERT INTO "four"."four_queue" AS "job" ("id", "reputation")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new_id", "n"."reputation"
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            -- A key already queued, or repeated in the batch, is skipped here and reported below.
            ON CONFLICT ("reputation") DO NOTHING
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal",
               CASE WHEN "k"."id" IS NOT NULL THEN "n"."new_id"
                    ELSE coalesce(
                        -- A job queued before this statement ...
                        (SELECT "e"."id" FROM "four"."four_queue" AS "e" WHERE "e"."reputation" = "n"."reputation"),
                        -- ... or the first job of this batch with that key.
                        (SELECT min("d"."new_id") FROM "numbered" AS "d" INNER JOIN "inserted" AS "x" ON "x"."id" = "d"."new_id"
                         WHERE "d"."reputation" = "n"."reputation"))
               END,
               "k"."id" IS NOT NULL,
               "n"."reputation"
        FROM "numbered" AS "n"
        LEFT JOIN "inserted" AS "k" ON "k"."id" = "n"."new_id"
        ORDER BY "n"."ordinal"
    LOOP
        IF v_id IS NULL THEN
            -- Another session committed this key while the statement ran (ON CONFLICT saw it, the
            -- statement's snapshot did not): a new statement sees it.
            SELECT "e"."id" INTO v_id
            FROM "four"."four_queue" AS "e"
            WHERE "e"."reputation" = v_key_1;
        END IF;
        "ordinal" := v_ordinal;
        "id" := v_id;
        "enqueued" := v_enqueued;
        RETURN NEXT;
    END LOOP;
END
$qgen$;
REVOKE ALL ON FUNCTION "four"."four_queue_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: watermark_move four.four_queue_watermark_move, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR REPLACE FUNCTION "four"."four_queue_watermark_move"
(
    "claimed_from" bigint
)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v_current bigint;
    v_target bigint := "four_queue_watermark_move"."claimed_from" - 50;
    v_lowest bigint;
BEGIN
    -- SKIP LOCKED: a session already moving it (or a release lowering it) wins; this one skips.
    SELECT "w"."id" INTO v_current FROM "four"."four_queue_watermark" AS "w" FOR UPDATE SKIP LOCKED;
    IF NOT FOUND OR v_current >= v_target THEN
        RETURN;
    END IF;
    -- A separate statement, so its snapshot is taken after the lock: a release that committed
    -- before is seen here, and one that commits after lowers the watermark itself.
    SELECT min("job"."id") INTO v_lowest
    FROM "four"."four_queue" AS "job"
    WHERE "job"."id" >= v_current AND "job"."id" < v_target AND "job"."lease_token" IS NULL AND "job"."processed" = FALSE;
    UPDATE "four"."four_queue_watermark" AS "w"
    SET "id" = coalesce(v_lowest, v_target)
    WHERE "w"."id" < coalesce(v_lowest, v_target);
END
$qgen$;
REVOKE ALL ON FUNCTION "four"."four_queue_watermark_move" FROM PUBLIC;

-- qgen 0.1.0: watermark_correct four.four_queue_watermark_correct, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids (the slack, for inserts still in flight) below
-- the lowest unclaimed id, or below the next id when every row is claimed or gone (the table's highest
-- id, or its identity when it is empty), never below 0. Run it from a periodic job and after a
-- dequeue that found nothing; it repairs a watermark that is wrong either way.
CREATE OR REPLACE FUNCTION "four"."four_queue_watermark_correct"()
RETURNS TABLE ("old_watermark" bigint, "new_watermark" bigint)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v_new bigint;
BEGIN
    -- Wait for a mover or a release holding the row; the scan below then starts after it committed.
    SELECT "w"."id" INTO "old_watermark" FROM "four"."four_queue_watermark" AS "w" FOR UPDATE;
    SELECT min("job"."id") INTO v_new FROM "four"."four_queue" AS "job" WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE;
    IF v_new IS NULL THEN
        SELECT max("job"."id") + 1 INTO v_new FROM "four"."four_queue" AS "job";
    END IF;
    IF v_new IS NULL THEN
        -- Drained: the next id comes from the identity. Left where it was, a watermark a release
        -- had lowered would make every claim walk the whole drained range again.
        v_new := pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence('"four"."four_queue"', 'id')::regclass) + 1;
    END IF;
    -- greatest() skips NULLs, so a table never inserted into (v_new NULL) must not reach it.
    "new_watermark" := CASE WHEN v_new IS NULL THEN coalesce("old_watermark", 0)
                            ELSE greatest(v_new - 50, 0) END;
    IF "old_watermark" IS NULL THEN
        -- The row was deleted by hand: put it back.
        INSERT INTO "four"."four_queue_watermark" ("id") VALUES ("four_queue_watermark_correct"."new_watermark") ON CONFLICT DO NOTHING;
    ELSIF "new_watermark" <> "old_watermark" THEN
        UPDATE "four"."four_queue_watermark" AS "w" SET "id" = "four_queue_watermark_correct"."new_watermark";
    END IF;
    RETURN NEXT;
END
$qgen$;
REVOKE ALL ON FUNCTION "four"."four_queue_watermark_correct" FROM PUBLIC;

-- qgen 0.1.0: dequeue four.four_queue_dequeue, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"four"."four_queue_dequeue_row"') IS NULL THEN
        CREATE TYPE "four"."four_queue_dequeue_row" AS
        (
            "id" bigint,
            "reputation" integer,
            "attempts" integer,
            "lease_token" uuid,
            "lease_expires_at" timestamptz
        );
    END IF;
END
$qgen$;
-- Claims up to batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With complete_lease_token it first completes that lease's jobs as complete(token) does, in the
-- same transaction: one commit per batch instead of two. A token that holds no job raises QG001
-- and nothing is claimed.
CREATE OR REPLACE FUNCTION "four"."four_queue_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 1,
    "lease_seconds" integer DEFAULT 300,
    "complete_lease_token" uuid DEFAULT NULL
)
RETURNS SETOF "four"."four_queue_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 1
AS $qgen$
#variable_conflict use_column
DECLARE
    v_token uuid := gen_random_uuid();
    v_completed integer;
    v_job "four"."four_queue_dequeue_row";
    v_lowest bigint;
    v_highest bigint;
BEGIN
    IF "four_queue_dequeue"."complete_lease_token" IS NOT NULL THEN
        UPDATE "four"."four_queue" AS "job"
        SET "processed" = TRUE, "processed_at" = now(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
        WHERE "job"."lease_token" = "four_queue_dequeue"."complete_lease_token";
        GET DIAGNOSTICS v_completed = ROW_COUNT;
        IF v_completed = 0 THEN
            RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
        END IF;
    END IF;
    FOR v_job IN
        WITH "claimed" AS
        (
            UPDATE "four"."four_queue" AS "job"
            SET "lease_token" = v_token,
                "lease_owner" = "four_queue_dequeue"."owner",
                "lease_expires_at" = now() + pg_catalog.make_interval(secs => "four_queue_dequeue"."lease_seconds"),
                "attempts" = "job"."attempts" + 1
            -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
            -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
            WHERE "job"."id" = ANY (ARRAY
            (
                SELECT "next"."id"
                FROM "four"."four_queue" AS "next"
                WHERE "next"."lease_token" IS NULL AND "next"."processed" = FALSE AND "next"."available_at" <= now()
                  -- Below the watermark every row is claimed or gone: start the index range there.
                  AND "next"."id" >= coalesce((SELECT "w"."id" FROM "four"."four_queue_watermark" AS "w"), 0)
                ORDER BY "next"."id"
                LIMIT "four_queue_dequeue"."batch_size"
                FOR UPDATE SKIP LOCKED
            ))
            RETURNING "job"."id", "job"."reputation", "job"."attempts", "job"."lease_token", "job"."lease_expires_at"
        )
        SELECT "c"."id", "c"."reputation", "c"."attempts", "c"."lease_token", "c"."lease_expires_at"
        FROM "claimed" AS "c"
        ORDER BY "c"."id"
    LOOP
        v_lowest := least(v_lowest, v_job."id");
        v_highest := greatest(v_highest, v_job."id");
        RETURN NEXT v_job;
    END LOOP;
    -- Move the watermark about once per 100 claimed ids: when this claim's ids cross a multiple of it.
    IF v_highest / 100 > (v_lowest - 1) / 100 THEN
        PERFORM "four"."four_queue_watermark_move"(v_lowest);
    END IF;
END
$qgen$;
REVOKE ALL ON FUNCTION "four"."four_queue_dequeue" FROM PUBLIC;

-- qgen 0.1.0: complete four.four_queue_complete, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: marks them processed. With id, only that job; without, every job of
-- the lease. The token is the fence: a worker whose lease was released or taken over gets QG001.
CREATE OR REPLACE FUNCTION "four"."four_queue_complete"
(
    "lease_token" uuid,
    "id" bigint DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v_completed integer;
BEGIN
    IF "four_queue_complete"."id" IS NULL THEN
        UPDATE "four"."four_queue" AS "job"
        SET "processed" = TRUE, "processed_at" = now(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
        WHERE "job"."lease_token" = "four_queue_complete"."lease_token";
        GET DIAGNOSTICS v_completed = ROW_COUNT;
    ELSE
        UPDATE "four"."four_queue" AS "job"
        SET "processed" = TRUE, "processed_at" = now(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
        WHERE "job"."id" = "four_queue_complete"."id" AND "job"."lease_token" = "four_queue_complete"."lease_token";
        GET DIAGNOSTICS v_completed = ROW_COUNT;
    END IF;
    IF v_completed = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v_completed;
END
$qgen$;
REVOKE ALL ON FUNCTION "four"."four_queue_complete" FROM PUBLIC;

-- qgen 0.1.0: fail four.four_queue_fail, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 5) and retry it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR REPLACE FUNCTION "four"."four_queue_fail"
(
    "lease_token" uuid,
    "id" bigint,
    "error" varchar(4000) DEFAULT NULL,
    "retry" boolean DEFAULT TRUE
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v_gone integer;
BEGIN
    IF "four_queue_fail"."retry" THEN
        UPDATE "four"."four_queue" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL,
            "last_error" = "four_queue_fail"."error",
            "available_at" = now() + pg_catalog.make_interval(secs => least(3600::float8, 10 * power(2::float8, least("job"."attempts" - 1, 60))))
        WHERE "job"."id" = "four_queue_fail"."id" AND "job"."lease_token" = "four_queue_fail"."lease_token"
          AND "job"."attempts" < 5;
        IF FOUND THEN
            -- The job is claimable again: the watermark must not stay above it.
            UPDATE "four"."four_queue_watermark" AS "w"
            SET "id" = "four_queue_fail"."id"
            WHERE "w"."id" > "four_queue_fail"."id";
            RETURN 0;
        END IF;
    END IF;
    -- No retry (asked, or attempts used up), or the token does not hold the job: then nothing matches.
    WITH "gone" AS
    (
        DELETE FROM "four"."four_queue" AS "job"
        WHERE "job"."id" = "four_queue_fail"."id" AND "job"."lease_token" = "four_queue_fail"."lease_token"
        RETURNING "job".*
    )
    INSERT INTO "four"."four_queue_dead" ("id", "reputation", "enqueued_at", "attempts", "last_error", "dead_at")
    SELECT "g"."id", "g"."reputation", "g"."enqueued_at", "g"."attempts", "four_queue_fail"."error", now()
    FROM "gone" AS "g";
    GET DIAGNOSTICS v_gone = ROW_COUNT;
    IF v_gone = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN 1;
END
$qgen$;
REVOKE ALL ON FUNCTION "four"."four_queue_fail" FROM PUBLIC;

-- qgen 0.1.0: extend_lease four.four_queue_extend_lease, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire lease_seconds from now.
CREATE OR REPLACE FUNCTION "four"."four_queue_extend_lease"
(
    "lease_token" uuid,
    "lease_seconds" integer DEFAULT 300,
    "id" bigint DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v_extended integer;
BEGIN
    IF "four_queue_extend_lease"."id" IS NULL THEN
        UPDATE "four"."four_queue" AS "job"
        SET "lease_expires_at" = now() + pg_catalog.make_interval(secs => "four_queue_extend_lease"."lease_seconds")
        WHERE "job"."lease_token" = "four_queue_extend_lease"."lease_token";
    ELSE
        UPDATE "four"."four_queue" AS "job"
        SET "lease_expires_at" = now() + pg_catalog.make_interval(secs => "four_queue_extend_lease"."lease_seconds")
        WHERE "job"."id" = "four_queue_extend_lease"."id" AND "job"."lease_token" = "four_queue_extend_lease"."lease_token";
    END IF;
    GET DIAGNOSTICS v_extended = ROW_COUNT;
    IF v_extended = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v_extended;
END
$qgen$;
REVOKE ALL ON FUNCTION "four"."four_queue_extend_lease" FROM PUBLIC;

-- qgen 0.1.0: reap four.four_queue_reap, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- batch_size per call: those with attempts left become claimable again, with their old token
-- cleared so the late worker is fenced off; the rest are dead-lettered.
CREATE OR REPLACE FUNCTION "four"."four_queue_reap"
(
    "batch_size" integer DEFAULT 1000
)
RETURNS TABLE ("released" integer, "dead_lettered" integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v_lowest bigint;
BEGIN
    WITH "expired" AS
    (
        -- SKIP LOCKED: a job being completed right now is locked by its worker; leave it to finish.
        SELECT "job"."id", "job"."attempts"
        FROM "four"."four_queue" AS "job"
        WHERE "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < now()
        LIMIT "four_queue_reap"."batch_size"
        FOR UPDATE SKIP LOCKED
    ),
    "freed" AS
    (
        UPDATE "four"."four_queue" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = now(),
            "last_error" = 'qgen: lease expired before the job was completed'
        FROM "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" < 5
        RETURNING "job"."id"
    ),
    "gone" AS
    (
        DELETE FROM "four"."four_queue" AS "job"
        USING "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" >= 5
        RETURNING "job".*
    ),
    "buried" AS
    (
        INSERT INTO "four"."four_queue_dead" ("id", "reputation", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."reputation", "g"."enqueued_at", "g"."attempts", 'qgen: lease expired on the last attempt', now()
        FROM "gone" AS "g"
    )
    SELECT (SELECT count(*) FROM "freed"), (SELECT count(*) FROM "gone"), (SELECT min("f"."id") FROM "freed" AS "f")
    INTO "released", "dead_lettered", v_lowest;
    IF v_lowest IS NOT NULL THEN
        -- Released jobs are claimable again: the watermark must not stay above them.
        UPDATE "four"."four_queue_watermark" AS "w"
        SET "id" = v_lowest
        WHERE "w"."id" > v_lowest;
    END IF;
    RETURN NEXT;
END
$qgen$;
REVOKE ALL ON FUNCTION "four"."four_queue_reap" FROM PUBLIC;

-- qgen 0.1.0: worker four.four_queue_worker, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Drains the queue from inside the database (seed 000's looping worker), so a scheduled job can run
-- it with CALL: claims one job at a time, calls four.count_users_with_reputation with id and the payload, completes the
-- job when the handler returns and fails it (retry or dead letter) when the handler raises. Stops
-- when nothing is claimable, after max_items jobs or after max_seconds (0: no limit); processed
-- reports the jobs handled.
-- It commits after every job, which PostgreSQL allows only in a procedure that is neither SECURITY
-- DEFINER nor has a SET clause: it runs with its caller's rights (admins only) and reaches the
-- queue through dequeue, complete and fail; every name in it is schema-qualified. CALL it outside
-- an explicit transaction block.
CREATE OR REPLACE PROCEDURE "four"."four_queue_worker"
(
    "max_items" integer DEFAULT 0,
    "max_seconds" integer DEFAULT 0,
    "owner" varchar(128) DEFAULT NULL,
    "lease_seconds" integer DEFAULT 300,
    INOUT "processed" integer DEFAULT NULL
)
LANGUAGE plpgsql
AS $qgen$
#variable_conflict use_column
DECLARE
    v_started timestamptz := pg_catalog.clock_timestamp();
    v_owner varchar(128) := coalesce("four_queue_worker"."owner", 'four_queue_worker:' || pg_catalog.pg_backend_pid());
    v_job "four"."four_queue_dequeue_row";
    v_state text;
    v_error text;
BEGIN
    "four_queue_worker"."processed" := 0;
    WHILE ("four_queue_worker"."max_items" = 0 OR "four_queue_worker"."processed" < "four_queue_worker"."max_items")
      AND ("four_queue_worker"."max_seconds" = 0 OR pg_catalog.clock_timestamp() < v_started + pg_catalog.make_interval(secs => "four_queue_worker"."max_seconds"))
    LOOP
        v_job := NULL;
        SELECT * INTO v_job
        FROM "four"."four_queue_dequeue"("owner" => v_owner, "batch_size" => 1, "lease_seconds" => "four_queue_worker"."lease_seconds");
        EXIT WHEN v_job."id" IS NULL;
        -- The claim is committed before the handler runs: if the handler takes the session down,
        -- the job stays leased, reap releases it and the attempt counts (a poison job ends dead).
        COMMIT;
        v_state := NULL;
        BEGIN
            CALL "four"."count_users_with_reputation"("id" => v_job."id", "reputation" => v_job."reputation");
            -- In the same block: if the lease was lost meanwhile (QG001), the handler's work is undone too.
            PERFORM "four"."four_queue_complete"(v_job."lease_token", v_job."id");
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS v_state = RETURNED_SQLSTATE, v_error = MESSAGE_TEXT;
        END;
        IF v_state IS NOT NULL AND v_state <> 'QG001' THEN
            BEGIN
                PERFORM "four"."four_queue_fail"(v_job."lease_token", v_job."id", pg_catalog.left(v_error, 4000));
            EXCEPTION WHEN SQLSTATE 'QG001' THEN
                NULL;  -- reaped and released while the handler ran: nothing left to fail
            END;
        END IF;
        "four_queue_worker"."processed" := "four_queue_worker"."processed" + 1;
        COMMIT;
    END LOOP;
END
$qgen$;
REVOKE ALL ON PROCEDURE "four"."four_queue_worker" FROM PUBLIC;

-- qgen 0.1.0: metrics four.four_queue_metrics, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "four"."four_queue_metrics"()
RETURNS TABLE
(
    "ready" bigint,
    "scheduled" bigint,
    "in_flight" bigint,
    "expired" bigint,
    "processed" bigint,
    "dead" bigint,
    "archived" bigint,
    "oldest_ready_age_seconds" bigint,
    "watermark" bigint,
    "lowest_pending_id" bigint
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT
        count(*) FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."available_at" <= now()),
        count(*) FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."available_at" > now()),
        count(*) FILTER (WHERE "job"."lease_token" IS NOT NULL),
        count(*) FILTER (WHERE "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < now()),
        count(*) FILTER (WHERE "job"."processed"),
        (SELECT count(*) FROM "four"."four_queue_dead"),
        0::bigint,
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."available_at" <= now())))::bigint, 0),
        (SELECT "w"."id" FROM "four"."four_queue_watermark" AS "w"),
        min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE)
    FROM "four"."four_queue" AS "job";
END
$qgen$;
REVOKE ALL ON FUNCTION "four"."four_queue_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek four.four_queue_peek, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue). Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "four"."four_queue_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "four"."four_queue_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT "p".*
    FROM "four"."four_queue_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "four_queue_peek"."limit";
END
$qgen$;
REVOKE ALL ON FUNCTION "four"."four_queue_peek" FROM PUBLIC;

-- qgen 0.1.0: purge four.four_queue_purge, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than older_than_seconds, in
-- batches of batch_size. A function cannot commit, so all batches share the caller's transaction:
-- batches bound each statement, not the transaction.
CREATE OR REPLACE FUNCTION "four"."four_queue_purge"
(
    "older_than_seconds" integer DEFAULT 604800,
    "batch_size" integer DEFAULT 10000
)
RETURNS TABLE ("archived" integer, "processed" integer, "dead" integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v_cutoff timestamptz := now() - pg_catalog.make_interval(secs => "four_queue_purge"."older_than_seconds");
    v_deleted integer;
BEGIN
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    LOOP
        DELETE FROM "four"."four_queue" AS "x"
        WHERE "x"."id" IN (SELECT "y"."id" FROM "four"."four_queue" AS "y" WHERE "y"."processed" AND "y"."processed_at" < v_cutoff LIMIT "four_queue_purge"."batch_size");
        GET DIAGNOSTICS v_deleted = ROW_COUNT;
        "processed" := "processed" + v_deleted;
        EXIT WHEN v_deleted < "four_queue_purge"."batch_size" OR v_deleted = 0;
    END LOOP;
    LOOP
        DELETE FROM "four"."four_queue_dead" AS "x"
        WHERE "x"."id" IN (SELECT "y"."id" FROM "four"."four_queue_dead" AS "y" WHERE "y"."dead_at" < v_cutoff LIMIT "four_queue_purge"."batch_size");
        GET DIAGNOSTICS v_deleted = ROW_COUNT;
        "dead" := "dead" + v_deleted;
        EXIT WHEN v_deleted < "four_queue_purge"."batch_size" OR v_deleted = 0;
    END LOOP;
    RETURN NEXT;
END
$qgen$;
REVOKE ALL ON FUNCTION "four"."four_queue_purge" FROM PUBLIC;

-- qgen 0.1.0: grants four_consumer, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "four" TO "four_producer", "four_consumer", "four_admin";
GRANT EXECUTE ON FUNCTION "four"."four_queue_enqueue", "four"."four_queue_enqueue_batch" TO "four_producer";
GRANT USAGE ON TYPE "four"."four_queue_batch" TO "four_producer";
GRANT EXECUTE ON FUNCTION "four"."four_queue_dequeue", "four"."four_queue_complete", "four"."four_queue_fail", "four"."four_queue_extend_lease" TO "four_consumer";
GRANT USAGE ON TYPE "four"."four_queue_dequeue_row" TO "four_consumer";
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON FUNCTION "four"."four_queue_watermark_correct" TO "four_consumer";
GRANT SELECT ON "four"."four_queue_pending" TO "four_admin";
-- Admins run everything in the schema (the worker is a procedure: ROUTINES covers both).
GRANT EXECUTE ON ALL ROUTINES IN SCHEMA "four" TO "four_admin";
