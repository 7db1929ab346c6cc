-- qgen 0.1.0: every object of spec.yaml, for PostgreSQL, in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema pgs_del, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- pgs_del_owner owns every object qgen creates here, and cannot log in: the SECURITY DEFINER
-- functions run with its rights (its own tables and nothing else), not with those of whoever ran
-- install. The schema and the role are marked (COMMENT) when install creates them: uninstall drops
-- only what carries the mark.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_del_owner') THEN
        CREATE ROLE "pgs_del_owner" NOLOGIN;
        COMMENT ON ROLE "pgs_del_owner" IS 'qgen: created by the install of schema pgs_del';
    ELSIF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_del_owner' AND (rolcanlogin OR rolsuper)) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG022',
            MESSAGE = 'qgen: role pgs_del_owner exists and can log in or is a superuser; qgen''s SECURITY DEFINER functions run as this role',
            HINT = 'Make it NOLOGIN NOSUPERUSER, or drop it and let install create it.';
    END IF;
    -- Whoever installs creates the objects and hands them to the owner (ALTER ... OWNER TO), which
    -- takes membership of it unless it is a superuser.
    IF NOT pg_catalog.pg_has_role(current_user, 'pgs_del_owner', 'MEMBER') THEN
        GRANT "pgs_del_owner" TO CURRENT_USER;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'pgs_del') THEN
        CREATE SCHEMA "pgs_del";
        COMMENT ON SCHEMA "pgs_del" IS 'qgen: created by the install of schema pgs_del';
    END IF;
END
$qgen$;
GRANT USAGE, CREATE ON SCHEMA "pgs_del" TO "pgs_del_owner";

-- qgen 0.1.0: roles pgs_del_producer, pgs_del_consumer, pgs_del_admin (cluster-wide), rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing,
-- and mark the ones install creates (COMMENT): uninstall drops only those, never a role that was
-- there before and that the spec only names.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_del_producer') THEN
        CREATE ROLE "pgs_del_producer" NOLOGIN;
        COMMENT ON ROLE "pgs_del_producer" IS 'qgen: created by the install of schema pgs_del';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_del_consumer') THEN
        CREATE ROLE "pgs_del_consumer" NOLOGIN;
        COMMENT ON ROLE "pgs_del_consumer" IS 'qgen: created by the install of schema pgs_del';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_del_admin') THEN
        CREATE ROLE "pgs_del_admin" NOLOGIN;
        COMMENT ON ROLE "pgs_del_admin" IS 'qgen: created by the install of schema pgs_del';
    END IF;
END
$qgen$;

-- qgen 0.1.0: table pgs_del.events, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Storage fit for a queue table, whose rows are inserted, and deleted all day:
-- autovacuum_vacuum_scale_factor 0.01 (default 0.2): vacuum once 1% of the rows are dead, not 20%:
--   on a queue with a backlog, dead entries at the head of the claim index are what every claim
--   walks through, and 20% of a million-row backlog is 200,000 of them.
-- autovacuum_vacuum_threshold 1000 (default 50): but on a nearly empty queue, not after every 50
--   deleted jobs: a few vacuums a minute at most on a busy small queue.
-- autovacuum_analyze_scale_factor 0.02 (default 0.1): the row count swings with the backlog; keep
--   the statistics the planner sees close to it.
CREATE TABLE IF NOT EXISTS "pgs_del"."events"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "name" varchar(50) NOT NULL,
    "data" jsonb NULL,
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    "enqueued_by" varchar(128) NULL,
    PRIMARY KEY ("id")
)
WITH (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
      autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "pgs_del"."events" OWNER TO "pgs_del_owner";

-- qgen 0.1.0: watermark_table pgs_del.events_watermark, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their index range here instead of
-- walking the dead index entries that claimed or deleted rows leave at the low end.
CREATE TABLE IF NOT EXISTS "pgs_del"."events_watermark"
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
ALTER TABLE "pgs_del"."events_watermark" OWNER TO "pgs_del_owner";
INSERT INTO "pgs_del"."events_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: archive_table pgs_del.events_archive, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Completed jobs, moved here by dequeue and removed by purge after the retention period.
-- Keyed by an identity of its own: "id" is the job's id, which repeats once the queue's identity is
-- restarted (or when a job reaches the archive twice).
CREATE TABLE IF NOT EXISTS "pgs_del"."events_archive"
(
    "entry_id" bigint GENERATED ALWAYS AS IDENTITY,
    "id" bigint NOT NULL,
    "name" varchar(50) NOT NULL,
    "data" jsonb NULL,
    "enqueued_at" timestamptz NOT NULL,
    "enqueued_by" varchar(128) NULL,
    "completed_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("entry_id")
);
ALTER TABLE "pgs_del"."events_archive" OWNER TO "pgs_del_owner";

-- qgen 0.1.0: archive_index pgs_del.events_archive_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes archived jobs by age: it finds the old ones here instead of scanning the archive.
CREATE INDEX IF NOT EXISTS "events_archive_ix"
    ON "pgs_del"."events_archive" ("completed_at");

-- qgen 0.1.0: pending_view pgs_del.events_pending, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "pgs_del"."events_pending" AS
SELECT "job"."id", "job"."name", "job"."data", "job"."enqueued_at", "job"."enqueued_by"
FROM "pgs_del"."events" AS "job"
WHERE 1 = 1;
ALTER VIEW "pgs_del"."events_pending" OWNER TO "pgs_del_owner";

-- qgen 0.1.0: batch_type pgs_del.events_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) when missing, and the table rejects a missing required column.
-- Its string and decimal fields have no length or scale (m.param_type): reading a job into
-- varchar(n) or numeric(p,s) would cut or round a value past its column before enqueue_batch
-- could refuse it (QG010).
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"pgs_del"."events_batch"') IS NULL THEN
        CREATE TYPE "pgs_del"."events_batch" AS
        (
            "ordinal" integer,
            "name" varchar,
            "data" jsonb
        );
    END IF;
END
$qgen$;
ALTER TYPE "pgs_del"."events_batch" OWNER TO "pgs_del_owner";

