-- qgen 0.1.0: every object of 001_watermark.yaml, for PostgreSQL, in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema ghosts, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- ghosts_owner owns every object qgen creates here, and cannot log in: the SECURITY DEFINER
-- functions run with its rights (its own tables and nothing else), not with those of whoever ran
-- install. The schema and the role are marked (COMMENT) when install creates them: uninstall drops
-- only what carries the mark.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_owner') THEN
        CREATE ROLE "ghosts_owner" NOLOGIN;
        COMMENT ON ROLE "ghosts_owner" IS 'qgen: created by the install of schema ghosts';
    ELSIF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_owner' AND (rolcanlogin OR rolsuper)) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG022',
            MESSAGE = 'qgen: role ghosts_owner exists and can log in or is a superuser; qgen''s SECURITY DEFINER functions run as this role',
            HINT = 'Make it NOLOGIN NOSUPERUSER, or drop it and let install create it.';
    END IF;
    -- Whoever installs creates the objects and hands them to the owner (ALTER ... OWNER TO), which
    -- takes membership of it unless it is a superuser.
    IF NOT pg_catalog.pg_has_role(current_user, 'ghosts_owner', 'MEMBER') THEN
        GRANT "ghosts_owner" TO CURRENT_USER;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'ghosts') THEN
        CREATE SCHEMA "ghosts";
        COMMENT ON SCHEMA "ghosts" IS 'qgen: created by the install of schema ghosts';
    END IF;
END
$qgen$;
GRANT USAGE, CREATE ON SCHEMA "ghosts" TO "ghosts_owner";

-- qgen 0.1.0: roles ghosts_producer, ghosts_consumer, ghosts_admin (cluster-wide), rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing,
-- and mark the ones install creates (COMMENT): uninstall drops only those, never a role that was
-- there before and that the spec only names.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_producer') THEN
        CREATE ROLE "ghosts_producer" NOLOGIN;
        COMMENT ON ROLE "ghosts_producer" IS 'qgen: created by the install of schema ghosts';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_consumer') THEN
        CREATE ROLE "ghosts_consumer" NOLOGIN;
        COMMENT ON ROLE "ghosts_consumer" IS 'qgen: created by the install of schema ghosts';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_admin') THEN
        CREATE ROLE "ghosts_admin" NOLOGIN;
        COMMENT ON ROLE "ghosts_admin" IS 'qgen: created by the install of schema ghosts';
    END IF;
END
$qgen$;

-- qgen 0.1.0: table ghosts.testq, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Storage fit for a queue table, whose rows are inserted, and deleted all day:
-- autovacuum_vacuum_scale_factor 0.01 (default 0.2): vacuum once 1% of the rows are dead, not 20%:
--   on a queue with a backlog, dead entries at the head of the claim index are what every claim
--   walks through, and 20% of a million-row backlog is 200,000 of them.
-- autovacuum_vacuum_threshold 1000 (default 50): but on a nearly empty queue, not after every 50
--   deleted jobs: a few vacuums a minute at most on a busy small queue.
-- autovacuum_analyze_scale_factor 0.02 (default 0.1): the row count swings with the backlog; keep
--   the statistics the planner sees close to it.
CREATE TABLE IF NOT EXISTS "ghosts"."testq"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "filler" varchar(400) NOT NULL,
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("id")
)
WITH (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
      autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "ghosts"."testq" OWNER TO "ghosts_owner";

-- qgen 0.1.0: watermark_table ghosts.testq_watermark, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their index range here instead of
-- walking the dead index entries that claimed or deleted rows leave at the low end.
CREATE TABLE IF NOT EXISTS "ghosts"."testq_watermark"
(
    "id" bigint NOT NULL,
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    -- When the table was last searched below the watermark (by a dequeue's rescan or
    -- watermark_correct): a dequeue rescans when this is watermark.rescan old.
    "corrected_at" timestamptz NOT NULL DEFAULT '-infinity',
    -- Where claims start the due index: no deferred job a claim may take is due before due_from,
    -- see postgres__due_bound_move. due_moved_at: when a dequeue last moved it.
    "due_from" timestamptz NOT NULL DEFAULT '-infinity',
    "due_moved_at" timestamptz NOT NULL DEFAULT '-infinity',
    PRIMARY KEY ("one_row")
);
ALTER TABLE "ghosts"."testq_watermark" OWNER TO "ghosts_owner";
INSERT INTO "ghosts"."testq_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: pending_view ghosts.testq_pending, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "ghosts"."testq_pending" AS
SELECT "job"."id", "job"."filler", "job"."enqueued_at"
FROM "ghosts"."testq" AS "job"
WHERE 1 = 1;
ALTER VIEW "ghosts"."testq_pending" OWNER TO "ghosts_owner";

-- qgen 0.1.0: batch_type ghosts.testq_batch, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) when missing, and the table rejects a missing required column.
-- Its string and decimal fields have no length or scale (m.param_type): reading a job into
-- varchar(n) or numeric(p,s) would cut or round a value past its column before enqueue_batch
-- could refuse it (QG010).
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"ghosts"."testq_batch"') IS NULL THEN
        CREATE TYPE "ghosts"."testq_batch" AS
        (
            "ordinal" integer,
            "filler" varchar
        );
    END IF;
