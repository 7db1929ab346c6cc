-- qgen 0.1.0: every object of 004_rainfall.yaml, for PostgreSQL, in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema rainfall, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
CREATE SCHEMA IF NOT EXISTS "rainfall";

-- qgen 0.1.0: roles rainfall_admin, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'rainfall_producer') THEN
        CREATE ROLE "rainfall_producer" NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'rainfall_consumer') THEN
        CREATE ROLE "rainfall_consumer" NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'rainfall_admin') THEN
        CREATE ROLE "rainfall_admin" NOLOGIN;
    END IF;
END
$qgen$;

-- qgen 0.1.0: table rainfall.rainfall_events, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- fillfactor: room on each page, so a lease update can put the new row version next to the old one.
CREATE TABLE IF NOT EXISTS "rainfall"."rainfall_events"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "rainfall_id" bigint NOT NULL,
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

-- qgen 0.1.0: claim_index rainfall.rainfall_events_claim_ix, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
CREATE INDEX IF NOT EXISTS "rainfall_events_claim_ix"
    ON "rainfall"."rainfall_events" ("id")
    WHERE "lease_token" IS NULL AND "processed" = FALSE
    ;

-- qgen 0.1.0: lease_index rainfall.rainfall_events_lease_ix, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
CREATE INDEX IF NOT EXISTS "rainfall_events_lease_ix"
    ON "rainfall"."rainfall_events" ("lease_token") INCLUDE ("lease_expires_at", "attempts")
    WHERE "lease_token" IS NOT NULL;

-- qgen 0.1.0: watermark_table rainfall.rainfall_events_watermark, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their index range here instead of
-- walking the dead index entries that claimed or deleted rows leave at the low end.
CREATE TABLE IF NOT EXISTS "rainfall"."rainfall_events_watermark"
(
    "id" bigint NOT NULL,
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    PRIMARY KEY ("one_row")
);
INSERT INTO "rainfall"."rainfall_events_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dead_letter_table rainfall.rainfall_events_dead, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged.
CREATE TABLE IF NOT EXISTS "rainfall"."rainfall_events_dead"
(
    "id" bigint NOT NULL,
    "rainfall_id" bigint NOT NULL,
    "enqueued_at" timestamptz NOT NULL,
    "attempts" integer NOT NULL,
    "last_error" varchar(4000) NULL,
    "dead_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("id")
);

-- qgen 0.1.0: pending_view rainfall.rainfall_events_pending, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "rainfall"."rainfall_events_pending" AS
SELECT "job"."id", "job"."rainfall_id", "job"."available_at", "job"."enqueued_at", "job"."attempts", "job"."last_error"
FROM "rainfall"."rainfall_events" AS "job"
WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE;

-- qgen 0.1.0: batch_type rainfall.rainfall_events_batch, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) when missing, and the table rejects a missing required column.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"rainfall"."rainfall_events_batch"') IS NULL THEN
        CREATE TYPE "rainfall"."rainfall_events_batch" AS
        (
            "ordinal" integer,
            "rainfall_id" bigint
        );
    END IF;
END
$qgen$;

-- qgen 0.1.0: enqueue rainfall.rainfall_events_enqueue, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_enqueue"
(
    "rainfall_id" bigint
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        INSERT INTO "rainfall"."rainfall_events" AS "job" ("rainfall_id")
        VALUES ("rainfall_events_enqueue"."rainfall_id")
        RETURNING "job"."id", TRUE;
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_enqueue" FROM PUBLIC;

-- qgen 0.1.0: enqueue_batch rainfall.rainfall_events_enqueue_batch, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_enqueue_batch"
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
    v_sequence regclass := pg_catalog.pg_get_serial_sequence('"rainfall"."rainfall_events"', 'id')::regclass;
BEGIN
    RETURN QUERY
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "j"."ordinality"::integer) AS "ordinal",
                   "j"."rainfall_id"
            FROM jsonb_populate_recordset(NULL::"rainfall"."rainfall_events_batch", "rainfall_events_enqueue_batch"."jobs") WITH ORDINALITY AS "j"
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
            INSERT INTO "rainfall"."rainfall_events" AS "job" ("id", "rainfall_id")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new_id", "n"."rainfall_id"
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal", "n"."new_id", TRUE
        FROM "numbered" AS "n"
        ORDER BY "n"."ordinal";
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: watermark_move rainfall.rainfall_events_watermark_move, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_watermark_move"
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
    v_target bigint := "rainfall_events_watermark_move"."claimed_from" - 50;
    v_lowest bigint;