-- qgen 0.1.0: enqueue pgs_del.events_enqueue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "pgs_del"."events_enqueue"
(
    "name" varchar(50),
    "data" jsonb DEFAULT NULL,
    "enqueued_by" varchar(128) DEFAULT NULL
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF pg_catalog.length("events_enqueue"."name") > 50 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: name is past its column''s limit in pgs_del.events_enqueue; accepted: string(50), at most 50 characters';
    END IF;
    IF pg_catalog.length("events_enqueue"."enqueued_by") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: enqueued_by is past its column''s limit in pgs_del.events_enqueue; accepted: string(128), at most 128 characters';
    END IF;
    RETURN QUERY
        INSERT INTO "pgs_del"."events" AS "job" ("name", "data", "enqueued_by")
        VALUES ("events_enqueue"."name", "events_enqueue"."data", coalesce("events_enqueue"."enqueued_by", session_user::text))
        RETURNING "job"."id", TRUE;
END
$qgen$;
ALTER FUNCTION "pgs_del"."events_enqueue" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."events_enqueue" FROM PUBLIC;

-- qgen 0.1.0: enqueue_batch pgs_del.events_enqueue_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job.
CREATE OR REPLACE FUNCTION "pgs_del"."events_enqueue_batch"
(
    "jobs" jsonb,
    "enqueued_by" varchar(128) DEFAULT NULL
)
RETURNS TABLE ("ordinal" integer, "id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    -- The ids are drawn before the insert, so each input job knows its id whether or not it is inserted.
    v$sequence regclass := pg_catalog.pg_get_serial_sequence('"pgs_del"."events"', 'id')::regclass;
    v$over integer;
    v$over_column text;
BEGIN

    IF pg_catalog.length("events_enqueue_batch"."enqueued_by") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: enqueued_by is past its column''s limit in pgs_del.events_enqueue_batch; accepted: string(128), at most 128 characters';
    END IF;

    SELECT coalesce("j"."ordinal", "e"."position$"::integer),
           CASE WHEN pg_catalog.length("j"."name") > 50 THEN 'name; accepted: string(50), at most 50 characters' END
    INTO v$over, v$over_column
    FROM jsonb_array_elements("events_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
    CROSS JOIN LATERAL jsonb_populate_record(NULL::"pgs_del"."events_batch", "e"."job$") AS "j"
    WHERE pg_catalog.length("j"."name") > 50
    ORDER BY "e"."position$"
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = pg_catalog.format('qgen: job %s of the batch has a value past its column''s limit in pgs_del.events_enqueue_batch: column %s', v$over, v$over_column);
    END IF;
    RETURN QUERY
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "e"."position$"::integer) AS "ordinal",
                   "j"."name", "j"."data"
            -- The array position and the new id are qgen's own columns beside the job's: their names
            -- hold a $, which no spec column can.
            FROM jsonb_array_elements("events_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
            CROSS JOIN LATERAL jsonb_populate_record(NULL::"pgs_del"."events_batch", "e"."job$") AS "j"
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
            INSERT INTO "pgs_del"."events" AS "job" ("id", "name", "data", "enqueued_by")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new$id", "n"."name", "n"."data", coalesce("events_enqueue_batch"."enqueued_by", session_user::text)
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal", "n"."new$id", TRUE
        FROM "numbered" AS "n"
        ORDER BY "n"."ordinal";
END
$qgen$;
ALTER FUNCTION "pgs_del"."events_enqueue_batch" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."events_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: watermark_move pgs_del.events_watermark_move, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 2 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR REPLACE FUNCTION "pgs_del"."events_watermark_move"
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
    v$target bigint := "events_watermark_move"."claimed_from" - 2;
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
    SELECT "w"."id" INTO v$current FROM "pgs_del"."events_watermark" AS "w";
    IF NOT FOUND OR v$current >= v$target THEN
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM "pgs_del"."events" AS "job"
               WHERE "job"."id" = v$current AND 1 = 1) THEN
        RETURN;
    END IF;
    -- SKIP LOCKED: a session already moving it (or a release lowering it) wins; this one skips.
    SELECT "w"."id" INTO v$current FROM "pgs_del"."events_watermark" AS "w" FOR UPDATE SKIP LOCKED;
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
    FROM "pgs_del"."events" AS "job"
    WHERE "job"."id" >= v$current AND "job"."id" < v$target AND 1 = 1;
    UPDATE "pgs_del"."events_watermark" AS "w"
    SET "id" = coalesce(v$lowest, v$target)
    WHERE "w"."id" < coalesce(v$lowest, v$target);
END
$qgen$;
ALTER FUNCTION "pgs_del"."events_watermark_move" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."events_watermark_move" FROM PUBLIC;

-- qgen 0.1.0: watermark_correct pgs_del.events_watermark_correct, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 2 ids (the slack, for inserts still in flight) below
-- the lowest unclaimed id, or below the next id when every row is claimed or gone (the table's highest
-- id, or its identity when it is empty), never below 0. It repairs a watermark that is wrong either
-- way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it after a
-- drain (run it after a dequeue that found nothing) and for a watermark set by hand.
CREATE OR REPLACE FUNCTION "pgs_del"."events_watermark_correct"()
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
        SELECT "w"."id" INTO "old_watermark" FROM "pgs_del"."events_watermark" AS "w" FOR UPDATE SKIP LOCKED;
        v$held := NOT FOUND AND EXISTS (SELECT 1 FROM "pgs_del"."events_watermark");
    EXCEPTION WHEN serialization_failure THEN
        v$held := TRUE;
    END;
    IF v$held THEN
        SELECT "w"."id", "w"."id" INTO "old_watermark", "new_watermark" FROM "pgs_del"."events_watermark" AS "w";
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
    SELECT min("job"."id") INTO v$new FROM "pgs_del"."events" AS "job" WHERE 1 = 1;
    IF v$new IS NULL THEN
        SELECT max("job"."id") + 1 INTO v$new FROM "pgs_del"."events" AS "job";
    END IF;
    IF v$new IS NULL THEN
        -- Drained: the next id comes from the identity. Left where it was, a watermark a release
        -- had lowered would make every claim walk the whole drained range again.
        v$new := pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence('"pgs_del"."events"', 'id')::regclass) + 1;
    END IF;
    -- greatest() skips NULLs, so a table never inserted into (v$new NULL) must not reach it.
    "new_watermark" := CASE WHEN v$new IS NULL THEN coalesce("old_watermark", 0)
                            ELSE greatest(v$new - 2, 0) END;
    IF "new_watermark" > "old_watermark" AND NOT pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        -- REPEATABLE READ or SERIALIZABLE: the scans above read the transaction's first snapshot,
        -- which may still show as claimed a job released since. Lowering is safe; raising waits
        -- for a READ COMMITTED call.
        "new_watermark" := "old_watermark";
    END IF;
    IF "old_watermark" IS NULL THEN
        -- The row was deleted by hand: put it back.
        INSERT INTO "pgs_del"."events_watermark" ("id", "corrected_at") VALUES ("events_watermark_correct"."new_watermark", coalesce(v$searched, '-infinity'))
        ON CONFLICT DO NOTHING;
    ELSE
        UPDATE "pgs_del"."events_watermark" AS "w" SET "id" = "events_watermark_correct"."new_watermark", "corrected_at" = coalesce(v$searched, "w"."corrected_at");
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_del"."events_watermark_correct" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."events_watermark_correct" FROM PUBLIC;

-- qgen 0.1.0: control_table pgs_del.events_control, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which role). Every
-- claim reads it first (a plain read: a pause or resume counts from its commit, and no claim waits
-- on one left open). A missing row (deleted by hand) reads as running.
CREATE TABLE IF NOT EXISTS "pgs_del"."events_control"
(
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    "paused" boolean NOT NULL DEFAULT FALSE,
    "changed_at" timestamptz NULL,
    "changed_by" varchar(128) NULL,
    PRIMARY KEY ("one_row")
);
ALTER TABLE "pgs_del"."events_control" OWNER TO "pgs_del_owner";
INSERT INTO "pgs_del"."events_control" ("paused") VALUES (FALSE) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dequeue pgs_del.events_dequeue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"pgs_del"."events_dequeue_row"') IS NULL THEN
        CREATE TYPE "pgs_del"."events_dequeue_row" AS
        (
            "id" bigint,
            "name" varchar(50),
            "data" jsonb,
            "enqueued_at" timestamptz
        );
    END IF;
END
$qgen$;
ALTER TYPE "pgs_del"."events_dequeue_row" OWNER TO "pgs_del_owner";
-- A claim that would commit by itself (no transaction block around it) is refused when the
-- transaction commits, unless the caller said at_most_once: then the claim is the commit. A
-- function cannot see whether the caller opened a transaction block, so dequeue notes its own
-- statement's start time, and this deferred trigger, run at commit, accepts only a commit made
-- while a later statement of the caller's runs (its COMMIT). It refuses a commit made during the
-- claim's own statement (autocommit, or a COMMIT sent in the same query string) and one made
-- while no statement runs: the Sync that ends an extended-protocol message sequence, where a
-- driver's autocommit call, or a pipeline of them, commits (current_query() is NULL there).
CREATE OR REPLACE FUNCTION "pgs_del"."events_dequeue_guard"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
BEGIN
    IF pg_catalog.current_query() IS NULL
       OR pg_catalog.current_setting('qgen.claim_statement', TRUE) = pg_catalog.statement_timestamp()::text THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_del.events: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass at_most_once => true';
    END IF;
    RETURN NULL;
END
$qgen$;
ALTER FUNCTION "pgs_del"."events_dequeue_guard" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."events_dequeue_guard" FROM PUBLIC;
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger
                   WHERE tgrelid = '"pgs_del"."events"'::regclass AND tgname = 'events_dequeue_guard') THEN
        -- WHEN is checked as each row is deleted: only a dequeue's own rows queue the check.
        CREATE CONSTRAINT TRIGGER "events_dequeue_guard"
        AFTER DELETE ON "pgs_del"."events"
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW
        WHEN (pg_catalog.current_setting('qgen.claim_statement', TRUE) = pg_catalog.statement_timestamp()::text)
        EXECUTE FUNCTION "pgs_del"."events_dequeue_guard"();
    END IF;
END
$qgen$;
-- Claims up to batch_size jobs by deleting them into the archive, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction block the commit is refused (see above) unless at_most_once is true.
CREATE OR REPLACE FUNCTION "pgs_del"."events_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 10,
    "at_most_once" boolean DEFAULT FALSE
)
RETURNS SETOF "pgs_del"."events_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 10
AS $qgen$
#variable_conflict use_column
DECLARE
    v$job "pgs_del"."events_dequeue_row";
    v$highest bigint;
    v$from bigint;
    v$rescan boolean;
    v$mark bigint;
    v$searched timestamptz;
    v$stranded bigint;
