-- qgen 0.1.0: every object of spec.yaml, for PostgreSQL, in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema qgen, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen_owner owns every object qgen creates here, and cannot log in: the SECURITY DEFINER
-- functions run with its rights (its own tables and nothing else), not with those of whoever ran
-- install. The schema and the role are marked (COMMENT) when install creates them: uninstall drops
-- only what carries the mark.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'qgen_owner') THEN
        CREATE ROLE "qgen_owner" NOLOGIN;
        COMMENT ON ROLE "qgen_owner" IS 'qgen: created by the install of schema qgen';
    ELSIF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'qgen_owner' AND (rolcanlogin OR rolsuper)) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG022',
            MESSAGE = 'qgen: role qgen_owner exists and can log in or is a superuser; qgen''s SECURITY DEFINER functions run as this role',
            HINT = 'Make it NOLOGIN NOSUPERUSER, or drop it and let install create it.';
    END IF;
    -- Whoever installs creates the objects and hands them to the owner (ALTER ... OWNER TO), which
    -- takes membership of it unless it is a superuser.
    IF NOT pg_catalog.pg_has_role(current_user, 'qgen_owner', 'MEMBER') THEN
        GRANT "qgen_owner" TO CURRENT_USER;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'qgen') THEN
        CREATE SCHEMA "qgen";
        COMMENT ON SCHEMA "qgen" IS 'qgen: created by the install of schema qgen';
    END IF;
END
$qgen$;
GRANT USAGE, CREATE ON SCHEMA "qgen" TO "qgen_owner";

-- qgen 0.1.0: roles qgen_producer, qgen_consumer, qgen_admin (cluster-wide), rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing,
-- and mark the ones install creates (COMMENT): uninstall drops only those, never a role that was
-- there before and that the spec only names.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'qgen_producer') THEN
        CREATE ROLE "qgen_producer" NOLOGIN;
        COMMENT ON ROLE "qgen_producer" IS 'qgen: created by the install of schema qgen';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'qgen_consumer') THEN
        CREATE ROLE "qgen_consumer" NOLOGIN;
        COMMENT ON ROLE "qgen_consumer" IS 'qgen: created by the install of schema qgen';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'qgen_admin') THEN
        CREATE ROLE "qgen_admin" NOLOGIN;
        COMMENT ON ROLE "qgen_admin" IS 'qgen: created by the install of schema qgen';
    END IF;
END
$qgen$;

-- qgen 0.1.0: table qgen.fresh, rendered for PostgreSQL from spec.yaml.
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
CREATE TABLE IF NOT EXISTS "qgen"."fresh"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "a" integer NOT NULL,
    "available_at" timestamptz NOT NULL DEFAULT now(),
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    "attempts" integer NOT NULL DEFAULT 0,
    "lease_token" uuid NULL,
    "lease_owner" varchar(128) NULL,
    "lease_expires_at" timestamptz NULL,
    "last_error" varchar(4000) NULL,
    PRIMARY KEY ("id")
)
WITH (fillfactor = 50, autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
      autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "qgen"."fresh" OWNER TO "qgen_owner";

-- qgen 0.1.0: claim_index qgen.fresh_claim_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Rows in claim order, leased ones included (a claim writes no column this index names: a HOT
-- update); a claim starts at the watermark and steps over the jobs in flight there.
-- Deferred jobs (delayed, or released with a backoff) are left out of it: see the due index below.
CREATE INDEX IF NOT EXISTS "fresh_claim_ix"
    ON "qgen"."fresh" ("id")
    WHERE "available_at" <= "enqueued_at"
    ;
-- The due index: deferred jobs not yet claimed (a claim takes a job out of it), by the time they
-- become available. A claim takes the due ones from here first, so however many wait for their
-- time, no claim and no watermark steps over them.
CREATE INDEX IF NOT EXISTS "fresh_claim_ix_due"
    ON "qgen"."fresh" ("available_at", "id")
    WHERE "available_at" > "enqueued_at";

-- qgen 0.1.0: expire_index qgen.fresh_expire_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- expire_after (900 s): reap finds the jobs enqueued longer ago than that by when they were
-- enqueued, oldest first, reading only those. enqueued_at never changes, so a claim writes nothing here.
CREATE INDEX IF NOT EXISTS "fresh_expire_ix"
    ON "qgen"."fresh" ("enqueued_at");

-- qgen 0.1.0: watermark_table qgen.fresh_watermark, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their index range here instead of
-- walking the dead index entries that claimed or deleted rows leave at the low end.
CREATE TABLE IF NOT EXISTS "qgen"."fresh_watermark"
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
ALTER TABLE "qgen"."fresh_watermark" OWNER TO "qgen_owner";
INSERT INTO "qgen"."fresh_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dead_letter_table qgen.fresh_dead, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: "id" is the job's id, which repeats once the queue's identity is restarted.
CREATE TABLE IF NOT EXISTS "qgen"."fresh_dead"
(
    "entry_id" bigint GENERATED ALWAYS AS IDENTITY,
    "id" bigint NOT NULL,
    "a" integer NOT NULL,
    "enqueued_at" timestamptz NOT NULL,
    "attempts" integer NOT NULL,
    "last_error" varchar(4000) NULL,
    "dead_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("entry_id")
);
ALTER TABLE "qgen"."fresh_dead" OWNER TO "qgen_owner";

-- qgen 0.1.0: dead_letter_index qgen.fresh_dead_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
CREATE INDEX IF NOT EXISTS "fresh_dead_ix"
    ON "qgen"."fresh_dead" ("dead_at");
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
CREATE INDEX IF NOT EXISTS "fresh_dead_id_ix"
    ON "qgen"."fresh_dead" ("id");

-- qgen 0.1.0: pending_view qgen.fresh_pending, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "qgen"."fresh_pending" AS
SELECT "job"."id", "job"."a", "job"."available_at", "job"."enqueued_at", "job"."attempts", "job"."last_error"
FROM "qgen"."fresh" AS "job"
WHERE "job"."lease_token" IS NULL;
ALTER VIEW "qgen"."fresh_pending" OWNER TO "qgen_owner";

-- qgen 0.1.0: batch_type qgen.fresh_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) when missing, and the table rejects a missing required column.
-- Its string and decimal fields have no length or scale (m.param_type): reading a job into
-- varchar(n) or numeric(p,s) would cut or round a value past its column before enqueue_batch
-- could refuse it (QG010).
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"qgen"."fresh_batch"') IS NULL THEN
        CREATE TYPE "qgen"."fresh_batch" AS
        (
            "ordinal" integer,
            "a" integer,
            "run_at" timestamptz
        );
    END IF;
END
$qgen$;
ALTER TYPE "qgen"."fresh_batch" OWNER TO "qgen_owner";

-- qgen 0.1.0: enqueue qgen.fresh_enqueue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "qgen"."fresh_enqueue"
(
    "a" integer,
    "run_at" timestamptz DEFAULT NULL
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- A delayed job: due no earlier than the clock read under this lock (postgres__due_bound_move).
    IF "fresh_enqueue"."run_at" > now() THEN
        LOCK TABLE "qgen"."fresh_watermark" IN ROW SHARE MODE;
    END IF;
    RETURN QUERY
        INSERT INTO "qgen"."fresh" AS "job" ("a", "available_at")
        VALUES ("fresh_enqueue"."a", CASE WHEN "fresh_enqueue"."run_at" > now() THEN greatest("fresh_enqueue"."run_at", pg_catalog.clock_timestamp()) ELSE coalesce("fresh_enqueue"."run_at", now()) END)
        RETURNING "job"."id", TRUE;
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_enqueue" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_enqueue" FROM PUBLIC;

-- qgen 0.1.0: enqueue_batch qgen.fresh_enqueue_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job.
CREATE OR REPLACE FUNCTION "qgen"."fresh_enqueue_batch"
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
    v$sequence regclass := pg_catalog.pg_get_serial_sequence('"qgen"."fresh"', 'id')::regclass;
BEGIN

    -- Delayed jobs: due no earlier than the clock read under this lock (postgres__due_bound_move).
    LOCK TABLE "qgen"."fresh_watermark" IN ROW SHARE MODE;
    RETURN QUERY
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "e"."position$"::integer) AS "ordinal",
                   "j"."a", "j"."run_at"
            -- The array position and the new id are qgen's own columns beside the job's: their names
            -- hold a $, which no spec column can.
            FROM jsonb_array_elements("fresh_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
            CROSS JOIN LATERAL jsonb_populate_record(NULL::"qgen"."fresh_batch", "e"."job$") AS "j"
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
            INSERT INTO "qgen"."fresh" AS "job" ("id", "a", "available_at")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new$id", "n"."a", CASE WHEN "n"."run_at" > now() THEN greatest("n"."run_at", pg_catalog.clock_timestamp()) ELSE coalesce("n"."run_at", now()) END
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal", "n"."new$id", TRUE
        FROM "numbered" AS "n"
        ORDER BY "n"."ordinal";
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_enqueue_batch" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: watermark_move qgen.fresh_watermark_move, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR REPLACE FUNCTION "qgen"."fresh_watermark_move"
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
    v$target bigint := "fresh_watermark_move"."claimed_from" - 50;
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
    SELECT "w"."id" INTO v$current FROM "qgen"."fresh_watermark" AS "w";
    IF NOT FOUND OR v$current >= v$target THEN
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM "qgen"."fresh" AS "job"
               WHERE "job"."id" = v$current AND ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp()) AND "job"."available_at" <= "job"."enqueued_at" AND "job"."enqueued_at" + pg_catalog.make_interval(secs => 900) > pg_catalog.clock_timestamp()) THEN
        RETURN;
    END IF;
    -- SKIP LOCKED: a session already moving it (or a release lowering it) wins; this one skips.
    SELECT "w"."id" INTO v$current FROM "qgen"."fresh_watermark" AS "w" FOR UPDATE SKIP LOCKED;
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
    FROM "qgen"."fresh" AS "job"
    WHERE "job"."id" >= v$current AND "job"."id" < v$target AND ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp()) AND "job"."available_at" <= "job"."enqueued_at" AND "job"."enqueued_at" + pg_catalog.make_interval(secs => 900) > pg_catalog.clock_timestamp();
    UPDATE "qgen"."fresh_watermark" AS "w"
    SET "id" = coalesce(v$lowest, v$target)
    WHERE "w"."id" < coalesce(v$lowest, v$target);
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_watermark_move" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_watermark_move" FROM PUBLIC;

-- qgen 0.1.0: watermark_correct qgen.fresh_watermark_correct, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids (the slack, for inserts still in flight) below
-- the lowest unclaimed id, or below the next id when every row is claimed or gone (the table's highest
-- id, or its identity when it is empty), never below 0. It repairs a watermark that is wrong either
-- way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it after a
-- drain (run it after a dequeue that found nothing) and for a watermark set by hand.
CREATE OR REPLACE FUNCTION "qgen"."fresh_watermark_correct"()
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
    v$due_low timestamptz;
BEGIN
    -- The row first, so that the scan below starts after whatever held it committed; but never
    -- waiting for it: a worker runs this (after an empty dequeue, and in maintain), and another
    -- transaction may hold the row for as long as it stays open (a caller's transaction whose
    -- dequeue moved the watermark, another uncommitted correction). Then nothing changes: the call
    -- returns the watermark it reads, as old and new. So does a REPEATABLE READ or SERIALIZABLE
    -- caller whose snapshot is older than the row (a serialization failure otherwise).
    BEGIN
        SELECT "w"."id" INTO "old_watermark" FROM "qgen"."fresh_watermark" AS "w" FOR UPDATE SKIP LOCKED;
        v$held := NOT FOUND AND EXISTS (SELECT 1 FROM "qgen"."fresh_watermark");
    EXCEPTION WHEN serialization_failure THEN
        v$held := TRUE;
    END;
    IF v$held THEN
        SELECT "w"."id", "w"."id" INTO "old_watermark", "new_watermark" FROM "qgen"."fresh_watermark" AS "w";
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
    SELECT min("job"."id") INTO v$new FROM "qgen"."fresh" AS "job" WHERE ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp()) AND "job"."available_at" <= "job"."enqueued_at" AND "job"."enqueued_at" + pg_catalog.make_interval(secs => 900) > pg_catalog.clock_timestamp();
    IF v$new IS NULL THEN
        SELECT max("job"."id") + 1 INTO v$new FROM "qgen"."fresh" AS "job";
    END IF;
    IF v$new IS NULL THEN
        -- Drained: the next id comes from the identity. Left where it was, a watermark a release
        -- had lowered would make every claim walk the whole drained range again.
        v$new := pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence('"qgen"."fresh"', 'id')::regclass) + 1;
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
    -- Below the due index's bound: a deferred job written past the routines may be due before it.
    SELECT "d"."available_at" INTO v$due_low
    FROM "qgen"."fresh" AS "d"
    WHERE "d"."available_at" > "d"."enqueued_at" AND "d"."available_at" < (SELECT "b"."due_from" FROM "qgen"."fresh_watermark" AS "b")
    ORDER BY "d"."available_at"
    LIMIT 1;
    IF "old_watermark" IS NULL THEN
        -- The row was deleted by hand: put it back.
        INSERT INTO "qgen"."fresh_watermark" ("id", "corrected_at") VALUES ("fresh_watermark_correct"."new_watermark", coalesce(v$searched, '-infinity'))
        ON CONFLICT DO NOTHING;
    ELSE
        UPDATE "qgen"."fresh_watermark" AS "w" SET "id" = "fresh_watermark_correct"."new_watermark", "corrected_at" = coalesce(v$searched, "w"."corrected_at"),
            -- It counts as a rescan (corrected_at): lower the due bound as the rescan does.
            "due_from" = least("w"."due_from", coalesce(v$due_low, "w"."due_from"));
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_watermark_correct" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_watermark_correct" FROM PUBLIC;

-- qgen 0.1.0: control_table qgen.fresh_control, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which role). Every
-- claim reads it first (a plain read: a pause or resume counts from its commit, and no claim waits
-- on one left open). A missing row (deleted by hand) reads as running.
CREATE TABLE IF NOT EXISTS "qgen"."fresh_control"
(
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    "paused" boolean NOT NULL DEFAULT FALSE,
    "changed_at" timestamptz NULL,
    "changed_by" varchar(128) NULL,
    PRIMARY KEY ("one_row")
);
ALTER TABLE "qgen"."fresh_control" OWNER TO "qgen_owner";
INSERT INTO "qgen"."fresh_control" ("paused") VALUES (FALSE) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dequeue qgen.fresh_dequeue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"qgen"."fresh_dequeue_row"') IS NULL THEN
        CREATE TYPE "qgen"."fresh_dequeue_row" AS
        (
            "id" bigint,
            "a" integer,
            "attempts" integer,
            "lease_token" uuid,
            "lease_expires_at" timestamptz
        );
    END IF;