END
$qgen$;
ALTER TYPE "ghosts"."testq_batch" OWNER TO "ghosts_owner";

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
    IF pg_catalog.length("testq_enqueue"."filler") > 400 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: filler is past its column''s limit in ghosts.testq_enqueue; accepted: string(400), at most 400 characters';
    END IF;
    RETURN QUERY
        INSERT INTO "ghosts"."testq" AS "job" ("filler")
        VALUES ("testq_enqueue"."filler")
        RETURNING "job"."id", TRUE;
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_enqueue" OWNER TO "ghosts_owner";
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
    v$sequence regclass := pg_catalog.pg_get_serial_sequence('"ghosts"."testq"', 'id')::regclass;
    v$over integer;
    v$over_column text;
BEGIN

    SELECT coalesce("j"."ordinal", "e"."position$"::integer),
           CASE WHEN pg_catalog.length("j"."filler") > 400 THEN 'filler; accepted: string(400), at most 400 characters' END
    INTO v$over, v$over_column
    FROM jsonb_array_elements("testq_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
    CROSS JOIN LATERAL jsonb_populate_record(NULL::"ghosts"."testq_batch", "e"."job$") AS "j"
    WHERE pg_catalog.length("j"."filler") > 400
    ORDER BY "e"."position$"
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = pg_catalog.format('qgen: job %s of the batch has a value past its column''s limit in ghosts.testq_enqueue_batch: column %s', v$over, v$over_column);
    END IF;
    RETURN QUERY
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "e"."position$"::integer) AS "ordinal",
                   "j"."filler"
            -- The array position and the new id are qgen's own columns beside the job's: their names
            -- hold a $, which no spec column can.
            FROM jsonb_array_elements("testq_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
            CROSS JOIN LATERAL jsonb_populate_record(NULL::"ghosts"."testq_batch", "e"."job$") AS "j"
        ),
        "numbered" AS
        (
            -- A volatile target list runs after ORDER BY, so the ids follow the ordinals.
            SELECT "i".*, nextval(v$sequence) AS "new$id"
            FROM "input" AS "i"
            ORDER BY "i"."ordinal"
        ),
        "inserted" AS
        (
            INSERT INTO "ghosts"."testq" AS "job" ("id", "filler")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new$id", "n"."filler"
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal", "n"."new$id", TRUE
        FROM "numbered" AS "n"
        ORDER BY "n"."ordinal";
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_enqueue_batch" OWNER TO "ghosts_owner";
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
    v$current bigint;
    v$target bigint := "testq_watermark_move"."claimed_from" - 50;
    v$lowest bigint;
BEGIN
    -- A REPEATABLE READ or SERIALIZABLE caller's snapshot may still show as claimed a job released
    -- since: only a READ COMMITTED call moves the watermark.
    IF NOT pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        RETURN;
    END IF;
    -- First without a lock: while a row it may not pass sits at the watermark (a claim held open
    -- in a caller's transaction), nothing can move, and dequeue calls this after every such claim;
    -- taking the watermark row then would hold it through the caller's transaction, and the rescan
    -- and the other movers would skip it for as long as claims keep coming.
    SELECT "w"."id" INTO v$current FROM "ghosts"."testq_watermark" AS "w";
    IF NOT FOUND OR v$current >= v$target THEN
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM "ghosts"."testq" AS "job"
               WHERE "job"."id" = v$current AND 1 = 1) THEN
        RETURN;
    END IF;
    -- SKIP LOCKED: a session already moving it (or a release lowering it) wins; this one skips.
    SELECT "w"."id" INTO v$current FROM "ghosts"."testq_watermark" AS "w" FOR UPDATE SKIP LOCKED;
    IF NOT FOUND OR v$current >= v$target THEN
        RETURN;
    END IF;
    -- A separate statement, so its snapshot is taken after the lock: a release that committed
    -- before is seen here, and one that commits after lowers the watermark itself. A snapshot shows
    -- each row's last committed version: a row an open claim holds (a delete, or a lease inside a
    -- caller's transaction) still looks unclaimed, so the move stops at it and a rollback strands
    -- nothing. A row whose insert is not yet committed is invisible and can be passed: dequeue's
    -- rescan (watermark.rescan) finds it once it commits.
    SELECT min("job"."id") INTO v$lowest
    FROM "ghosts"."testq" AS "job"
    WHERE "job"."id" >= v$current AND "job"."id" < v$target AND 1 = 1;
    UPDATE "ghosts"."testq_watermark" AS "w"
    SET "id" = coalesce(v$lowest, v$target)
    WHERE "w"."id" < coalesce(v$lowest, v$target);
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_watermark_move" OWNER TO "ghosts_owner";
REVOKE ALL ON FUNCTION "ghosts"."testq_watermark_move" FROM PUBLIC;

-- qgen 0.1.0: watermark_correct ghosts.testq_watermark_correct, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids (the slack, for inserts still in flight) below
-- the lowest unclaimed id, or below the next id when every row is claimed or gone (the table's highest
-- id, or its identity when it is empty), never below 0. It repairs a watermark that is wrong either
-- way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it after a
-- drain (run it after a dequeue that found nothing) and for a watermark set by hand.
CREATE OR REPLACE FUNCTION "ghosts"."testq_watermark_correct"()
RETURNS TABLE ("old_watermark" bigint, "new_watermark" bigint)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$new bigint;
    v$held boolean;
    v$searched timestamptz;
BEGIN
    -- The row first, so that the scan below starts after whatever held it committed; but never
    -- waiting for it: a worker runs this (after an empty dequeue, and in maintain), and another
    -- transaction may hold the row for as long as it stays open (a caller's transaction whose
    -- dequeue moved the watermark, another uncommitted correction). Then nothing changes: the call
    -- returns the watermark it reads, as old and new. So does a REPEATABLE READ or SERIALIZABLE
    -- caller whose snapshot is older than the row (a serialization failure otherwise).
    BEGIN
        SELECT "w"."id" INTO "old_watermark" FROM "ghosts"."testq_watermark" AS "w" FOR UPDATE SKIP LOCKED;
        v$held := NOT FOUND AND EXISTS (SELECT 1 FROM "ghosts"."testq_watermark");
    EXCEPTION WHEN serialization_failure THEN
        v$held := TRUE;
    END;
    IF v$held THEN
        SELECT "w"."id", "w"."id" INTO "old_watermark", "new_watermark" FROM "ghosts"."testq_watermark" AS "w";
        RETURN NEXT;
        RETURN;
    END IF;
    -- corrected_at gets the time before the search (it counts as a dequeue's rescan): the search's
    -- snapshot is taken after it, so a job that becomes claimable below the watermark later may be
    -- missed here, and the next rescan is due watermark.rescan seconds after this moment, within the
    -- bound. A REPEATABLE READ or SERIALIZABLE caller searches its transaction's first snapshot,
    -- older than any clock reading here: its search does not count (corrected_at is left as it is).
    IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        v$searched := pg_catalog.clock_timestamp();
    END IF;
    SELECT min("job"."id") INTO v$new FROM "ghosts"."testq" AS "job" WHERE 1 = 1;
    IF v$new IS NULL THEN
        SELECT max("job"."id") + 1 INTO v$new FROM "ghosts"."testq" AS "job";
    END IF;
    IF v$new IS NULL THEN
        -- Drained: the next id comes from the identity. Left where it was, a watermark a release
        -- had lowered would make every claim walk the whole drained range again.
        v$new := pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence('"ghosts"."testq"', 'id')::regclass) + 1;
    END IF;
    -- greatest() skips NULLs, so a table never inserted into (v$new NULL) must not reach it.
    "new_watermark" := CASE WHEN v$new IS NULL THEN coalesce("old_watermark", 0)
                            ELSE greatest(v$new - 50, 0) END;
    IF "new_watermark" > "old_watermark" AND NOT pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        -- REPEATABLE READ or SERIALIZABLE: the scans above read the transaction's first snapshot,
        -- which may still show as claimed a job released since. Lowering is safe; raising waits
        -- for a READ COMMITTED call.
        "new_watermark" := "old_watermark";
    END IF;
    IF "old_watermark" IS NULL THEN
        -- The row was deleted by hand: put it back.
        INSERT INTO "ghosts"."testq_watermark" ("id", "corrected_at") VALUES ("testq_watermark_correct"."new_watermark", coalesce(v$searched, '-infinity'))
        ON CONFLICT DO NOTHING;
    ELSE
        UPDATE "ghosts"."testq_watermark" AS "w" SET "id" = "testq_watermark_correct"."new_watermark", "corrected_at" = coalesce(v$searched, "w"."corrected_at");
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_watermark_correct" OWNER TO "ghosts_owner";
REVOKE ALL ON FUNCTION "ghosts"."testq_watermark_correct" FROM PUBLIC;

-- qgen 0.1.0: control_table ghosts.testq_control, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which role). Every
-- claim reads it first (a plain read: a pause or resume counts from its commit, and no claim waits
-- on one left open). A missing row (deleted by hand) reads as running.
CREATE TABLE IF NOT EXISTS "ghosts"."testq_control"
(
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    "paused" boolean NOT NULL DEFAULT FALSE,
    "changed_at" timestamptz NULL,
    "changed_by" varchar(128) NULL,
    PRIMARY KEY ("one_row")
);
ALTER TABLE "ghosts"."testq_control" OWNER TO "ghosts_owner";
INSERT INTO "ghosts"."testq_control" ("paused") VALUES (FALSE) ON CONFLICT DO NOTHING;

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
ALTER TYPE "ghosts"."testq_dequeue_row" OWNER TO "ghosts_owner";
-- A claim that would commit by itself (no transaction block around it) is refused when the
-- transaction commits, unless the caller said at_most_once: then the claim is the commit. A
-- function cannot see whether the caller opened a transaction block, so dequeue notes its own
-- statement's start time, and this deferred trigger, run at commit, accepts only a commit made
-- while a later statement of the caller's runs (its COMMIT). It refuses a commit made during the
-- claim's own statement (autocommit, or a COMMIT sent in the same query string) and one made
-- while no statement runs: the Sync that ends an extended-protocol message sequence, where a
-- driver's autocommit call, or a pipeline of them, commits (current_query() is NULL there).
CREATE OR REPLACE FUNCTION "ghosts"."testq_dequeue_guard"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
BEGIN
    IF pg_catalog.current_query() IS NULL
       OR pg_catalog.current_setting('qgen.claim_statement', TRUE) = pg_catalog.statement_timestamp()::text THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on ghosts.testq: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass at_most_once => true';
    END IF;
    RETURN NULL;
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_dequeue_guard" OWNER TO "ghosts_owner";
REVOKE ALL ON FUNCTION "ghosts"."testq_dequeue_guard" FROM PUBLIC;
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger
                   WHERE tgrelid = '"ghosts"."testq"'::regclass AND tgname = 'testq_dequeue_guard') THEN
        -- WHEN is checked as each row is deleted: only a dequeue's own rows queue the check.
        CREATE CONSTRAINT TRIGGER "testq_dequeue_guard"
        AFTER DELETE ON "ghosts"."testq"
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW
        WHEN (pg_catalog.current_setting('qgen.claim_statement', TRUE) = pg_catalog.statement_timestamp()::text)
        EXECUTE FUNCTION "ghosts"."testq_dequeue_guard"();
    END IF;