BEGIN
    -- SKIP LOCKED: a session already moving it (or a release lowering it) wins; this one skips.
    SELECT "w"."id" INTO v_current FROM "rainfall"."rainfall_events_watermark" AS "w" FOR UPDATE SKIP LOCKED;
    IF NOT FOUND OR v_current >= v_target THEN
        RETURN;
    END IF;
    -- A separate statement, so its snapshot is taken after the lock: a release that committed
    -- before is seen here, and one that commits after lowers the watermark itself.
    SELECT min("job"."id") INTO v_lowest
    FROM "rainfall"."rainfall_events" AS "job"
    WHERE "job"."id" >= v_current AND "job"."id" < v_target AND "job"."lease_token" IS NULL AND "job"."processed" = FALSE;
    UPDATE "rainfall"."rainfall_events_watermark" AS "w"
    SET "id" = coalesce(v_lowest, v_target)
    WHERE "w"."id" < coalesce(v_lowest, v_target);
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_watermark_move" FROM PUBLIC;

-- qgen 0.1.0: watermark_correct rainfall.rainfall_events_watermark_correct, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids (the slack, for inserts still in flight) below
-- the lowest unclaimed id, or below the next id when every row is claimed or gone (the table's highest
-- id, or its identity when it is empty), never below 0. Run it from a periodic job and after a
-- dequeue that found nothing; it repairs a watermark that is wrong either way.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_watermark_correct"()
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
    SELECT "w"."id" INTO "old_watermark" FROM "rainfall"."rainfall_events_watermark" AS "w" FOR UPDATE;
    SELECT min("job"."id") INTO v_new FROM "rainfall"."rainfall_events" AS "job" WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE;
    IF v_new IS NULL THEN
        SELECT max("job"."id") + 1 INTO v_new FROM "rainfall"."rainfall_events" AS "job";
    END IF;
    IF v_new IS NULL THEN
        -- Drained: the next id comes from the identity. Left where it was, a watermark a release
        -- had lowered would make every claim walk the whole drained range again.
        v_new := pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence('"rainfall"."rainfall_events"', 'id')::regclass) + 1;
    END IF;
    -- greatest() skips NULLs, so a table never inserted into (v_new NULL) must not reach it.
    "new_watermark" := CASE WHEN v_new IS NULL THEN coalesce("old_watermark", 0)
                            ELSE greatest(v_new - 50, 0) END;
    IF "old_watermark" IS NULL THEN
        -- The row was deleted by hand: put it back.
        INSERT INTO "rainfall"."rainfall_events_watermark" ("id") VALUES ("rainfall_events_watermark_correct"."new_watermark") ON CONFLICT DO NOTHING;
    ELSIF "new_watermark" <> "old_watermark" THEN
        UPDATE "rainfall"."rainfall_events_watermark" AS "w" SET "id" = "rainfall_events_watermark_correct"."new_watermark";
    END IF;
    RETURN NEXT;
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_watermark_correct" FROM PUBLIC;

-- qgen 0.1.0: dequeue rainfall.rainfall_events_dequeue, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"rainfall"."rainfall_events_dequeue_row"') IS NULL THEN
        CREATE TYPE "rainfall"."rainfall_events_dequeue_row" AS
        (
            "id" bigint,
            "rainfall_id" bigint,
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
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 5,
    "lease_seconds" integer DEFAULT 900,
    "complete_lease_token" uuid DEFAULT NULL
)
RETURNS SETOF "rainfall"."rainfall_events_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 5
AS $qgen$
#variable_conflict use_column
DECLARE
    v_token uuid := gen_random_uuid();
    v_completed integer;
    v_job "rainfall"."rainfall_events_dequeue_row";
    v_lowest bigint;
    v_highest bigint;