END
$qgen$;
ALTER TYPE "qgen"."fresh_dequeue_row" OWNER TO "qgen_owner";
-- Claims up to batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With complete_lease_token it first completes that lease's jobs as complete does, in the same
-- transaction: one commit per batch instead of two; complete_ids names them (primary-key lookups;
-- without it the whole table is searched for the token). A token that holds none of them raises
-- QG001 and nothing is claimed. A job whose lease expired is claimed again like a new one (the
-- old worker's token no longer holds it); one that was on its last attempt is
-- dead-lettered here instead of being handed out, and another claimed in its place.
CREATE OR REPLACE FUNCTION "qgen"."fresh_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 10,
    "lease_seconds" integer DEFAULT 300,
    "complete_lease_token" uuid DEFAULT NULL,
    "complete_ids" bigint[] DEFAULT NULL
)
RETURNS SETOF "qgen"."fresh_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 10
AS $qgen$
#variable_conflict use_column
DECLARE
    v$token uuid := gen_random_uuid();
    v$completed integer;
    v$want integer := "fresh_dequeue"."batch_size";
    v$exhausted bigint[];
    -- The previous lease's jobs this call completes by id (in its first claim statement).
    v$ids bigint[];
    v$start bigint;
    v$top bigint;
    v$rows "qgen"."fresh_dequeue_row"[];
    -- The token a claim gives the jobs it took over on their last attempt (kept back, dead-lettered).
    v$spent uuid := gen_random_uuid();
    v$highest bigint;
    v$from bigint;
    v$rescan boolean;
    v$mark bigint;
    v$searched timestamptz;
    v$stranded bigint;
    -- The due index's bound: where claims read it from, whether this call moves it, and the
    -- mover's clock and earliest due time (see postgres__due_bound_move).
    v$due_from timestamptz;
    v$due_move boolean;
    v$due_clock timestamptz;
    v$due_low timestamptz;
BEGIN
    IF "fresh_dequeue"."batch_size" IS NULL OR "fresh_dequeue"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for qgen.fresh_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("fresh_dequeue"."batch_size"::text, 'NULL'));
    END IF;
    IF pg_catalog.length("fresh_dequeue"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in qgen.fresh_dequeue; accepted: string(128), at most 128 characters';
    END IF;
    IF "fresh_dequeue"."lease_seconds" IS NULL OR "fresh_dequeue"."lease_seconds" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: lease_seconds ' || coalesce("fresh_dequeue"."lease_seconds"::text, 'NULL') || ' is out of range; accepted: 1 or more seconds';
    END IF;
    IF "fresh_dequeue"."complete_lease_token" IS NOT NULL THEN
        -- Named by id: completed by the claim statement below. Otherwise: a search for the token.
        v$ids := "fresh_dequeue"."complete_ids";
        IF v$ids IS NULL THEN
            DELETE FROM "qgen"."fresh" AS "job"
            WHERE "job"."lease_token" = "fresh_dequeue"."complete_lease_token";
            GET DIAGNOSTICS v$completed = ROW_COUNT;
            IF v$completed = 0 THEN
                RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgen.fresh: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
            END IF;
        END IF;
    END IF;
    -- Paused (pause, resume): complete what was asked, claim nothing.
    IF NOT EXISTS (SELECT 1 FROM "qgen"."fresh_control" AS "c" WHERE NOT "c"."paused") THEN
        IF v$ids IS NOT NULL THEN
            DELETE FROM "qgen"."fresh" AS "job"
            WHERE "job"."id" = ANY (v$ids) AND "job"."lease_token" = "fresh_dequeue"."complete_lease_token";
            GET DIAGNOSTICS v$completed = ROW_COUNT;
            IF v$completed = 0 THEN
                RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgen.fresh: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
            END IF;
        END IF;
        RETURN;
    END IF;
    LOOP
        WITH "mark" AS MATERIALIZED
        (
            -- The watermark, unless a rescan is due (see watermark_start): then NULL, and the claim takes
            -- nothing; the body rescans and claims again from v$start.
            -- With the due index's bound, and whether to move it (see postgres__due_bound_move).
            SELECT coalesce(v$start, CASE WHEN ("w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10)) IS NOT TRUE THEN "w"."id" END) AS "from",
                   coalesce("w"."due_from", '-infinity') AS "due_from",
                   coalesce("w"."due_moved_at" <= pg_catalog.clock_timestamp() - interval '1 second', FALSE) AS "due_move"
            FROM (VALUES (1)) AS "one" ("row")
            LEFT JOIN "qgen"."fresh_watermark" AS "w" ON TRUE
        ),
        "done" AS
        (
            DELETE FROM "qgen"."fresh" AS "job"
            WHERE "job"."id" = ANY (v$ids) AND "job"."lease_token" = "fresh_dequeue"."complete_lease_token"
            RETURNING "job"."id"
        ),
        "due" AS MATERIALIZED
        (
            -- Deferred jobs (delayed, or released with a backoff) whose time has come, first: they are not
            -- in the claim index, and the watermark passes them. The due index holds only those not yet
            -- claimed, by available_at: while none is due this reads one page.
            SELECT "d"."id"
            FROM "qgen"."fresh" AS "d"
            -- now(), not the clock: what a claim may take is judged as of its transaction's start, which
            -- can only make it take less (never a job before its time, never a live lease); the leases it
            -- grants are timed from the clock. A stable now() also keeps the planner's estimates, and with
            -- them the seeks tests/test_claim_cost.py holds (with clock_timestamp() the job-type claim
            -- walked 142 buffers where it walks 11).
            WHERE ("d"."lease_token" IS NULL OR "d"."lease_expires_at" < now()) AND "d"."available_at" <= now() AND "d"."enqueued_at" + pg_catalog.make_interval(secs => 900) > now() AND "d"."available_at" > "d"."enqueued_at"
              -- No deferred job a claim may take is due before due_from (see postgres__due_bound_move):
              -- the seek starts there, past the dead entries of those claimed before it.
              AND "d"."available_at" >= (SELECT "m"."due_from" FROM "mark" AS "m")
            ORDER BY "d"."available_at", "d"."id"
            LIMIT (SELECT CASE WHEN "m"."from" IS NULL THEN 0 ELSE v$want END FROM "mark" AS "m")
            FOR UPDATE SKIP LOCKED
        ),
        "ready" AS MATERIALIZED
        (
            SELECT "next"."id"
            FROM "qgen"."fresh" AS "next"
            WHERE ("next"."lease_token" IS NULL OR "next"."lease_expires_at" < now()) AND "next"."enqueued_at" + pg_catalog.make_interval(secs => 900) > now()
              -- Available since its enqueue, hence now that a snapshot shows it: not compared with now()
              -- (the caller's transaction may have begun before the job was enqueued).
              AND "next"."available_at" <= "next"."enqueued_at"
              -- Below the watermark every row is claimed, gone or deferred: start the index range there.
              AND "next"."id" >= (SELECT "m"."from" FROM "mark" AS "m")
              -- Not a job this statement completes (its lease may be over, which makes it takeable).
              AND "next"."id" <> ALL (coalesce(v$ids, '{}'))
            ORDER BY "next"."id"
            LIMIT (SELECT CASE WHEN "m"."from" IS NULL THEN 0 ELSE v$want END FROM "mark" AS "m") - (SELECT count(*) FROM "due")
            FOR UPDATE SKIP LOCKED
        ),
        "claimed" AS
        (
            UPDATE "qgen"."fresh" AS "job"
            SET "lease_token" = CASE WHEN "job"."lease_token" IS NOT NULL AND "job"."attempts" >= 5 THEN v$spent ELSE v$token END,
                "lease_owner" = "fresh_dequeue"."owner",
                "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "fresh_dequeue"."lease_seconds"),
                -- A deferred job leaves the due index as it is claimed (no other claim changes an indexed column).
                "available_at" = least("job"."available_at", "job"."enqueued_at"),
                "attempts" = "job"."attempts" + 1,
                -- A job taken over from an expired lease says so (the old token no longer holds it).
                "last_error" = CASE WHEN "job"."lease_token" IS NULL THEN "job"."last_error" ELSE 'qgen: lease expired before the job was completed' END
            -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
            -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
            WHERE "job"."id" = ANY (ARRAY (SELECT "u"."id" FROM "due" AS "u" UNION ALL SELECT "r"."id" FROM "ready" AS "r"))
            RETURNING "job"."id", "job"."a", "job"."attempts", "job"."lease_token", "job"."lease_expires_at"
        )
        SELECT (SELECT count(*) FROM "done"), (SELECT "m"."from" FROM "mark" AS "m"), max("c"."id"),
               (SELECT "m"."due_from" FROM "mark" AS "m"), (SELECT "m"."due_move" FROM "mark" AS "m") AND EXISTS (SELECT 1 FROM "due"),
               array_agg(ROW("c"."id", "c"."a", "c"."attempts", "c"."lease_token", "c"."lease_expires_at")::"qgen"."fresh_dequeue_row" ORDER BY "c"."id") FILTER (WHERE "c"."lease_token" = v$token),
               array_agg("c"."id") FILTER (WHERE "c"."lease_token" = v$spent)
        INTO v$completed, v$from, v$top, v$due_from, v$due_move, v$rows, v$exhausted
        FROM "claimed" AS "c";
        IF v$ids IS NOT NULL THEN
            -- The previous lease: a token that held none of its jobs claims nothing (this rolls back).
            IF v$completed = 0 THEN
                RAISE EXCEPTION USING ERRCODE = 'QG001',
                    MESSAGE = 'qgen: lease lost on qgen.fresh: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
            END IF;
            v$ids := NULL;
        END IF;
        IF v$from IS NULL THEN
            -- A rescan is due, or the watermark row is missing: every 10 s, look below the
            -- watermark first for jobs it passed (see the macro watermark_start), then claim from there.
            SELECT "w"."id", "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) INTO v$from, v$rescan FROM "qgen"."fresh_watermark" AS "w";
            IF NOT FOUND THEN
                v$from := 0;
                INSERT INTO "qgen"."fresh_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;
            ELSIF v$rescan AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
                -- Only at READ COMMITTED: at REPEATABLE READ or SERIALIZABLE the search would read the
                -- transaction's first snapshot, and locking a row another worker changed since fails the
                -- caller's whole transaction (40001); a READ COMMITTED dequeue or maintain rescans instead.
                SELECT "w"."id", pg_catalog.clock_timestamp() INTO v$mark, v$searched
                FROM "qgen"."fresh_watermark" AS "w" WHERE "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) FOR UPDATE SKIP LOCKED;
                IF FOUND THEN
                    -- A statement of its own: its snapshot is taken after the lock, so it sees every release
                    -- committed before; one that commits later waits for this row and lowers the watermark itself.
                    -- corrected_at gets the time before the search, so a job committed after it is left to the next.
                    SELECT min("job"."id") INTO v$stranded
                    FROM "qgen"."fresh" AS "job"
                    WHERE "job"."id" < v$mark AND ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp()) AND "job"."available_at" <= "job"."enqueued_at" AND "job"."enqueued_at" + pg_catalog.make_interval(secs => 900) > pg_catalog.clock_timestamp();
                    -- Below the due index's bound: a deferred job written past the routines may be due before it.
                    SELECT "d"."available_at" INTO v$due_low
                    FROM "qgen"."fresh" AS "d"
                    WHERE "d"."available_at" > "d"."enqueued_at" AND "d"."available_at" < (SELECT "b"."due_from" FROM "qgen"."fresh_watermark" AS "b")
                    ORDER BY "d"."available_at"
                    LIMIT 1;
                    UPDATE "qgen"."fresh_watermark" AS "w"
                    SET "corrected_at" = v$searched,
                        "due_from" = least("w"."due_from", coalesce(v$due_low, "w"."due_from")),
                        "id" = CASE WHEN v$stranded IS NULL THEN "w"."id" ELSE least("w"."id", greatest(v$stranded - 50, 0)) END
                    RETURNING "w"."id" INTO v$from;
                END IF;
            END IF;
            v$start := v$from;
            CONTINUE;
        END IF;
        v$start := v$from;
        v$highest := greatest(v$highest, v$top);
        IF v$rows IS NOT NULL THEN
            RETURN QUERY SELECT * FROM pg_catalog.unnest(v$rows);
        END IF;
        EXIT WHEN v$exhausted IS NULL;
        -- Jobs taken over with no attempt left are not handed out: they leave, and as many again
        -- are claimed in their place (each round takes rows out of the table, so it ends).
        WITH "gone" AS
        (
            DELETE FROM "qgen"."fresh" AS "job"
            WHERE "job"."id" = ANY (v$exhausted) AND "job"."lease_token" = v$spent
            RETURNING "job".*
        )
        INSERT INTO "qgen"."fresh_dead" ("id", "a", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."a", "g"."enqueued_at", "g"."attempts" - 1, 'qgen: lease expired on the last attempt', pg_catalog.clock_timestamp()
        FROM "gone" AS "g";
        v$want := pg_catalog.cardinality(v$exhausted);
        v$exhausted := NULL;
    END LOOP;
    -- Once a second, raise the due index's bound (see postgres__due_bound_move), at READ COMMITTED
    -- only, and only after a claim that took a due job (each leaves a dead entry in the due index
    -- behind the bound; a claim that took none has nothing to pass, and its move would only take
    -- the watermark row, which a caller's open transaction would then hold).
    IF v$due_move AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        v$due_clock := NULL;
        BEGIN
            LOCK TABLE "qgen"."fresh_watermark" IN EXCLUSIVE MODE NOWAIT;
            v$due_clock := pg_catalog.clock_timestamp();
            -- Ends the block: rolling back its subtransaction releases the lock at once.
            RAISE EXCEPTION USING ERRCODE = 'lock_not_available';
        EXCEPTION WHEN lock_not_available THEN
            NULL;
        END;
        IF v$due_clock IS NOT NULL THEN
            SELECT "d"."available_at" INTO v$due_low
            FROM "qgen"."fresh" AS "d"
            WHERE "d"."available_at" > "d"."enqueued_at" AND "d"."available_at" >= v$due_from
            ORDER BY "d"."available_at"
            LIMIT 1;
            -- SKIP LOCKED: a session that holds the row (a watermark move in an open transaction) wins.
            PERFORM 1 FROM "qgen"."fresh_watermark" AS "w" FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE "qgen"."fresh_watermark" AS "w"
                SET "due_from" = greatest("w"."due_from", least(v$due_clock, coalesce(v$due_low, v$due_clock))),
                    "due_moved_at" = v$due_clock;
            END IF;
        END IF;
    END IF;
    -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
    -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
    -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
    IF v$highest - v$from >= 150 THEN
        PERFORM "qgen"."fresh_watermark_move"(v$highest);
    END IF;
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_dequeue" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_dequeue" FROM PUBLIC;

-- qgen 0.1.0: complete qgen.fresh_complete, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: deletes them. With id, only that job; with ids, those of
-- them the lease holds (primary-key lookups); with neither, every job of the lease, which needs a
-- search of the whole table for the token (no index holds tokens: a claim writes no indexed column). The token is the fence: a worker whose lease was released or taken over gets QG001.
CREATE OR REPLACE FUNCTION "qgen"."fresh_complete"
(
    "lease_token" uuid,
    "id" bigint DEFAULT NULL,
    "ids" bigint[] DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$completed integer;
BEGIN
    IF "fresh_complete"."id" IS NULL THEN
        IF "fresh_complete"."ids" IS NULL THEN
            DELETE FROM "qgen"."fresh" AS "job"
            WHERE "job"."lease_token" = "fresh_complete"."lease_token";
            GET DIAGNOSTICS v$completed = ROW_COUNT;
        ELSE
            DELETE FROM "qgen"."fresh" AS "job"
            WHERE "job"."id" = ANY ("fresh_complete"."ids") AND "job"."lease_token" = "fresh_complete"."lease_token";
            GET DIAGNOSTICS v$completed = ROW_COUNT;
        END IF;
    ELSE
        DELETE FROM "qgen"."fresh" AS "job"
        WHERE "job"."id" = "fresh_complete"."id" AND "job"."lease_token" = "fresh_complete"."lease_token";
        GET DIAGNOSTICS v$completed = ROW_COUNT;
    END IF;
    IF v$completed = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgen.fresh: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$completed;
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_complete" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_complete" FROM PUBLIC;

-- qgen 0.1.0: fail qgen.fresh_fail, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 5) and retry it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR REPLACE FUNCTION "qgen"."fresh_fail"
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
    -- The error text is cut to its column's 4000 characters here, on purpose and never
    -- refused: a worker reports an exception whose text it does not control (a stack trace runs to
    -- many thousands), and a failure that could not be recorded would leave the job leased until
    -- its lease ran out, to be retried with no error kept (docs/api.md, "Values past a column's
    -- limit"). PostgreSQL ignores the parameter's declared length; the insert into varchar(4000)
    -- would refuse a longer text (22001) and cut trailing spaces past it.
    v$error text := pg_catalog.left("fresh_fail"."error", 4000);
    v$gone integer;
BEGIN
    -- NULL is not "no retry": refused, so a caller passing an unset flag does not dead-letter the job.
    IF "fresh_fail"."retry" IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: retry NULL is out of range; accepted: true or false';
    END IF;
    IF "fresh_fail"."retry" THEN
        -- The job is deferred again: no earlier than the clock read under this lock (postgres__due_bound_move).
        LOCK TABLE "qgen"."fresh_watermark" IN ROW SHARE MODE;
        UPDATE "qgen"."fresh" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL,
            "last_error" = v$error,
            "available_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => least(3600::float8, 10 * power(2::float8, least("job"."attempts" - 1, 60))))
        WHERE "job"."id" = "fresh_fail"."id" AND "job"."lease_token" = "fresh_fail"."lease_token"
          AND "job"."attempts" < 5;
        IF FOUND THEN
            -- The job is claimable again: the watermark must not stay above it.
            IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
                FOR v$try IN 1 .. 5 LOOP
                    PERFORM 1 FROM "qgen"."fresh_watermark" AS "w" WHERE "w"."id" > "fresh_fail"."id" FOR UPDATE SKIP LOCKED;
                    IF FOUND THEN
                        UPDATE "qgen"."fresh_watermark" AS "w" SET "id" = "fresh_fail"."id" WHERE "w"."id" > "fresh_fail"."id";
                        EXIT;
                    END IF;
                    -- Not taken: either nothing to lower, or another transaction holds the row.
                    EXIT WHEN NOT EXISTS (SELECT 1 FROM "qgen"."fresh_watermark" AS "w" WHERE "w"."id" > "fresh_fail"."id");
                    PERFORM pg_catalog.pg_sleep(0.01);
                END LOOP;
            END IF;
            RETURN 0;
        END IF;
    END IF;
    -- No retry (asked, or attempts used up), or the token does not hold the job: then nothing matches.
    WITH "gone" AS
    (
        DELETE FROM "qgen"."fresh" AS "job"
        WHERE "job"."id" = "fresh_fail"."id" AND "job"."lease_token" = "fresh_fail"."lease_token"
        RETURNING "job".*
    )
    INSERT INTO "qgen"."fresh_dead" ("id", "a", "enqueued_at", "attempts", "last_error", "dead_at")
    SELECT "g"."id", "g"."a", "g"."enqueued_at", "g"."attempts", v$error, pg_catalog.clock_timestamp()
    FROM "gone" AS "g";
    GET DIAGNOSTICS v$gone = ROW_COUNT;
    IF v$gone = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgen.fresh: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN 1;
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_fail" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_fail" FROM PUBLIC;

-- qgen 0.1.0: extend_lease qgen.fresh_extend_lease, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire lease_seconds from now.
-- With id, one job; with ids, those of them the lease holds (primary-key lookups); with neither,
-- every job of the lease (a search of the whole table). Only lease_expires_at changes: a HOT update.
CREATE OR REPLACE FUNCTION "qgen"."fresh_extend_lease"
(
    "lease_token" uuid,
    "lease_seconds" integer DEFAULT 300,
    "id" bigint DEFAULT NULL,
    "ids" bigint[] DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$extended integer;
BEGIN
    IF "fresh_extend_lease"."lease_seconds" IS NULL OR "fresh_extend_lease"."lease_seconds" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: lease_seconds ' || coalesce("fresh_extend_lease"."lease_seconds"::text, 'NULL') || ' is out of range; accepted: 1 or more seconds';
    END IF;
    IF "fresh_extend_lease"."ids" IS NOT NULL THEN
        UPDATE "qgen"."fresh" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "fresh_extend_lease"."lease_seconds")
        WHERE "job"."id" = ANY ("fresh_extend_lease"."ids") AND "job"."id" = coalesce("fresh_extend_lease"."id", "job"."id")
          AND "job"."lease_token" = "fresh_extend_lease"."lease_token";
    ELSIF "fresh_extend_lease"."id" IS NULL THEN
        -- No index holds tokens (a claim writes no indexed column): this searches the whole table.
        UPDATE "qgen"."fresh" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "fresh_extend_lease"."lease_seconds")
        WHERE "job"."lease_token" = "fresh_extend_lease"."lease_token";
    ELSE
        UPDATE "qgen"."fresh" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "fresh_extend_lease"."lease_seconds")
        WHERE "job"."id" = "fresh_extend_lease"."id" AND "job"."lease_token" = "fresh_extend_lease"."lease_token";
    END IF;
    GET DIAGNOSTICS v$extended = ROW_COUNT;
    IF v$extended = 0 THEN
        IF "fresh_extend_lease"."id" IS NOT NULL AND EXISTS (SELECT 1 FROM "qgen"."fresh_dead" AS "d"
                                                          WHERE "d"."id" = "fresh_extend_lease"."id" AND "d"."last_error" = 'cancelled') THEN
            RAISE EXCEPTION USING ERRCODE = 'QG006',
                MESSAGE = 'qgen: job cancelled on qgen.fresh: cancel took it out of the queue while its lease ran; stop working on it (its complete and fail are refused)';
        END IF;
RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgen.fresh: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$extended;
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_extend_lease" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_extend_lease" FROM PUBLIC;

-- qgen 0.1.0: reap qgen.fresh_reap, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- batch_size per call: those with attempts left become claimable again, with their old token
-- cleared so the late worker is fenced off; the rest are dead-lettered.
-- Then jobs past expire_after (900 s from enqueue) that no live lease holds are dead-lettered
-- (counted in dead_lettered), within the same batch_size.
-- No index holds leases (a claim writes no indexed column, so that it is a HOT update): reap looks
-- at the first 10 x batch_size unfinished jobs in queue order, which is where claims take jobs
-- and so where leases are. It is not what brings a job back: a claim takes over an expired lease
-- it reaches (and dequeue's rescan below the watermark finds those the watermark passed); reap
-- releases them sooner where nobody claims, and keeps metrics and the pending view current. An
-- expired lease behind more than that many jobs waits for a claim.
-- Deferred jobs (delayed, backed off) are not among them: they are never leased, and the claim
-- index that reap walks leaves them out.
CREATE OR REPLACE FUNCTION "qgen"."fresh_reap"
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
    v$lowest bigint;
    -- The clock less expire_after, read once: compared with a variable, enqueued_at is sought in the
    -- expire index; compared with clock_timestamp() (volatile) it is no index condition, and the
    -- scan walked every queued job in enqueued_at order to find the expired ones.
    v$expired_before timestamptz;
BEGIN
    IF "fresh_reap"."batch_size" IS NULL OR "fresh_reap"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for qgen.fresh_reap; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("fresh_reap"."batch_size"::text, 'NULL'));
    END IF;
    -- Released jobs are deferred: due at the clock read under this lock (postgres__due_bound_move).
    LOCK TABLE "qgen"."fresh_watermark" IN ROW SHARE MODE;
    WITH "expired" AS
    (
        -- SKIP LOCKED: a job being completed right now is locked by its worker; leave it to finish.
        SELECT "job"."id", "job"."attempts"
        FROM "qgen"."fresh" AS "job"
        WHERE "job"."id" IN
              (
                  SELECT "first"."id"
                  FROM "qgen"."fresh" AS "first"
                  WHERE "first"."available_at" <= "first"."enqueued_at"
                  ORDER BY "first"."id"
                  LIMIT "fresh_reap"."batch_size" * 10
              )
          AND "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < pg_catalog.clock_timestamp()
        LIMIT "fresh_reap"."batch_size"
        FOR UPDATE SKIP LOCKED
    ),
    "freed" AS
    (
        UPDATE "qgen"."fresh" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
            "last_error" = 'qgen: lease expired before the job was completed'
        FROM "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" < 5 AND "job"."enqueued_at" + pg_catalog.make_interval(secs => 900) > pg_catalog.clock_timestamp()
        RETURNING "job"."id"
    ),
    "gone" AS
    (
        DELETE FROM "qgen"."fresh" AS "job"
        USING "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" >= 5
        RETURNING "job".*
    ),
    "buried" AS
    (
        INSERT INTO "qgen"."fresh_dead" ("id", "a", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."a", "g"."enqueued_at", "g"."attempts", 'qgen: lease expired on the last attempt', pg_catalog.clock_timestamp()
        FROM "gone" AS "g"
    )
    SELECT (SELECT count(*) FROM "freed"), (SELECT count(*) FROM "gone"), (SELECT min("f"."id") FROM "freed" AS "f")
    INTO "released", "dead_lettered", v$lowest;
    -- expire_after: jobs enqueued 900 s ago or longer that no live lease holds are never handed
    -- out (claims pass them, and the release above leaves them); what is left of the batch moves them to the dead letters, last_error 'expired',
    -- oldest first, through the expire index. A leased job runs to the end of its lease.
    v$expired_before := pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 900);
    WITH "old" AS
    (
        SELECT "job"."id"
        FROM "qgen"."fresh" AS "job"
        WHERE "job"."enqueued_at" <= v$expired_before
          AND ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp())
        ORDER BY "job"."enqueued_at"
        LIMIT greatest("fresh_reap"."batch_size" - "released" - "dead_lettered", 0)
        FOR UPDATE SKIP LOCKED
    ),
    "gone" AS
    (
        DELETE FROM "qgen"."fresh" AS "job"
        USING "old" AS "o"
        WHERE "job"."id" = "o"."id"
        RETURNING "job".*
    ),
    "buried" AS
    (
        INSERT INTO "qgen"."fresh_dead" ("id", "a", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."a", "g"."enqueued_at", "g"."attempts", 'expired', pg_catalog.clock_timestamp()
        FROM "gone" AS "g"
    )
    SELECT "dead_lettered" + count(*) INTO "dead_lettered" FROM "gone";
    IF v$lowest IS NOT NULL THEN
        -- Released jobs are claimable again: the watermark must not stay above them.
        IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
            FOR v$try IN 1 .. 5 LOOP
                PERFORM 1 FROM "qgen"."fresh_watermark" AS "w" WHERE "w"."id" > v$lowest FOR UPDATE SKIP LOCKED;
                IF FOUND THEN
                    UPDATE "qgen"."fresh_watermark" AS "w" SET "id" = v$lowest WHERE "w"."id" > v$lowest;
                    EXIT;
                END IF;
                -- Not taken: either nothing to lower, or another transaction holds the row.
                EXIT WHEN NOT EXISTS (SELECT 1 FROM "qgen"."fresh_watermark" AS "w" WHERE "w"."id" > v$lowest);
                PERFORM pg_catalog.pg_sleep(0.01);
            END LOOP;
        END IF;
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_reap" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_reap" FROM PUBLIC;

-- qgen 0.1.0: metrics qgen.fresh_metrics, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "qgen"."fresh_metrics"()
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
        count(*) FILTER (WHERE "job"."lease_token" IS NULL AND "job"."available_at" <= now()),
        count(*) FILTER (WHERE "job"."lease_token" IS NULL AND "job"."available_at" > now()),
        count(*) FILTER (WHERE "job"."lease_token" IS NOT NULL),
        count(*) FILTER (WHERE "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < now()),
        0::bigint,
        (SELECT count(*) FROM "qgen"."fresh_dead"),
        0::bigint,
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."available_at" <= now())))::bigint, 0),
        (SELECT "w"."id" FROM "qgen"."fresh_watermark" AS "w"),
        min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL),
        -- on_complete: delete leaves no trace of a completion to count.
        NULL::bigint,
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        coalesce(min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL), max("job"."id") + 1)
            - (SELECT "w"."id" FROM "qgen"."fresh_watermark" AS "w"),
        NOT EXISTS (SELECT 1 FROM "qgen"."fresh_control" AS "c" WHERE NOT "c"."paused")
    FROM "qgen"."fresh" AS "job";
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_metrics" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek qgen.fresh_peek, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "qgen"."fresh_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "qgen"."fresh_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "fresh_peek"."limit" IS NULL OR "fresh_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for qgen.fresh_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "qgen"."fresh_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "fresh_peek"."limit";
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_peek" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_peek" FROM PUBLIC;