BEGIN
    IF "events_dequeue"."batch_size" IS NULL OR "events_dequeue"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for pgs_del.events_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("events_dequeue"."batch_size"::text, 'NULL'));
    END IF;
    IF pg_catalog.length("events_dequeue"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in pgs_del.events_dequeue; accepted: string(128), at most 128 characters';
    END IF;
    -- Read by the guard trigger at commit; at_most_once clears it.
    PERFORM pg_catalog.set_config('qgen.claim_statement',
                                  CASE WHEN "events_dequeue"."at_most_once" THEN '' ELSE pg_catalog.statement_timestamp()::text END, TRUE);
    -- The guard's check belongs at the commit: a caller's SET CONSTRAINTS ALL IMMEDIATE would run it
    -- at the end of this statement instead, and refuse a claim its transaction was about to commit.
    SET CONSTRAINTS "pgs_del"."events_dequeue_guard" DEFERRED;
    -- Paused (pause, resume): complete what was asked, claim nothing.
    IF NOT EXISTS (SELECT 1 FROM "pgs_del"."events_control" AS "c" WHERE NOT "c"."paused") THEN
        RETURN;
    END IF;
    -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
    SELECT "w"."id", "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) INTO v$from, v$rescan FROM "pgs_del"."events_watermark" AS "w";
    IF NOT FOUND THEN
        v$from := 0;
        INSERT INTO "pgs_del"."events_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;
    ELSIF v$rescan AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        -- Only at READ COMMITTED: at REPEATABLE READ or SERIALIZABLE the search would read the
        -- transaction's first snapshot, and locking a row another worker changed since fails the
        -- caller's whole transaction (40001); a READ COMMITTED dequeue or maintain rescans instead.
        SELECT "w"."id", pg_catalog.clock_timestamp() INTO v$mark, v$searched
        FROM "pgs_del"."events_watermark" AS "w" WHERE "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            -- A statement of its own: its snapshot is taken after the lock, so it sees every release
            -- committed before; one that commits later waits for this row and lowers the watermark itself.
            -- corrected_at gets the time before the search, so a job committed after it is left to the next.
            SELECT min("job"."id") INTO v$stranded
            FROM "pgs_del"."events" AS "job"
            WHERE "job"."id" < v$mark AND 1 = 1;
            UPDATE "pgs_del"."events_watermark" AS "w"
            SET "corrected_at" = v$searched,
                "id" = CASE WHEN v$stranded IS NULL THEN "w"."id" ELSE least("w"."id", greatest(v$stranded - 2, 0)) END
            RETURNING "w"."id" INTO v$from;
        END IF;
    END IF;
    FOR v$job IN
        WITH "claimed" AS
        (
            DELETE FROM "pgs_del"."events" AS "job"
            -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
            -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
            WHERE "job"."id" = ANY (ARRAY
            (
                SELECT "next"."id"
                FROM "pgs_del"."events" AS "next"
                WHERE 1 = 1
                  -- Below the watermark every row is claimed, gone or deferred: start the index range there.
                  AND "next"."id" >= v$from
                ORDER BY "next"."id"
                LIMIT "events_dequeue"."batch_size"
                FOR UPDATE SKIP LOCKED
            ))
            RETURNING "job".*
        ),
        "archived" AS
        (
            INSERT INTO "pgs_del"."events_archive" AS "kept" ("id", "name", "data", "enqueued_at", "enqueued_by", "completed_at")
            SELECT "c"."id", "c"."name", "c"."data", "c"."enqueued_at", "c"."enqueued_by", pg_catalog.clock_timestamp()
            FROM "claimed" AS "c"
        )
        SELECT "c"."id", "c"."name", "c"."data", "c"."enqueued_at"
        FROM "claimed" AS "c"
        ORDER BY "c"."id"
    LOOP
        v$highest := greatest(v$highest, v$job."id");
        RETURN NEXT v$job;
    END LOOP;
    -- Move the watermark once this claim reached 10 + 2 ids above it, to 2 below the claim's highest
    -- id: about once per 10 claimed ids, however the ids run (a gap at every multiple of
    -- 10, from dedupe hits or rolled-back enqueues, or one claim of many ids).
    IF v$highest - v$from >= 12 THEN
        PERFORM "pgs_del"."events_watermark_move"(v$highest);
    END IF;
END
$qgen$;
ALTER FUNCTION "pgs_del"."events_dequeue" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."events_dequeue" FROM PUBLIC;

-- qgen 0.1.0: metrics pgs_del.events_metrics, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "pgs_del"."events_metrics"()
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
        (SELECT count(*) FROM "pgs_del"."events_archive"),
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE 1 = 1)))::bigint, 0),
        (SELECT "w"."id" FROM "pgs_del"."events_watermark" AS "w"),
        min("job"."id") FILTER (WHERE 1 = 1),
        (SELECT count(*) FROM "pgs_del"."events_archive" AS "a" WHERE "a"."completed_at" >= now() - interval '1 minute'),
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        coalesce(min("job"."id") FILTER (WHERE 1 = 1), max("job"."id") + 1)
            - (SELECT "w"."id" FROM "pgs_del"."events_watermark" AS "w"),
        NOT EXISTS (SELECT 1 FROM "pgs_del"."events_control" AS "c" WHERE NOT "c"."paused")
    FROM "pgs_del"."events" AS "job";
END
$qgen$;
ALTER FUNCTION "pgs_del"."events_metrics" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."events_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek pgs_del.events_peek, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "pgs_del"."events_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "pgs_del"."events_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "events_peek"."limit" IS NULL OR "events_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for pgs_del.events_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "pgs_del"."events_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "events_peek"."limit";
END
$qgen$;
ALTER FUNCTION "pgs_del"."events_peek" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."events_peek" FROM PUBLIC;

-- qgen 0.1.0: purge_batch pgs_del.events_purge_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds: at most batch_size rows (1000 by default, refused above 4000) over all
-- those tables together, in the caller's transaction. purge (a procedure) calls it in a loop and
-- commits after each batch; a client can call it in a loop of its own, one transaction per call.
CREATE OR REPLACE FUNCTION "pgs_del"."events_purge_batch"
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
    v$left integer := "events_purge_batch"."batch_size";
    v$deleted integer;
BEGIN
    IF "events_purge_batch"."batch_size" IS NULL OR "events_purge_batch"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("events_purge_batch"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF "events_purge_batch"."older_than_seconds" IS NULL OR "events_purge_batch"."older_than_seconds" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: older_than_seconds ' || coalesce("events_purge_batch"."older_than_seconds"::text, 'NULL') || ' is out of range; accepted: 0 or more';
    END IF;
    v$cutoff := now() - pg_catalog.make_interval(secs => "events_purge_batch"."older_than_seconds");
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    IF v$left > 0 THEN
        DELETE FROM "pgs_del"."events_archive" AS "x"
        WHERE "x"."entry_id" = ANY (ARRAY(
            SELECT "y"."entry_id" FROM "pgs_del"."events_archive" AS "y"
            WHERE "y"."completed_at" < v$cutoff
            LIMIT v$left
            FOR UPDATE SKIP LOCKED));
        GET DIAGNOSTICS v$deleted = ROW_COUNT;
        "archived" := v$deleted;
        v$left := v$left - v$deleted;
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_del"."events_purge_batch" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."events_purge_batch" FROM PUBLIC;

-- qgen 0.1.0: purge pgs_del.events_purge, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds, one batch of at most batch_size rows at a time, and COMMITs after each batch:
-- no transaction holds more than one batch, and vacuum can clean up behind it while it runs.
-- Rows that finish while it runs (a second after it began) are left for the next purge, so it ends.
-- A procedure that commits cannot be SECURITY DEFINER nor have a SET clause: it runs with its
-- caller's rights and reaches the tables only through events_purge_batch (EXECUTE on that is all it
-- needs); every name in it is schema-qualified. CALL it outside a transaction block (inside one,
-- PostgreSQL refuses its COMMIT: invalid transaction termination, 2D000); there call
-- events_purge_batch instead.
CREATE OR REPLACE PROCEDURE "pgs_del"."events_purge"
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
    "events_purge"."archived" := 0;
    "events_purge"."processed" := 0;
    "events_purge"."dead" := 0;
    LOOP
        -- Each batch is a new transaction with a later now(): widen the age by the whole seconds
        -- spent so far, so the cutoff stays within a second of where it was when the call began.
        SELECT * INTO v$batch
        FROM "pgs_del"."events_purge_batch"(
            "events_purge"."older_than_seconds" + pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - v$started))::integer,
            "events_purge"."batch_size");
        "events_purge"."archived" := "events_purge"."archived" + v$batch."archived";
        "events_purge"."processed" := "events_purge"."processed" + v$batch."processed";
        "events_purge"."dead" := "events_purge"."dead" + v$batch."dead";
        COMMIT;
        -- A short batch: nothing older is left (or what is left is locked: the next purge takes it).
        EXIT WHEN v$batch."archived" + v$batch."processed" + v$batch."dead" < "events_purge"."batch_size";
    END LOOP;
END
$qgen$;
ALTER PROCEDURE "pgs_del"."events_purge" OWNER TO "pgs_del_owner";
REVOKE ALL ON PROCEDURE "pgs_del"."events_purge" FROM PUBLIC;