BEGIN
    IF "rainfall_events_dequeue"."complete_lease_token" IS NOT NULL THEN
        UPDATE "rainfall"."rainfall_events" AS "job"
        SET "processed" = TRUE, "processed_at" = now(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
        WHERE "job"."lease_token" = "rainfall_events_dequeue"."complete_lease_token";
        GET DIAGNOSTICS v_completed = ROW_COUNT;
        IF v_completed = 0 THEN
            RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
        END IF;
    END IF;
    FOR v_job IN
        WITH "claimed" AS
        (
            UPDATE "rainfall"."rainfall_events" AS "job"
            SET "lease_token" = v_token,
                "lease_owner" = "rainfall_events_dequeue"."owner",
                "lease_expires_at" = now() + pg_catalog.make_interval(secs => "rainfall_events_dequeue"."lease_seconds"),
                "attempts" = "job"."attempts" + 1
            -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
            -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
            WHERE "job"."id" = ANY (ARRAY
            (
                SELECT "next"."id"
                FROM "rainfall"."rainfall_events" AS "next"
                WHERE "next"."lease_token" IS NULL AND "next"."processed" = FALSE AND "next"."available_at" <= now()
                  -- Below the watermark every row is claimed or gone: start the index range there.
                  AND "next"."id" >= coalesce((SELECT "w"."id" FROM "rainfall"."rainfall_events_watermark" AS "w"), 0)
                ORDER BY "next"."id"
                LIMIT "rainfall_events_dequeue"."batch_size"
                FOR UPDATE SKIP LOCKED
            ))
            RETURNING "job"."id", "job"."rainfall_id", "job"."attempts", "job"."lease_token", "job"."lease_expires_at"
        )
        SELECT "c"."id", "c"."rainfall_id", "c"."attempts", "c"."lease_token", "c"."lease_expires_at"
        FROM "claimed" AS "c"
        ORDER BY "c"."id"
    LOOP
        v_lowest := least(v_lowest, v_job."id");
        v_highest := greatest(v_highest, v_job."id");
        RETURN NEXT v_job;
    END LOOP;
    -- Move the watermark about once per 100 claimed ids: when this claim's ids cross a multiple of it.
    IF v_highest / 100 > (v_lowest - 1) / 100 THEN
        PERFORM "rainfall"."rainfall_events_watermark_move"(v_lowest);
    END IF;
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_dequeue" FROM PUBLIC;

-- qgen 0.1.0: table rainfall.rainfall_transfer, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
CREATE TABLE IF NOT EXISTS "rainfall"."rainfall_transfer"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "rainfall_id" bigint NOT NULL,
    "summary" varchar(400) NOT NULL,
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("id")
);