-- qgen 0.1.0: purge_batch qgen.fresh_purge_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds: at most batch_size rows (1000 by default, refused above 4000) over all
-- those tables together, in the caller's transaction. purge (a procedure) calls it in a loop and
-- commits after each batch; a client can call it in a loop of its own, one transaction per call.
CREATE OR REPLACE FUNCTION "qgen"."fresh_purge_batch"
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
    v$left integer := "fresh_purge_batch"."batch_size";
    v$deleted integer;
BEGIN
    IF "fresh_purge_batch"."batch_size" IS NULL OR "fresh_purge_batch"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("fresh_purge_batch"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF "fresh_purge_batch"."older_than_seconds" IS NULL OR "fresh_purge_batch"."older_than_seconds" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: older_than_seconds ' || coalesce("fresh_purge_batch"."older_than_seconds"::text, 'NULL') || ' is out of range; accepted: 0 or more';
    END IF;
    v$cutoff := now() - pg_catalog.make_interval(secs => "fresh_purge_batch"."older_than_seconds");
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    IF v$left > 0 THEN
        DELETE FROM "qgen"."fresh_dead" AS "x"
        WHERE "x"."entry_id" = ANY (ARRAY(
            SELECT "y"."entry_id" FROM "qgen"."fresh_dead" AS "y"
            WHERE "y"."dead_at" < v$cutoff
            LIMIT v$left
            FOR UPDATE SKIP LOCKED));
        GET DIAGNOSTICS v$deleted = ROW_COUNT;
        "dead" := v$deleted;
        v$left := v$left - v$deleted;
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_purge_batch" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_purge_batch" FROM PUBLIC;

-- qgen 0.1.0: purge qgen.fresh_purge, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds, one batch of at most batch_size rows at a time, and COMMITs after each batch:
-- no transaction holds more than one batch, and vacuum can clean up behind it while it runs.
-- Rows that finish while it runs (a second after it began) are left for the next purge, so it ends.
-- A procedure that commits cannot be SECURITY DEFINER nor have a SET clause: it runs with its
-- caller's rights and reaches the tables only through fresh_purge_batch (EXECUTE on that is all it
-- needs); every name in it is schema-qualified. CALL it outside a transaction block (inside one,
-- PostgreSQL refuses its COMMIT: invalid transaction termination, 2D000); there call
-- fresh_purge_batch instead.
CREATE OR REPLACE PROCEDURE "qgen"."fresh_purge"
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
    "fresh_purge"."archived" := 0;
    "fresh_purge"."processed" := 0;
    "fresh_purge"."dead" := 0;
    LOOP
        -- Each batch is a new transaction with a later now(): widen the age by the whole seconds
        -- spent so far, so the cutoff stays within a second of where it was when the call began.
        SELECT * INTO v$batch
        FROM "qgen"."fresh_purge_batch"(
            "fresh_purge"."older_than_seconds" + pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - v$started))::integer,
            "fresh_purge"."batch_size");
        "fresh_purge"."archived" := "fresh_purge"."archived" + v$batch."archived";
        "fresh_purge"."processed" := "fresh_purge"."processed" + v$batch."processed";
        "fresh_purge"."dead" := "fresh_purge"."dead" + v$batch."dead";
        COMMIT;
        -- A short batch: nothing older is left (or what is left is locked: the next purge takes it).
        EXIT WHEN v$batch."archived" + v$batch."processed" + v$batch."dead" < "fresh_purge"."batch_size";
    END LOOP;