END
$qgen$;
-- Claims up to batch_size jobs by deleting them, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction block the commit is refused (see above) unless at_most_once is true.
CREATE OR REPLACE FUNCTION "ghosts"."testq_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 1,
    "at_most_once" boolean DEFAULT FALSE
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
    v$job "ghosts"."testq_dequeue_row";
    v$highest bigint;
    v$from bigint;
    v$rescan boolean;
    v$mark bigint;
    v$searched timestamptz;
    v$stranded bigint;
BEGIN
    IF "testq_dequeue"."batch_size" IS NULL OR "testq_dequeue"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for ghosts.testq_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("testq_dequeue"."batch_size"::text, 'NULL'));
    END IF;
    IF pg_catalog.length("testq_dequeue"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in ghosts.testq_dequeue; accepted: string(128), at most 128 characters';
    END IF;
    -- Read by the guard trigger at commit; at_most_once clears it.
    PERFORM pg_catalog.set_config('qgen.claim_statement',
                                  CASE WHEN "testq_dequeue"."at_most_once" THEN '' ELSE pg_catalog.statement_timestamp()::text END, TRUE);
    -- The guard's check belongs at the commit: a caller's SET CONSTRAINTS ALL IMMEDIATE would run it
    -- at the end of this statement instead, and refuse a claim its transaction was about to commit.
    SET CONSTRAINTS "ghosts"."testq_dequeue_guard" DEFERRED;
    -- Paused (pause, resume): complete what was asked, claim nothing.
    IF NOT EXISTS (SELECT 1 FROM "ghosts"."testq_control" AS "c" WHERE NOT "c"."paused") THEN
        RETURN;
    END IF;
    -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
    SELECT "w"."id", "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) INTO v$from, v$rescan FROM "ghosts"."testq_watermark" AS "w";
    IF NOT FOUND THEN
        v$from := 0;
        INSERT INTO "ghosts"."testq_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;
    ELSIF v$rescan AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        -- Only at READ COMMITTED: at REPEATABLE READ or SERIALIZABLE the search would read the
        -- transaction's first snapshot, and locking a row another worker changed since fails the
        -- caller's whole transaction (40001); a READ COMMITTED dequeue or maintain rescans instead.
        SELECT "w"."id", pg_catalog.clock_timestamp() INTO v$mark, v$searched
        FROM "ghosts"."testq_watermark" AS "w" WHERE "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            -- A statement of its own: its snapshot is taken after the lock, so it sees every release
            -- committed before; one that commits later waits for this row and lowers the watermark itself.
            -- corrected_at gets the time before the search, so a job committed after it is left to the next.
            SELECT min("job"."id") INTO v$stranded
            FROM "ghosts"."testq" AS "job"
            WHERE "job"."id" < v$mark AND 1 = 1;
            UPDATE "ghosts"."testq_watermark" AS "w"
            SET "corrected_at" = v$searched,
                "id" = CASE WHEN v$stranded IS NULL THEN "w"."id" ELSE least("w"."id", greatest(v$stranded - 50, 0)) END
            RETURNING "w"."id" INTO v$from;
        END IF;
    END IF;
    FOR v$job IN
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
                  -- Below the watermark every row is claimed, gone or deferred: start the index range there.
                  AND "next"."id" >= v$from
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
        v$highest := greatest(v$highest, v$job."id");
        RETURN NEXT v$job;
    END LOOP;
    -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
    -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
    -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
    IF v$highest - v$from >= 150 THEN
        PERFORM "ghosts"."testq_watermark_move"(v$highest);
    END IF;
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_dequeue" OWNER TO "ghosts_owner";
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
    "lowest_pending_id" bigint,
    "completed_last_minute" bigint,
    "watermark_lag" bigint,
    "paused" boolean
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
        min("job"."id") FILTER (WHERE 1 = 1),
        -- on_complete: delete leaves no trace of a completion to count.
        NULL::bigint,
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        coalesce(min("job"."id") FILTER (WHERE 1 = 1), max("job"."id") + 1)
            - (SELECT "w"."id" FROM "ghosts"."testq_watermark" AS "w"),
        NOT EXISTS (SELECT 1 FROM "ghosts"."testq_control" AS "c" WHERE NOT "c"."paused")
    FROM "ghosts"."testq" AS "job";
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_metrics" OWNER TO "ghosts_owner";
REVOKE ALL ON FUNCTION "ghosts"."testq_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek ghosts.testq_peek, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
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
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "testq_peek"."limit" IS NULL OR "testq_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for ghosts.testq_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "ghosts"."testq_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "testq_peek"."limit";
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_peek" OWNER TO "ghosts_owner";
REVOKE ALL ON FUNCTION "ghosts"."testq_peek" FROM PUBLIC;

-- qgen 0.1.0: purge_batch ghosts.testq_purge_batch, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds: at most batch_size rows (1000 by default, refused above 4000) over all
-- those tables together, in the caller's transaction. purge (a procedure) calls it in a loop and
-- commits after each batch; a client can call it in a loop of its own, one transaction per call.
CREATE OR REPLACE FUNCTION "ghosts"."testq_purge_batch"
(
    "older_than_seconds" integer DEFAULT 604800,
    "batch_size" integer DEFAULT 1000
)
RETURNS TABLE ("archived" integer, "processed" integer, "dead" integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$cutoff timestamptz;
    v$left integer := "testq_purge_batch"."batch_size";
    v$deleted integer;
BEGIN
    IF "testq_purge_batch"."batch_size" IS NULL OR "testq_purge_batch"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("testq_purge_batch"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF "testq_purge_batch"."older_than_seconds" IS NULL OR "testq_purge_batch"."older_than_seconds" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: older_than_seconds ' || coalesce("testq_purge_batch"."older_than_seconds"::text, 'NULL') || ' is out of range; accepted: 0 or more';
    END IF;
    v$cutoff := now() - pg_catalog.make_interval(secs => "testq_purge_batch"."older_than_seconds");
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_purge_batch" OWNER TO "ghosts_owner";
REVOKE ALL ON FUNCTION "ghosts"."testq_purge_batch" FROM PUBLIC;

-- qgen 0.1.0: purge ghosts.testq_purge, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds, one batch of at most batch_size rows at a time, and COMMITs after each batch:
-- no transaction holds more than one batch, and vacuum can clean up behind it while it runs.
-- Rows that finish while it runs (a second after it began) are left for the next purge, so it ends.
-- A procedure that commits cannot be SECURITY DEFINER nor have a SET clause: it runs with its
-- caller's rights and reaches the tables only through testq_purge_batch (EXECUTE on that is all it
-- needs); every name in it is schema-qualified. CALL it outside a transaction block (inside one,
-- PostgreSQL refuses its COMMIT: invalid transaction termination, 2D000); there call
-- testq_purge_batch instead.
CREATE OR REPLACE PROCEDURE "ghosts"."testq_purge"
(
    "older_than_seconds" integer DEFAULT 604800,
    "batch_size" integer DEFAULT 1000,
    INOUT "archived" bigint DEFAULT NULL,
    INOUT "processed" bigint DEFAULT NULL,
    INOUT "dead" bigint DEFAULT NULL
)
LANGUAGE plpgsql
AS $qgen$
#variable_conflict use_column
DECLARE
    v$started timestamptz := pg_catalog.clock_timestamp();
    v$batch record;
BEGIN
    "testq_purge"."archived" := 0;
    "testq_purge"."processed" := 0;
    "testq_purge"."dead" := 0;
    LOOP
        -- Each batch is a new transaction with a later now(): widen the age by the whole seconds
        -- spent so far, so the cutoff stays within a second of where it was when the call began.
        SELECT * INTO v$batch
        FROM "ghosts"."testq_purge_batch"(
            "testq_purge"."older_than_seconds" + pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - v$started))::integer,
            "testq_purge"."batch_size");
        "testq_purge"."archived" := "testq_purge"."archived" + v$batch."archived";
        "testq_purge"."processed" := "testq_purge"."processed" + v$batch."processed";
        "testq_purge"."dead" := "testq_purge"."dead" + v$batch."dead";
        COMMIT;
        -- A short batch: nothing older is left (or what is left is locked: the next purge takes it).
        EXIT WHEN v$batch."archived" + v$batch."processed" + v$batch."dead" < "testq_purge"."batch_size";
    END LOOP;