-- qgen 0.1.0: complete rainfall.rainfall_events_complete, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: marks them processed. With id, only that job; without, every job of
-- the lease. The token is the fence: a worker whose lease was released or taken over gets QG001.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_complete"
(
    "lease_token" uuid,
    "id" bigint DEFAULT NULL,
    "rainfall_id" bigint DEFAULT NULL,
    "summary" varchar(400) DEFAULT NULL
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
    IF "rainfall_events_complete"."id" IS NULL THEN
        UPDATE "rainfall"."rainfall_events" AS "job"
        SET "processed" = TRUE, "processed_at" = now(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
        WHERE "job"."lease_token" = "rainfall_events_complete"."lease_token";
        GET DIAGNOSTICS v_completed = ROW_COUNT;
    ELSE
        WITH "done" AS
        (
            UPDATE "rainfall"."rainfall_events" AS "job"
            SET "processed" = TRUE, "processed_at" = now(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
            WHERE "job"."id" = "rainfall_events_complete"."id" AND "job"."lease_token" = "rainfall_events_complete"."lease_token"
            RETURNING "job"."id"
        ),
        -- The result goes on in the same transaction as the completion (seed 004's local queue table).
        "handed_on" AS
        (
            INSERT INTO "rainfall"."rainfall_transfer" AS "next" ("rainfall_id", "summary")
            SELECT "rainfall_events_complete"."rainfall_id", "rainfall_events_complete"."summary"
            FROM "done" AS "d"
            WHERE "rainfall_events_complete"."rainfall_id" IS NOT NULL OR "rainfall_events_complete"."summary" IS NOT NULL
        )
        SELECT count(*) INTO v_completed FROM "done";
    END IF;
    IF v_completed = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v_completed;
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_complete" FROM PUBLIC;

-- qgen 0.1.0: fail rainfall.rainfall_events_fail, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 3) and retry it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_fail"
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
    IF "rainfall_events_fail"."retry" THEN
        UPDATE "rainfall"."rainfall_events" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL,
            "last_error" = "rainfall_events_fail"."error",
            "available_at" = now() + pg_catalog.make_interval(secs => least(600::float8, 30 * power(2::float8, least("job"."attempts" - 1, 60))))
        WHERE "job"."id" = "rainfall_events_fail"."id" AND "job"."lease_token" = "rainfall_events_fail"."lease_token"
          AND "job"."attempts" < 3;
        IF FOUND THEN
            -- The job is claimable again: the watermark must not stay above it.
            UPDATE "rainfall"."rainfall_events_watermark" AS "w"
            SET "id" = "rainfall_events_fail"."id"
            WHERE "w"."id" > "rainfall_events_fail"."id";
            RETURN 0;
        END IF;
    END IF;
    -- No retry (asked, or attempts used up), or the token does not hold the job: then nothing matches.
    WITH "gone" AS
    (
        DELETE FROM "rainfall"."rainfall_events" AS "job"
        WHERE "job"."id" = "rainfall_events_fail"."id" AND "job"."lease_token" = "rainfall_events_fail"."lease_token"
        RETURNING "job".*
    )
    INSERT INTO "rainfall"."rainfall_events_dead" ("id", "rainfall_id", "enqueued_at", "attempts", "last_error", "dead_at")
    SELECT "g"."id", "g"."rainfall_id", "g"."enqueued_at", "g"."attempts", "rainfall_events_fail"."error", now()
    FROM "gone" AS "g";
    GET DIAGNOSTICS v_gone = ROW_COUNT;
    IF v_gone = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN 1;
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_fail" FROM PUBLIC;

-- qgen 0.1.0: extend_lease rainfall.rainfall_events_extend_lease, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire lease_seconds from now.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_extend_lease"
(
    "lease_token" uuid,
    "lease_seconds" integer DEFAULT 900,
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
    IF "rainfall_events_extend_lease"."id" IS NULL THEN
        UPDATE "rainfall"."rainfall_events" AS "job"
        SET "lease_expires_at" = now() + pg_catalog.make_interval(secs => "rainfall_events_extend_lease"."lease_seconds")
        WHERE "job"."lease_token" = "rainfall_events_extend_lease"."lease_token";
    ELSE
        UPDATE "rainfall"."rainfall_events" AS "job"
        SET "lease_expires_at" = now() + pg_catalog.make_interval(secs => "rainfall_events_extend_lease"."lease_seconds")
        WHERE "job"."id" = "rainfall_events_extend_lease"."id" AND "job"."lease_token" = "rainfall_events_extend_lease"."lease_token";
    END IF;
    GET DIAGNOSTICS v_extended = ROW_COUNT;
    IF v_extended = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v_extended;
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_extend_lease" FROM PUBLIC;

-- qgen 0.1.0: reap rainfall.rainfall_events_reap, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- batch_size per call: those with attempts left become claimable again, with their old token
-- cleared so the late worker is fenced off; the rest are dead-lettered.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_reap"
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
        FROM "rainfall"."rainfall_events" AS "job"
        WHERE "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < now()
        LIMIT "rainfall_events_reap"."batch_size"
        FOR UPDATE SKIP LOCKED
    ),
    "freed" AS
    (
        UPDATE "rainfall"."rainfall_events" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = now(),
            "last_error" = 'qgen: lease expired before the job was completed'
        FROM "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" < 3
        RETURNING "job"."id"
    ),
    "gone" AS
    (
        DELETE FROM "rainfall"."rainfall_events" AS "job"
        USING "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" >= 3
        RETURNING "job".*
    ),
    "buried" AS
    (
        INSERT INTO "rainfall"."rainfall_events_dead" ("id", "rainfall_id", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."rainfall_id", "g"."enqueued_at", "g"."attempts", 'qgen: lease expired on the last attempt', now()
        FROM "gone" AS "g"
    )
    SELECT (SELECT count(*) FROM "freed"), (SELECT count(*) FROM "gone"), (SELECT min("f"."id") FROM "freed" AS "f")
    INTO "released", "dead_lettered", v_lowest;
    IF v_lowest IS NOT NULL THEN
        -- Released jobs are claimable again: the watermark must not stay above them.
        UPDATE "rainfall"."rainfall_events_watermark" AS "w"
        SET "id" = v_lowest
        WHERE "w"."id" > v_lowest;
    END IF;
    RETURN NEXT;
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_reap" FROM PUBLIC;

-- qgen 0.1.0: metrics rainfall.rainfall_events_metrics, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_metrics"()
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
        (SELECT count(*) FROM "rainfall"."rainfall_events_dead"),
        0::bigint,
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."available_at" <= now())))::bigint, 0),
        (SELECT "w"."id" FROM "rainfall"."rainfall_events_watermark" AS "w"),
        min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE)
    FROM "rainfall"."rainfall_events" AS "job";
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek rainfall.rainfall_events_peek, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue). Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "rainfall"."rainfall_events_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT "p".*
    FROM "rainfall"."rainfall_events_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "rainfall_events_peek"."limit";
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_peek" FROM PUBLIC;