END
$qgen$;
ALTER PROCEDURE "qgen"."fresh_purge" OWNER TO "qgen_owner";
REVOKE ALL ON PROCEDURE "qgen"."fresh_purge" FROM PUBLIC;

-- qgen 0.1.0: maintain qgen.fresh_maintain, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- batch_size finished jobs older than the retention (604800 s), releases up to batch_size expired
-- leases (reap), and corrects the watermark, in that order, in one transaction. Only one runs at a
-- time per queue: a caller that finds another one running returns at once with skipped = true.
-- more = true when a step filled its batch: call again (qgen maintain does) to do the rest.
-- Granted to the consumer role, so any worker can run it (run_worker does, every few seconds).
CREATE OR REPLACE FUNCTION "qgen"."fresh_maintain"
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
    IF "fresh_maintain"."batch_size" IS NULL OR "fresh_maintain"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("fresh_maintain"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    "released" := 0;
    "dead_lettered" := 0;
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    -- One at a time (see the macro maintain_lock). The lock is the transaction's: it goes with the
    -- commit or the rollback, whatever happens.
    BEGIN
        LOCK TABLE "qgen"."fresh_watermark" IN SHARE UPDATE EXCLUSIVE MODE NOWAIT;
    EXCEPTION WHEN lock_not_available THEN
        "skipped" := TRUE;
        "more" := FALSE;
        RETURN NEXT;
        RETURN;
    END;
    "skipped" := FALSE;
    -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
    SELECT "p"."archived", "p"."processed", "p"."dead" INTO "archived", "processed", "dead"
    FROM "qgen"."fresh_purge_batch"(604800, "fresh_maintain"."batch_size") AS "p";
    SELECT "r"."released", "r"."dead_lettered" INTO "released", "dead_lettered"
    -- reap takes at most the queue's max_batch_size (1000).
    FROM "qgen"."fresh_reap"(least("fresh_maintain"."batch_size", 1000)) AS "r";
    SELECT "w"."old_watermark", "w"."new_watermark" INTO "old_watermark", "new_watermark"
    FROM "qgen"."fresh_watermark_correct"() AS "w";
    "more" := "archived" + "processed" + "dead" >= "fresh_maintain"."batch_size"
              OR "released" + "dead_lettered" >= least("fresh_maintain"."batch_size", 1000);
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_maintain" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_maintain" FROM PUBLIC;

-- qgen 0.1.0: redrive qgen.fresh_redrive, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Puts dead-lettered jobs back into the queue as new jobs: a new id, attempts 0, available now,
-- their last error kept. Either the dead jobs with these ids, or (redrive_all) every dead job
-- after after_id, in the order they died; at most batch_size per call: last_id is the last
-- dead-letter entry looked at (its entry_id: a job id can repeat there), to pass as after_id to
-- the next call. Each job is inserted and removed from the dead-letter
-- table in this one transaction, so it is redriven once: a second call finds nothing, and a
-- concurrent one waits and then finds it gone.
CREATE OR REPLACE FUNCTION "qgen"."fresh_redrive"
(
    "ids" bigint[] DEFAULT NULL,
    "redrive_all" boolean DEFAULT FALSE,
    "after_id" bigint DEFAULT 0,
    "batch_size" integer DEFAULT 1000
)
RETURNS TABLE ("redriven" integer, "skipped_duplicates" integer, "last_id" bigint)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$dead record;
BEGIN
    IF "fresh_redrive"."batch_size" IS NULL OR "fresh_redrive"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("fresh_redrive"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF ("fresh_redrive"."ids" IS NOT NULL) = coalesce("fresh_redrive"."redrive_all", FALSE) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: redrive takes either ids or redrive_all => true, not both and not neither';
    END IF;
    "redriven" := 0;
    "skipped_duplicates" := 0;
    FOR v$dead IN
        SELECT "x".*
        FROM "qgen"."fresh_dead" AS "x"
        WHERE ("fresh_redrive"."redrive_all" AND "x"."entry_id" > coalesce("fresh_redrive"."after_id", 0))
           OR "x"."id" = ANY ("fresh_redrive"."ids")
        ORDER BY "x"."entry_id"
        LIMIT "fresh_redrive"."batch_size"
        FOR UPDATE OF "x"
    LOOP
        "last_id" := v$dead."entry_id";
        INSERT INTO "qgen"."fresh" ("a", "attempts", "available_at", "last_error")
        VALUES (v$dead."a", 0, now(), v$dead."last_error");
        IF FOUND THEN
            DELETE FROM "qgen"."fresh_dead" AS "x" WHERE "x"."entry_id" = v$dead."entry_id";
            "redriven" := "redriven" + 1;
        ELSE
            "skipped_duplicates" := "skipped_duplicates" + 1;
        END IF;
    END LOOP;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_redrive" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_redrive" FROM PUBLIC;

-- qgen 0.1.0: dead_letters qgen.fresh_dead_letters, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first (the order they arrived in: the key backwards, which stops after
-- "limit" rows), with the error each died of: at most "limit" rows (1 to 1000). Reads only: a plain snapshot read, which takes no row lock, never waits on
-- one and makes no fail, reap, redrive or purge wait. "limit" is a reserved word: by name it is
-- passed as "limit" => n.
CREATE OR REPLACE FUNCTION "qgen"."fresh_dead_letters"
(
    "limit" integer DEFAULT 100
)
RETURNS TABLE
(
    "id" bigint,
    "a" integer,
    "enqueued_at" timestamptz,
    "attempts" integer,
    "dead_at" timestamptz,
    "last_error" text
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "fresh_dead_letters"."limit" IS NULL OR "fresh_dead_letters"."limit" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit ' || coalesce("fresh_dead_letters"."limit"::text, 'NULL') || ' is out of range for qgen.fresh_dead_letters; accepted: 1 to 1000 rows';
    END IF;
    RETURN QUERY
    SELECT "x"."id", "x"."a", "x"."enqueued_at", "x"."attempts", "x"."dead_at",
        "x"."last_error"::text
    FROM "qgen"."fresh_dead" AS "x"
    ORDER BY "x"."entry_id" DESC
    LIMIT "fresh_dead_letters"."limit";
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_dead_letters" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_dead_letters" FROM PUBLIC;

-- qgen 0.1.0: job qgen.fresh_job, rendered for PostgreSQL from spec.yaml.
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
CREATE OR REPLACE FUNCTION "qgen"."fresh_job"
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
    "lease_owner" text,
    "lease_expires_at" timestamptz,
    "last_error" text,
    "finished_at" timestamptz
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "fresh_job"."job_id" IS NULL OR "fresh_job"."job_id" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: job_id ' || coalesce("fresh_job"."job_id"::text, 'NULL') || ' is out of range for qgen.fresh_job; accepted: a job id, 1 or more';
    END IF;
    RETURN QUERY
    SELECT "j"."id", CASE WHEN "j"."lease_token" IS NOT NULL THEN 'in_flight' WHEN "j"."available_at" > now() THEN 'scheduled' ELSE 'queued' END,
        "j"."enqueued_at", "j"."available_at",
        "j"."attempts", "j"."lease_owner"::text, "j"."lease_expires_at",
        "j"."last_error"::text, NULL::timestamptz
    FROM "qgen"."fresh" AS "j"
    WHERE "j"."id" = "fresh_job"."job_id";
    IF FOUND THEN
        RETURN;
    END IF;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is restarted.
    RETURN QUERY
    SELECT "x"."id", 'dead'::text, "x"."enqueued_at", NULL::timestamptz, "x"."attempts", NULL::text, NULL::timestamptz,
        "x"."last_error"::text, "x"."dead_at"
    FROM "qgen"."fresh_dead" AS "x"
    WHERE "x"."id" = "fresh_job"."job_id"
    ORDER BY "x"."entry_id" DESC
    LIMIT 1;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "fresh_job"."job_id", 'not_found'::text, NULL::timestamptz, NULL::timestamptz, NULL::integer, NULL::text, NULL::timestamptz,
        NULL::text, NULL::timestamptz;
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_job" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_job" FROM PUBLIC;

-- qgen 0.1.0: release qgen.fresh_release, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With id, that
-- job; with ids, those of them the lease holds (primary-key lookups); with neither, every job
-- of the lease (a search of the whole table: no index holds tokens). The token is the fence: a
-- job whose lease was released, taken over or finished gets QG001. last_error is kept (no failure happened).
CREATE OR REPLACE FUNCTION "qgen"."fresh_release"
(
    "lease_token" uuid,
    "id" bigint DEFAULT NULL,
    "ids" bigint[] DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$released integer;
    v$lowest bigint;
BEGIN
    -- Released jobs are deferred: due at the clock read under this lock (postgres__due_bound_move).
    LOCK TABLE "qgen"."fresh_watermark" IN ROW SHARE MODE;
    IF "fresh_release"."id" IS NOT NULL THEN
        WITH "freed" AS
        (
            UPDATE "qgen"."fresh" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."id" = "fresh_release"."id" AND "job"."lease_token" = "fresh_release"."lease_token"
            RETURNING "job"."id"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f")
        INTO v$released, v$lowest;
    ELSIF "fresh_release"."ids" IS NOT NULL THEN
        WITH "freed" AS
        (
            UPDATE "qgen"."fresh" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."id" = ANY ("fresh_release"."ids") AND "job"."lease_token" = "fresh_release"."lease_token"
            RETURNING "job"."id"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f")
        INTO v$released, v$lowest;
    ELSE
        WITH "freed" AS
        (
            UPDATE "qgen"."fresh" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."lease_token" = "fresh_release"."lease_token"
            RETURNING "job"."id"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f")
        INTO v$released, v$lowest;
    END IF;
    IF v$released = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgen.fresh: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    -- Released jobs are claimable again: the watermark must not stay above them.
    IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        FOR v$try IN 1 .. 5 LOOP
            PERFORM 1 FROM "qgen"."fresh_watermark" AS "w" WHERE "w"."id" > v$lowest FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE "qgen"."fresh_watermark" AS "w" SET "id" = v$lowest WHERE "w"."id" > v$lowest;
                EXIT;
            END IF;
            -- Not taken: either nothing to lower, or another transaction holds the row.
            EXIT WHEN NOT EXISTS (SELECT 1 FROM "qgen"."fresh_watermark" AS "w" WHERE "w"."id" > v$lowest);
            PERFORM pg_catalog.pg_sleep(0.01);
        END LOOP;
    END IF;
    RETURN v$released;
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_release" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_release" FROM PUBLIC;

-- qgen 0.1.0: pause qgen.fresh_pause, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job. Enqueues go on, and leases already granted run to their end (complete, fail,
-- extend_lease, release and reap work as before). Returns 1 when this call paused the queue, 0
-- when it was paused already.
CREATE OR REPLACE FUNCTION "qgen"."fresh_pause"()
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
    SELECT "c"."paused" INTO v$was FROM "qgen"."fresh_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "qgen"."fresh_control" ("paused", "changed_at", "changed_by")
        VALUES (TRUE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "qgen"."fresh_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = TRUE THEN
        RETURN 0;
    END IF;
    UPDATE "qgen"."fresh_control" AS "c"
    SET "paused" = TRUE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgen.fresh: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_pause" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_pause" FROM PUBLIC;

-- qgen 0.1.0: resume qgen.fresh_resume, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again. Returns 1 when this call
-- resumed the queue, 0 when it was not paused.
CREATE OR REPLACE FUNCTION "qgen"."fresh_resume"()
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
    SELECT "c"."paused" INTO v$was FROM "qgen"."fresh_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "qgen"."fresh_control" ("paused", "changed_at", "changed_by")
        VALUES (FALSE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "qgen"."fresh_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = FALSE THEN
        RETURN 0;
    END IF;
    UPDATE "qgen"."fresh_control" AS "c"
    SET "paused" = FALSE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgen.fresh: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_resume" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_resume" FROM PUBLIC;

-- qgen 0.1.0: cancel qgen.fresh_cancel, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (ids; at most 4000): each job still in the queue leaves it at once, in
-- this one statement, into the dead-letter table with last_error 'cancelled', and never runs.
-- One row per distinct id, in id order, "outcome":
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   cancelled_in_flight: it held a lease: its worker's complete, fail and extend_lease get QG001 (the
--     token fences them off, so nothing it does commits with the job); a row a completion holds at
--     that moment is waited for (a short lock), then cancelled or found finished;
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order, as every other statement that locks several jobs does, so cancel
-- deadlocks with none of them; a row a completion or a claim holds is waited for, at most 5 s (then
-- refused, QG002: nothing done). At REPEATABLE READ or SERIALIZABLE it is refused (QG002): it would
-- answer from the transaction's snapshot, which does not show a job enqueued since, and say
-- not_queued of a job that then runs.
CREATE OR REPLACE FUNCTION "qgen"."fresh_cancel"
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
    IF "fresh_cancel"."ids" IS NULL OR EXISTS (SELECT 1 FROM pg_catalog.unnest("fresh_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NULL OR "a"."id" < 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: ids must be an array of job ids (whole numbers from 1)';
    END IF;
    IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgen.fresh: cancel at REPEATABLE READ or SERIALIZABLE would answer from the transaction''s snapshot, which does not show a job enqueued since (it would say not_queued of a job that then runs); run it at READ COMMITTED';
    END IF;
    IF (SELECT count(DISTINCT "a"."id") FROM pg_catalog.unnest("fresh_cancel"."ids") AS "a" ("id")) > 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: ids lists more than 4000 jobs; accepted: 1 to 4000 per call';
    END IF;
    RETURN QUERY
    WITH "asked" AS
    (
        SELECT DISTINCT "a"."id" FROM pg_catalog.unnest("fresh_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NOT NULL
    ),
    "found" AS
    (
        -- The rows by their id, locked (waiting for a completion's short lock).
        SELECT "job"."id"
        FROM "qgen"."fresh" AS "job"
        WHERE "job"."id" IN (SELECT "a"."id" FROM "asked" AS "a")
        ORDER BY "job"."id"
        FOR UPDATE
    ),
    "gone" AS
    (
        DELETE FROM "qgen"."fresh" AS "job"
        USING "found" AS "f"
        WHERE "job"."id" = "f"."id"
        RETURNING "job".*
    ),
    "dead" AS
    (
        INSERT INTO "qgen"."fresh_dead" ("id", "a", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."a", "g"."enqueued_at", "g"."attempts", 'cancelled', pg_catalog.clock_timestamp()
        FROM "gone" AS "g"
    )
    SELECT "a"."id",
        CASE
             WHEN "g"."lease_token" IS NOT NULL THEN 'cancelled_in_flight'
             WHEN "g"."id" IS NOT NULL THEN 'cancelled'
             ELSE 'not_queued' END
    FROM "asked" AS "a"
    -- What the DELETE took out: the outcome is what happened, not what was found.
    LEFT JOIN "gone" AS "g" ON "g"."id" = "a"."id"
    ORDER BY "a"."id";
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgen.fresh: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again';
END
$qgen$;
ALTER FUNCTION "qgen"."fresh_cancel" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."fresh_cancel" FROM PUBLIC;

-- qgen 0.1.0: table qgen.ranked, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Storage fit for a queue table, whose rows are inserted, updated (leased, released) and deleted all day:
-- fillfactor 85: room on each page, so that a release or a retry can put the new row version next
--   to the old one.
-- autovacuum_vacuum_scale_factor 0.01 (default 0.2): vacuum once 1% of the rows are dead, not 20%:
--   on a queue with a backlog, dead entries at the head of the claim index are what every claim
--   walks through, and 20% of a million-row backlog is 200,000 of them.
-- autovacuum_vacuum_threshold 1000 (default 50): but on a nearly empty queue, not after every 50
--   deleted jobs: a few vacuums a minute at most on a busy small queue.
-- autovacuum_analyze_scale_factor 0.02 (default 0.1): the row count swings with the backlog; keep
--   the statistics the planner sees close to it.
CREATE TABLE IF NOT EXISTS "qgen"."ranked"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "a" integer NOT NULL,
    "priority" integer NOT NULL DEFAULT 0,
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
)
WITH (fillfactor = 85, autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
      autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "qgen"."ranked" OWNER TO "qgen_owner";

-- qgen 0.1.0: claim_index qgen.ranked_claim_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
CREATE INDEX IF NOT EXISTS "ranked_claim_ix"
    ON "qgen"."ranked" ("priority" DESC, "id")
    WHERE "lease_token" IS NULL AND "processed" = FALSE
    ;

-- qgen 0.1.0: lease_index qgen.ranked_lease_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
CREATE INDEX IF NOT EXISTS "ranked_lease_ix"
    ON "qgen"."ranked" ("lease_token") INCLUDE ("lease_expires_at", "attempts")
    WHERE "lease_token" IS NOT NULL;

-- qgen 0.1.0: processed_index qgen.ranked_processed_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes processed jobs by age: only processed rows are indexed, by when they were processed.
CREATE INDEX IF NOT EXISTS "ranked_processed_ix"
    ON "qgen"."ranked" ("processed_at")
    WHERE "processed";

-- qgen 0.1.0: expire_index qgen.ranked_expire_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- expire_after (7200 s): reap finds the jobs enqueued longer ago than that by when they were
-- enqueued, oldest first, reading only those. enqueued_at never changes, so a claim writes nothing here.
CREATE INDEX IF NOT EXISTS "ranked_expire_ix"
    ON "qgen"."ranked" ("enqueued_at")
    WHERE "processed" = FALSE;

-- qgen 0.1.0: priority_marks qgen.ranked_marks, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: a priority queue's claim marks, the watermark of each priority. In the priority
-- "priorities[k]", no job below the id "ids[k]" needs a claim's look: each was claimed or is gone
-- (completed, deleted), and the rescan finds what a mark passed (see dequeue). A claim seeks the
-- claim index at (priority, mark) instead of walking the dead index entries that claimed and
-- completed rows leave at the head of each priority until VACUUM. A priority without a mark is
-- claimed from its first id. Sorted by priority, highest first, as claims visit them.
CREATE TABLE IF NOT EXISTS "qgen"."ranked_marks"
(
    "priorities" integer[] NOT NULL DEFAULT '{}',
    "ids" bigint[] NOT NULL DEFAULT '{}',
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    -- When the table was last searched below the marks (by a dequeue's rescan): a dequeue rescans
    -- when this is watermark.rescan (10 s) old.
    "corrected_at" timestamptz NOT NULL DEFAULT '-infinity',
    PRIMARY KEY ("one_row")
);
ALTER TABLE "qgen"."ranked_marks" OWNER TO "qgen_owner";
INSERT INTO "qgen"."ranked_marks" ("one_row") VALUES (TRUE) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dead_letter_table qgen.ranked_dead, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: "id" is the job's id, which repeats once the queue's identity is restarted.
CREATE TABLE IF NOT EXISTS "qgen"."ranked_dead"
(
    "entry_id" bigint GENERATED ALWAYS AS IDENTITY,
    "id" bigint NOT NULL,
    "a" integer NOT NULL,
    "priority" integer NOT NULL,
    "enqueued_at" timestamptz NOT NULL,
    "attempts" integer NOT NULL,
    "last_error" varchar(4000) NULL,
    "dead_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("entry_id")
);
ALTER TABLE "qgen"."ranked_dead" OWNER TO "qgen_owner";

-- qgen 0.1.0: dead_letter_index qgen.ranked_dead_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
CREATE INDEX IF NOT EXISTS "ranked_dead_ix"
    ON "qgen"."ranked_dead" ("dead_at");
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
CREATE INDEX IF NOT EXISTS "ranked_dead_id_ix"
    ON "qgen"."ranked_dead" ("id");

-- qgen 0.1.0: pending_view qgen.ranked_pending, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "qgen"."ranked_pending" AS
SELECT "job"."id", "job"."a", "job"."priority", "job"."available_at", "job"."enqueued_at", "job"."attempts", "job"."last_error"
FROM "qgen"."ranked" AS "job"
WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE;
ALTER VIEW "qgen"."ranked_pending" OWNER TO "qgen_owner";

-- qgen 0.1.0: batch_type qgen.ranked_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) and priority (0) when missing, and the table rejects a missing required column.
-- Its string and decimal fields have no length or scale (m.param_type): reading a job into
-- varchar(n) or numeric(p,s) would cut or round a value past its column before enqueue_batch
-- could refuse it (QG010).
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"qgen"."ranked_batch"') IS NULL THEN
        CREATE TYPE "qgen"."ranked_batch" AS
        (
            "ordinal" integer,
            "a" integer,
            "priority" integer
        );
    END IF;
END
$qgen$;
ALTER TYPE "qgen"."ranked_batch" OWNER TO "qgen_owner";

-- qgen 0.1.0: enqueue qgen.ranked_enqueue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "qgen"."ranked_enqueue"
(
    "a" integer,
    "priority" integer DEFAULT 0
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        INSERT INTO "qgen"."ranked" AS "job" ("a", "priority")
        VALUES ("ranked_enqueue"."a", "ranked_enqueue"."priority")
        RETURNING "job"."id", TRUE;
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_enqueue" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_enqueue" FROM PUBLIC;

-- qgen 0.1.0: enqueue_batch qgen.ranked_enqueue_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job.
CREATE OR REPLACE FUNCTION "qgen"."ranked_enqueue_batch"
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
    v$sequence regclass := pg_catalog.pg_get_serial_sequence('"qgen"."ranked"', 'id')::regclass;
BEGIN

    RETURN QUERY
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "e"."position$"::integer) AS "ordinal",
                   "j"."a", coalesce("j"."priority", 0) AS "priority"
            -- The array position and the new id are qgen's own columns beside the job's: their names
            -- hold a $, which no spec column can.
            FROM jsonb_array_elements("ranked_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
            CROSS JOIN LATERAL jsonb_populate_record(NULL::"qgen"."ranked_batch", "e"."job$") AS "j"
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
            INSERT INTO "qgen"."ranked" AS "job" ("id", "a", "priority")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new$id", "n"."a", "n"."priority"
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal", "n"."new$id", TRUE
        FROM "numbered" AS "n"
        ORDER BY "n"."ordinal";
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_enqueue_batch" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: control_table qgen.ranked_control, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which role). Every
-- claim reads it first (a plain read: a pause or resume counts from its commit, and no claim waits
-- on one left open). A missing row (deleted by hand) reads as running.
CREATE TABLE IF NOT EXISTS "qgen"."ranked_control"
(
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    "paused" boolean NOT NULL DEFAULT FALSE,
    "changed_at" timestamptz NULL,
    "changed_by" varchar(128) NULL,
    PRIMARY KEY ("one_row")
);
ALTER TABLE "qgen"."ranked_control" OWNER TO "qgen_owner";
INSERT INTO "qgen"."ranked_control" ("paused") VALUES (FALSE) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dequeue qgen.ranked_dequeue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"qgen"."ranked_dequeue_row"') IS NULL THEN
        CREATE TYPE "qgen"."ranked_dequeue_row" AS
        (
            "id" bigint,
            "a" integer,
            "priority" integer,
            "attempts" integer,
            "lease_token" uuid,
            "lease_expires_at" timestamptz
        );
    END IF;
END
$qgen$;
ALTER TYPE "qgen"."ranked_dequeue_row" OWNER TO "qgen_owner";
-- Claims up to batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With complete_lease_token it first completes that lease's jobs as complete(token) does, in the
-- same transaction: one commit per batch instead of two. A token that holds no job raises QG001
-- and nothing is claimed.
CREATE OR REPLACE FUNCTION "qgen"."ranked_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 10,
    "lease_seconds" integer DEFAULT 300,
    "complete_lease_token" uuid DEFAULT NULL
)
RETURNS SETOF "qgen"."ranked_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 10
AS $qgen$
#variable_conflict use_column
DECLARE
    v$token uuid := gen_random_uuid();
    v$completed integer;
    v$job "qgen"."ranked_dequeue_row";
    -- The marks (priorities highest first, and each one's mark), read as the dequeue starts.
    v$prios integer[];
    v$marks bigint[];
    v$rescan boolean;
    v$searched timestamptz;
    v$count integer;
    v$left integer := "ranked_dequeue"."batch_size";
    -- The segment claimed from: priorities v$lowest_band to v$highest_band, ids from v$from.
    v$lowest_band integer;
    v$highest_band integer;
    v$lowest_wide bigint;
    v$highest_wide bigint;
    v$from bigint;
    -- The priorities claimed from, and the highest id claimed in each (jobs come back in queue
    -- order): v$claimed of them.
    v$bands integer[];
    v$tops bigint[];
    v$claimed integer := 0;
    v$band integer;
    v$top bigint;
    v$cur bigint;
    v$lowest bigint;
BEGIN
    IF "ranked_dequeue"."batch_size" IS NULL OR "ranked_dequeue"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for qgen.ranked_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("ranked_dequeue"."batch_size"::text, 'NULL'));
    END IF;
    IF pg_catalog.length("ranked_dequeue"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in qgen.ranked_dequeue; accepted: string(128), at most 128 characters';
    END IF;
    IF "ranked_dequeue"."lease_seconds" IS NULL OR "ranked_dequeue"."lease_seconds" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: lease_seconds ' || coalesce("ranked_dequeue"."lease_seconds"::text, 'NULL') || ' is out of range; accepted: 1 or more seconds';
    END IF;
    IF "ranked_dequeue"."complete_lease_token" IS NOT NULL THEN
        UPDATE "qgen"."ranked" AS "job"
        SET "processed" = TRUE, "processed_at" = pg_catalog.clock_timestamp(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
        WHERE "job"."lease_token" = "ranked_dequeue"."complete_lease_token";
        GET DIAGNOSTICS v$completed = ROW_COUNT;
        IF v$completed = 0 THEN
            RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgen.ranked: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
        END IF;
    END IF;
    -- Paused (pause, resume): complete what was asked, claim nothing.
    IF NOT EXISTS (SELECT 1 FROM "qgen"."ranked_control" AS "c" WHERE NOT "c"."paused") THEN
        RETURN;
    END IF;
    -- Read the marks; every 10 s, look below them first for jobs they passed (see the macro marks_start).
    SELECT "w"."priorities", "w"."ids", "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) INTO v$prios, v$marks, v$rescan FROM "qgen"."ranked_marks" AS "w";
    IF NOT FOUND THEN
        INSERT INTO "qgen"."ranked_marks" ("one_row") VALUES (TRUE) ON CONFLICT DO NOTHING;
    ELSIF v$rescan AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        SELECT pg_catalog.clock_timestamp() INTO v$searched
        FROM "qgen"."ranked_marks" AS "w" WHERE "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            -- A statement of its own: its snapshot is taken after the lock (see postgres__watermark_start).
            UPDATE "qgen"."ranked_marks" AS "w"
            SET "corrected_at" = v$searched,
                "ids" = coalesce((SELECT pg_catalog.array_agg(CASE WHEN "s"."lowest" IS NULL THEN "u"."id"
                                                                   ELSE least("u"."id", greatest("s"."lowest" - 50, 0)) END
                                                              ORDER BY "u"."k")
                                  FROM ROWS FROM (pg_catalog.unnest("w"."priorities"), pg_catalog.unnest("w"."ids")) WITH ORDINALITY AS "u"("priority", "id", "k")
                                  LEFT JOIN LATERAL (SELECT min("job"."id") AS "lowest"
                                                     FROM "qgen"."ranked" AS "job"
                                                     WHERE "job"."priority" = "u"."priority" AND "job"."id" < "u"."id"
                                                       AND "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."enqueued_at" + pg_catalog.make_interval(secs => 7200) > pg_catalog.clock_timestamp()) AS "s" ON TRUE), '{}')
            RETURNING "w"."priorities", "w"."ids" INTO v$prios, v$marks;
        END IF;
    END IF;
    v$count := coalesce(pg_catalog.cardinality(v$prios), 0);
    FOR v$segment IN 0 .. 2 * v$count LOOP
        EXIT WHEN v$left <= 0;
        IF v$segment % 2 = 1 THEN
            v$lowest_band := v$prios[(v$segment + 1) / 2];
            v$highest_band := v$lowest_band;
            v$from := v$marks[(v$segment + 1) / 2];
        ELSE
            -- Bigint arithmetic: a mark at the integer's end leaves an empty run beside it.
            v$lowest_wide := CASE WHEN v$segment = 2 * v$count THEN -2147483648 ELSE v$prios[v$segment / 2 + 1]::bigint + 1 END;
            v$highest_wide := CASE WHEN v$segment = 0 THEN 2147483647 ELSE v$prios[v$segment / 2]::bigint - 1 END;
            CONTINUE WHEN v$lowest_wide > v$highest_wide;
            v$lowest_band := v$lowest_wide;
            v$highest_band := v$highest_wide;
            v$from := 0;
        END IF;
        FOR v$job IN
            WITH "claimed" AS
            (
                UPDATE "qgen"."ranked" AS "job"
                SET "lease_token" = v$token,
                    "lease_owner" = "ranked_dequeue"."owner",
                    "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "ranked_dequeue"."lease_seconds"),
                    "attempts" = "job"."attempts" + 1
                -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
                -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
                WHERE "job"."id" = ANY (ARRAY
                (
                    SELECT "next"."id"
                    FROM "qgen"."ranked" AS "next"
                    WHERE "next"."lease_token" IS NULL AND "next"."processed" = FALSE AND "next"."available_at" <= now() AND "next"."enqueued_at" + pg_catalog.make_interval(secs => 7200) > now()
                      -- A run of priorities as a range on the claim index's priority key, inclusive at both ends:
                      -- the index seeks (priority, from) where the run is one priority (its mark).
                      AND "next"."priority" >= v$lowest_band
                      AND "next"."priority" <= v$highest_band
                      -- Below the priority's mark every row is claimed or gone: start the index range there.
                      AND "next"."id" >= v$from
                    ORDER BY "next"."priority" DESC, "next"."id"
                    LIMIT v$left
                    FOR UPDATE SKIP LOCKED
                ))
                RETURNING "job"."id", "job"."a", "job"."priority", "job"."attempts", "job"."lease_token", "job"."lease_expires_at"
            )
            SELECT "c"."id", "c"."a", "c"."priority", "c"."attempts", "c"."lease_token", "c"."lease_expires_at"
            FROM "claimed" AS "c"
            ORDER BY "c"."priority" DESC, "c"."id"
        LOOP
            IF v$job."priority" IS DISTINCT FROM v$bands[v$claimed] THEN
                v$claimed := v$claimed + 1;
                v$bands[v$claimed] := v$job."priority";
            END IF;
            v$tops[v$claimed] := v$job."id";
            v$left := v$left - 1;
            RETURN NEXT v$job;
        END LOOP;
    END LOOP;
    FOR v$k IN 1 .. v$claimed LOOP
        v$band := v$bands[v$k];
        v$top := v$tops[v$k];
        v$cur := coalesce(v$marks[pg_catalog.array_position(v$prios, v$band)], 0);
        IF v$top - v$cur >= 150 AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted')
           AND NOT EXISTS (SELECT 1 FROM "qgen"."ranked" AS "job"
                           WHERE "job"."id" = v$cur AND "job"."priority" = v$band AND "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."enqueued_at" + pg_catalog.make_interval(secs => 7200) > pg_catalog.clock_timestamp()) THEN
            SELECT coalesce("w"."ids"[pg_catalog.array_position("w"."priorities", v$band)], 0) INTO v$cur
            FROM "qgen"."ranked_marks" AS "w" FOR UPDATE SKIP LOCKED;
            IF FOUND AND v$cur < v$top - 50 THEN
                SELECT min("job"."id") INTO v$lowest
                FROM "qgen"."ranked" AS "job"
                WHERE "job"."priority" = v$band AND "job"."id" >= v$cur AND "job"."id" < v$top - 50
                  AND "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."enqueued_at" + pg_catalog.make_interval(secs => 7200) > pg_catalog.clock_timestamp();
                UPDATE "qgen"."ranked_marks" AS "w"
                SET ("priorities", "ids") =
                    (SELECT pg_catalog.array_agg("x"."priority" ORDER BY "x"."priority" DESC),
                            pg_catalog.array_agg("x"."id" ORDER BY "x"."priority" DESC)
                     FROM (SELECT "u"."priority",
                                  CASE WHEN "u"."priority" = v$band
                                       THEN greatest("u"."id", coalesce(v$lowest, v$top - 50)) ELSE "u"."id" END
                           FROM ROWS FROM (pg_catalog.unnest("w"."priorities"), pg_catalog.unnest("w"."ids")) AS "u"("priority", "id")
                           UNION ALL
                           SELECT v$band, coalesce(v$lowest, v$top - 50)
                           WHERE pg_catalog.array_position("w"."priorities", v$band) IS NULL) AS "x"("priority", "id"));
            END IF;
        END IF;
    END LOOP;
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_dequeue" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_dequeue" FROM PUBLIC;

-- qgen 0.1.0: complete qgen.ranked_complete, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: marks them processed. With id, only that job; without, every job of
-- the lease. The token is the fence: a worker whose lease was released or taken over gets QG001.
CREATE OR REPLACE FUNCTION "qgen"."ranked_complete"
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
    v$completed integer;
BEGIN
    IF "ranked_complete"."id" IS NULL THEN
        UPDATE "qgen"."ranked" AS "job"
        SET "processed" = TRUE, "processed_at" = pg_catalog.clock_timestamp(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
        WHERE "job"."lease_token" = "ranked_complete"."lease_token";
        GET DIAGNOSTICS v$completed = ROW_COUNT;
    ELSE
        UPDATE "qgen"."ranked" AS "job"
        SET "processed" = TRUE, "processed_at" = pg_catalog.clock_timestamp(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
        WHERE "job"."id" = "ranked_complete"."id" AND "job"."lease_token" = "ranked_complete"."lease_token";
        GET DIAGNOSTICS v$completed = ROW_COUNT;
    END IF;
    IF v$completed = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgen.ranked: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$completed;
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_complete" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_complete" FROM PUBLIC;

-- qgen 0.1.0: fail qgen.ranked_fail, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 5) and retry it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR REPLACE FUNCTION "qgen"."ranked_fail"
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
    -- The error text is cut to its column's 4000 characters here, on purpose and never
    -- refused: a worker reports an exception whose text it does not control (a stack trace runs to
    -- many thousands), and a failure that could not be recorded would leave the job leased until
    -- its lease ran out, to be retried with no error kept (docs/api.md, "Values past a column's
    -- limit"). PostgreSQL ignores the parameter's declared length; the insert into varchar(4000)
    -- would refuse a longer text (22001) and cut trailing spaces past it.
    v$error text := pg_catalog.left("ranked_fail"."error", 4000);
    v$gone integer;
    v$band integer;
BEGIN
    -- NULL is not "no retry": refused, so a caller passing an unset flag does not dead-letter the job.
    IF "ranked_fail"."retry" IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: retry NULL is out of range; accepted: true or false';
    END IF;
    IF "ranked_fail"."retry" THEN
        UPDATE "qgen"."ranked" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL,
            "last_error" = v$error,
            "available_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => least(3600::float8, 10 * power(2::float8, least("job"."attempts" - 1, 60))))
        WHERE "job"."id" = "ranked_fail"."id" AND "job"."lease_token" = "ranked_fail"."lease_token"
          AND "job"."attempts" < 5
        RETURNING "job"."priority" INTO v$band;
        IF FOUND THEN
            -- The job is claimable again: its priority's mark must not stay above it.
            IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
                FOR v$try IN 1 .. 5 LOOP
                    PERFORM 1 FROM "qgen"."ranked_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$band)] > "ranked_fail"."id" FOR UPDATE SKIP LOCKED;
                    IF FOUND THEN
                        UPDATE "qgen"."ranked_marks" AS "w" SET "ids"[pg_catalog.array_position("w"."priorities", v$band)] = "ranked_fail"."id"
                        WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$band)] > "ranked_fail"."id";
                        EXIT;
                    END IF;
                    -- Not taken: either nothing to lower, or another transaction holds the row.
                    EXIT WHEN NOT EXISTS (SELECT 1 FROM "qgen"."ranked_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$band)] > "ranked_fail"."id");
                    PERFORM pg_catalog.pg_sleep(0.01);
                END LOOP;
            END IF;
            RETURN 0;
        END IF;
    END IF;
    -- No retry (asked, or attempts used up), or the token does not hold the job: then nothing matches.
    WITH "gone" AS
    (
        DELETE FROM "qgen"."ranked" AS "job"
        WHERE "job"."id" = "ranked_fail"."id" AND "job"."lease_token" = "ranked_fail"."lease_token"
        RETURNING "job".*
    )
    INSERT INTO "qgen"."ranked_dead" ("id", "a", "priority", "enqueued_at", "attempts", "last_error", "dead_at")
    SELECT "g"."id", "g"."a", "g"."priority", "g"."enqueued_at", "g"."attempts", v$error, pg_catalog.clock_timestamp()
    FROM "gone" AS "g";
    GET DIAGNOSTICS v$gone = ROW_COUNT;
    IF v$gone = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgen.ranked: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN 1;
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_fail" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_fail" FROM PUBLIC;

-- qgen 0.1.0: extend_lease qgen.ranked_extend_lease, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire lease_seconds from now.
CREATE OR REPLACE FUNCTION "qgen"."ranked_extend_lease"
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
    v$extended integer;
BEGIN
    IF "ranked_extend_lease"."lease_seconds" IS NULL OR "ranked_extend_lease"."lease_seconds" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: lease_seconds ' || coalesce("ranked_extend_lease"."lease_seconds"::text, 'NULL') || ' is out of range; accepted: 1 or more seconds';
    END IF;
    IF "ranked_extend_lease"."id" IS NULL THEN
        UPDATE "qgen"."ranked" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "ranked_extend_lease"."lease_seconds")
        WHERE "job"."lease_token" = "ranked_extend_lease"."lease_token";
    ELSE
        UPDATE "qgen"."ranked" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "ranked_extend_lease"."lease_seconds")
        WHERE "job"."id" = "ranked_extend_lease"."id" AND "job"."lease_token" = "ranked_extend_lease"."lease_token";
    END IF;
    GET DIAGNOSTICS v$extended = ROW_COUNT;
    IF v$extended = 0 THEN
        IF "ranked_extend_lease"."id" IS NOT NULL AND EXISTS (SELECT 1 FROM "qgen"."ranked_dead" AS "d"
                                                          WHERE "d"."id" = "ranked_extend_lease"."id" AND "d"."last_error" = 'cancelled') THEN
            RAISE EXCEPTION USING ERRCODE = 'QG006',
                MESSAGE = 'qgen: job cancelled on qgen.ranked: cancel took it out of the queue while its lease ran; stop working on it (its complete and fail are refused)';
        END IF;
RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgen.ranked: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$extended;
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_extend_lease" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_extend_lease" FROM PUBLIC;

-- qgen 0.1.0: reap qgen.ranked_reap, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- batch_size per call: those with attempts left become claimable again, with their old token
-- cleared so the late worker is fenced off; the rest are dead-lettered.
-- Then jobs past expire_after (7200 s from enqueue) that no live lease holds are dead-lettered
-- (counted in dead_lettered), within the same batch_size.
CREATE OR REPLACE FUNCTION "qgen"."ranked_reap"
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
    v$lowest bigint;
    -- The clock less expire_after, read once: compared with a variable, enqueued_at is sought in the
    -- expire index; compared with clock_timestamp() (volatile) it is no index condition, and the
    -- scan walked every queued job in enqueued_at order to find the expired ones.
    v$expired_before timestamptz;
    -- Each priority that had jobs released, and its lowest released id.
    v$bands integer[];
    v$lows bigint[];
BEGIN
    IF "ranked_reap"."batch_size" IS NULL OR "ranked_reap"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for qgen.ranked_reap; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("ranked_reap"."batch_size"::text, 'NULL'));
    END IF;
    WITH "expired" AS
    (
        -- SKIP LOCKED: a job being completed right now is locked by its worker; leave it to finish.
        SELECT "job"."id", "job"."attempts"
        FROM "qgen"."ranked" AS "job"
        WHERE "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < pg_catalog.clock_timestamp()
        LIMIT "ranked_reap"."batch_size"
        FOR UPDATE SKIP LOCKED
    ),
    "freed" AS
    (
        UPDATE "qgen"."ranked" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
            "last_error" = 'qgen: lease expired before the job was completed'
        FROM "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" < 5 AND "job"."enqueued_at" + pg_catalog.make_interval(secs => 7200) > pg_catalog.clock_timestamp()
        RETURNING "job"."id", "job"."priority"
    ),
    "gone" AS
    (
        DELETE FROM "qgen"."ranked" AS "job"
        USING "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" >= 5
        RETURNING "job".*
    ),
    "buried" AS
    (
        INSERT INTO "qgen"."ranked_dead" ("id", "a", "priority", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."a", "g"."priority", "g"."enqueued_at", "g"."attempts", 'qgen: lease expired on the last attempt', pg_catalog.clock_timestamp()
        FROM "gone" AS "g"
    )
    SELECT (SELECT count(*) FROM "freed"), (SELECT count(*) FROM "gone"), (SELECT min("f"."id") FROM "freed" AS "f"),
           (SELECT pg_catalog.array_agg("b"."priority" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b"),
           (SELECT pg_catalog.array_agg("b"."id" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b")
    INTO "released", "dead_lettered", v$lowest, v$bands, v$lows;
    -- expire_after: jobs enqueued 7200 s ago or longer that no live lease holds are never handed
    -- out (claims pass them, and the release above leaves them); what is left of the batch moves them to the dead letters, last_error 'expired',
    -- oldest first, through the expire index. A leased job runs to the end of its lease.
    v$expired_before := pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 7200);
    WITH "old" AS
    (
        SELECT "job"."id"
        FROM "qgen"."ranked" AS "job"
        WHERE "job"."enqueued_at" <= v$expired_before
          AND ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp()) AND "job"."processed" = FALSE
        ORDER BY "job"."enqueued_at"
        LIMIT greatest("ranked_reap"."batch_size" - "released" - "dead_lettered", 0)
        FOR UPDATE SKIP LOCKED
    ),
    "gone" AS
    (
        DELETE FROM "qgen"."ranked" AS "job"
        USING "old" AS "o"
        WHERE "job"."id" = "o"."id"
        RETURNING "job".*
    ),
    "buried" AS
    (
        INSERT INTO "qgen"."ranked_dead" ("id", "a", "priority", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."a", "g"."priority", "g"."enqueued_at", "g"."attempts", 'expired', pg_catalog.clock_timestamp()
        FROM "gone" AS "g"
    )
    SELECT "dead_lettered" + count(*) INTO "dead_lettered" FROM "gone";
    -- Released jobs are claimable again: no priority's mark may stay above them.
    FOR v$k IN 1 .. coalesce(pg_catalog.cardinality(v$bands), 0) LOOP
        IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
            FOR v$try IN 1 .. 5 LOOP
                PERFORM 1 FROM "qgen"."ranked_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k] FOR UPDATE SKIP LOCKED;
                IF FOUND THEN
                    UPDATE "qgen"."ranked_marks" AS "w" SET "ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] = v$lows[v$k]
                    WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k];
                    EXIT;
                END IF;
                -- Not taken: either nothing to lower, or another transaction holds the row.
                EXIT WHEN NOT EXISTS (SELECT 1 FROM "qgen"."ranked_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k]);
                PERFORM pg_catalog.pg_sleep(0.01);
            END LOOP;
        END IF;
    END LOOP;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_reap" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_reap" FROM PUBLIC;

-- qgen 0.1.0: metrics qgen.ranked_metrics, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "qgen"."ranked_metrics"()
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
        count(*) FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."available_at" <= now()),
        count(*) FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."available_at" > now()),
        count(*) FILTER (WHERE "job"."lease_token" IS NOT NULL),
        count(*) FILTER (WHERE "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < now()),
        count(*) FILTER (WHERE "job"."processed"),
        (SELECT count(*) FROM "qgen"."ranked_dead"),
        0::bigint,
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."available_at" <= now())))::bigint, 0),
        NULL::bigint,
        min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE),
        count(*) FILTER (WHERE "job"."processed" AND "job"."processed_at" >= now() - interval '1 minute'),
        NULL::bigint,
        NOT EXISTS (SELECT 1 FROM "qgen"."ranked_control" AS "c" WHERE NOT "c"."paused")
    FROM "qgen"."ranked" AS "job";
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_metrics" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek qgen.ranked_peek, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "qgen"."ranked_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "qgen"."ranked_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "ranked_peek"."limit" IS NULL OR "ranked_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for qgen.ranked_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "qgen"."ranked_pending" AS "p"
    ORDER BY "p"."priority" DESC, "p"."id"
    LIMIT "ranked_peek"."limit";
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_peek" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_peek" FROM PUBLIC;

-- qgen 0.1.0: purge_batch qgen.ranked_purge_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds: at most batch_size rows (1000 by default, refused above 4000) over all
-- those tables together, in the caller's transaction. purge (a procedure) calls it in a loop and
-- commits after each batch; a client can call it in a loop of its own, one transaction per call.
CREATE OR REPLACE FUNCTION "qgen"."ranked_purge_batch"
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
    v$left integer := "ranked_purge_batch"."batch_size";
    v$deleted integer;
BEGIN
    IF "ranked_purge_batch"."batch_size" IS NULL OR "ranked_purge_batch"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("ranked_purge_batch"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF "ranked_purge_batch"."older_than_seconds" IS NULL OR "ranked_purge_batch"."older_than_seconds" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: older_than_seconds ' || coalesce("ranked_purge_batch"."older_than_seconds"::text, 'NULL') || ' is out of range; accepted: 0 or more';
    END IF;
    v$cutoff := now() - pg_catalog.make_interval(secs => "ranked_purge_batch"."older_than_seconds");
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    IF v$left > 0 THEN
        DELETE FROM "qgen"."ranked" AS "x"
        WHERE "x"."id" = ANY (ARRAY(
            SELECT "y"."id" FROM "qgen"."ranked" AS "y"
            WHERE "y"."processed" AND "y"."processed_at" < v$cutoff
            LIMIT v$left
            FOR UPDATE SKIP LOCKED));
        GET DIAGNOSTICS v$deleted = ROW_COUNT;
        "processed" := v$deleted;
        v$left := v$left - v$deleted;
    END IF;
    IF v$left > 0 THEN
        DELETE FROM "qgen"."ranked_dead" AS "x"
        WHERE "x"."entry_id" = ANY (ARRAY(
            SELECT "y"."entry_id" FROM "qgen"."ranked_dead" AS "y"
            WHERE "y"."dead_at" < v$cutoff
            LIMIT v$left
            FOR UPDATE SKIP LOCKED));
        GET DIAGNOSTICS v$deleted = ROW_COUNT;
        "dead" := v$deleted;
        v$left := v$left - v$deleted;
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_purge_batch" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_purge_batch" FROM PUBLIC;

-- qgen 0.1.0: purge qgen.ranked_purge, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds, one batch of at most batch_size rows at a time, and COMMITs after each batch:
-- no transaction holds more than one batch, and vacuum can clean up behind it while it runs.
-- Rows that finish while it runs (a second after it began) are left for the next purge, so it ends.
-- A procedure that commits cannot be SECURITY DEFINER nor have a SET clause: it runs with its
-- caller's rights and reaches the tables only through ranked_purge_batch (EXECUTE on that is all it
-- needs); every name in it is schema-qualified. CALL it outside a transaction block (inside one,
-- PostgreSQL refuses its COMMIT: invalid transaction termination, 2D000); there call
-- ranked_purge_batch instead.
CREATE OR REPLACE PROCEDURE "qgen"."ranked_purge"
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
    "ranked_purge"."archived" := 0;
    "ranked_purge"."processed" := 0;
    "ranked_purge"."dead" := 0;
    LOOP
        -- Each batch is a new transaction with a later now(): widen the age by the whole seconds
        -- spent so far, so the cutoff stays within a second of where it was when the call began.
        SELECT * INTO v$batch
        FROM "qgen"."ranked_purge_batch"(
            "ranked_purge"."older_than_seconds" + pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - v$started))::integer,
            "ranked_purge"."batch_size");
        "ranked_purge"."archived" := "ranked_purge"."archived" + v$batch."archived";
        "ranked_purge"."processed" := "ranked_purge"."processed" + v$batch."processed";
        "ranked_purge"."dead" := "ranked_purge"."dead" + v$batch."dead";
        COMMIT;
        -- A short batch: nothing older is left (or what is left is locked: the next purge takes it).
        EXIT WHEN v$batch."archived" + v$batch."processed" + v$batch."dead" < "ranked_purge"."batch_size";
    END LOOP;
END
$qgen$;
ALTER PROCEDURE "qgen"."ranked_purge" OWNER TO "qgen_owner";
REVOKE ALL ON PROCEDURE "qgen"."ranked_purge" FROM PUBLIC;

-- qgen 0.1.0: maintain qgen.ranked_maintain, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- batch_size finished jobs older than the retention (604800 s), releases up to batch_size expired
-- leases (reap), in that order, in one transaction. Only one runs at a
-- time per queue: a caller that finds another one running returns at once with skipped = true.
-- more = true when a step filled its batch: call again (qgen maintain does) to do the rest.
-- Granted to the consumer role, so any worker can run it (run_worker does, every few seconds).
CREATE OR REPLACE FUNCTION "qgen"."ranked_maintain"
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
    IF "ranked_maintain"."batch_size" IS NULL OR "ranked_maintain"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("ranked_maintain"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    "released" := 0;
    "dead_lettered" := 0;
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    -- One at a time (see the macro maintain_lock). The lock is the transaction's: it goes with the
    -- commit or the rollback, whatever happens.
    BEGIN
        LOCK TABLE "qgen"."ranked" IN SHARE UPDATE EXCLUSIVE MODE NOWAIT;
    EXCEPTION WHEN lock_not_available THEN
        "skipped" := TRUE;
        "more" := FALSE;
        RETURN NEXT;
        RETURN;
    END;
    "skipped" := FALSE;
    -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
    SELECT "p"."archived", "p"."processed", "p"."dead" INTO "archived", "processed", "dead"
    FROM "qgen"."ranked_purge_batch"(604800, "ranked_maintain"."batch_size") AS "p";
    SELECT "r"."released", "r"."dead_lettered" INTO "released", "dead_lettered"
    -- reap takes at most the queue's max_batch_size (1000).
    FROM "qgen"."ranked_reap"(least("ranked_maintain"."batch_size", 1000)) AS "r";
    "more" := "archived" + "processed" + "dead" >= "ranked_maintain"."batch_size"
              OR "released" + "dead_lettered" >= least("ranked_maintain"."batch_size", 1000);
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_maintain" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_maintain" FROM PUBLIC;

-- qgen 0.1.0: redrive qgen.ranked_redrive, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Puts dead-lettered jobs back into the queue as new jobs: a new id, attempts 0, available now,
-- their last error kept. Either the dead jobs with these ids, or (redrive_all) every dead job
-- after after_id, in the order they died; at most batch_size per call: last_id is the last
-- dead-letter entry looked at (its entry_id: a job id can repeat there), to pass as after_id to
-- the next call. Each job is inserted and removed from the dead-letter
-- table in this one transaction, so it is redriven once: a second call finds nothing, and a
-- concurrent one waits and then finds it gone.
CREATE OR REPLACE FUNCTION "qgen"."ranked_redrive"
(
    "ids" bigint[] DEFAULT NULL,
    "redrive_all" boolean DEFAULT FALSE,
    "after_id" bigint DEFAULT 0,
    "batch_size" integer DEFAULT 1000
)
RETURNS TABLE ("redriven" integer, "skipped_duplicates" integer, "last_id" bigint)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$dead record;
BEGIN
    IF "ranked_redrive"."batch_size" IS NULL OR "ranked_redrive"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("ranked_redrive"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF ("ranked_redrive"."ids" IS NOT NULL) = coalesce("ranked_redrive"."redrive_all", FALSE) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: redrive takes either ids or redrive_all => true, not both and not neither';
    END IF;
    "redriven" := 0;
    "skipped_duplicates" := 0;
    FOR v$dead IN
        SELECT "x".*
        FROM "qgen"."ranked_dead" AS "x"
        WHERE ("ranked_redrive"."redrive_all" AND "x"."entry_id" > coalesce("ranked_redrive"."after_id", 0))
           OR "x"."id" = ANY ("ranked_redrive"."ids")
        ORDER BY "x"."entry_id"
        LIMIT "ranked_redrive"."batch_size"
        FOR UPDATE OF "x"
    LOOP
        "last_id" := v$dead."entry_id";
        INSERT INTO "qgen"."ranked" ("a", "priority", "attempts", "available_at", "last_error")
        VALUES (v$dead."a", v$dead."priority", 0, now(), v$dead."last_error");
        IF FOUND THEN
            DELETE FROM "qgen"."ranked_dead" AS "x" WHERE "x"."entry_id" = v$dead."entry_id";
            "redriven" := "redriven" + 1;
        ELSE
            "skipped_duplicates" := "skipped_duplicates" + 1;
        END IF;
    END LOOP;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_redrive" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_redrive" FROM PUBLIC;

-- qgen 0.1.0: dead_letters qgen.ranked_dead_letters, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first (the order they arrived in: the key backwards, which stops after
-- "limit" rows), with the error each died of: at most "limit" rows (1 to 1000). Reads only: a plain snapshot read, which takes no row lock, never waits on
-- one and makes no fail, reap, redrive or purge wait. "limit" is a reserved word: by name it is
-- passed as "limit" => n.
CREATE OR REPLACE FUNCTION "qgen"."ranked_dead_letters"
(
    "limit" integer DEFAULT 100
)
RETURNS TABLE
(
    "id" bigint,
    "a" integer,
    "priority" integer,
    "enqueued_at" timestamptz,
    "attempts" integer,
    "dead_at" timestamptz,
    "last_error" text
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "ranked_dead_letters"."limit" IS NULL OR "ranked_dead_letters"."limit" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit ' || coalesce("ranked_dead_letters"."limit"::text, 'NULL') || ' is out of range for qgen.ranked_dead_letters; accepted: 1 to 1000 rows';
    END IF;
    RETURN QUERY
    SELECT "x"."id", "x"."a", "x"."priority", "x"."enqueued_at", "x"."attempts", "x"."dead_at",
        "x"."last_error"::text
    FROM "qgen"."ranked_dead" AS "x"
    ORDER BY "x"."entry_id" DESC
    LIMIT "ranked_dead_letters"."limit";
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_dead_letters" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_dead_letters" FROM PUBLIC;

-- qgen 0.1.0: job qgen.ranked_job, rendered for PostgreSQL from spec.yaml.
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
CREATE OR REPLACE FUNCTION "qgen"."ranked_job"
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
    "lease_owner" text,
    "lease_expires_at" timestamptz,
    "last_error" text,
    "finished_at" timestamptz
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "ranked_job"."job_id" IS NULL OR "ranked_job"."job_id" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: job_id ' || coalesce("ranked_job"."job_id"::text, 'NULL') || ' is out of range for qgen.ranked_job; accepted: a job id, 1 or more';
    END IF;
    RETURN QUERY
    SELECT "j"."id", CASE WHEN "j"."processed" THEN 'processed' WHEN "j"."lease_token" IS NOT NULL THEN 'in_flight' WHEN "j"."available_at" > now() THEN 'scheduled' ELSE 'queued' END,
        "j"."enqueued_at", "j"."available_at",
        "j"."attempts", "j"."lease_owner"::text, "j"."lease_expires_at",
        "j"."last_error"::text, "j"."processed_at"
    FROM "qgen"."ranked" AS "j"
    WHERE "j"."id" = "ranked_job"."job_id";
    IF FOUND THEN
        RETURN;
    END IF;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is restarted.
    RETURN QUERY
    SELECT "x"."id", 'dead'::text, "x"."enqueued_at", NULL::timestamptz, "x"."attempts", NULL::text, NULL::timestamptz,
        "x"."last_error"::text, "x"."dead_at"
    FROM "qgen"."ranked_dead" AS "x"
    WHERE "x"."id" = "ranked_job"."job_id"
    ORDER BY "x"."entry_id" DESC
    LIMIT 1;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "ranked_job"."job_id", 'not_found'::text, NULL::timestamptz, NULL::timestamptz, NULL::integer, NULL::text, NULL::timestamptz,
        NULL::text, NULL::timestamptz;
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_job" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_job" FROM PUBLIC;

-- qgen 0.1.0: release qgen.ranked_release, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With id, that
-- job; without, every job of the lease. The token is the fence: a
-- job whose lease was released, taken over or finished gets QG001. last_error is kept (no failure happened).
CREATE OR REPLACE FUNCTION "qgen"."ranked_release"
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
    v$released integer;
    v$lowest bigint;
    -- Each priority that had jobs released, and its lowest released id.
    v$bands integer[];
    v$lows bigint[];
BEGIN
    IF "ranked_release"."id" IS NOT NULL THEN
        WITH "freed" AS
        (
            UPDATE "qgen"."ranked" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."id" = "ranked_release"."id" AND "job"."lease_token" = "ranked_release"."lease_token"
            RETURNING "job"."id", "job"."priority"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f"),
               (SELECT pg_catalog.array_agg("b"."priority" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b"),
               (SELECT pg_catalog.array_agg("b"."id" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b")
        INTO v$released, v$lowest, v$bands, v$lows;
    ELSE
        WITH "freed" AS
        (
            UPDATE "qgen"."ranked" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."lease_token" = "ranked_release"."lease_token"
            RETURNING "job"."id", "job"."priority"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f"),
               (SELECT pg_catalog.array_agg("b"."priority" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b"),
               (SELECT pg_catalog.array_agg("b"."id" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b")
        INTO v$released, v$lowest, v$bands, v$lows;
    END IF;
    IF v$released = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgen.ranked: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    -- Released jobs are claimable again: no priority's mark may stay above them.
    FOR v$k IN 1 .. coalesce(pg_catalog.cardinality(v$bands), 0) LOOP
        IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
            FOR v$try IN 1 .. 5 LOOP
                PERFORM 1 FROM "qgen"."ranked_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k] FOR UPDATE SKIP LOCKED;
                IF FOUND THEN
                    UPDATE "qgen"."ranked_marks" AS "w" SET "ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] = v$lows[v$k]
                    WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k];
                    EXIT;
                END IF;
                -- Not taken: either nothing to lower, or another transaction holds the row.
                EXIT WHEN NOT EXISTS (SELECT 1 FROM "qgen"."ranked_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k]);
                PERFORM pg_catalog.pg_sleep(0.01);
            END LOOP;
        END IF;
    END LOOP;
    RETURN v$released;
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_release" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_release" FROM PUBLIC;

-- qgen 0.1.0: pause qgen.ranked_pause, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job. Enqueues go on, and leases already granted run to their end (complete, fail,
-- extend_lease, release and reap work as before). Returns 1 when this call paused the queue, 0
-- when it was paused already.
CREATE OR REPLACE FUNCTION "qgen"."ranked_pause"()
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
    SELECT "c"."paused" INTO v$was FROM "qgen"."ranked_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "qgen"."ranked_control" ("paused", "changed_at", "changed_by")
        VALUES (TRUE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "qgen"."ranked_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = TRUE THEN
        RETURN 0;
    END IF;
    UPDATE "qgen"."ranked_control" AS "c"
    SET "paused" = TRUE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgen.ranked: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_pause" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_pause" FROM PUBLIC;

-- qgen 0.1.0: resume qgen.ranked_resume, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again. Returns 1 when this call
-- resumed the queue, 0 when it was not paused.
CREATE OR REPLACE FUNCTION "qgen"."ranked_resume"()
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
    SELECT "c"."paused" INTO v$was FROM "qgen"."ranked_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "qgen"."ranked_control" ("paused", "changed_at", "changed_by")
        VALUES (FALSE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "qgen"."ranked_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = FALSE THEN
        RETURN 0;
    END IF;
    UPDATE "qgen"."ranked_control" AS "c"
    SET "paused" = FALSE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgen.ranked: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_resume" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_resume" FROM PUBLIC;

-- qgen 0.1.0: cancel qgen.ranked_cancel, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (ids; at most 4000): each job still in the queue leaves it at once, in
-- this one statement, into the dead-letter table with last_error 'cancelled', and never runs.
-- One row per distinct id, in id order, "outcome":
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   cancelled_in_flight: it held a lease: its worker's complete, fail and extend_lease get QG001 (the
--     token fences them off, so nothing it does commits with the job); a row a completion holds at
--     that moment is waited for (a short lock), then cancelled or found finished;
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order, as every other statement that locks several jobs does, so cancel
-- deadlocks with none of them; a row a completion or a claim holds is waited for, at most 5 s (then
-- refused, QG002: nothing done). At REPEATABLE READ or SERIALIZABLE it is refused (QG002): it would
-- answer from the transaction's snapshot, which does not show a job enqueued since, and say
-- not_queued of a job that then runs.
CREATE OR REPLACE FUNCTION "qgen"."ranked_cancel"
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
    IF "ranked_cancel"."ids" IS NULL OR EXISTS (SELECT 1 FROM pg_catalog.unnest("ranked_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NULL OR "a"."id" < 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: ids must be an array of job ids (whole numbers from 1)';
    END IF;
    IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgen.ranked: cancel at REPEATABLE READ or SERIALIZABLE would answer from the transaction''s snapshot, which does not show a job enqueued since (it would say not_queued of a job that then runs); run it at READ COMMITTED';
    END IF;
    IF (SELECT count(DISTINCT "a"."id") FROM pg_catalog.unnest("ranked_cancel"."ids") AS "a" ("id")) > 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: ids lists more than 4000 jobs; accepted: 1 to 4000 per call';
    END IF;
    RETURN QUERY
    WITH "asked" AS
    (
        SELECT DISTINCT "a"."id" FROM pg_catalog.unnest("ranked_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NOT NULL
    ),
    "found" AS
    (
        -- The rows by their id, locked (waiting for a completion's short lock).
        SELECT "job"."id"
        FROM "qgen"."ranked" AS "job"
        WHERE "job"."id" IN (SELECT "a"."id" FROM "asked" AS "a") AND NOT "job"."processed"
        ORDER BY "job"."id"
        FOR UPDATE
    ),
    "gone" AS
    (
        DELETE FROM "qgen"."ranked" AS "job"
        USING "found" AS "f"
        WHERE "job"."id" = "f"."id"
        RETURNING "job".*
    ),
    "dead" AS
    (
        INSERT INTO "qgen"."ranked_dead" ("id", "a", "priority", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."a", "g"."priority", "g"."enqueued_at", "g"."attempts", 'cancelled', pg_catalog.clock_timestamp()
        FROM "gone" AS "g"
    )
    SELECT "a"."id",
        CASE
             WHEN "g"."lease_token" IS NOT NULL THEN 'cancelled_in_flight'
             WHEN "g"."id" IS NOT NULL THEN 'cancelled'
             ELSE 'not_queued' END
    FROM "asked" AS "a"
    -- What the DELETE took out: the outcome is what happened, not what was found.
    LEFT JOIN "gone" AS "g" ON "g"."id" = "a"."id"
    ORDER BY "a"."id";
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgen.ranked: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again';
END
$qgen$;
ALTER FUNCTION "qgen"."ranked_cancel" OWNER TO "qgen_owner";
REVOKE ALL ON FUNCTION "qgen"."ranked_cancel" FROM PUBLIC;

-- qgen 0.1.0: grants to roles qgen_producer, qgen_consumer, qgen_admin, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "qgen" TO "qgen_producer", "qgen_consumer", "qgen_admin";
GRANT EXECUTE ON FUNCTION "qgen"."fresh_enqueue", "qgen"."fresh_enqueue_batch" TO "qgen_producer";
GRANT USAGE ON TYPE "qgen"."fresh_batch" TO "qgen_producer";
GRANT EXECUTE ON FUNCTION "qgen"."fresh_dequeue", "qgen"."fresh_complete", "qgen"."fresh_fail", "qgen"."fresh_extend_lease" TO "qgen_consumer";
GRANT USAGE ON TYPE "qgen"."fresh_dequeue_row" TO "qgen_consumer";
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON FUNCTION "qgen"."fresh_watermark_correct" TO "qgen_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "qgen"."fresh_maintain" TO "qgen_consumer";
GRANT SELECT ON "qgen"."fresh_pending" TO "qgen_admin";
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON FUNCTION "qgen"."fresh_release" TO "qgen_consumer";
GRANT EXECUTE ON FUNCTION "qgen"."ranked_enqueue", "qgen"."ranked_enqueue_batch" TO "qgen_producer";
GRANT USAGE ON TYPE "qgen"."ranked_batch" TO "qgen_producer";
GRANT EXECUTE ON FUNCTION "qgen"."ranked_dequeue", "qgen"."ranked_complete", "qgen"."ranked_fail", "qgen"."ranked_extend_lease" TO "qgen_consumer";
GRANT USAGE ON TYPE "qgen"."ranked_dequeue_row" TO "qgen_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "qgen"."ranked_maintain" TO "qgen_consumer";
GRANT SELECT ON "qgen"."ranked_pending" TO "qgen_admin";
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON FUNCTION "qgen"."ranked_release" TO "qgen_consumer";
-- Admins run every function (and the worker procedure) qgen created, and nothing else: each by
-- name, never ALL ROUTINES IN SCHEMA, which in a shared schema would reach the application's too.
GRANT EXECUTE ON ROUTINE "qgen"."fresh_enqueue" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_enqueue_batch" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_watermark_move" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_watermark_correct" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_dequeue" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_complete" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_fail" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_extend_lease" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_reap" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_metrics" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_peek" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_purge_batch" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_purge" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_maintain" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_redrive" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_dead_letters" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_job" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_release" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_pause" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_resume" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."fresh_cancel" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_enqueue" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_enqueue_batch" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_dequeue" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_complete" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_fail" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_extend_lease" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_reap" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_metrics" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_peek" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_purge_batch" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_purge" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_maintain" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_redrive" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_dead_letters" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_job" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_release" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_pause" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_resume" TO "qgen_admin";
GRANT EXECUTE ON ROUTINE "qgen"."ranked_cancel" TO "qgen_admin";

-- qgen 0.1.0: verify qgen, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Install ends here, and fails loudly if any of qgen's functions or tables is owned by another role
-- than qgen_owner, or a SECURITY DEFINER function does not pin its search_path: run with its
-- owner's rights, it would resolve names through its caller's path.
DO $qgen$
DECLARE
    v$wrong text;
BEGIN
    SELECT pg_catalog.string_agg(x.what, ', ' ORDER BY x.what) INTO v$wrong
    FROM
    (
        SELECT p.oid::pg_catalog.regprocedure::text
               || CASE WHEN p.proowner <> '"qgen_owner"'::pg_catalog.regrole THEN ' (owned by ' || p.proowner::pg_catalog.regrole::text || ')'
                       ELSE ' (search_path not pinned)' END AS what
        FROM pg_catalog.pg_proc AS p
        JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
        WHERE n.nspname = 'qgen'
          AND p.proname IN ('fresh', 'fresh_claim_ix', 'fresh_expire_ix', 'fresh_watermark', 'fresh_dead', 'fresh_dead_ix', 'fresh_pending', 'fresh_batch', 'fresh_enqueue', 'fresh_enqueue_batch', 'fresh_watermark_move', 'fresh_watermark_correct', 'fresh_control', 'fresh_dequeue', 'fresh_complete', 'fresh_fail', 'fresh_extend_lease', 'fresh_reap', 'fresh_metrics', 'fresh_peek', 'fresh_purge_batch', 'fresh_purge', 'fresh_maintain', 'fresh_redrive', 'fresh_dead_letters', 'fresh_job', 'fresh_release', 'fresh_pause', 'fresh_resume', 'fresh_cancel', 'ranked', 'ranked_claim_ix', 'ranked_lease_ix', 'ranked_processed_ix', 'ranked_expire_ix', 'ranked_marks', 'ranked_dead', 'ranked_dead_ix', 'ranked_pending', 'ranked_batch', 'ranked_enqueue', 'ranked_enqueue_batch', 'ranked_control', 'ranked_dequeue', 'ranked_complete', 'ranked_fail', 'ranked_extend_lease', 'ranked_reap', 'ranked_metrics', 'ranked_peek', 'ranked_purge_batch', 'ranked_purge', 'ranked_maintain', 'ranked_redrive', 'ranked_dead_letters', 'ranked_job', 'ranked_release', 'ranked_pause', 'ranked_resume', 'ranked_cancel')
          AND (p.proowner <> '"qgen_owner"'::pg_catalog.regrole
               OR (p.prosecdef AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) AS c (setting)
                                               WHERE c.setting LIKE 'search\_path=%')))
        UNION ALL
        SELECT c.oid::pg_catalog.regclass::text || ' (owned by ' || c.relowner::pg_catalog.regrole::text || ')'
        FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'qgen'
          AND c.relkind IN ('r', 'v')
          AND c.relname IN ('fresh', 'fresh_claim_ix', 'fresh_expire_ix', 'fresh_watermark', 'fresh_dead', 'fresh_dead_ix', 'fresh_pending', 'fresh_batch', 'fresh_enqueue', 'fresh_enqueue_batch', 'fresh_watermark_move', 'fresh_watermark_correct', 'fresh_control', 'fresh_dequeue', 'fresh_complete', 'fresh_fail', 'fresh_extend_lease', 'fresh_reap', 'fresh_metrics', 'fresh_peek', 'fresh_purge_batch', 'fresh_purge', 'fresh_maintain', 'fresh_redrive', 'fresh_dead_letters', 'fresh_job', 'fresh_release', 'fresh_pause', 'fresh_resume', 'fresh_cancel', 'ranked', 'ranked_claim_ix', 'ranked_lease_ix', 'ranked_processed_ix', 'ranked_expire_ix', 'ranked_marks', 'ranked_dead', 'ranked_dead_ix', 'ranked_pending', 'ranked_batch', 'ranked_enqueue', 'ranked_enqueue_batch', 'ranked_control', 'ranked_dequeue', 'ranked_complete', 'ranked_fail', 'ranked_extend_lease', 'ranked_reap', 'ranked_metrics', 'ranked_peek', 'ranked_purge_batch', 'ranked_purge', 'ranked_maintain', 'ranked_redrive', 'ranked_dead_letters', 'ranked_job', 'ranked_release', 'ranked_pause', 'ranked_resume', 'ranked_cancel')
          AND c.relowner <> '"qgen_owner"'::pg_catalog.regrole
    ) AS x;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020', MESSAGE = 'qgen: wrongly installed in schema qgen: ' || v$wrong;
    END IF;
    -- And each function is what this install rendered, not an older version left in place (psql
    -- without ON_ERROR_STOP goes on after a CREATE OR REPLACE that failed): md5 of its body without
    -- whitespace (qgen.dialects.postgres.module_fingerprints) against the one rendered.
    SELECT pg_catalog.string_agg(r.name, ', ' ORDER BY r.name) INTO v$wrong
    FROM
    (
        VALUES
            ('fresh_cancel', '0db3b1cb063a01407fa4702edffc5d63'),
            ('fresh_complete', 'e2502e2a5f04cf664b7f7aa85bd41fef'),
            ('fresh_dead_letters', 'ec5529b28315ccdf59ac6e0afa1d0511'),
            ('fresh_dequeue', '137bfe39d91df6521e118e233f6cde79'),
            ('fresh_enqueue', '40709c4ef89d9688473c1cd3af955bc6'),
            ('fresh_enqueue_batch', '6701cba2395cd8ba25286b7bfe979735'),
            ('fresh_extend_lease', 'f7f0f9f6d5c62393f9c316c78cc297ea'),
            ('fresh_fail', 'a9f9aaf860e5910408c6405d79357a65'),
            ('fresh_job', '1543d18f376dd1e94e20ac9b98c1525d'),
            ('fresh_maintain', '218297390b2bea88aab895708fa5340f'),
            ('fresh_metrics', '36107c6dec1e7e2ec634f8758f0d7221'),
            ('fresh_pause', '5786735469dec696f999c2a3b7f060d6'),
            ('fresh_peek', '45284ac9a518840a2583b13d2b916d55'),
            ('fresh_purge', '64ecd58e4ab7a57cdd8db3ae5ace81cf'),
            ('fresh_purge_batch', '59d6db11fd20fcca44877305c2e9a08a'),
            ('fresh_reap', '59c2791f8ef9ffdf0873bcc2bd1e3106'),
            ('fresh_redrive', '3515356b23737ba866be0181035c2b27'),
            ('fresh_release', 'a11925ac0a0ea97f0a295a4dde937999'),
            ('fresh_resume', 'b181863eca6c8a212a6e8e52708730f5'),
            ('fresh_watermark_correct', 'ace608d7cbda09e8ce0076d56b5ecf66'),
            ('fresh_watermark_move', 'bf0bda44ade0508dca14163839553ba1'),
            ('ranked_cancel', '5b2f4cca918625d299604e59d713e0ee'),
            ('ranked_complete', 'b3724ff9f89e47a4563d5cb261a4f4e9'),
            ('ranked_dead_letters', 'b2cacc8488c586f51c1b288dcca94689'),
            ('ranked_dequeue', '6736cd9d3648f12b596ee309fc78913d'),
            ('ranked_enqueue', 'a677e6907f6252c4e24253e27a463152'),
            ('ranked_enqueue_batch', '7dc91d580cd3ed7aab7704d8d9347e14'),
            ('ranked_extend_lease', 'f9115c02147d504ecc08f61049ba6bea'),
            ('ranked_fail', 'c20ebc2663986abbf9ffac70f7484a21'),
            ('ranked_job', '49f4802f1a1dd1647d5b78f854ce2e53'),
            ('ranked_maintain', 'efce0587ac35dfda8e240adbbd0c5165'),
            ('ranked_metrics', 'eaa72cc42005debf4eb4a591cc7140f9'),
            ('ranked_pause', '81a0c841c6fd4d78a2f7ff2635603ee6'),
            ('ranked_peek', '045bf3005dcea6eb959d8152490d7a71'),
            ('ranked_purge', '5013d40cb1d447aa22f5b54f47f6590e'),
            ('ranked_purge_batch', '52e2d9879c0c3c612e1ed04c0d71e63d'),
            ('ranked_reap', '2fae232ec840542c187cbaf9a3f09340'),
            ('ranked_redrive', '805ee915e9168a20a4e47f0533c48158'),
            ('ranked_release', 'c7df50a1269a348aa3ff841d2454b841'),
            ('ranked_resume', '05cd82fe621f761ba433a0dae0a6983a')
    ) AS r (name, fingerprint)
    JOIN pg_catalog.pg_proc AS p ON p.proname = r.name
    JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace AND n.nspname = 'qgen'
    WHERE pg_catalog.md5(pg_catalog.regexp_replace(p.prosrc, '[[:space:]]', '', 'g')) <> r.fingerprint;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020',
            MESSAGE = 'qgen: installed in schema qgen, but not as this install rendered it: ' || v$wrong,
            HINT = 'An earlier statement failed and left an older version: read its error, fix it and run install.sql again.';
    END IF;
END
$qgen$;
