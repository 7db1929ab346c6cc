-- qgen 0.1.0: every object of 001_watermark.yaml, for PostgreSQL, in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema ghosts, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
CREATE SCHEMA IF NOT EXISTS "ghosts";

-- qgen 0.1.0: roles ghosts_admin, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_producer') THEN
        CREATE ROLE "ghosts_producer" NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_consumer') THEN
        CREATE ROLE "ghosts_consumer" NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_admin') THEN
        CREATE ROLE "ghosts_admin" NOLOGIN;
    END IF;
END
$qgen$;

-- qgen 0.1.0: table ghosts.testq, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
CREATE TABLE IF NOT EXISTS "ghosts"."testq"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "filler" varchar(400) NOT NULL,
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("id")
);

-- qgen 0.1.0: claim_index ghosts.testq_claim_ix, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- ghosts.testq_claim_ix: not needed. A delete queue holds only unclaimed rows and claims them
-- in id order, which the primary key already is; a second index on id would only slow every write.

-- qgen 0.1.0: watermark_table ghosts.testq_watermark, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their index range here instead of
-- walking the dead index entries that claimed or deleted rows leave at the low end.
CREATE TABLE IF NOT EXISTS "ghosts"."testq_watermark"
(
    "id" bigint NOT NULL,
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    PRIMARY KEY ("one_row")
);
INSERT INTO "ghosts"."testq_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: pending_view ghosts.testq_pending, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "ghosts"."testq_pending" AS
SELECT "job"."id", "job"."filler", "job"."enqueued_at"
FROM "ghosts"."testq" AS "job"
WHERE 1 = 1;

-- qgen 0.1.0: batch_type ghosts.testq_batch, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) when missing, and the table rejects a missing required column.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"ghosts"."testq_batch"') IS NULL THEN
        CREATE TYPE "ghosts"."testq_batch" AS
        (
            "ordinal" integer,
            "filler" varchar(400)
        );
    END IF;
END
$qgen$;

-- qgen 0.1.0: enqueue ghosts.testq_enqueue, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "ghosts"."testq_enqueue"
(
    "filler" varchar(400)
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        INSERT INTO "ghosts"."testq" AS "job" ("filler")
        VALUES ("testq_enqueue"."filler")
        RETURNING "job"."id", TRUE;
END
$qgen$;
REVOKE ALL ON FUNCTION "ghosts"."testq_enqueue" FROM PUBLIC;

-- qgen 0.1.0: enqueue_batch ghosts.testq_enqueue_batch, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job.
CREATE OR REPLACE FUNCTION "ghosts"."testq_enqueue_batch"
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
    v_sequence regclass := pg_catalog.pg_get_serial_sequence('"ghosts"."testq"', 'id')::regclass;
BEGIN
    RETURN QUERY
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "j"."ordinality"::integer) AS "ordinal",
                   "j"."filler"
            FROM jsonb_populate_recordset(NULL::"ghosts"."testq_batch", "testq_enqueue_batch"."jobs") WITH ORDINALITY AS "j"
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
            INSERT INTO "ghosts"."testq" AS "job" ("id", "filler")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new_id", "n"."filler"
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal", "n"."new_id", TRUE
        FROM "numbered" AS "n"
        ORDER BY "n"."ordinal";
END
$qgen$;
REVOKE ALL ON FUNCTION "ghosts"."testq_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: watermark_move ghosts.testq_watermark_move, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR REPLACE FUNCTION "ghosts"."testq_watermark_move"
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
    v_target bigint := "testq_watermark_move"."claimed_from" - 50;
    v_lowest bigint;
BEGIN
    -- SKIP LOCKED: a session already moving it (or a release lowering it) wins; this one skips.
    SELECT "w"."id" INTO v_current FROM "ghosts"."testq_watermark" AS "w" FOR UPDATE SKIP LOCKED;
    IF NOT FOUND OR v_current >= v_target THEN
        RETURN;
    END IF;
    -- A separate statement, so its snapshot is taken after the lock: a release that committed
    -- before is seen here, and one that commits after lowers the watermark itself.
    SELECT min("job"."id") INTO v_lowest
    FROM "ghosts"."testq" AS "job"
    WHERE "job"."id" >= v_current AND "job"."id" < v_target AND 1 = 1;
    UPDATE "ghosts"."testq_watermark" AS "w"
    SET "id" = coalesce(v_lowest, v_target)
    WHERE "w"."id" < coalesce(v_lowest, v_target);
END
$qgen$;
REVOKE ALL ON FUNCTION "ghosts"."testq_watermark_move" FROM PUBLIC;

-- qgen 0.1.0: watermark_correct ghosts.testq_watermark_correct, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids (the slack, for inserts still in flight) below
-- the lowest unclaimed id, or below the next id when every row is claimed or gone (the table's highest
-- id, or its identity when it is empty), never below 0. Run it from a periodic job and after a
-- dequeue that found nothing; it repairs a watermark that is wrong either way.
CREATE OR REPLACE FUNCTION "ghosts"."testq_watermark_correct"()
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
    SELECT "w"."id" INTO "old_watermark" FROM "ghosts"."testq_watermark" AS "w" FOR UPDATE;
    SELECT min("job"."id") INTO v_new FROM "ghosts"."testq" AS "job" WHERE 1 = 1;
    IF v_new IS NULL THEN
        SELECT max("job"."id") + 1 INTO v_new FROM "ghosts"."testq" AS "job";
    END IF;
    IF v_new IS NULL THEN
        -- Drained: the next id comes from the identity. Left where it was, a watermark a release
        -- had lowered would make every claim walk the whole drained range again.
        v_new := pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence('"ghosts"."testq"', 'id')::regclass) + 1;
    END IF;
    -- greatest() skips NULLs, so a table never inserted into (v_new NULL) must not reach it.
    "new_watermark" := CASE WHEN v_new IS NULL THEN coalesce("old_watermark", 0)
                            ELSE greatest(v_new - 50, 0) END;
    IF "old_watermark" IS NULL THEN
        -- The row was deleted by hand: put it back.
        INSERT INTO "ghosts"."testq_watermark" ("id") VALUES ("testq_watermark_correct"."new_watermark") ON CONFLICT DO NOTHING;
    ELSIF "new_watermark" <> "old_watermark" THEN
        UPDATE "ghosts"."testq_watermark" AS "w" SET "id" = "testq_watermark_correct"."new_watermark";
    END IF;
    RETURN NEXT;