-- qgen 0.1.0: purge rainfall.rainfall_events_purge, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than older_than_seconds, in
-- batches of batch_size. A function cannot commit, so all batches share the caller's transaction:
-- batches bound each statement, not the transaction.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_purge"
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
    v_cutoff timestamptz := now() - pg_catalog.make_interval(secs => "rainfall_events_purge"."older_than_seconds");
    v_deleted integer;
BEGIN
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    LOOP
        DELETE FROM "rainfall"."rainfall_events" AS "x"
        WHERE "x"."id" IN (SELECT "y"."id" FROM "rainfall"."rainfall_events" AS "y" WHERE "y"."processed" AND "y"."processed_at" < v_cutoff LIMIT "rainfall_events_purge"."batch_size");
        GET DIAGNOSTICS v_deleted = ROW_COUNT;
        "processed" := "processed" + v_deleted;
        EXIT WHEN v_deleted < "rainfall_events_purge"."batch_size" OR v_deleted = 0;
    END LOOP;
    LOOP
        DELETE FROM "rainfall"."rainfall_events_dead" AS "x"
        WHERE "x"."id" IN (SELECT "y"."id" FROM "rainfall"."rainfall_events_dead" AS "y" WHERE "y"."dead_at" < v_cutoff LIMIT "rainfall_events_purge"."batch_size");
        GET DIAGNOSTICS v_deleted = ROW_COUNT;
        "dead" := "dead" + v_deleted;
        EXIT WHEN v_deleted < "rainfall_events_purge"."batch_size" OR v_deleted = 0;
    END LOOP;
    RETURN NEXT;
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_purge" FROM PUBLIC;

-- qgen 0.1.0: claim_index rainfall.rainfall_transfer_claim_ix, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- rainfall.rainfall_transfer_claim_ix: not needed. A delete queue holds only unclaimed rows and claims them
-- in id order, which the primary key already is; a second index on id would only slow every write.

-- qgen 0.1.0: watermark_table rainfall.rainfall_transfer_watermark, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their index range here instead of
-- walking the dead index entries that claimed or deleted rows leave at the low end.
CREATE TABLE IF NOT EXISTS "rainfall"."rainfall_transfer_watermark"
(
    "id" bigint NOT NULL,
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    PRIMARY KEY ("one_row")
);
INSERT INTO "rainfall"."rainfall_transfer_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: pending_view rainfall.rainfall_transfer_pending, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "rainfall"."rainfall_transfer_pending" AS
SELECT "job"."id", "job"."rainfall_id", "job"."summary", "job"."enqueued_at"
FROM "rainfall"."rainfall_transfer" AS "job"
WHERE 1 = 1;

-- qgen 0.1.0: batch_type rainfall.rainfall_transfer_batch, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) when missing, and the table rejects a missing required column.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"rainfall"."rainfall_transfer_batch"') IS NULL THEN
        CREATE TYPE "rainfall"."rainfall_transfer_batch" AS
        (
            "ordinal" integer,
            "rainfall_id" bigint,
            "summary" varchar(400)
        );
    END IF;
END
$qgen$;

-- qgen 0.1.0: enqueue rainfall.rainfall_transfer_enqueue, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_enqueue"
(
    "rainfall_id" bigint,
    "summary" varchar(400)
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        INSERT INTO "rainfall"."rainfall_transfer" AS "job" ("rainfall_id", "summary")
        VALUES ("rainfall_transfer_enqueue"."rainfall_id", "rainfall_transfer_enqueue"."summary")
        RETURNING "job"."id", TRUE;
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_enqueue" FROM PUBLIC;

-- qgen 0.1.0: enqueue_batch rainfall.rainfall_transfer_enqueue_batch, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_enqueue_batch"
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
    v_sequence regclass := pg_catalog.pg_get_serial_sequence('"rainfall"."rainfall_transfer"', 'id')::regclass;
BEGIN
    RETURN QUERY
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "j"."ordinality"::integer) AS "ordinal",
                   "j"."rainfall_id", "j"."summary"
            FROM jsonb_populate_recordset(NULL::"rainfall"."rainfall_transfer_batch", "rainfall_transfer_enqueue_batch"."jobs") WITH ORDINALITY AS "j"
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
            INSERT INTO "rainfall"."rainfall_transfer" AS "job" ("id", "rainfall_id", "summary")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new_id", "n"."rainfall_id", "n"."summary"
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal", "n"."new_id", TRUE
        FROM "numbered" AS "n"
        ORDER BY "n"."ordinal";
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: watermark_move rainfall.rainfall_transfer_watermark_move, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_watermark_move"
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
    v_target bigint := "rainfall_transfer_watermark_move"."claimed_from" - 50;
    v_lowest bigint;