-- qgen 0.1.0: maintain pgs_del.events_maintain, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- batch_size finished jobs older than the retention (604800 s), and corrects the watermark, in that order, in one transaction. Only one runs at a
-- time per queue: a caller that finds another one running returns at once with skipped = true.
-- more = true when a step filled its batch: call again (qgen maintain does) to do the rest.
-- Granted to the consumer role, so any worker can run it (run_worker does, every few seconds).
CREATE OR REPLACE FUNCTION "pgs_del"."events_maintain"
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
    IF "events_maintain"."batch_size" IS NULL OR "events_maintain"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("events_maintain"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    "released" := 0;
    "dead_lettered" := 0;
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    -- One at a time (see the macro maintain_lock). The lock is the transaction's: it goes with the
    -- commit or the rollback, whatever happens.
    BEGIN
        LOCK TABLE "pgs_del"."events_watermark" IN SHARE UPDATE EXCLUSIVE MODE NOWAIT;
    EXCEPTION WHEN lock_not_available THEN
        "skipped" := TRUE;
        "more" := FALSE;
        RETURN NEXT;
        RETURN;
    END;
    "skipped" := FALSE;
    -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
    SELECT "p"."archived", "p"."processed", "p"."dead" INTO "archived", "processed", "dead"
    FROM "pgs_del"."events_purge_batch"(604800, "events_maintain"."batch_size") AS "p";
    SELECT "w"."old_watermark", "w"."new_watermark" INTO "old_watermark", "new_watermark"
    FROM "pgs_del"."events_watermark_correct"() AS "w";
    "more" := "archived" + "processed" + "dead" >= "events_maintain"."batch_size"
              OR "released" + "dead_lettered" >= least("events_maintain"."batch_size", 1000);
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_del"."events_maintain" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."events_maintain" FROM PUBLIC;

-- qgen 0.1.0: job pgs_del.events_job, rendered for PostgreSQL from spec.yaml.
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
CREATE OR REPLACE FUNCTION "pgs_del"."events_job"
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
    IF "events_job"."job_id" IS NULL OR "events_job"."job_id" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: job_id ' || coalesce("events_job"."job_id"::text, 'NULL') || ' is out of range for pgs_del.events_job; accepted: a job id, 1 or more';
    END IF;
    RETURN QUERY
    SELECT "j"."id", 'queued'::text,
        "j"."enqueued_at",
        NULL::integer,
        NULL::text, NULL::timestamptz
    FROM "pgs_del"."events" AS "j"
    WHERE "j"."id" = "events_job"."job_id";
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "a"."id", 'archived'::text, "a"."enqueued_at", NULL::integer,
        NULL::text, "a"."completed_at"
    FROM "pgs_del"."events_archive" AS "a"
    WHERE "a"."id" = "events_job"."job_id"
    ORDER BY "a"."entry_id" DESC
    LIMIT 1;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "events_job"."job_id", 'not_found'::text, NULL::timestamptz, NULL::integer,
        NULL::text, NULL::timestamptz;
END
$qgen$;
ALTER FUNCTION "pgs_del"."events_job" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."events_job" FROM PUBLIC;

-- qgen 0.1.0: pause pgs_del.events_pause, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job. Enqueues go on, and leases already granted run to their end (complete, fail,
-- extend_lease, release and reap work as before). Returns 1 when this call paused the queue, 0
-- when it was paused already.
CREATE OR REPLACE FUNCTION "pgs_del"."events_pause"()
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
    SELECT "c"."paused" INTO v$was FROM "pgs_del"."events_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "pgs_del"."events_control" ("paused", "changed_at", "changed_by")
        VALUES (TRUE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "pgs_del"."events_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = TRUE THEN
        RETURN 0;
    END IF;
    UPDATE "pgs_del"."events_control" AS "c"
    SET "paused" = TRUE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_del.events: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "pgs_del"."events_pause" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."events_pause" FROM PUBLIC;

-- qgen 0.1.0: resume pgs_del.events_resume, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again. Returns 1 when this call
-- resumed the queue, 0 when it was not paused.
CREATE OR REPLACE FUNCTION "pgs_del"."events_resume"()
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
    SELECT "c"."paused" INTO v$was FROM "pgs_del"."events_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "pgs_del"."events_control" ("paused", "changed_at", "changed_by")
        VALUES (FALSE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "pgs_del"."events_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = FALSE THEN
        RETURN 0;
    END IF;
    UPDATE "pgs_del"."events_control" AS "c"
    SET "paused" = FALSE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_del.events: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "pgs_del"."events_resume" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."events_resume" FROM PUBLIC;

-- qgen 0.1.0: cancel pgs_del.events_cancel, rendered for PostgreSQL from spec.yaml.
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
CREATE OR REPLACE FUNCTION "pgs_del"."events_cancel"
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
    IF "events_cancel"."ids" IS NULL OR EXISTS (SELECT 1 FROM pg_catalog.unnest("events_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NULL OR "a"."id" < 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: ids must be an array of job ids (whole numbers from 1)';
    END IF;
    IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_del.events: cancel at REPEATABLE READ or SERIALIZABLE would answer from the transaction''s snapshot, which does not show a job enqueued since (it would say not_queued of a job that then runs); run it at READ COMMITTED';
    END IF;
    IF (SELECT count(DISTINCT "a"."id") FROM pg_catalog.unnest("events_cancel"."ids") AS "a" ("id")) > 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: ids lists more than 4000 jobs; accepted: 1 to 4000 per call';
    END IF;
    RETURN QUERY
    WITH "asked" AS
    (
        SELECT DISTINCT "a"."id" FROM pg_catalog.unnest("events_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NOT NULL
    ),
    "found" AS
    (
        -- The rows by their id, locked (SKIP LOCKED: a claim's open transaction is never waited for).
        SELECT "job"."id"
        FROM "pgs_del"."events" AS "job"
        WHERE "job"."id" IN (SELECT "a"."id" FROM "asked" AS "a")
        ORDER BY "job"."id"
        FOR UPDATE SKIP LOCKED
    ),
    "gone" AS
    (
        DELETE FROM "pgs_del"."events" AS "job"
        USING "found" AS "f"
        WHERE "job"."id" = "f"."id"
        RETURNING "job".*
    )
    SELECT "a"."id",
        CASE
             WHEN "g"."id" IS NOT NULL THEN 'cancelled'
             -- Skipped above: another open transaction holds it.
             WHEN EXISTS (SELECT 1 FROM "pgs_del"."events" AS "job" WHERE "job"."id" = "a"."id") THEN 'held'
             ELSE 'not_queued' END
    FROM "asked" AS "a"
    -- What the DELETE took out: the outcome is what happened, not what was found.
    LEFT JOIN "gone" AS "g" ON "g"."id" = "a"."id"
    ORDER BY "a"."id";
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_del.events: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again';
END
$qgen$;
ALTER FUNCTION "pgs_del"."events_cancel" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."events_cancel" FROM PUBLIC;

-- qgen 0.1.0: table pgs_del.typed, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Storage fit for a queue table, whose rows are inserted, and deleted all day:
-- autovacuum_vacuum_scale_factor 0.01 (default 0.2): vacuum once 1% of the rows are dead, not 20%:
--   on a queue with a backlog, dead entries at the head of the claim index are what every claim
--   walks through, and 20% of a million-row backlog is 200,000 of them.
-- autovacuum_vacuum_threshold 1000 (default 50): but on a nearly empty queue, not after every 50
--   deleted jobs: a few vacuums a minute at most on a busy small queue.
-- autovacuum_analyze_scale_factor 0.02 (default 0.1): the row count swings with the backlog; keep
--   the statistics the planner sees close to it.
CREATE TABLE IF NOT EXISTS "pgs_del"."typed"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "kind" varchar(20) NOT NULL,
    "v" integer NOT NULL,
    "available_at" timestamptz NOT NULL DEFAULT now(),
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("id")
)
WITH (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
      autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "pgs_del"."typed" OWNER TO "pgs_del_owner";

-- qgen 0.1.0: claim_index pgs_del.typed_claim_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A delete queue holds only unclaimed rows, so the primary key already is id order; this index
-- serves the job-type filter and priority order.
-- Deferred jobs (delayed, or released with a backoff) are left out of it: see the due index below.
CREATE INDEX IF NOT EXISTS "typed_claim_ix"
    ON "pgs_del"."typed" ("kind", "id")
    WHERE "available_at" <= "enqueued_at"
    ;
-- The due index: deferred jobs not yet claimed (a claim takes a job out of it), by the time they
-- become available. A claim takes the due ones from here first, so however many wait for their
-- time, no claim and no watermark steps over them.
CREATE INDEX IF NOT EXISTS "typed_claim_ix_due"
    ON "pgs_del"."typed" ("available_at", "id")
    WHERE "available_at" > "enqueued_at";

-- qgen 0.1.0: claim_order_index pgs_del.typed_claim_order_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A dequeue without a job type claims from every sub-queue, in queue order: typed_claim_ix is keyed
-- by job type first and cannot give that order, so this one does.
CREATE INDEX IF NOT EXISTS "typed_claim_order_ix"
    ON "pgs_del"."typed" ("id")
    WHERE "available_at" <= "enqueued_at"
    ;

-- qgen 0.1.0: watermark_table pgs_del.typed_watermark, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their index range here instead of
-- walking the dead index entries that claimed or deleted rows leave at the low end.
CREATE TABLE IF NOT EXISTS "pgs_del"."typed_watermark"
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
ALTER TABLE "pgs_del"."typed_watermark" OWNER TO "pgs_del_owner";
INSERT INTO "pgs_del"."typed_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: pending_view pgs_del.typed_pending, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "pgs_del"."typed_pending" AS
SELECT "job"."id", "job"."kind", "job"."v", "job"."available_at", "job"."enqueued_at"
FROM "pgs_del"."typed" AS "job"
WHERE 1 = 1;
ALTER VIEW "pgs_del"."typed_pending" OWNER TO "pgs_del_owner";

-- qgen 0.1.0: batch_type pgs_del.typed_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) when missing, and the table rejects a missing required column.
-- Its string and decimal fields have no length or scale (m.param_type): reading a job into
-- varchar(n) or numeric(p,s) would cut or round a value past its column before enqueue_batch
-- could refuse it (QG010).
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"pgs_del"."typed_batch"') IS NULL THEN
        CREATE TYPE "pgs_del"."typed_batch" AS
        (
            "ordinal" integer,
            "kind" varchar,
            "v" integer,
            "run_at" timestamptz
        );
    END IF;
END
$qgen$;
ALTER TYPE "pgs_del"."typed_batch" OWNER TO "pgs_del_owner";

-- qgen 0.1.0: enqueue pgs_del.typed_enqueue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "pgs_del"."typed_enqueue"
(
    "kind" varchar(20),
    "v" integer,
    "run_at" timestamptz DEFAULT NULL
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF pg_catalog.length("typed_enqueue"."kind") > 20 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: kind is past its column''s limit in pgs_del.typed_enqueue; accepted: string(20), at most 20 characters';
    END IF;
    RETURN QUERY
        INSERT INTO "pgs_del"."typed" AS "job" ("kind", "v", "available_at")
        VALUES ("typed_enqueue"."kind", "typed_enqueue"."v", coalesce("typed_enqueue"."run_at", now()))
        RETURNING "job"."id", TRUE;
END
$qgen$;
ALTER FUNCTION "pgs_del"."typed_enqueue" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."typed_enqueue" FROM PUBLIC;

-- qgen 0.1.0: enqueue_batch pgs_del.typed_enqueue_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job.
CREATE OR REPLACE FUNCTION "pgs_del"."typed_enqueue_batch"
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
    v$sequence regclass := pg_catalog.pg_get_serial_sequence('"pgs_del"."typed"', 'id')::regclass;
    v$over integer;
    v$over_column text;
BEGIN

    SELECT coalesce("j"."ordinal", "e"."position$"::integer),
           CASE WHEN pg_catalog.length("j"."kind") > 20 THEN 'kind; accepted: string(20), at most 20 characters' END
    INTO v$over, v$over_column
    FROM jsonb_array_elements("typed_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
    CROSS JOIN LATERAL jsonb_populate_record(NULL::"pgs_del"."typed_batch", "e"."job$") AS "j"
    WHERE pg_catalog.length("j"."kind") > 20
    ORDER BY "e"."position$"
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = pg_catalog.format('qgen: job %s of the batch has a value past its column''s limit in pgs_del.typed_enqueue_batch: column %s', v$over, v$over_column);
    END IF;
    RETURN QUERY
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "e"."position$"::integer) AS "ordinal",
                   "j"."kind", "j"."v", "j"."run_at"
            -- The array position and the new id are qgen's own columns beside the job's: their names
            -- hold a $, which no spec column can.
            FROM jsonb_array_elements("typed_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
            CROSS JOIN LATERAL jsonb_populate_record(NULL::"pgs_del"."typed_batch", "e"."job$") AS "j"
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
            INSERT INTO "pgs_del"."typed" AS "job" ("id", "kind", "v", "available_at")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new$id", "n"."kind", "n"."v", coalesce("n"."run_at", now())
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal", "n"."new$id", TRUE
        FROM "numbered" AS "n"
        ORDER BY "n"."ordinal";
END
$qgen$;
ALTER FUNCTION "pgs_del"."typed_enqueue_batch" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."typed_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: watermark_move pgs_del.typed_watermark_move, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR REPLACE FUNCTION "pgs_del"."typed_watermark_move"
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
    v$target bigint := "typed_watermark_move"."claimed_from" - 50;
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
    SELECT "w"."id" INTO v$current FROM "pgs_del"."typed_watermark" AS "w";
    IF NOT FOUND OR v$current >= v$target THEN
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM "pgs_del"."typed" AS "job"
               WHERE "job"."id" = v$current AND 1 = 1 AND "job"."available_at" <= "job"."enqueued_at") THEN
        RETURN;
    END IF;
    -- SKIP LOCKED: a session already moving it (or a release lowering it) wins; this one skips.
    SELECT "w"."id" INTO v$current FROM "pgs_del"."typed_watermark" AS "w" FOR UPDATE SKIP LOCKED;
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
    FROM "pgs_del"."typed" AS "job"
    WHERE "job"."id" >= v$current AND "job"."id" < v$target AND 1 = 1 AND "job"."available_at" <= "job"."enqueued_at";
    UPDATE "pgs_del"."typed_watermark" AS "w"
    SET "id" = coalesce(v$lowest, v$target)
    WHERE "w"."id" < coalesce(v$lowest, v$target);
END
$qgen$;
ALTER FUNCTION "pgs_del"."typed_watermark_move" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."typed_watermark_move" FROM PUBLIC;

-- qgen 0.1.0: watermark_correct pgs_del.typed_watermark_correct, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids (the slack, for inserts still in flight) below
-- the lowest unclaimed id, or below the next id when every row is claimed or gone (the table's highest
-- id, or its identity when it is empty), never below 0. It repairs a watermark that is wrong either
-- way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it after a
-- drain (run it after a dequeue that found nothing) and for a watermark set by hand.
CREATE OR REPLACE FUNCTION "pgs_del"."typed_watermark_correct"()
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
        SELECT "w"."id" INTO "old_watermark" FROM "pgs_del"."typed_watermark" AS "w" FOR UPDATE SKIP LOCKED;
        v$held := NOT FOUND AND EXISTS (SELECT 1 FROM "pgs_del"."typed_watermark");
    EXCEPTION WHEN serialization_failure THEN
        v$held := TRUE;
    END;
    IF v$held THEN
        SELECT "w"."id", "w"."id" INTO "old_watermark", "new_watermark" FROM "pgs_del"."typed_watermark" AS "w";
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
    SELECT min("job"."id") INTO v$new FROM "pgs_del"."typed" AS "job" WHERE 1 = 1 AND "job"."available_at" <= "job"."enqueued_at";
    IF v$new IS NULL THEN
        SELECT max("job"."id") + 1 INTO v$new FROM "pgs_del"."typed" AS "job";
    END IF;
    IF v$new IS NULL THEN
        -- Drained: the next id comes from the identity. Left where it was, a watermark a release
        -- had lowered would make every claim walk the whole drained range again.
        v$new := pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence('"pgs_del"."typed"', 'id')::regclass) + 1;
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
        INSERT INTO "pgs_del"."typed_watermark" ("id", "corrected_at") VALUES ("typed_watermark_correct"."new_watermark", coalesce(v$searched, '-infinity'))
        ON CONFLICT DO NOTHING;
    ELSE
        UPDATE "pgs_del"."typed_watermark" AS "w" SET "id" = "typed_watermark_correct"."new_watermark", "corrected_at" = coalesce(v$searched, "w"."corrected_at");
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_del"."typed_watermark_correct" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."typed_watermark_correct" FROM PUBLIC;

-- qgen 0.1.0: control_table pgs_del.typed_control, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which role). Every
-- claim reads it first (a plain read: a pause or resume counts from its commit, and no claim waits
-- on one left open). A missing row (deleted by hand) reads as running.
CREATE TABLE IF NOT EXISTS "pgs_del"."typed_control"
(
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    "paused" boolean NOT NULL DEFAULT FALSE,
    "changed_at" timestamptz NULL,
    "changed_by" varchar(128) NULL,
    PRIMARY KEY ("one_row")
);
ALTER TABLE "pgs_del"."typed_control" OWNER TO "pgs_del_owner";
INSERT INTO "pgs_del"."typed_control" ("paused") VALUES (FALSE) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dequeue pgs_del.typed_dequeue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"pgs_del"."typed_dequeue_row"') IS NULL THEN
        CREATE TYPE "pgs_del"."typed_dequeue_row" AS
        (
            "id" bigint,
            "kind" varchar(20),
            "v" integer,
            "enqueued_at" timestamptz
        );
    END IF;
END
$qgen$;
ALTER TYPE "pgs_del"."typed_dequeue_row" OWNER TO "pgs_del_owner";
-- A claim that would commit by itself (no transaction block around it) is refused when the
-- transaction commits, unless the caller said at_most_once: then the claim is the commit. A
-- function cannot see whether the caller opened a transaction block, so dequeue notes its own
-- statement's start time, and this deferred trigger, run at commit, accepts only a commit made
-- while a later statement of the caller's runs (its COMMIT). It refuses a commit made during the
-- claim's own statement (autocommit, or a COMMIT sent in the same query string) and one made
-- while no statement runs: the Sync that ends an extended-protocol message sequence, where a
-- driver's autocommit call, or a pipeline of them, commits (current_query() is NULL there).
CREATE OR REPLACE FUNCTION "pgs_del"."typed_dequeue_guard"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
BEGIN
    IF pg_catalog.current_query() IS NULL
       OR pg_catalog.current_setting('qgen.claim_statement', TRUE) = pg_catalog.statement_timestamp()::text THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_del.typed: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass at_most_once => true';
    END IF;
    RETURN NULL;
END
$qgen$;
ALTER FUNCTION "pgs_del"."typed_dequeue_guard" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."typed_dequeue_guard" FROM PUBLIC;
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger
                   WHERE tgrelid = '"pgs_del"."typed"'::regclass AND tgname = 'typed_dequeue_guard') THEN
        -- WHEN is checked as each row is deleted: only a dequeue's own rows queue the check.
        CREATE CONSTRAINT TRIGGER "typed_dequeue_guard"
        AFTER DELETE ON "pgs_del"."typed"
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW
        WHEN (pg_catalog.current_setting('qgen.claim_statement', TRUE) = pg_catalog.statement_timestamp()::text)
        EXECUTE FUNCTION "pgs_del"."typed_dequeue_guard"();
    END IF;
END
$qgen$;
-- Claims up to batch_size jobs by deleting them, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction block the commit is refused (see above) unless at_most_once is true.
CREATE OR REPLACE FUNCTION "pgs_del"."typed_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 10,
    "job_type" varchar(20) DEFAULT NULL,
    "at_most_once" boolean DEFAULT FALSE
)
RETURNS SETOF "pgs_del"."typed_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 10
AS $qgen$
#variable_conflict use_column
DECLARE
    v$job "pgs_del"."typed_dequeue_row";
    v$highest bigint;
    v$from bigint;
    v$rescan boolean;
    v$mark bigint;
    v$searched timestamptz;
    v$stranded bigint;
BEGIN
    IF "typed_dequeue"."batch_size" IS NULL OR "typed_dequeue"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for pgs_del.typed_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("typed_dequeue"."batch_size"::text, 'NULL'));
    END IF;
    IF pg_catalog.length("typed_dequeue"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in pgs_del.typed_dequeue; accepted: string(128), at most 128 characters';
    END IF;
    -- Read by the guard trigger at commit; at_most_once clears it.
    PERFORM pg_catalog.set_config('qgen.claim_statement',
                                  CASE WHEN "typed_dequeue"."at_most_once" THEN '' ELSE pg_catalog.statement_timestamp()::text END, TRUE);
    -- The guard's check belongs at the commit: a caller's SET CONSTRAINTS ALL IMMEDIATE would run it
    -- at the end of this statement instead, and refuse a claim its transaction was about to commit.
    SET CONSTRAINTS "pgs_del"."typed_dequeue_guard" DEFERRED;
    -- Paused (pause, resume): complete what was asked, claim nothing.
    IF NOT EXISTS (SELECT 1 FROM "pgs_del"."typed_control" AS "c" WHERE NOT "c"."paused") THEN
        RETURN;
    END IF;
    -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
    SELECT "w"."id", "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) INTO v$from, v$rescan FROM "pgs_del"."typed_watermark" AS "w";
    IF NOT FOUND THEN
        v$from := 0;
        INSERT INTO "pgs_del"."typed_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;
    ELSIF v$rescan AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        -- Only at READ COMMITTED: at REPEATABLE READ or SERIALIZABLE the search would read the
        -- transaction's first snapshot, and locking a row another worker changed since fails the
        -- caller's whole transaction (40001); a READ COMMITTED dequeue or maintain rescans instead.
        SELECT "w"."id", pg_catalog.clock_timestamp() INTO v$mark, v$searched
        FROM "pgs_del"."typed_watermark" AS "w" WHERE "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            -- A statement of its own: its snapshot is taken after the lock, so it sees every release
            -- committed before; one that commits later waits for this row and lowers the watermark itself.
            -- corrected_at gets the time before the search, so a job committed after it is left to the next.
            SELECT min("job"."id") INTO v$stranded
            FROM "pgs_del"."typed" AS "job"
            WHERE "job"."id" < v$mark AND 1 = 1 AND "job"."available_at" <= "job"."enqueued_at";
            UPDATE "pgs_del"."typed_watermark" AS "w"
            SET "corrected_at" = v$searched,
                "id" = CASE WHEN v$stranded IS NULL THEN "w"."id" ELSE least("w"."id", greatest(v$stranded - 50, 0)) END
            RETURNING "w"."id" INTO v$from;
        END IF;
    END IF;
    -- Two statements, so each keeps its own cached plan (with and without the sub-queue filter).
    IF "typed_dequeue"."job_type" IS NULL THEN
        FOR v$job IN
            WITH "due" AS MATERIALIZED
            (
                -- Deferred jobs (delayed, or released with a backoff) whose time has come, first: they are not
                -- in the claim index, and the watermark passes them. The due index holds only those not yet
                -- claimed, by available_at: while none is due this reads one page.
                SELECT "d"."id"
                FROM "pgs_del"."typed" AS "d"
                -- now(), not the clock: what a claim may take is judged as of its transaction's start, which
                -- can only make it take less (never a job before its time, never a live lease); the leases it
                -- grants are timed from the clock. A stable now() also keeps the planner's estimates, and with
                -- them the seeks tests/test_claim_cost.py holds (with clock_timestamp() the job-type claim
                -- walked 142 buffers where it walks 11).
                WHERE "d"."available_at" <= now() AND "d"."available_at" > "d"."enqueued_at"
                ORDER BY "d"."available_at", "d"."id"
                LIMIT "typed_dequeue"."batch_size"
                FOR UPDATE SKIP LOCKED
            ),
            "ready" AS MATERIALIZED
            (
                SELECT "next"."id"
                FROM "pgs_del"."typed" AS "next"
                WHERE 1 = 1
                  -- Available since its enqueue, hence now that a snapshot shows it: not compared with now()
                  -- (the caller's transaction may have begun before the job was enqueued).
                  AND "next"."available_at" <= "next"."enqueued_at"
                  -- Below the watermark every row is claimed, gone or deferred: start the index range there.
                  AND "next"."id" >= v$from
                ORDER BY "next"."id"
                LIMIT "typed_dequeue"."batch_size" - (SELECT count(*) FROM "due")
                FOR UPDATE SKIP LOCKED
            ),
            "claimed" AS
            (
                DELETE FROM "pgs_del"."typed" AS "job"
                -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
                -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
                WHERE "job"."id" = ANY (ARRAY (SELECT "u"."id" FROM "due" AS "u" UNION ALL SELECT "r"."id" FROM "ready" AS "r"))
                RETURNING "job".*
            )
            SELECT "c"."id", "c"."kind", "c"."v", "c"."enqueued_at"
            FROM "claimed" AS "c"
            ORDER BY "c"."id"
        LOOP
            v$highest := greatest(v$highest, v$job."id");
            RETURN NEXT v$job;
        END LOOP;
    ELSE
        FOR v$job IN
            WITH "due" AS MATERIALIZED
            (
                -- Deferred jobs (delayed, or released with a backoff) whose time has come, first: they are not
                -- in the claim index, and the watermark passes them. The due index holds only those not yet
                -- claimed, by available_at: while none is due this reads one page.
                SELECT "d"."id"
                FROM "pgs_del"."typed" AS "d"
                -- now(), not the clock: what a claim may take is judged as of its transaction's start, which
                -- can only make it take less (never a job before its time, never a live lease); the leases it
                -- grants are timed from the clock. A stable now() also keeps the planner's estimates, and with
                -- them the seeks tests/test_claim_cost.py holds (with clock_timestamp() the job-type claim
                -- walked 142 buffers where it walks 11).
                WHERE "d"."available_at" <= now() AND "d"."available_at" > "d"."enqueued_at"
                  AND "d"."kind" = "typed_dequeue"."job_type"
                ORDER BY "d"."available_at", "d"."id"
                LIMIT "typed_dequeue"."batch_size"
                FOR UPDATE SKIP LOCKED
            ),
            "ready" AS MATERIALIZED
            (
                SELECT "next"."id"
                FROM "pgs_del"."typed" AS "next"
                WHERE 1 = 1
                  -- Available since its enqueue, hence now that a snapshot shows it: not compared with now()
                  -- (the caller's transaction may have begun before the job was enqueued).
                  AND "next"."available_at" <= "next"."enqueued_at"
                  -- Below the watermark every row is claimed, gone or deferred: start the index range there.
                  AND "next"."id" >= v$from
                  -- The job type as a range of one value, and first in ORDER BY: only the (job type, queue
                  -- order) index gives that order, so even the generic plan seeks it. Written "= job_type",
                  -- the planner drops the constant from the order, guesses half the rows match, and walks
                  -- the whole queue in id order through the other types' jobs (a lagging type's backlog).
                  AND "next"."kind" >= "typed_dequeue"."job_type"
                  AND "next"."kind" <= "typed_dequeue"."job_type"
                ORDER BY "next"."kind", "next"."id"
                LIMIT "typed_dequeue"."batch_size" - (SELECT count(*) FROM "due")
                FOR UPDATE SKIP LOCKED
            ),
            "claimed" AS
            (
                DELETE FROM "pgs_del"."typed" AS "job"
                -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
                -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
                WHERE "job"."id" = ANY (ARRAY (SELECT "u"."id" FROM "due" AS "u" UNION ALL SELECT "r"."id" FROM "ready" AS "r"))
                RETURNING "job".*
            )
            SELECT "c"."id", "c"."kind", "c"."v", "c"."enqueued_at"
            FROM "claimed" AS "c"
            ORDER BY "c"."id"
        LOOP
            v$highest := greatest(v$highest, v$job."id");
            RETURN NEXT v$job;
        END LOOP;
    END IF;
    -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
    -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
    -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
    IF v$highest - v$from >= 150 THEN
        PERFORM "pgs_del"."typed_watermark_move"(v$highest);
    END IF;
END
$qgen$;
ALTER FUNCTION "pgs_del"."typed_dequeue" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."typed_dequeue" FROM PUBLIC;

-- qgen 0.1.0: metrics pgs_del.typed_metrics, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "pgs_del"."typed_metrics"()
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
        count(*) FILTER (WHERE "job"."available_at" <= now()),
        count(*) FILTER (WHERE 1 = 1 AND "job"."available_at" > now()),
        0::bigint,
        0::bigint,
        0::bigint,
        0::bigint,
        0::bigint,
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE "job"."available_at" <= now())))::bigint, 0),
        (SELECT "w"."id" FROM "pgs_del"."typed_watermark" AS "w"),
        min("job"."id") FILTER (WHERE 1 = 1),
        -- on_complete: delete leaves no trace of a completion to count.
        NULL::bigint,
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        coalesce(min("job"."id") FILTER (WHERE 1 = 1), max("job"."id") + 1)
            - (SELECT "w"."id" FROM "pgs_del"."typed_watermark" AS "w"),
        NOT EXISTS (SELECT 1 FROM "pgs_del"."typed_control" AS "c" WHERE NOT "c"."paused")
    FROM "pgs_del"."typed" AS "job";