END
$qgen$;
REVOKE ALL ON FUNCTION "ghosts"."testq_watermark_correct" FROM PUBLIC;

-- qgen 0.1.0: dequeue ghosts.testq_dequeue, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"ghosts"."testq_dequeue_row"') IS NULL THEN
        CREATE TYPE "ghosts"."testq_dequeue_row" AS
        (
            "id" bigint,
            "filler" varchar(400),
            "enqueued_at" timestamptz
        );
    END IF;
END
$qgen$;
-- Claims up to batch_size jobs by deleting them, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
CREATE OR REPLACE FUNCTION "ghosts"."testq_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 1
)
RETURNS SETOF "ghosts"."testq_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 1
AS $qgen$
#variable_conflict use_column
DECLARE
    v_job "ghosts"."testq_dequeue_row";
    v_lowest bigint;
    v_highest bigint;
BEGIN
    FOR v_job IN
        WITH "claimed" AS
        (
            DELETE FROM "ghosts"."testq" AS "job"
            -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
            -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
            WHERE "job"."id" = ANY (ARRAY
            (
                SELECT "next"."id"
                FROM "ghosts"."testq" AS "next"
                WHERE 1 = 1
                  -- Below the watermark every row is claimed or gone: start the index range there.
                  AND "next"."id" >= coalesce((SELECT "w"."id" FROM "ghosts"."testq_watermark" AS "w"), 0)
                ORDER BY "next"."id"
                LIMIT "testq_dequeue"."batch_size"
                FOR UPDATE SKIP LOCKED
            ))
            RETURNING "job".*
        )
        SELECT "c"."id", "c"."filler", "c"."enqueued_at"
        FROM "claimed" AS "c"
        ORDER BY "c"."id"
    LOOP
        v_lowest := least(v_lowest, v_job."id");
        v_highest := greatest(v_highest, v_job."id");
        RETURN NEXT v_job;
    END LOOP;
    -- Move the watermark about once per 100 claimed ids: when this claim's ids cross a multiple of it.
    IF v_highest / 100 > (v_lowest - 1) / 100 THEN
        PERFORM "ghosts"."testq_watermark_move"(v_lowest);
    END IF;
END
$qgen$;
REVOKE ALL ON FUNCTION "ghosts"."testq_dequeue" FROM PUBLIC;

-- qgen 0.1.0: metrics ghosts.testq_metrics, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "ghosts"."testq_metrics"()
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
        (SELECT "w"."id" FROM "ghosts"."testq_watermark" AS "w"),
        min("job"."id") FILTER (WHERE 1 = 1)
    FROM "ghosts"."testq" AS "job";
END
$qgen$;
REVOKE ALL ON FUNCTION "ghosts"."testq_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek ghosts.testq_peek, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue). Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "ghosts"."testq_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "ghosts"."testq_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT "p".*
    FROM "ghosts"."testq_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "testq_peek"."limit";
END
$qgen$;
REVOKE ALL ON FUNCTION "ghosts"."testq_peek" FROM PUBLIC;

-- qgen 0.1.0: purge ghosts.testq_purge, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than older_than_seconds, in
-- batches of batch_size. A function cannot commit, so all batches share the caller's transaction:
-- batches bound each statement, not the transaction.
CREATE OR REPLACE FUNCTION "ghosts"."testq_purge"
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
    v_cutoff timestamptz := now() - pg_catalog.make_interval(secs => "testq_purge"."older_than_seconds");
    v_deleted integer;
BEGIN
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    RETURN NEXT;
END
$qgen$;
REVOKE ALL ON FUNCTION "ghosts"."testq_purge" FROM PUBLIC;

-- qgen 0.1.0: grants ghosts_consumer, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "ghosts" TO "ghosts_producer", "ghosts_consumer", "ghosts_admin";
GRANT EXECUTE ON FUNCTION "ghosts"."testq_enqueue", "ghosts"."testq_enqueue_batch" TO "ghosts_producer";
GRANT USAGE ON TYPE "ghosts"."testq_batch" TO "ghosts_producer";
GRANT EXECUTE ON FUNCTION "ghosts"."testq_dequeue" TO "ghosts_consumer";
GRANT USAGE ON TYPE "ghosts"."testq_dequeue_row" TO "ghosts_consumer";
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON FUNCTION "ghosts"."testq_watermark_correct" TO "ghosts_consumer";
GRANT SELECT ON "ghosts"."testq_pending" TO "ghosts_admin";
-- Admins run everything in the schema (the worker is a procedure: ROUTINES covers both).
GRANT EXECUTE ON ALL ROUTINES IN SCHEMA "ghosts" TO "ghosts_admin";