END
$qgen$;
ALTER PROCEDURE "ghosts"."testq_purge" OWNER TO "ghosts_owner";
REVOKE ALL ON PROCEDURE "ghosts"."testq_purge" FROM PUBLIC;

-- qgen 0.1.0: maintain ghosts.testq_maintain, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- batch_size finished jobs older than the retention (604800 s), and corrects the watermark, in that order, in one transaction. Only one runs at a
-- time per queue: a caller that finds another one running returns at once with skipped = true.
-- more = true when a step filled its batch: call again (qgen maintain does) to do the rest.
-- Granted to the consumer role, so any worker can run it (run_worker does, every few seconds).
CREATE OR REPLACE FUNCTION "ghosts"."testq_maintain"
(
    "batch_size" integer DEFAULT 1000
)
RETURNS TABLE
(
    "skipped" boolean,
    "released" integer,
    "dead_lettered" integer,
    "old_watermark" bigint,
    "new_watermark" bigint,
    "archived" integer,
    "processed" integer,
    "dead" integer,
    "more" boolean
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "testq_maintain"."batch_size" IS NULL OR "testq_maintain"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("testq_maintain"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    "released" := 0;
    "dead_lettered" := 0;
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    -- One at a time (see the macro maintain_lock). The lock is the transaction's: it goes with the
    -- commit or the rollback, whatever happens.
    BEGIN
        LOCK TABLE "ghosts"."testq_watermark" IN SHARE UPDATE EXCLUSIVE MODE NOWAIT;
    EXCEPTION WHEN lock_not_available THEN
        "skipped" := TRUE;
        "more" := FALSE;
        RETURN NEXT;
        RETURN;
    END;
    "skipped" := FALSE;
    -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
    SELECT "p"."archived", "p"."processed", "p"."dead" INTO "archived", "processed", "dead"
    FROM "ghosts"."testq_purge_batch"(604800, "testq_maintain"."batch_size") AS "p";
    SELECT "w"."old_watermark", "w"."new_watermark" INTO "old_watermark", "new_watermark"
    FROM "ghosts"."testq_watermark_correct"() AS "w";
    "more" := "archived" + "processed" + "dead" >= "testq_maintain"."batch_size"
              OR "released" + "dead_lettered" >= least("testq_maintain"."batch_size", 1000);
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_maintain" OWNER TO "ghosts_owner";
REVOKE ALL ON FUNCTION "ghosts"."testq_maintain" FROM PUBLIC;

-- qgen 0.1.0: job ghosts.testq_job, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One job's state by id, wherever it is: queued, scheduled (delayed, or backing off after a failure),
-- in_flight (leased: lease_expires_at, lease_owner), processed (on_complete: mark), archived, dead (with
-- last_error), or not_found. Reads only, one row always: plain snapshot reads, which take no row
-- lock, never wait on one and make no worker wait. It looks where a job goes in the order it goes
-- there (the queue table, then the dead letters, then the archive), one statement each: a job that
-- moves meanwhile is found where it arrived (each statement's snapshot is at least as new as the
-- one before), never missed. A job a delete-mode claim holds in an open transaction is still
-- queued here (the last committed state). The archive has no index on id (every completion would
-- pay for one): it is read from its newest entry back.
CREATE OR REPLACE FUNCTION "ghosts"."testq_job"
(
    "job_id" bigint
)
RETURNS TABLE
(
    "id" bigint,
    "state" text,
    "enqueued_at" timestamptz,
    "attempts" integer,
    "last_error" text,
    "finished_at" timestamptz
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "testq_job"."job_id" IS NULL OR "testq_job"."job_id" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: job_id ' || coalesce("testq_job"."job_id"::text, 'NULL') || ' is out of range for ghosts.testq_job; accepted: a job id, 1 or more';
    END IF;
    RETURN QUERY
    SELECT "j"."id", 'queued'::text,
        "j"."enqueued_at",
        NULL::integer,
        NULL::text, NULL::timestamptz
    FROM "ghosts"."testq" AS "j"
    WHERE "j"."id" = "testq_job"."job_id";
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "testq_job"."job_id", 'not_found'::text, NULL::timestamptz, NULL::integer,
        NULL::text, NULL::timestamptz;
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_job" OWNER TO "ghosts_owner";
REVOKE ALL ON FUNCTION "ghosts"."testq_job" FROM PUBLIC;

-- qgen 0.1.0: pause ghosts.testq_pause, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job. Enqueues go on, and leases already granted run to their end (complete, fail,
-- extend_lease, release and reap work as before). Returns 1 when this call paused the queue, 0
-- when it was paused already.
CREATE OR REPLACE FUNCTION "ghosts"."testq_pause"()
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '5s'
AS $qgen$
#variable_conflict use_column
DECLARE
    v$was boolean;
BEGIN
    SELECT "c"."paused" INTO v$was FROM "ghosts"."testq_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "ghosts"."testq_control" ("paused", "changed_at", "changed_by")
        VALUES (TRUE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "ghosts"."testq_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = TRUE THEN
        RETURN 0;
    END IF;
    UPDATE "ghosts"."testq_control" AS "c"
    SET "paused" = TRUE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on ghosts.testq: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_pause" OWNER TO "ghosts_owner";
REVOKE ALL ON FUNCTION "ghosts"."testq_pause" FROM PUBLIC;

-- qgen 0.1.0: resume ghosts.testq_resume, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again. Returns 1 when this call
-- resumed the queue, 0 when it was not paused.
CREATE OR REPLACE FUNCTION "ghosts"."testq_resume"()
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '5s'
AS $qgen$
#variable_conflict use_column
DECLARE
    v$was boolean;
BEGIN
    SELECT "c"."paused" INTO v$was FROM "ghosts"."testq_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "ghosts"."testq_control" ("paused", "changed_at", "changed_by")
        VALUES (FALSE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "ghosts"."testq_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = FALSE THEN
        RETURN 0;
    END IF;
    UPDATE "ghosts"."testq_control" AS "c"
    SET "paused" = FALSE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on ghosts.testq: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_resume" OWNER TO "ghosts_owner";
REVOKE ALL ON FUNCTION "ghosts"."testq_resume" FROM PUBLIC;

-- qgen 0.1.0: cancel ghosts.testq_cancel, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (ids; at most 4000): each job still in the queue leaves it at once, in
-- this one statement, deleted (this queue keeps no dead letters), and never runs.
-- One row per distinct id, in id order, "outcome":
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   held: another open transaction holds it (a claim, or another cancel): SKIP LOCKED never waits
--     for it, nothing is done. If that transaction rolls back the job is queued again, and can be
--     cancelled then;
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order, as every other statement that locks several jobs does, so cancel
-- deadlocks with none of them, at most 5 s (then
-- refused, QG002: nothing done). At REPEATABLE READ or SERIALIZABLE it is refused (QG002): it would
-- answer from the transaction's snapshot, which does not show a job enqueued since, and say
-- not_queued of a job that then runs.
CREATE OR REPLACE FUNCTION "ghosts"."testq_cancel"
(
    "ids" bigint[]
)
RETURNS TABLE ("id" bigint, "outcome" text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '5s'
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "testq_cancel"."ids" IS NULL OR EXISTS (SELECT 1 FROM pg_catalog.unnest("testq_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NULL OR "a"."id" < 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: ids must be an array of job ids (whole numbers from 1)';
    END IF;
    IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on ghosts.testq: cancel at REPEATABLE READ or SERIALIZABLE would answer from the transaction''s snapshot, which does not show a job enqueued since (it would say not_queued of a job that then runs); run it at READ COMMITTED';
    END IF;
    IF (SELECT count(DISTINCT "a"."id") FROM pg_catalog.unnest("testq_cancel"."ids") AS "a" ("id")) > 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: ids lists more than 4000 jobs; accepted: 1 to 4000 per call';
    END IF;
    RETURN QUERY
    WITH "asked" AS
    (
        SELECT DISTINCT "a"."id" FROM pg_catalog.unnest("testq_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NOT NULL
    ),
    "found" AS
    (
        -- The rows by their id, locked (SKIP LOCKED: a claim's open transaction is never waited for).
        SELECT "job"."id"
        FROM "ghosts"."testq" AS "job"
        WHERE "job"."id" IN (SELECT "a"."id" FROM "asked" AS "a")
        ORDER BY "job"."id"
        FOR UPDATE SKIP LOCKED
    ),
    "gone" AS
    (
        DELETE FROM "ghosts"."testq" AS "job"
        USING "found" AS "f"
        WHERE "job"."id" = "f"."id"
        RETURNING "job".*
    )
    SELECT "a"."id",
        CASE
             WHEN "g"."id" IS NOT NULL THEN 'cancelled'
             -- Skipped above: another open transaction holds it.
             WHEN EXISTS (SELECT 1 FROM "ghosts"."testq" AS "job" WHERE "job"."id" = "a"."id") THEN 'held'
             ELSE 'not_queued' END
    FROM "asked" AS "a"
    -- What the DELETE took out: the outcome is what happened, not what was found.
    LEFT JOIN "gone" AS "g" ON "g"."id" = "a"."id"
    ORDER BY "a"."id";
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on ghosts.testq: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again';
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_cancel" OWNER TO "ghosts_owner";
REVOKE ALL ON FUNCTION "ghosts"."testq_cancel" FROM PUBLIC;

-- qgen 0.1.0: grants to roles ghosts_producer, ghosts_consumer, ghosts_admin, rendered for PostgreSQL from 001_watermark.yaml.
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
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "ghosts"."testq_maintain" TO "ghosts_consumer";
GRANT SELECT ON "ghosts"."testq_pending" TO "ghosts_admin";
-- Admins run every function (and the worker procedure) qgen created, and nothing else: each by
-- name, never ALL ROUTINES IN SCHEMA, which in a shared schema would reach the application's too.
GRANT EXECUTE ON ROUTINE "ghosts"."testq_enqueue" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_enqueue_batch" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_watermark_move" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_watermark_correct" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_dequeue" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_metrics" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_peek" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_purge_batch" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_purge" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_maintain" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_job" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_pause" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_resume" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_cancel" TO "ghosts_admin";

-- qgen 0.1.0: verify ghosts, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Install ends here, and fails loudly if any of qgen's functions or tables is owned by another role
-- than ghosts_owner, or a SECURITY DEFINER function does not pin its search_path: run with its
-- owner's rights, it would resolve names through its caller's path.
DO $qgen$
DECLARE
    v$wrong text;
BEGIN
    SELECT pg_catalog.string_agg(x.what, ', ' ORDER BY x.what) INTO v$wrong
    FROM
    (
        SELECT p.oid::pg_catalog.regprocedure::text
               || CASE WHEN p.proowner <> '"ghosts_owner"'::pg_catalog.regrole THEN ' (owned by ' || p.proowner::pg_catalog.regrole::text || ')'
                       ELSE ' (search_path not pinned)' END AS what
        FROM pg_catalog.pg_proc AS p
        JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
        WHERE n.nspname = 'ghosts'
          AND p.proname IN ('testq', 'testq_watermark', 'testq_pending', 'testq_batch', 'testq_enqueue', 'testq_enqueue_batch', 'testq_watermark_move', 'testq_watermark_correct', 'testq_control', 'testq_dequeue', 'testq_metrics', 'testq_peek', 'testq_purge_batch', 'testq_purge', 'testq_maintain', 'testq_job', 'testq_pause', 'testq_resume', 'testq_cancel')
          AND (p.proowner <> '"ghosts_owner"'::pg_catalog.regrole
               OR (p.prosecdef AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) AS c (setting)
                                               WHERE c.setting LIKE 'search\_path=%')))
        UNION ALL
        SELECT c.oid::pg_catalog.regclass::text || ' (owned by ' || c.relowner::pg_catalog.regrole::text || ')'
        FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'ghosts'
          AND c.relkind IN ('r', 'v')
          AND c.relname IN ('testq', 'testq_watermark', 'testq_pending', 'testq_batch', 'testq_enqueue', 'testq_enqueue_batch', 'testq_watermark_move', 'testq_watermark_correct', 'testq_control', 'testq_dequeue', 'testq_metrics', 'testq_peek', 'testq_purge_batch', 'testq_purge', 'testq_maintain', 'testq_job', 'testq_pause', 'testq_resume', 'testq_cancel')
          AND c.relowner <> '"ghosts_owner"'::pg_catalog.regrole
    ) AS x;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020', MESSAGE = 'qgen: wrongly installed in schema ghosts: ' || v$wrong;
    END IF;
    -- And each function is what this install rendered, not an older version left in place (psql
    -- without ON_ERROR_STOP goes on after a CREATE OR REPLACE that failed): md5 of its body without
    -- whitespace (qgen.dialects.postgres.module_fingerprints) against the one rendered.
    SELECT pg_catalog.string_agg(r.name, ', ' ORDER BY r.name) INTO v$wrong
    FROM
    (
        VALUES
            ('testq_cancel', '29a5cf5ac415599d38be6d88afc4810b'),
            ('testq_dequeue', '770df47794ddb87b638ac1ea0f65fad5'),
            ('testq_dequeue_guard', 'bca34982717e7e69fc0e1621f05c9e61'),
            ('testq_enqueue', '0e8974c30dd19a558b7ac27c602ccbd3'),
            ('testq_enqueue_batch', 'ea2610563d872f37eb2922226fea76e1'),
            ('testq_job', 'a3c637fc956d75f0b50681d54610e513'),
            ('testq_maintain', '4897190e0a6187786dca8f2e52539b51'),
            ('testq_metrics', 'ea5c03a808bddc7d57e53250433446f3'),
            ('testq_pause', '4b5b14bda11c6047ccc4b94e87e22cb2'),
            ('testq_peek', '46abce391f8aca6abd6ad3cb70511ec9'),
            ('testq_purge', '1f267331f210ca4bfb818d69455228f4'),
            ('testq_purge_batch', '0a0214fd0eb7326f01264e5b340ef671'),
            ('testq_resume', '57d4a6c79a0a7167987ffe5bc0e49318'),
            ('testq_watermark_correct', '98ab134a5dda6292254bf92f6476ed44'),
            ('testq_watermark_move', 'b8f6eeb462acd15867df7f0b75b98fa0')
    ) AS r (name, fingerprint)
    JOIN pg_catalog.pg_proc AS p ON p.proname = r.name
    JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace AND n.nspname = 'ghosts'
    WHERE pg_catalog.md5(pg_catalog.regexp_replace(p.prosrc, '[[:space:]]', '', 'g')) <> r.fingerprint;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020',
            MESSAGE = 'qgen: installed in schema ghosts, but not as this install rendered it: ' || v$wrong,
            HINT = 'An earlier statement failed and left an older version: read its error, fix it and run install.sql again.';
    END IF;
END
$qgen$;