END
$qgen$;
ALTER FUNCTION "pgs_del"."typed_metrics" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."typed_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek pgs_del.typed_peek, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "pgs_del"."typed_peek"
(
    "job_type" varchar(20) DEFAULT NULL,
    "limit" integer DEFAULT 100
)
RETURNS SETOF "pgs_del"."typed_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "typed_peek"."limit" IS NULL OR "typed_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for pgs_del.typed_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "pgs_del"."typed_pending" AS "p"
    WHERE "typed_peek"."job_type" IS NULL OR "p"."kind" = "typed_peek"."job_type"
    ORDER BY "p"."id"
    LIMIT "typed_peek"."limit";
END
$qgen$;
ALTER FUNCTION "pgs_del"."typed_peek" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."typed_peek" FROM PUBLIC;

-- qgen 0.1.0: purge_batch pgs_del.typed_purge_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds: at most batch_size rows (1000 by default, refused above 4000) over all
-- those tables together, in the caller's transaction. purge (a procedure) calls it in a loop and
-- commits after each batch; a client can call it in a loop of its own, one transaction per call.
CREATE OR REPLACE FUNCTION "pgs_del"."typed_purge_batch"
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
    v$left integer := "typed_purge_batch"."batch_size";
    v$deleted integer;
BEGIN
    IF "typed_purge_batch"."batch_size" IS NULL OR "typed_purge_batch"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("typed_purge_batch"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF "typed_purge_batch"."older_than_seconds" IS NULL OR "typed_purge_batch"."older_than_seconds" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: older_than_seconds ' || coalesce("typed_purge_batch"."older_than_seconds"::text, 'NULL') || ' is out of range; accepted: 0 or more';
    END IF;
    v$cutoff := now() - pg_catalog.make_interval(secs => "typed_purge_batch"."older_than_seconds");
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_del"."typed_purge_batch" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."typed_purge_batch" FROM PUBLIC;

-- qgen 0.1.0: purge pgs_del.typed_purge, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds, one batch of at most batch_size rows at a time, and COMMITs after each batch:
-- no transaction holds more than one batch, and vacuum can clean up behind it while it runs.
-- Rows that finish while it runs (a second after it began) are left for the next purge, so it ends.
-- A procedure that commits cannot be SECURITY DEFINER nor have a SET clause: it runs with its
-- caller's rights and reaches the tables only through typed_purge_batch (EXECUTE on that is all it
-- needs); every name in it is schema-qualified. CALL it outside a transaction block (inside one,
-- PostgreSQL refuses its COMMIT: invalid transaction termination, 2D000); there call
-- typed_purge_batch instead.
CREATE OR REPLACE PROCEDURE "pgs_del"."typed_purge"
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
    "typed_purge"."archived" := 0;
    "typed_purge"."processed" := 0;
    "typed_purge"."dead" := 0;
    LOOP
        -- Each batch is a new transaction with a later now(): widen the age by the whole seconds
        -- spent so far, so the cutoff stays within a second of where it was when the call began.
        SELECT * INTO v$batch
        FROM "pgs_del"."typed_purge_batch"(
            "typed_purge"."older_than_seconds" + pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - v$started))::integer,
            "typed_purge"."batch_size");
        "typed_purge"."archived" := "typed_purge"."archived" + v$batch."archived";
        "typed_purge"."processed" := "typed_purge"."processed" + v$batch."processed";
        "typed_purge"."dead" := "typed_purge"."dead" + v$batch."dead";
        COMMIT;
        -- A short batch: nothing older is left (or what is left is locked: the next purge takes it).
        EXIT WHEN v$batch."archived" + v$batch."processed" + v$batch."dead" < "typed_purge"."batch_size";
    END LOOP;