BEGIN
    -- SKIP LOCKED: a session already moving it (or a release lowering it) wins; this one skips.
    SELECT "w"."id" INTO v_current FROM "rainfall"."rainfall_transfer_watermark" AS "w" FOR UPDATE SKIP LOCKED;
    IF NOT FOUND OR v_current >= v_target THEN
        RETURN;
    END IF;
    -- A separate statement, so its snapshot is taken after the lock: a release that committed
    -- before is seen here, and one that commits after lowers the watermark itself.
    SELECT min("job"."id") INTO v_lowest
    FROM "rainfall"."rainfall_transfer" AS "job"
    WHERE "job"."id" >= v_current AND "job"."id" < v_target AND 1 = 1;
    UPDATE "rainfall"."rainfall_transfer_watermark" AS "w"
    SET "id" = coalesce(v_lowest, v_target)
    WHERE "w"."id" < coalesce(v_lowest, v_target);
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_watermark_move" FROM PUBLIC;

-- qgen 0.1.0: watermark_correct rainfall.rainfall_transfer_watermark_correct, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids (the slack, for inserts still in flight) below
-- the lowest unclaimed id, or below the next id when every row is claimed or gone (the table's highest
-- id, or its identity when it is empty), never below 0. Run it from a periodic job and after a
-- dequeue that found nothing; it repairs a watermark that is wrong either way.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_watermark_correct"()
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
    SELECT "w"."id" INTO "old_watermark" FROM "rainfall"."rainfall_transfer_watermark" AS "w" FOR UPDATE;
    SELECT min("job"."id") INTO v_new FROM "rainfall"."rainfall_transfer" AS "job" WHERE 1 = 1;
    IF v_new IS NULL THEN
        SELECT max("job"."id") + 1 INTO v_new FROM "rainfall"."rainfall_transfer" AS "job";
    END IF;
    IF v_new IS NULL THEN
        -- Drained: the next id comes from the identity. Left where it was, a watermark a release
        -- had lowered would make every claim walk the whole drained range again.
        v_new := pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence('"rainfall"."rainfall_transfer"', 'id')::regclass) + 1;
    END IF;
    -- greatest() skips NULLs, so a table never inserted into (v_new NULL) must not reach it.
    "new_watermark" := CASE WHEN v_new IS NULL THEN coalesce("old_watermark", 0)
                            ELSE greatest(v_new - 50, 0) END;
    IF "old_watermark" IS NULL THEN
        -- The row was deleted by hand: put it back.
        INSERT INTO "rainfall"."rainfall_transfer_watermark" ("id") VALUES ("rainfall_transfer_watermark_correct"."new_watermark") ON CONFLICT DO NOTHING;
    ELSIF "new_watermark" <> "old_watermark" THEN
        UPDATE "rainfall"."rainfall_transfer_watermark" AS "w" SET "id" = "rainfall_transfer_watermark_correct"."new_watermark";
    END IF;
    RETURN NEXT;
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_watermark_correct" FROM PUBLIC;

-- qgen 0.1.0: dequeue rainfall.rainfall_transfer_dequeue, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"rainfall"."rainfall_transfer_dequeue_row"') IS NULL THEN
        CREATE TYPE "rainfall"."rainfall_transfer_dequeue_row" AS
        (
            "id" bigint,
            "rainfall_id" bigint,
            "summary" varchar(400),
            "enqueued_at" timestamptz
        );
    END IF;
END
$qgen$;
-- Claims up to batch_size jobs by deleting them, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 100
)
RETURNS SETOF "rainfall"."rainfall_transfer_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 100
AS $qgen$
#variable_conflict use_column
DECLARE
    v_job "rainfall"."rainfall_transfer_dequeue_row";
    v_lowest bigint;
    v_highest bigint;
BEGIN
    FOR v_job IN
        WITH "claimed" AS
        (
            DELETE FROM "rainfall"."rainfall_transfer" AS "job"
            -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
            -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
            WHERE "job"."id" = ANY (ARRAY
            (
                SELECT "next"."id"
                FROM "rainfall"."rainfall_transfer" AS "next"
                WHERE 1 = 1
                  -- Below the watermark every row is claimed or gone: start the index range there.
                  AND "next"."id" >= coalesce((SELECT "w"."id" FROM "rainfall"."rainfall_transfer_watermark" AS "w"), 0)
                ORDER BY "next"."id"
                LIMIT "rainfall_transfer_dequeue"."batch_size"
                FOR UPDATE SKIP LOCKED
            ))
            RETURNING "job".*
        )
        SELECT "c"."id", "c"."rainfall_id", "c"."summary", "c"."enqueued_at"
        FROM "claimed" AS "c"
        ORDER BY "c"."id"
    LOOP
        v_lowest := least(v_lowest, v_job."id");
        v_highest := greatest(v_highest, v_job."id");
        RETURN NEXT v_job;
    END LOOP;
    -- Move the watermark about once per 100 claimed ids: when this claim's ids cross a multiple of it.
    IF v_highest / 100 > (v_lowest - 1) / 100 THEN
        PERFORM "rainfall"."rainfall_transfer_watermark_move"(v_lowest);
    END IF;
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_dequeue" FROM PUBLIC;

-- qgen 0.1.0: metrics rainfall.rainfall_transfer_metrics, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_metrics"()
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
        count(*) FILTER (WHERE 1 = 1),
        0::bigint,
        0::bigint,
        0::bigint,
        0::bigint,
        0::bigint,
        0::bigint,
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE 1 = 1)))::bigint, 0),
        (SELECT "w"."id" FROM "rainfall"."rainfall_transfer_watermark" AS "w"),
        min("job"."id") FILTER (WHERE 1 = 1)
    FROM "rainfall"."rainfall_transfer" AS "job";
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek rainfall.rainfall_transfer_peek, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue). Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "rainfall"."rainfall_transfer_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT "p".*
    FROM "rainfall"."rainfall_transfer_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "rainfall_transfer_peek"."limit";
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_peek" FROM PUBLIC;

-- qgen 0.1.0: purge rainfall.rainfall_transfer_purge, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than older_than_seconds, in
-- batches of batch_size. A function cannot commit, so all batches share the caller's transaction:
-- batches bound each statement, not the transaction.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_purge"
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
    v_cutoff timestamptz := now() - pg_catalog.make_interval(secs => "rainfall_transfer_purge"."older_than_seconds");
    v_deleted integer;
BEGIN
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    RETURN NEXT;
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_purge" FROM PUBLIC;

-- qgen 0.1.0: grants rainfall_consumer, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "rainfall" TO "rainfall_producer", "rainfall_consumer", "rainfall_admin";
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_events_enqueue", "rainfall"."rainfall_events_enqueue_batch" TO "rainfall_producer";
GRANT USAGE ON TYPE "rainfall"."rainfall_events_batch" TO "rainfall_producer";
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_events_dequeue", "rainfall"."rainfall_events_complete", "rainfall"."rainfall_events_fail", "rainfall"."rainfall_events_extend_lease" TO "rainfall_consumer";
GRANT USAGE ON TYPE "rainfall"."rainfall_events_dequeue_row" TO "rainfall_consumer";
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_events_watermark_correct" TO "rainfall_consumer";
GRANT SELECT ON "rainfall"."rainfall_events_pending" TO "rainfall_admin";
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_transfer_enqueue", "rainfall"."rainfall_transfer_enqueue_batch" TO "rainfall_producer";
GRANT USAGE ON TYPE "rainfall"."rainfall_transfer_batch" TO "rainfall_producer";
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_transfer_dequeue" TO "rainfall_consumer";
GRANT USAGE ON TYPE "rainfall"."rainfall_transfer_dequeue_row" TO "rainfall_consumer";
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_transfer_watermark_correct" TO "rainfall_consumer";
GRANT SELECT ON "rainfall"."rainfall_transfer_pending" TO "rainfall_admin";
-- Admins run everything in the schema (the worker is a procedure: ROUTINES covers both).
GRANT EXECUTE ON ALL ROUTINES IN SCHEMA "rainfall" TO "rainfall_admin";