END
$qgen$;
ALTER PROCEDURE "pgs_del"."typed_purge" OWNER TO "pgs_del_owner";
REVOKE ALL ON PROCEDURE "pgs_del"."typed_purge" FROM PUBLIC;

-- qgen 0.1.0: maintain pgs_del.typed_maintain, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- batch_size finished jobs older than the retention (604800 s), and corrects the watermark, in that order, in one transaction. Only one runs at a
-- time per queue: a caller that finds another one running returns at once with skipped = true.
-- more = true when a step filled its batch: call again (qgen maintain does) to do the rest.
-- Granted to the consumer role, so any worker can run it (run_worker does, every few seconds).
CREATE OR REPLACE FUNCTION "pgs_del"."typed_maintain"
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
    IF "typed_maintain"."batch_size" IS NULL OR "typed_maintain"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("typed_maintain"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    "released" := 0;
    "dead_lettered" := 0;
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    -- One at a time (see the macro maintain_lock). The lock is the transaction's: it goes with the
    -- commit or the rollback, whatever happens.
    BEGIN
        LOCK TABLE "pgs_del"."typed_watermark" IN SHARE UPDATE EXCLUSIVE MODE NOWAIT;
    EXCEPTION WHEN lock_not_available THEN
        "skipped" := TRUE;
        "more" := FALSE;
        RETURN NEXT;
        RETURN;
    END;
    "skipped" := FALSE;
    -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
    SELECT "p"."archived", "p"."processed", "p"."dead" INTO "archived", "processed", "dead"
    FROM "pgs_del"."typed_purge_batch"(604800, "typed_maintain"."batch_size") AS "p";
    SELECT "w"."old_watermark", "w"."new_watermark" INTO "old_watermark", "new_watermark"
    FROM "pgs_del"."typed_watermark_correct"() AS "w";
    "more" := "archived" + "processed" + "dead" >= "typed_maintain"."batch_size"
              OR "released" + "dead_lettered" >= least("typed_maintain"."batch_size", 1000);
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_del"."typed_maintain" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."typed_maintain" FROM PUBLIC;

-- qgen 0.1.0: job pgs_del.typed_job, rendered for PostgreSQL from spec.yaml.
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
CREATE OR REPLACE FUNCTION "pgs_del"."typed_job"
(
    "job_id" bigint
)
RETURNS TABLE
(
    "id" bigint,
    "state" text,
    "enqueued_at" timestamptz,
    "available_at" timestamptz,
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
    IF "typed_job"."job_id" IS NULL OR "typed_job"."job_id" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: job_id ' || coalesce("typed_job"."job_id"::text, 'NULL') || ' is out of range for pgs_del.typed_job; accepted: a job id, 1 or more';
    END IF;
    RETURN QUERY
    SELECT "j"."id", CASE WHEN "j"."available_at" > now() THEN 'scheduled' ELSE 'queued' END,
        "j"."enqueued_at", "j"."available_at",
        NULL::integer,
        NULL::text, NULL::timestamptz
    FROM "pgs_del"."typed" AS "j"
    WHERE "j"."id" = "typed_job"."job_id";
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "typed_job"."job_id", 'not_found'::text, NULL::timestamptz, NULL::timestamptz, NULL::integer,
        NULL::text, NULL::timestamptz;
END
$qgen$;
ALTER FUNCTION "pgs_del"."typed_job" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."typed_job" FROM PUBLIC;

-- qgen 0.1.0: pause pgs_del.typed_pause, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job. Enqueues go on, and leases already granted run to their end (complete, fail,
-- extend_lease, release and reap work as before). Returns 1 when this call paused the queue, 0
-- when it was paused already.
CREATE OR REPLACE FUNCTION "pgs_del"."typed_pause"()
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
    SELECT "c"."paused" INTO v$was FROM "pgs_del"."typed_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "pgs_del"."typed_control" ("paused", "changed_at", "changed_by")
        VALUES (TRUE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "pgs_del"."typed_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = TRUE THEN
        RETURN 0;
    END IF;
    UPDATE "pgs_del"."typed_control" AS "c"
    SET "paused" = TRUE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_del.typed: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "pgs_del"."typed_pause" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."typed_pause" FROM PUBLIC;

-- qgen 0.1.0: resume pgs_del.typed_resume, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again. Returns 1 when this call
-- resumed the queue, 0 when it was not paused.
CREATE OR REPLACE FUNCTION "pgs_del"."typed_resume"()
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
    SELECT "c"."paused" INTO v$was FROM "pgs_del"."typed_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "pgs_del"."typed_control" ("paused", "changed_at", "changed_by")
        VALUES (FALSE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "pgs_del"."typed_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = FALSE THEN
        RETURN 0;
    END IF;
    UPDATE "pgs_del"."typed_control" AS "c"
    SET "paused" = FALSE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_del.typed: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "pgs_del"."typed_resume" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."typed_resume" FROM PUBLIC;

-- qgen 0.1.0: cancel pgs_del.typed_cancel, rendered for PostgreSQL from spec.yaml.
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
CREATE OR REPLACE FUNCTION "pgs_del"."typed_cancel"
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
    IF "typed_cancel"."ids" IS NULL OR EXISTS (SELECT 1 FROM pg_catalog.unnest("typed_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NULL OR "a"."id" < 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: ids must be an array of job ids (whole numbers from 1)';
    END IF;
    IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_del.typed: cancel at REPEATABLE READ or SERIALIZABLE would answer from the transaction''s snapshot, which does not show a job enqueued since (it would say not_queued of a job that then runs); run it at READ COMMITTED';
    END IF;
    IF (SELECT count(DISTINCT "a"."id") FROM pg_catalog.unnest("typed_cancel"."ids") AS "a" ("id")) > 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: ids lists more than 4000 jobs; accepted: 1 to 4000 per call';
    END IF;
    RETURN QUERY
    WITH "asked" AS
    (
        SELECT DISTINCT "a"."id" FROM pg_catalog.unnest("typed_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NOT NULL
    ),
    "found" AS
    (
        -- The rows by their id, locked (SKIP LOCKED: a claim's open transaction is never waited for).
        SELECT "job"."id"
        FROM "pgs_del"."typed" AS "job"
        WHERE "job"."id" IN (SELECT "a"."id" FROM "asked" AS "a")
        ORDER BY "job"."id"
        FOR UPDATE SKIP LOCKED
    ),
    "gone" AS
    (
        DELETE FROM "pgs_del"."typed" AS "job"
        USING "found" AS "f"
        WHERE "job"."id" = "f"."id"
        RETURNING "job".*
    )
    SELECT "a"."id",
        CASE
             WHEN "g"."id" IS NOT NULL THEN 'cancelled'
             -- Skipped above: another open transaction holds it.
             WHEN EXISTS (SELECT 1 FROM "pgs_del"."typed" AS "job" WHERE "job"."id" = "a"."id") THEN 'held'
             ELSE 'not_queued' END
    FROM "asked" AS "a"
    -- What the DELETE took out: the outcome is what happened, not what was found.
    LEFT JOIN "gone" AS "g" ON "g"."id" = "a"."id"
    ORDER BY "a"."id";
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_del.typed: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again';
END
$qgen$;
ALTER FUNCTION "pgs_del"."typed_cancel" OWNER TO "pgs_del_owner";
REVOKE ALL ON FUNCTION "pgs_del"."typed_cancel" FROM PUBLIC;

-- qgen 0.1.0: grants to roles pgs_del_producer, pgs_del_consumer, pgs_del_admin, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "pgs_del" TO "pgs_del_producer", "pgs_del_consumer", "pgs_del_admin";
GRANT EXECUTE ON FUNCTION "pgs_del"."events_enqueue", "pgs_del"."events_enqueue_batch" TO "pgs_del_producer";
GRANT USAGE ON TYPE "pgs_del"."events_batch" TO "pgs_del_producer";
GRANT EXECUTE ON FUNCTION "pgs_del"."events_dequeue" TO "pgs_del_consumer";
GRANT USAGE ON TYPE "pgs_del"."events_dequeue_row" TO "pgs_del_consumer";
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON FUNCTION "pgs_del"."events_watermark_correct" TO "pgs_del_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "pgs_del"."events_maintain" TO "pgs_del_consumer";
GRANT SELECT ON "pgs_del"."events_pending" TO "pgs_del_admin";
GRANT EXECUTE ON FUNCTION "pgs_del"."typed_enqueue", "pgs_del"."typed_enqueue_batch" TO "pgs_del_producer";
GRANT USAGE ON TYPE "pgs_del"."typed_batch" TO "pgs_del_producer";
GRANT EXECUTE ON FUNCTION "pgs_del"."typed_dequeue" TO "pgs_del_consumer";
GRANT USAGE ON TYPE "pgs_del"."typed_dequeue_row" TO "pgs_del_consumer";
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON FUNCTION "pgs_del"."typed_watermark_correct" TO "pgs_del_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "pgs_del"."typed_maintain" TO "pgs_del_consumer";
GRANT SELECT ON "pgs_del"."typed_pending" TO "pgs_del_admin";
-- Admins run every function (and the worker procedure) qgen created, and nothing else: each by
-- name, never ALL ROUTINES IN SCHEMA, which in a shared schema would reach the application's too.
GRANT EXECUTE ON ROUTINE "pgs_del"."events_enqueue" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."events_enqueue_batch" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."events_watermark_move" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."events_watermark_correct" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."events_dequeue" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."events_metrics" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."events_peek" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."events_purge_batch" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."events_purge" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."events_maintain" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."events_job" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."events_pause" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."events_resume" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."events_cancel" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."typed_enqueue" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."typed_enqueue_batch" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."typed_watermark_move" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."typed_watermark_correct" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."typed_dequeue" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."typed_metrics" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."typed_peek" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."typed_purge_batch" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."typed_purge" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."typed_maintain" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."typed_job" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."typed_pause" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."typed_resume" TO "pgs_del_admin";
GRANT EXECUTE ON ROUTINE "pgs_del"."typed_cancel" TO "pgs_del_admin";

-- qgen 0.1.0: verify pgs_del, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Install ends here, and fails loudly if any of qgen's functions or tables is owned by another role
-- than pgs_del_owner, or a SECURITY DEFINER function does not pin its search_path: run with its
-- owner's rights, it would resolve names through its caller's path.
DO $qgen$
DECLARE
    v$wrong text;
BEGIN
    SELECT pg_catalog.string_agg(x.what, ', ' ORDER BY x.what) INTO v$wrong
    FROM
    (
        SELECT p.oid::pg_catalog.regprocedure::text
               || CASE WHEN p.proowner <> '"pgs_del_owner"'::pg_catalog.regrole THEN ' (owned by ' || p.proowner::pg_catalog.regrole::text || ')'
                       ELSE ' (search_path not pinned)' END AS what
        FROM pg_catalog.pg_proc AS p
        JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
        WHERE n.nspname = 'pgs_del'
          AND p.proname IN ('events', 'events_watermark', 'events_archive', 'events_archive_ix', 'events_pending', 'events_batch', 'events_enqueue', 'events_enqueue_batch', 'events_watermark_move', 'events_watermark_correct', 'events_control', 'events_dequeue', 'events_metrics', 'events_peek', 'events_purge_batch', 'events_purge', 'events_maintain', 'events_job', 'events_pause', 'events_resume', 'events_cancel', 'typed', 'typed_claim_ix', 'typed_claim_order_ix', 'typed_watermark', 'typed_pending', 'typed_batch', 'typed_enqueue', 'typed_enqueue_batch', 'typed_watermark_move', 'typed_watermark_correct', 'typed_control', 'typed_dequeue', 'typed_metrics', 'typed_peek', 'typed_purge_batch', 'typed_purge', 'typed_maintain', 'typed_job', 'typed_pause', 'typed_resume', 'typed_cancel')
          AND (p.proowner <> '"pgs_del_owner"'::pg_catalog.regrole
               OR (p.prosecdef AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) AS c (setting)
                                               WHERE c.setting LIKE 'search\_path=%')))
        UNION ALL
        SELECT c.oid::pg_catalog.regclass::text || ' (owned by ' || c.relowner::pg_catalog.regrole::text || ')'
        FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'pgs_del'
          AND c.relkind IN ('r', 'v')
          AND c.relname IN ('events', 'events_watermark', 'events_archive', 'events_archive_ix', 'events_pending', 'events_batch', 'events_enqueue', 'events_enqueue_batch', 'events_watermark_move', 'events_watermark_correct', 'events_control', 'events_dequeue', 'events_metrics', 'events_peek', 'events_purge_batch', 'events_purge', 'events_maintain', 'events_job', 'events_pause', 'events_resume', 'events_cancel', 'typed', 'typed_claim_ix', 'typed_claim_order_ix', 'typed_watermark', 'typed_pending', 'typed_batch', 'typed_enqueue', 'typed_enqueue_batch', 'typed_watermark_move', 'typed_watermark_correct', 'typed_control', 'typed_dequeue', 'typed_metrics', 'typed_peek', 'typed_purge_batch', 'typed_purge', 'typed_maintain', 'typed_job', 'typed_pause', 'typed_resume', 'typed_cancel')
          AND c.relowner <> '"pgs_del_owner"'::pg_catalog.regrole
    ) AS x;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020', MESSAGE = 'qgen: wrongly installed in schema pgs_del: ' || v$wrong;
    END IF;
    -- And each function is what this install rendered, not an older version left in place (psql
    -- without ON_ERROR_STOP goes on after a CREATE OR REPLACE that failed): md5 of its body without
    -- whitespace (qgen.dialects.postgres.module_fingerprints) against the one rendered.
    SELECT pg_catalog.string_agg(r.name, ', ' ORDER BY r.name) INTO v$wrong
    FROM
    (
        VALUES
            ('events_cancel', '252081767a0bc7cf33477d8337ee9ab8'),
            ('events_dequeue', 'ef6eee24fb14cdf329e1e749b8a005db'),
            ('events_dequeue_guard', '60110e731987248caa5e88bdf0d5dab6'),
            ('events_enqueue', '4dec0d5761a7bdbfef1b1b65516f7fde'),
            ('events_enqueue_batch', '8b2bc22b7cc271c9f8f66fde37aed8fe'),
            ('events_job', 'da6ed680acba1b6f5d64a1f1483138b1'),
            ('events_maintain', 'a4713f41cf03dd533c37869672d3cc59'),
            ('events_metrics', 'f4e69b73396ae8754748712880532fd5'),
            ('events_pause', '9322df668106572f352ee477cac412ad'),
            ('events_peek', 'ee05188e95f92838e58bcf5564a7ac41'),
            ('events_purge', '5475bd7ce29422800cf44fe52060dbd3'),
            ('events_purge_batch', '57e713904c64f0021542a8308f6a8020'),
            ('events_resume', 'f7302fc9adc053cd1e3081d8f63dad76'),
            ('events_watermark_correct', 'fb2aa1a9c62d1a6de24b4b6799ceead2'),
            ('events_watermark_move', 'def331911871fe01b67f927848e714de'),
            ('typed_cancel', '149feba2031b86ce56f2bcd8a3132d27'),
            ('typed_dequeue', '86a442c9d81f928128d4821ff8f10ecd'),
            ('typed_dequeue_guard', '43d265273a1c77a611252601d61c88f9'),
            ('typed_enqueue', '20dc89ad1b1950207401945d410fa621'),
            ('typed_enqueue_batch', '03cc9300865690b12fe7fd15faf69c67'),
            ('typed_job', 'd3d45134d727bf6bb8b8b30ed48b2620'),
            ('typed_maintain', '7f26d13034c5c6cca130bbc98050c761'),
            ('typed_metrics', 'cb4ca9adaacfe30556e9927b2f801e6f'),
            ('typed_pause', '3561b8c39d33592cc09adc70b38736f7'),
            ('typed_peek', '19e9f98e0048e1390f6c0e733181e0be'),
            ('typed_purge', 'd5c509cf81c4654db1429f1f62f2782d'),
            ('typed_purge_batch', '5cb0f28b9d7b70cc67e07541173c7970'),
            ('typed_resume', 'a639d65001a05afd3cd02231fad54824'),
            ('typed_watermark_correct', '90f2d939e08fa9607284a23f83c7b7d5'),
            ('typed_watermark_move', 'b6c8f921914a98b7f61667ba519979d3')
    ) AS r (name, fingerprint)
    JOIN pg_catalog.pg_proc AS p ON p.proname = r.name
    JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace AND n.nspname = 'pgs_del'
    WHERE pg_catalog.md5(pg_catalog.regexp_replace(p.prosrc, '[[:space:]]', '', 'g')) <> r.fingerprint;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020',
            MESSAGE = 'qgen: installed in schema pgs_del, but not as this install rendered it: ' || v$wrong,
            HINT = 'An earlier statement failed and left an older version: read its error, fix it and run install.sql again.';
    END IF;
END
$qgen$;
