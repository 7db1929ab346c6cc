-- qgen 0.1.0: every object of spec.yaml, for PostgreSQL, in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema pgs_obq, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- pgs_obq_owner owns every object qgen creates here, and cannot log in: the SECURITY DEFINER
-- functions run with its rights (its own tables and nothing else), not with those of whoever ran
-- install. The schema and the role are marked (COMMENT) when install creates them: uninstall drops
-- only what carries the mark.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_obq_owner') THEN
        CREATE ROLE "pgs_obq_owner" NOLOGIN;
        COMMENT ON ROLE "pgs_obq_owner" IS 'qgen: created by the install of schema pgs_obq';
    ELSIF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_obq_owner' AND (rolcanlogin OR rolsuper)) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG022',
            MESSAGE = 'qgen: role pgs_obq_owner exists and can log in or is a superuser; qgen''s SECURITY DEFINER functions run as this role',
            HINT = 'Make it NOLOGIN NOSUPERUSER, or drop it and let install create it.';
    END IF;
    -- Whoever installs creates the objects and hands them to the owner (ALTER ... OWNER TO), which
    -- takes membership of it unless it is a superuser.
    IF NOT pg_catalog.pg_has_role(current_user, 'pgs_obq_owner', 'MEMBER') THEN
        GRANT "pgs_obq_owner" TO CURRENT_USER;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'pgs_obq') THEN
        CREATE SCHEMA "pgs_obq";
        COMMENT ON SCHEMA "pgs_obq" IS 'qgen: created by the install of schema pgs_obq';
    END IF;
END
$qgen$;
GRANT USAGE, CREATE ON SCHEMA "pgs_obq" TO "pgs_obq_owner";

-- qgen 0.1.0: roles pgs_obq_producer, pgs_obq_consumer, pgs_obq_admin (cluster-wide), rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing,
-- and mark the ones install creates (COMMENT): uninstall drops only those, never a role that was
-- there before and that the spec only names.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_obq_producer') THEN
        CREATE ROLE "pgs_obq_producer" NOLOGIN;
        COMMENT ON ROLE "pgs_obq_producer" IS 'qgen: created by the install of schema pgs_obq';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_obq_consumer') THEN
        CREATE ROLE "pgs_obq_consumer" NOLOGIN;
        COMMENT ON ROLE "pgs_obq_consumer" IS 'qgen: created by the install of schema pgs_obq';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_obq_admin') THEN
        CREATE ROLE "pgs_obq_admin" NOLOGIN;
        COMMENT ON ROLE "pgs_obq_admin" IS 'qgen: created by the install of schema pgs_obq';
    END IF;
END
$qgen$;

-- qgen 0.1.0: table pgs_obq.orders, rendered for PostgreSQL from spec.yaml.
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
CREATE TABLE IF NOT EXISTS "pgs_obq"."orders"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "order_no" varchar(30) NOT NULL,
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
ALTER TABLE "pgs_obq"."orders" OWNER TO "pgs_obq_owner";

-- qgen 0.1.0: claim_index pgs_obq.orders_claim_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Rows in claim order, leased ones included (a claim writes no column this index names: a HOT
-- update); a claim starts at the watermark and steps over the jobs in flight there.
-- Deferred jobs (delayed, or released with a backoff) are left out of it: see the due index below.
CREATE INDEX IF NOT EXISTS "orders_claim_ix"
    ON "pgs_obq"."orders" ("id")
    WHERE "available_at" <= "enqueued_at"
    ;
-- The due index: deferred jobs not yet claimed (a claim takes a job out of it), by the time they
-- become available. A claim takes the due ones from here first, so however many wait for their
-- time, no claim and no watermark steps over them.
CREATE INDEX IF NOT EXISTS "orders_claim_ix_due"
    ON "pgs_obq"."orders" ("available_at", "id")
    WHERE "available_at" > "enqueued_at";

-- qgen 0.1.0: watermark_table pgs_obq.orders_watermark, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their index range here instead of
-- walking the dead index entries that claimed or deleted rows leave at the low end.
CREATE TABLE IF NOT EXISTS "pgs_obq"."orders_watermark"
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
ALTER TABLE "pgs_obq"."orders_watermark" OWNER TO "pgs_obq_owner";
INSERT INTO "pgs_obq"."orders_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dead_letter_table pgs_obq.orders_dead, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: "id" is the job's id, which repeats once the queue's identity is restarted.
CREATE TABLE IF NOT EXISTS "pgs_obq"."orders_dead"
(
    "entry_id" bigint GENERATED ALWAYS AS IDENTITY,
    "id" bigint NOT NULL,
    "order_no" varchar(30) NOT NULL,
    "enqueued_at" timestamptz NOT NULL,
    "attempts" integer NOT NULL,
    "last_error" varchar(4000) NULL,
    "dead_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("entry_id")
);
ALTER TABLE "pgs_obq"."orders_dead" OWNER TO "pgs_obq_owner";

-- qgen 0.1.0: dead_letter_index pgs_obq.orders_dead_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
CREATE INDEX IF NOT EXISTS "orders_dead_ix"
    ON "pgs_obq"."orders_dead" ("dead_at");
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
CREATE INDEX IF NOT EXISTS "orders_dead_id_ix"
    ON "pgs_obq"."orders_dead" ("id");

-- qgen 0.1.0: archive_table pgs_obq.orders_archive, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Completed jobs, moved here by complete and removed by purge after the retention period.
-- Keyed by an identity of its own: "id" is the job's id, which repeats once the queue's identity is
-- restarted (or when a job reaches the archive twice).
CREATE TABLE IF NOT EXISTS "pgs_obq"."orders_archive"
(
    "entry_id" bigint GENERATED ALWAYS AS IDENTITY,
    "id" bigint NOT NULL,
    "order_no" varchar(30) NOT NULL,
    "enqueued_at" timestamptz NOT NULL,
    "attempts" integer NOT NULL,
    "completed_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("entry_id")
);
ALTER TABLE "pgs_obq"."orders_archive" OWNER TO "pgs_obq_owner";

-- qgen 0.1.0: archive_index pgs_obq.orders_archive_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes archived jobs by age: it finds the old ones here instead of scanning the archive.
CREATE INDEX IF NOT EXISTS "orders_archive_ix"
    ON "pgs_obq"."orders_archive" ("completed_at");

-- qgen 0.1.0: pending_view pgs_obq.orders_pending, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "pgs_obq"."orders_pending" AS
SELECT "job"."id", "job"."order_no", "job"."available_at", "job"."enqueued_at", "job"."attempts", "job"."last_error"
FROM "pgs_obq"."orders" AS "job"
WHERE "job"."lease_token" IS NULL;
ALTER VIEW "pgs_obq"."orders_pending" OWNER TO "pgs_obq_owner";

-- qgen 0.1.0: batch_type pgs_obq.orders_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) when missing, and the table rejects a missing required column.
-- Its string and decimal fields have no length or scale (m.param_type): reading a job into
-- varchar(n) or numeric(p,s) would cut or round a value past its column before enqueue_batch
-- could refuse it (QG010).
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"pgs_obq"."orders_batch"') IS NULL THEN
        CREATE TYPE "pgs_obq"."orders_batch" AS
        (
            "ordinal" integer,
            "order_no" varchar
        );
    END IF;
END
$qgen$;
ALTER TYPE "pgs_obq"."orders_batch" OWNER TO "pgs_obq_owner";

-- qgen 0.1.0: enqueue pgs_obq.orders_enqueue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_enqueue"
(
    "order_no" varchar(30)
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF pg_catalog.length("orders_enqueue"."order_no") > 30 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: order_no is past its column''s limit in pgs_obq.orders_enqueue; accepted: string(30), at most 30 characters';
    END IF;
    RETURN QUERY
        INSERT INTO "pgs_obq"."orders" AS "job" ("order_no")
        VALUES ("orders_enqueue"."order_no")
        RETURNING "job"."id", TRUE;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_enqueue" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_enqueue" FROM PUBLIC;

-- qgen 0.1.0: enqueue_batch pgs_obq.orders_enqueue_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job.
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_enqueue_batch"
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
    v$sequence regclass := pg_catalog.pg_get_serial_sequence('"pgs_obq"."orders"', 'id')::regclass;
    v$over integer;
    v$over_column text;
BEGIN

    SELECT coalesce("j"."ordinal", "e"."position$"::integer),
           CASE WHEN pg_catalog.length("j"."order_no") > 30 THEN 'order_no; accepted: string(30), at most 30 characters' END
    INTO v$over, v$over_column
    FROM jsonb_array_elements("orders_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
    CROSS JOIN LATERAL jsonb_populate_record(NULL::"pgs_obq"."orders_batch", "e"."job$") AS "j"
    WHERE pg_catalog.length("j"."order_no") > 30
    ORDER BY "e"."position$"
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = pg_catalog.format('qgen: job %s of the batch has a value past its column''s limit in pgs_obq.orders_enqueue_batch: column %s', v$over, v$over_column);
    END IF;
    RETURN QUERY
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "e"."position$"::integer) AS "ordinal",
                   "j"."order_no"
            -- The array position and the new id are qgen's own columns beside the job's: their names
            -- hold a $, which no spec column can.
            FROM jsonb_array_elements("orders_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
            CROSS JOIN LATERAL jsonb_populate_record(NULL::"pgs_obq"."orders_batch", "e"."job$") AS "j"
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
            INSERT INTO "pgs_obq"."orders" AS "job" ("id", "order_no")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new$id", "n"."order_no"
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal", "n"."new$id", TRUE
        FROM "numbered" AS "n"
        ORDER BY "n"."ordinal";
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_enqueue_batch" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: watermark_move pgs_obq.orders_watermark_move, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_watermark_move"
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
    v$target bigint := "orders_watermark_move"."claimed_from" - 50;
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
    SELECT "w"."id" INTO v$current FROM "pgs_obq"."orders_watermark" AS "w";
    IF NOT FOUND OR v$current >= v$target THEN
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM "pgs_obq"."orders" AS "job"
               WHERE "job"."id" = v$current AND ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp()) AND "job"."available_at" <= "job"."enqueued_at") THEN
        RETURN;
    END IF;
    -- SKIP LOCKED: a session already moving it (or a release lowering it) wins; this one skips.
    SELECT "w"."id" INTO v$current FROM "pgs_obq"."orders_watermark" AS "w" FOR UPDATE SKIP LOCKED;
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
    FROM "pgs_obq"."orders" AS "job"
    WHERE "job"."id" >= v$current AND "job"."id" < v$target AND ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp()) AND "job"."available_at" <= "job"."enqueued_at";
    UPDATE "pgs_obq"."orders_watermark" AS "w"
    SET "id" = coalesce(v$lowest, v$target)
    WHERE "w"."id" < coalesce(v$lowest, v$target);
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_watermark_move" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_watermark_move" FROM PUBLIC;

-- qgen 0.1.0: watermark_correct pgs_obq.orders_watermark_correct, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids (the slack, for inserts still in flight) below
-- the lowest unclaimed id, or below the next id when every row is claimed or gone (the table's highest
-- id, or its identity when it is empty), never below 0. It repairs a watermark that is wrong either
-- way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it after a
-- drain (run it after a dequeue that found nothing) and for a watermark set by hand.
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_watermark_correct"()
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
        SELECT "w"."id" INTO "old_watermark" FROM "pgs_obq"."orders_watermark" AS "w" FOR UPDATE SKIP LOCKED;
        v$held := NOT FOUND AND EXISTS (SELECT 1 FROM "pgs_obq"."orders_watermark");
    EXCEPTION WHEN serialization_failure THEN
        v$held := TRUE;
    END;
    IF v$held THEN
        SELECT "w"."id", "w"."id" INTO "old_watermark", "new_watermark" FROM "pgs_obq"."orders_watermark" AS "w";
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
    SELECT min("job"."id") INTO v$new FROM "pgs_obq"."orders" AS "job" WHERE ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp()) AND "job"."available_at" <= "job"."enqueued_at";
    IF v$new IS NULL THEN
        SELECT max("job"."id") + 1 INTO v$new FROM "pgs_obq"."orders" AS "job";
    END IF;
    IF v$new IS NULL THEN
        -- Drained: the next id comes from the identity. Left where it was, a watermark a release
        -- had lowered would make every claim walk the whole drained range again.
        v$new := pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence('"pgs_obq"."orders"', 'id')::regclass) + 1;
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
    FROM "pgs_obq"."orders" AS "d"
    WHERE "d"."available_at" > "d"."enqueued_at" AND "d"."available_at" < (SELECT "b"."due_from" FROM "pgs_obq"."orders_watermark" AS "b")
    ORDER BY "d"."available_at"
    LIMIT 1;
    IF "old_watermark" IS NULL THEN
        -- The row was deleted by hand: put it back.
        INSERT INTO "pgs_obq"."orders_watermark" ("id", "corrected_at") VALUES ("orders_watermark_correct"."new_watermark", coalesce(v$searched, '-infinity'))
        ON CONFLICT DO NOTHING;
    ELSE
        UPDATE "pgs_obq"."orders_watermark" AS "w" SET "id" = "orders_watermark_correct"."new_watermark", "corrected_at" = coalesce(v$searched, "w"."corrected_at"),
            -- It counts as a rescan (corrected_at): lower the due bound as the rescan does.
            "due_from" = least("w"."due_from", coalesce(v$due_low, "w"."due_from"));
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_watermark_correct" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_watermark_correct" FROM PUBLIC;

-- qgen 0.1.0: control_table pgs_obq.orders_control, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which role). Every
-- claim reads it first (a plain read: a pause or resume counts from its commit, and no claim waits
-- on one left open). A missing row (deleted by hand) reads as running.
CREATE TABLE IF NOT EXISTS "pgs_obq"."orders_control"
(
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    "paused" boolean NOT NULL DEFAULT FALSE,
    "changed_at" timestamptz NULL,
    "changed_by" varchar(128) NULL,
    PRIMARY KEY ("one_row")
);
ALTER TABLE "pgs_obq"."orders_control" OWNER TO "pgs_obq_owner";
INSERT INTO "pgs_obq"."orders_control" ("paused") VALUES (FALSE) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dequeue pgs_obq.orders_dequeue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"pgs_obq"."orders_dequeue_row"') IS NULL THEN
        CREATE TYPE "pgs_obq"."orders_dequeue_row" AS
        (
            "id" bigint,
            "order_no" varchar(30),
            "attempts" integer,
            "lease_token" uuid,
            "lease_expires_at" timestamptz
        );
    END IF;
END
$qgen$;
ALTER TYPE "pgs_obq"."orders_dequeue_row" OWNER TO "pgs_obq_owner";
-- Claims up to batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With complete_lease_token it first completes that lease's jobs as complete does, in the same
-- transaction: one commit per batch instead of two; complete_ids names them (primary-key lookups;
-- without it the whole table is searched for the token). A token that holds none of them raises
-- QG001 and nothing is claimed. A job whose lease expired is claimed again like a new one (the
-- old worker's token no longer holds it); one that was on its last attempt is
-- dead-lettered here instead of being handed out, and another claimed in its place.
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 10,
    "lease_seconds" integer DEFAULT 300,
    "complete_lease_token" uuid DEFAULT NULL,
    "complete_ids" bigint[] DEFAULT NULL
)
RETURNS SETOF "pgs_obq"."orders_dequeue_row"
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
    v$want integer := "orders_dequeue"."batch_size";
    v$exhausted bigint[];
    -- The previous lease's jobs this call completes by id (in its first claim statement).
    v$ids bigint[];
    v$start bigint;
    v$top bigint;
    v$rows "pgs_obq"."orders_dequeue_row"[];
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
    IF "orders_dequeue"."batch_size" IS NULL OR "orders_dequeue"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for pgs_obq.orders_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("orders_dequeue"."batch_size"::text, 'NULL'));
    END IF;
    IF pg_catalog.length("orders_dequeue"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in pgs_obq.orders_dequeue; accepted: string(128), at most 128 characters';
    END IF;
    IF "orders_dequeue"."lease_seconds" IS NULL OR "orders_dequeue"."lease_seconds" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: lease_seconds ' || coalesce("orders_dequeue"."lease_seconds"::text, 'NULL') || ' is out of range; accepted: 1 or more seconds';
    END IF;
    IF "orders_dequeue"."complete_lease_token" IS NOT NULL THEN
        -- Outbox values belong to one job: completing a whole lease here would skip them silently.
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_obq.orders: this queue has an outbox: complete each job with its id and its outbox values, then dequeue';
    END IF;
    -- Paused (pause, resume): complete what was asked, claim nothing.
    IF NOT EXISTS (SELECT 1 FROM "pgs_obq"."orders_control" AS "c" WHERE NOT "c"."paused") THEN
        IF v$ids IS NOT NULL THEN
            WITH "done" AS
            (
                DELETE FROM "pgs_obq"."orders" AS "job"
                WHERE "job"."id" = ANY (v$ids) AND "job"."lease_token" = "orders_dequeue"."complete_lease_token"
                RETURNING "job".*
            ),
            "archived" AS
            (
                INSERT INTO "pgs_obq"."orders_archive" ("id", "order_no", "enqueued_at", "attempts", "completed_at")
                SELECT "d"."id", "d"."order_no", "d"."enqueued_at", "d"."attempts", pg_catalog.clock_timestamp()
                FROM "done" AS "d"
            )
            SELECT count(*) INTO v$completed FROM "done";
            IF v$completed = 0 THEN
                RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_obq.orders: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
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
            LEFT JOIN "pgs_obq"."orders_watermark" AS "w" ON TRUE
        ),
        "done" AS
        (
            DELETE FROM "pgs_obq"."orders" AS "job"
            WHERE "job"."id" = ANY (v$ids) AND "job"."lease_token" = "orders_dequeue"."complete_lease_token"
            RETURNING "job".*
        ),
        "archived" AS
        (
            INSERT INTO "pgs_obq"."orders_archive" ("id", "order_no", "enqueued_at", "attempts", "completed_at")
            SELECT "d"."id", "d"."order_no", "d"."enqueued_at", "d"."attempts", pg_catalog.clock_timestamp()
            FROM "done" AS "d"
        ),
        "due" AS MATERIALIZED
        (
            -- Deferred jobs (delayed, or released with a backoff) whose time has come, first: they are not
            -- in the claim index, and the watermark passes them. The due index holds only those not yet
            -- claimed, by available_at: while none is due this reads one page.
            SELECT "d"."id"
            FROM "pgs_obq"."orders" AS "d"
            -- now(), not the clock: what a claim may take is judged as of its transaction's start, which
            -- can only make it take less (never a job before its time, never a live lease); the leases it
            -- grants are timed from the clock. A stable now() also keeps the planner's estimates, and with
            -- them the seeks tests/test_claim_cost.py holds (with clock_timestamp() the job-type claim
            -- walked 142 buffers where it walks 11).
            WHERE ("d"."lease_token" IS NULL OR "d"."lease_expires_at" < now()) AND "d"."available_at" <= now() AND "d"."available_at" > "d"."enqueued_at"
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
            FROM "pgs_obq"."orders" AS "next"
            WHERE ("next"."lease_token" IS NULL OR "next"."lease_expires_at" < now())
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
            UPDATE "pgs_obq"."orders" AS "job"
            SET "lease_token" = CASE WHEN "job"."lease_token" IS NOT NULL AND "job"."attempts" >= 5 THEN v$spent ELSE v$token END,
                "lease_owner" = "orders_dequeue"."owner",
                "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "orders_dequeue"."lease_seconds"),
                -- A deferred job leaves the due index as it is claimed (no other claim changes an indexed column).
                "available_at" = least("job"."available_at", "job"."enqueued_at"),
                "attempts" = "job"."attempts" + 1,
                -- A job taken over from an expired lease says so (the old token no longer holds it).
                "last_error" = CASE WHEN "job"."lease_token" IS NULL THEN "job"."last_error" ELSE 'qgen: lease expired before the job was completed' END
            -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
            -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
            WHERE "job"."id" = ANY (ARRAY (SELECT "u"."id" FROM "due" AS "u" UNION ALL SELECT "r"."id" FROM "ready" AS "r"))
            RETURNING "job"."id", "job"."order_no", "job"."attempts", "job"."lease_token", "job"."lease_expires_at"
        )
        SELECT (SELECT count(*) FROM "done"), (SELECT "m"."from" FROM "mark" AS "m"), max("c"."id"),
               (SELECT "m"."due_from" FROM "mark" AS "m"), (SELECT "m"."due_move" FROM "mark" AS "m") AND EXISTS (SELECT 1 FROM "due"),
               array_agg(ROW("c"."id", "c"."order_no", "c"."attempts", "c"."lease_token", "c"."lease_expires_at")::"pgs_obq"."orders_dequeue_row" ORDER BY "c"."id") FILTER (WHERE "c"."lease_token" = v$token),
               array_agg("c"."id") FILTER (WHERE "c"."lease_token" = v$spent)
        INTO v$completed, v$from, v$top, v$due_from, v$due_move, v$rows, v$exhausted
        FROM "claimed" AS "c";
        IF v$ids IS NOT NULL THEN
            -- The previous lease: a token that held none of its jobs claims nothing (this rolls back).
            IF v$completed = 0 THEN
                RAISE EXCEPTION USING ERRCODE = 'QG001',
                    MESSAGE = 'qgen: lease lost on pgs_obq.orders: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
            END IF;
            v$ids := NULL;
        END IF;
        IF v$from IS NULL THEN
            -- A rescan is due, or the watermark row is missing: every 10 s, look below the
            -- watermark first for jobs it passed (see the macro watermark_start), then claim from there.
            SELECT "w"."id", "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) INTO v$from, v$rescan FROM "pgs_obq"."orders_watermark" AS "w";
            IF NOT FOUND THEN
                v$from := 0;
                INSERT INTO "pgs_obq"."orders_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;
            ELSIF v$rescan AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
                -- Only at READ COMMITTED: at REPEATABLE READ or SERIALIZABLE the search would read the
                -- transaction's first snapshot, and locking a row another worker changed since fails the
                -- caller's whole transaction (40001); a READ COMMITTED dequeue or maintain rescans instead.
                SELECT "w"."id", pg_catalog.clock_timestamp() INTO v$mark, v$searched
                FROM "pgs_obq"."orders_watermark" AS "w" WHERE "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) FOR UPDATE SKIP LOCKED;
                IF FOUND THEN
                    -- A statement of its own: its snapshot is taken after the lock, so it sees every release
                    -- committed before; one that commits later waits for this row and lowers the watermark itself.
                    -- corrected_at gets the time before the search, so a job committed after it is left to the next.
                    SELECT min("job"."id") INTO v$stranded
                    FROM "pgs_obq"."orders" AS "job"
                    WHERE "job"."id" < v$mark AND ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp()) AND "job"."available_at" <= "job"."enqueued_at";
                    -- Below the due index's bound: a deferred job written past the routines may be due before it.
                    SELECT "d"."available_at" INTO v$due_low
                    FROM "pgs_obq"."orders" AS "d"
                    WHERE "d"."available_at" > "d"."enqueued_at" AND "d"."available_at" < (SELECT "b"."due_from" FROM "pgs_obq"."orders_watermark" AS "b")
                    ORDER BY "d"."available_at"
                    LIMIT 1;
                    UPDATE "pgs_obq"."orders_watermark" AS "w"
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
            DELETE FROM "pgs_obq"."orders" AS "job"
            WHERE "job"."id" = ANY (v$exhausted) AND "job"."lease_token" = v$spent
            RETURNING "job".*
        )
        INSERT INTO "pgs_obq"."orders_dead" ("id", "order_no", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."order_no", "g"."enqueued_at", "g"."attempts" - 1, 'qgen: lease expired on the last attempt', pg_catalog.clock_timestamp()
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
            LOCK TABLE "pgs_obq"."orders_watermark" IN EXCLUSIVE MODE NOWAIT;
            v$due_clock := pg_catalog.clock_timestamp();
            -- Ends the block: rolling back its subtransaction releases the lock at once.
            RAISE EXCEPTION USING ERRCODE = 'lock_not_available';
        EXCEPTION WHEN lock_not_available THEN
            NULL;
        END;
        IF v$due_clock IS NOT NULL THEN
            SELECT "d"."available_at" INTO v$due_low
            FROM "pgs_obq"."orders" AS "d"
            WHERE "d"."available_at" > "d"."enqueued_at" AND "d"."available_at" >= v$due_from
            ORDER BY "d"."available_at"
            LIMIT 1;
            -- SKIP LOCKED: a session that holds the row (a watermark move in an open transaction) wins.
            PERFORM 1 FROM "pgs_obq"."orders_watermark" AS "w" FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE "pgs_obq"."orders_watermark" AS "w"
                SET "due_from" = greatest("w"."due_from", least(v$due_clock, coalesce(v$due_low, v$due_clock))),
                    "due_moved_at" = v$due_clock;
            END IF;
        END IF;
    END IF;
    -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
    -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
    -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
    IF v$highest - v$from >= 150 THEN
        PERFORM "pgs_obq"."orders_watermark_move"(v$highest);
    END IF;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_dequeue" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_dequeue" FROM PUBLIC;

-- qgen 0.1.0: table pgs_obq.invoices, rendered for PostgreSQL from spec.yaml.
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
CREATE TABLE IF NOT EXISTS "pgs_obq"."invoices"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "order_no" varchar(30) NOT NULL,
    "total" numeric(12, 2) NOT NULL,
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
    PRIMARY KEY ("id")
)
WITH (fillfactor = 50, autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
      autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "pgs_obq"."invoices" OWNER TO "pgs_obq_owner";

-- qgen 0.1.0: complete pgs_obq.orders_complete, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: moves them to the archive. With id, only that job; with ids, those of
-- them the lease holds (primary-key lookups); with neither, every job of the lease, which needs a
-- search of the whole table for the token (no index holds tokens: a claim writes no indexed column)
-- (refused here with QG002: this queue has an outbox, whose values belong to one job). The token is the fence: a worker whose lease was released or taken over gets QG001.
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_complete"
(
    "lease_token" uuid,
    "id" bigint DEFAULT NULL,
    "ids" bigint[] DEFAULT NULL,
    "order_no" varchar(30) DEFAULT NULL,
    "total" numeric(12, 2) DEFAULT NULL,
    "no_result" boolean DEFAULT FALSE
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
    IF pg_catalog.length("orders_complete"."order_no") > 30 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: order_no is past its column''s limit in pgs_obq.orders_complete; accepted: string(30), at most 30 characters';
    END IF;
    IF (pg_catalog.abs("orders_complete"."total") >= 10000000000 OR "orders_complete"."total" <> pg_catalog.round("orders_complete"."total", 2)) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: total is past its column''s limit in pgs_obq.orders_complete; accepted: decimal(12,2), at most 10 digits before the point and 2 after, never rounded';
    END IF;
    IF "orders_complete"."id" IS NULL THEN
        -- Outbox values belong to one job: a whole lease completed at once would skip them silently.
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_obq.orders: this queue has an outbox: complete each job with its id and its outbox values, not a whole lease by its token';
    ELSE
        -- A job hands its outbox values on, or the caller says it has none (no_result => true).
        IF "orders_complete"."no_result" IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = 'QG003',
                MESSAGE = 'qgen: no_result NULL is out of range; accepted: false (the outbox values are given) or true (this job hands nothing on)';
        ELSIF "orders_complete"."no_result" AND ("orders_complete"."order_no" IS NOT NULL OR "orders_complete"."total" IS NOT NULL) THEN
            RAISE EXCEPTION USING ERRCODE = 'QG003',
                MESSAGE = 'qgen: complete on pgs_obq.orders: no_result => true says this job hands nothing on, yet outbox values were given; pass the values or no_result => true, not both';
        ELSIF NOT "orders_complete"."no_result" AND NOT ("orders_complete"."order_no" IS NOT NULL OR "orders_complete"."total" IS NOT NULL) THEN
            RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_obq.orders: this queue has an outbox: complete each job with its outbox values (order_no, total), or with no_result => true when the job hands nothing on';
        ELSIF NOT "orders_complete"."no_result" AND "orders_complete"."order_no" IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = 'QG003',
                MESSAGE = 'qgen: complete on pgs_obq.orders: outbox value order_no is missing (NULL); it is NOT NULL in the outbox; accepted: every NOT NULL outbox value, or no_result => true';
        ELSIF NOT "orders_complete"."no_result" AND "orders_complete"."total" IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = 'QG003',
                MESSAGE = 'qgen: complete on pgs_obq.orders: outbox value total is missing (NULL); it is NOT NULL in the outbox; accepted: every NOT NULL outbox value, or no_result => true';
        END IF;
        WITH "done" AS
        (
            DELETE FROM "pgs_obq"."orders" AS "job"
            WHERE "job"."id" = "orders_complete"."id" AND "job"."lease_token" = "orders_complete"."lease_token"
            RETURNING "job".*
        ),
        "archived" AS
        (
            INSERT INTO "pgs_obq"."orders_archive" ("id", "order_no", "enqueued_at", "attempts", "completed_at")
            SELECT "d"."id", "d"."order_no", "d"."enqueued_at", "d"."attempts", pg_catalog.clock_timestamp()
            FROM "done" AS "d"
        ),
        -- The result goes on in the same transaction as the completion (seed 004's local queue table).
        "handed_on" AS
        (
            INSERT INTO "pgs_obq"."invoices" AS "next" ("order_no", "total", "enqueued_by")
            SELECT "orders_complete"."order_no", "orders_complete"."total", session_user::text
            FROM "done" AS "d"
            WHERE "orders_complete"."order_no" IS NOT NULL OR "orders_complete"."total" IS NOT NULL
            -- The downstream queue already holds this key: the hand-off is skipped, whatever its
            -- on_duplicate says (an error would fail this completion on every retry).
            ON CONFLICT ("order_no") DO NOTHING
        )
        SELECT count(*) INTO v$completed FROM "done";
    END IF;
    IF v$completed = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_obq.orders: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$completed;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_complete" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_complete" FROM PUBLIC;

-- qgen 0.1.0: fail pgs_obq.orders_fail, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 5) and retry it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_fail"
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
    v$error text := pg_catalog.left("orders_fail"."error", 4000);
    v$gone integer;
BEGIN
    -- NULL is not "no retry": refused, so a caller passing an unset flag does not dead-letter the job.
    IF "orders_fail"."retry" IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: retry NULL is out of range; accepted: true or false';
    END IF;
    IF "orders_fail"."retry" THEN
        -- The job is deferred again: no earlier than the clock read under this lock (postgres__due_bound_move).
        LOCK TABLE "pgs_obq"."orders_watermark" IN ROW SHARE MODE;
        UPDATE "pgs_obq"."orders" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL,
            "last_error" = v$error,
            "available_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => least(3600::float8, 10 * power(2::float8, least("job"."attempts" - 1, 60))))
        WHERE "job"."id" = "orders_fail"."id" AND "job"."lease_token" = "orders_fail"."lease_token"
          AND "job"."attempts" < 5;
        IF FOUND THEN
            -- The job is claimable again: the watermark must not stay above it.
            IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
                FOR v$try IN 1 .. 5 LOOP
                    PERFORM 1 FROM "pgs_obq"."orders_watermark" AS "w" WHERE "w"."id" > "orders_fail"."id" FOR UPDATE SKIP LOCKED;
                    IF FOUND THEN
                        UPDATE "pgs_obq"."orders_watermark" AS "w" SET "id" = "orders_fail"."id" WHERE "w"."id" > "orders_fail"."id";
                        EXIT;
                    END IF;
                    -- Not taken: either nothing to lower, or another transaction holds the row.
                    EXIT WHEN NOT EXISTS (SELECT 1 FROM "pgs_obq"."orders_watermark" AS "w" WHERE "w"."id" > "orders_fail"."id");
                    PERFORM pg_catalog.pg_sleep(0.01);
                END LOOP;
            END IF;
            RETURN 0;
        END IF;
    END IF;
    -- No retry (asked, or attempts used up), or the token does not hold the job: then nothing matches.
    WITH "gone" AS
    (
        DELETE FROM "pgs_obq"."orders" AS "job"
        WHERE "job"."id" = "orders_fail"."id" AND "job"."lease_token" = "orders_fail"."lease_token"
        RETURNING "job".*
    )
    INSERT INTO "pgs_obq"."orders_dead" ("id", "order_no", "enqueued_at", "attempts", "last_error", "dead_at")
    SELECT "g"."id", "g"."order_no", "g"."enqueued_at", "g"."attempts", v$error, pg_catalog.clock_timestamp()
    FROM "gone" AS "g";
    GET DIAGNOSTICS v$gone = ROW_COUNT;
    IF v$gone = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_obq.orders: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN 1;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_fail" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_fail" FROM PUBLIC;

-- qgen 0.1.0: extend_lease pgs_obq.orders_extend_lease, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire lease_seconds from now.
-- With id, one job; with ids, those of them the lease holds (primary-key lookups); with neither,
-- every job of the lease (a search of the whole table). Only lease_expires_at changes: a HOT update.
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_extend_lease"
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
    IF "orders_extend_lease"."lease_seconds" IS NULL OR "orders_extend_lease"."lease_seconds" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: lease_seconds ' || coalesce("orders_extend_lease"."lease_seconds"::text, 'NULL') || ' is out of range; accepted: 1 or more seconds';
    END IF;
    IF "orders_extend_lease"."ids" IS NOT NULL THEN
        UPDATE "pgs_obq"."orders" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "orders_extend_lease"."lease_seconds")
        WHERE "job"."id" = ANY ("orders_extend_lease"."ids") AND "job"."id" = coalesce("orders_extend_lease"."id", "job"."id")
          AND "job"."lease_token" = "orders_extend_lease"."lease_token";
    ELSIF "orders_extend_lease"."id" IS NULL THEN
        -- No index holds tokens (a claim writes no indexed column): this searches the whole table.
        UPDATE "pgs_obq"."orders" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "orders_extend_lease"."lease_seconds")
        WHERE "job"."lease_token" = "orders_extend_lease"."lease_token";
    ELSE
        UPDATE "pgs_obq"."orders" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "orders_extend_lease"."lease_seconds")
        WHERE "job"."id" = "orders_extend_lease"."id" AND "job"."lease_token" = "orders_extend_lease"."lease_token";
    END IF;
    GET DIAGNOSTICS v$extended = ROW_COUNT;
    IF v$extended = 0 THEN
        IF "orders_extend_lease"."id" IS NOT NULL AND EXISTS (SELECT 1 FROM "pgs_obq"."orders_dead" AS "d"
                                                          WHERE "d"."id" = "orders_extend_lease"."id" AND "d"."last_error" = 'cancelled') THEN
            RAISE EXCEPTION USING ERRCODE = 'QG006',
                MESSAGE = 'qgen: job cancelled on pgs_obq.orders: cancel took it out of the queue while its lease ran; stop working on it (its complete and fail are refused)';
        END IF;
RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_obq.orders: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$extended;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_extend_lease" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_extend_lease" FROM PUBLIC;

-- qgen 0.1.0: reap pgs_obq.orders_reap, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- batch_size per call: those with attempts left become claimable again, with their old token
-- cleared so the late worker is fenced off; the rest are dead-lettered.
-- No index holds leases (a claim writes no indexed column, so that it is a HOT update): reap looks
-- at the first 10 x batch_size unfinished jobs in queue order, which is where claims take jobs
-- and so where leases are. It is not what brings a job back: a claim takes over an expired lease
-- it reaches (and dequeue's rescan below the watermark finds those the watermark passed); reap
-- releases them sooner where nobody claims, and keeps metrics and the pending view current. An
-- expired lease behind more than that many jobs waits for a claim.
-- Deferred jobs (delayed, backed off) are not among them: they are never leased, and the claim
-- index that reap walks leaves them out.
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_reap"
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
BEGIN
    IF "orders_reap"."batch_size" IS NULL OR "orders_reap"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for pgs_obq.orders_reap; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("orders_reap"."batch_size"::text, 'NULL'));
    END IF;
    -- Released jobs are deferred: due at the clock read under this lock (postgres__due_bound_move).
    LOCK TABLE "pgs_obq"."orders_watermark" IN ROW SHARE MODE;
    WITH "expired" AS
    (
        -- SKIP LOCKED: a job being completed right now is locked by its worker; leave it to finish.
        SELECT "job"."id", "job"."attempts"
        FROM "pgs_obq"."orders" AS "job"
        WHERE "job"."id" IN
              (
                  SELECT "first"."id"
                  FROM "pgs_obq"."orders" AS "first"
                  WHERE "first"."available_at" <= "first"."enqueued_at"
                  ORDER BY "first"."id"
                  LIMIT "orders_reap"."batch_size" * 10
              )
          AND "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < pg_catalog.clock_timestamp()
        LIMIT "orders_reap"."batch_size"
        FOR UPDATE SKIP LOCKED
    ),
    "freed" AS
    (
        UPDATE "pgs_obq"."orders" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
            "last_error" = 'qgen: lease expired before the job was completed'
        FROM "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" < 5
        RETURNING "job"."id"
    ),
    "gone" AS
    (
        DELETE FROM "pgs_obq"."orders" AS "job"
        USING "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" >= 5
        RETURNING "job".*
    ),
    "buried" AS
    (
        INSERT INTO "pgs_obq"."orders_dead" ("id", "order_no", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."order_no", "g"."enqueued_at", "g"."attempts", 'qgen: lease expired on the last attempt', pg_catalog.clock_timestamp()
        FROM "gone" AS "g"
    )
    SELECT (SELECT count(*) FROM "freed"), (SELECT count(*) FROM "gone"), (SELECT min("f"."id") FROM "freed" AS "f")
    INTO "released", "dead_lettered", v$lowest;
    IF v$lowest IS NOT NULL THEN
        -- Released jobs are claimable again: the watermark must not stay above them.
        IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
            FOR v$try IN 1 .. 5 LOOP
                PERFORM 1 FROM "pgs_obq"."orders_watermark" AS "w" WHERE "w"."id" > v$lowest FOR UPDATE SKIP LOCKED;
                IF FOUND THEN
                    UPDATE "pgs_obq"."orders_watermark" AS "w" SET "id" = v$lowest WHERE "w"."id" > v$lowest;
                    EXIT;
                END IF;
                -- Not taken: either nothing to lower, or another transaction holds the row.
                EXIT WHEN NOT EXISTS (SELECT 1 FROM "pgs_obq"."orders_watermark" AS "w" WHERE "w"."id" > v$lowest);
                PERFORM pg_catalog.pg_sleep(0.01);
            END LOOP;
        END IF;
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_reap" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_reap" FROM PUBLIC;

-- qgen 0.1.0: metrics pgs_obq.orders_metrics, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_metrics"()
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
        (SELECT count(*) FROM "pgs_obq"."orders_dead"),
        (SELECT count(*) FROM "pgs_obq"."orders_archive"),
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."available_at" <= now())))::bigint, 0),
        (SELECT "w"."id" FROM "pgs_obq"."orders_watermark" AS "w"),
        min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL),
        (SELECT count(*) FROM "pgs_obq"."orders_archive" AS "a" WHERE "a"."completed_at" >= now() - interval '1 minute'),
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        coalesce(min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL), max("job"."id") + 1)
            - (SELECT "w"."id" FROM "pgs_obq"."orders_watermark" AS "w"),
        NOT EXISTS (SELECT 1 FROM "pgs_obq"."orders_control" AS "c" WHERE NOT "c"."paused")
    FROM "pgs_obq"."orders" AS "job";
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_metrics" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek pgs_obq.orders_peek, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "pgs_obq"."orders_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "orders_peek"."limit" IS NULL OR "orders_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for pgs_obq.orders_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "pgs_obq"."orders_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "orders_peek"."limit";
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_peek" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_peek" FROM PUBLIC;

-- qgen 0.1.0: purge_batch pgs_obq.orders_purge_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds: at most batch_size rows (1000 by default, refused above 4000) over all
-- those tables together, in the caller's transaction. purge (a procedure) calls it in a loop and
-- commits after each batch; a client can call it in a loop of its own, one transaction per call.
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_purge_batch"
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
    v$left integer := "orders_purge_batch"."batch_size";
    v$deleted integer;
BEGIN
    IF "orders_purge_batch"."batch_size" IS NULL OR "orders_purge_batch"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("orders_purge_batch"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF "orders_purge_batch"."older_than_seconds" IS NULL OR "orders_purge_batch"."older_than_seconds" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: older_than_seconds ' || coalesce("orders_purge_batch"."older_than_seconds"::text, 'NULL') || ' is out of range; accepted: 0 or more';
    END IF;
    v$cutoff := now() - pg_catalog.make_interval(secs => "orders_purge_batch"."older_than_seconds");
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    IF v$left > 0 THEN
        DELETE FROM "pgs_obq"."orders_archive" AS "x"
        WHERE "x"."entry_id" = ANY (ARRAY(
            SELECT "y"."entry_id" FROM "pgs_obq"."orders_archive" AS "y"
            WHERE "y"."completed_at" < v$cutoff
            LIMIT v$left
            FOR UPDATE SKIP LOCKED));
        GET DIAGNOSTICS v$deleted = ROW_COUNT;
        "archived" := v$deleted;
        v$left := v$left - v$deleted;
    END IF;
    IF v$left > 0 THEN
        DELETE FROM "pgs_obq"."orders_dead" AS "x"
        WHERE "x"."entry_id" = ANY (ARRAY(
            SELECT "y"."entry_id" FROM "pgs_obq"."orders_dead" AS "y"
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
ALTER FUNCTION "pgs_obq"."orders_purge_batch" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_purge_batch" FROM PUBLIC;

-- qgen 0.1.0: purge pgs_obq.orders_purge, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds, one batch of at most batch_size rows at a time, and COMMITs after each batch:
-- no transaction holds more than one batch, and vacuum can clean up behind it while it runs.
-- Rows that finish while it runs (a second after it began) are left for the next purge, so it ends.
-- A procedure that commits cannot be SECURITY DEFINER nor have a SET clause: it runs with its
-- caller's rights and reaches the tables only through orders_purge_batch (EXECUTE on that is all it
-- needs); every name in it is schema-qualified. CALL it outside a transaction block (inside one,
-- PostgreSQL refuses its COMMIT: invalid transaction termination, 2D000); there call
-- orders_purge_batch instead.
CREATE OR REPLACE PROCEDURE "pgs_obq"."orders_purge"
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
    "orders_purge"."archived" := 0;
    "orders_purge"."processed" := 0;
    "orders_purge"."dead" := 0;
    LOOP
        -- Each batch is a new transaction with a later now(): widen the age by the whole seconds
        -- spent so far, so the cutoff stays within a second of where it was when the call began.
        SELECT * INTO v$batch
        FROM "pgs_obq"."orders_purge_batch"(
            "orders_purge"."older_than_seconds" + pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - v$started))::integer,
            "orders_purge"."batch_size");
        "orders_purge"."archived" := "orders_purge"."archived" + v$batch."archived";
        "orders_purge"."processed" := "orders_purge"."processed" + v$batch."processed";
        "orders_purge"."dead" := "orders_purge"."dead" + v$batch."dead";
        COMMIT;
        -- A short batch: nothing older is left (or what is left is locked: the next purge takes it).
        EXIT WHEN v$batch."archived" + v$batch."processed" + v$batch."dead" < "orders_purge"."batch_size";
    END LOOP;
END
$qgen$;
ALTER PROCEDURE "pgs_obq"."orders_purge" OWNER TO "pgs_obq_owner";
REVOKE ALL ON PROCEDURE "pgs_obq"."orders_purge" FROM PUBLIC;

-- qgen 0.1.0: maintain pgs_obq.orders_maintain, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- batch_size finished jobs older than the retention (604800 s), releases up to batch_size expired
-- leases (reap), and corrects the watermark, in that order, in one transaction. Only one runs at a
-- time per queue: a caller that finds another one running returns at once with skipped = true.
-- more = true when a step filled its batch: call again (qgen maintain does) to do the rest.
-- Granted to the consumer role, so any worker can run it (run_worker does, every few seconds).
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_maintain"
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
    IF "orders_maintain"."batch_size" IS NULL OR "orders_maintain"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("orders_maintain"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    "released" := 0;
    "dead_lettered" := 0;
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    -- One at a time (see the macro maintain_lock). The lock is the transaction's: it goes with the
    -- commit or the rollback, whatever happens.
    BEGIN
        LOCK TABLE "pgs_obq"."orders_watermark" IN SHARE UPDATE EXCLUSIVE MODE NOWAIT;
    EXCEPTION WHEN lock_not_available THEN
        "skipped" := TRUE;
        "more" := FALSE;
        RETURN NEXT;
        RETURN;
    END;
    "skipped" := FALSE;
    -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
    SELECT "p"."archived", "p"."processed", "p"."dead" INTO "archived", "processed", "dead"
    FROM "pgs_obq"."orders_purge_batch"(604800, "orders_maintain"."batch_size") AS "p";
    SELECT "r"."released", "r"."dead_lettered" INTO "released", "dead_lettered"
    -- reap takes at most the queue's max_batch_size (1000).
    FROM "pgs_obq"."orders_reap"(least("orders_maintain"."batch_size", 1000)) AS "r";
    SELECT "w"."old_watermark", "w"."new_watermark" INTO "old_watermark", "new_watermark"
    FROM "pgs_obq"."orders_watermark_correct"() AS "w";
    "more" := "archived" + "processed" + "dead" >= "orders_maintain"."batch_size"
              OR "released" + "dead_lettered" >= least("orders_maintain"."batch_size", 1000);
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_maintain" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_maintain" FROM PUBLIC;

-- qgen 0.1.0: redrive pgs_obq.orders_redrive, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Puts dead-lettered jobs back into the queue as new jobs: a new id, attempts 0, available now,
-- their last error kept. Either the dead jobs with these ids, or (redrive_all) every dead job
-- after after_id, in the order they died; at most batch_size per call: last_id is the last
-- dead-letter entry looked at (its entry_id: a job id can repeat there), to pass as after_id to
-- the next call. Each job is inserted and removed from the dead-letter
-- table in this one transaction, so it is redriven once: a second call finds nothing, and a
-- concurrent one waits and then finds it gone.
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_redrive"
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
    IF "orders_redrive"."batch_size" IS NULL OR "orders_redrive"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("orders_redrive"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF ("orders_redrive"."ids" IS NOT NULL) = coalesce("orders_redrive"."redrive_all", FALSE) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: redrive takes either ids or redrive_all => true, not both and not neither';
    END IF;
    "redriven" := 0;
    "skipped_duplicates" := 0;
    FOR v$dead IN
        SELECT "x".*
        FROM "pgs_obq"."orders_dead" AS "x"
        WHERE ("orders_redrive"."redrive_all" AND "x"."entry_id" > coalesce("orders_redrive"."after_id", 0))
           OR "x"."id" = ANY ("orders_redrive"."ids")
        ORDER BY "x"."entry_id"
        LIMIT "orders_redrive"."batch_size"
        FOR UPDATE OF "x"
    LOOP
        "last_id" := v$dead."entry_id";
        INSERT INTO "pgs_obq"."orders" ("order_no", "attempts", "available_at", "last_error")
        VALUES (v$dead."order_no", 0, now(), v$dead."last_error");
        IF FOUND THEN
            DELETE FROM "pgs_obq"."orders_dead" AS "x" WHERE "x"."entry_id" = v$dead."entry_id";
            "redriven" := "redriven" + 1;
        ELSE
            "skipped_duplicates" := "skipped_duplicates" + 1;
        END IF;
    END LOOP;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_redrive" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_redrive" FROM PUBLIC;

-- qgen 0.1.0: dead_letters pgs_obq.orders_dead_letters, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first (the order they arrived in: the key backwards, which stops after
-- "limit" rows), with the error each died of: at most "limit" rows (1 to 1000). Reads only: a plain snapshot read, which takes no row lock, never waits on
-- one and makes no fail, reap, redrive or purge wait. "limit" is a reserved word: by name it is
-- passed as "limit" => n.
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_dead_letters"
(
    "limit" integer DEFAULT 100
)
RETURNS TABLE
(
    "id" bigint,
    "order_no" varchar(30),
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
    IF "orders_dead_letters"."limit" IS NULL OR "orders_dead_letters"."limit" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit ' || coalesce("orders_dead_letters"."limit"::text, 'NULL') || ' is out of range for pgs_obq.orders_dead_letters; accepted: 1 to 1000 rows';
    END IF;
    RETURN QUERY
    SELECT "x"."id", "x"."order_no", "x"."enqueued_at", "x"."attempts", "x"."dead_at",
        "x"."last_error"::text
    FROM "pgs_obq"."orders_dead" AS "x"
    ORDER BY "x"."entry_id" DESC
    LIMIT "orders_dead_letters"."limit";
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_dead_letters" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_dead_letters" FROM PUBLIC;

-- qgen 0.1.0: job pgs_obq.orders_job, rendered for PostgreSQL from spec.yaml.
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
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_job"
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
    IF "orders_job"."job_id" IS NULL OR "orders_job"."job_id" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: job_id ' || coalesce("orders_job"."job_id"::text, 'NULL') || ' is out of range for pgs_obq.orders_job; accepted: a job id, 1 or more';
    END IF;
    RETURN QUERY
    SELECT "j"."id", CASE WHEN "j"."lease_token" IS NOT NULL THEN 'in_flight' WHEN "j"."available_at" > now() THEN 'scheduled' ELSE 'queued' END,
        "j"."enqueued_at", "j"."available_at",
        "j"."attempts", "j"."lease_owner"::text, "j"."lease_expires_at",
        "j"."last_error"::text, NULL::timestamptz
    FROM "pgs_obq"."orders" AS "j"
    WHERE "j"."id" = "orders_job"."job_id";
    IF FOUND THEN
        RETURN;
    END IF;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is restarted.
    RETURN QUERY
    SELECT "x"."id", 'dead'::text, "x"."enqueued_at", NULL::timestamptz, "x"."attempts", NULL::text, NULL::timestamptz,
        "x"."last_error"::text, "x"."dead_at"
    FROM "pgs_obq"."orders_dead" AS "x"
    WHERE "x"."id" = "orders_job"."job_id"
    ORDER BY "x"."entry_id" DESC
    LIMIT 1;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "a"."id", 'archived'::text, "a"."enqueued_at", NULL::timestamptz, "a"."attempts", NULL::text, NULL::timestamptz,
        NULL::text, "a"."completed_at"
    FROM "pgs_obq"."orders_archive" AS "a"
    WHERE "a"."id" = "orders_job"."job_id"
    ORDER BY "a"."entry_id" DESC
    LIMIT 1;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "orders_job"."job_id", 'not_found'::text, NULL::timestamptz, NULL::timestamptz, NULL::integer, NULL::text, NULL::timestamptz,
        NULL::text, NULL::timestamptz;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_job" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_job" FROM PUBLIC;

-- qgen 0.1.0: release pgs_obq.orders_release, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With id, that
-- job; with ids, those of them the lease holds (primary-key lookups); with neither, every job
-- of the lease (a search of the whole table: no index holds tokens). The token is the fence: a
-- job whose lease was released, taken over or finished gets QG001. last_error is kept (no failure happened).
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_release"
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
    LOCK TABLE "pgs_obq"."orders_watermark" IN ROW SHARE MODE;
    IF "orders_release"."id" IS NOT NULL THEN
        WITH "freed" AS
        (
            UPDATE "pgs_obq"."orders" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."id" = "orders_release"."id" AND "job"."lease_token" = "orders_release"."lease_token"
            RETURNING "job"."id"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f")
        INTO v$released, v$lowest;
    ELSIF "orders_release"."ids" IS NOT NULL THEN
        WITH "freed" AS
        (
            UPDATE "pgs_obq"."orders" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."id" = ANY ("orders_release"."ids") AND "job"."lease_token" = "orders_release"."lease_token"
            RETURNING "job"."id"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f")
        INTO v$released, v$lowest;
    ELSE
        WITH "freed" AS
        (
            UPDATE "pgs_obq"."orders" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."lease_token" = "orders_release"."lease_token"
            RETURNING "job"."id"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f")
        INTO v$released, v$lowest;
    END IF;
    IF v$released = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_obq.orders: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    -- Released jobs are claimable again: the watermark must not stay above them.
    IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        FOR v$try IN 1 .. 5 LOOP
            PERFORM 1 FROM "pgs_obq"."orders_watermark" AS "w" WHERE "w"."id" > v$lowest FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE "pgs_obq"."orders_watermark" AS "w" SET "id" = v$lowest WHERE "w"."id" > v$lowest;
                EXIT;
            END IF;
            -- Not taken: either nothing to lower, or another transaction holds the row.
            EXIT WHEN NOT EXISTS (SELECT 1 FROM "pgs_obq"."orders_watermark" AS "w" WHERE "w"."id" > v$lowest);
            PERFORM pg_catalog.pg_sleep(0.01);
        END LOOP;
    END IF;
    RETURN v$released;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_release" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_release" FROM PUBLIC;

-- qgen 0.1.0: pause pgs_obq.orders_pause, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job. Enqueues go on, and leases already granted run to their end (complete, fail,
-- extend_lease, release and reap work as before). Returns 1 when this call paused the queue, 0
-- when it was paused already.
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_pause"()
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
    SELECT "c"."paused" INTO v$was FROM "pgs_obq"."orders_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "pgs_obq"."orders_control" ("paused", "changed_at", "changed_by")
        VALUES (TRUE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "pgs_obq"."orders_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = TRUE THEN
        RETURN 0;
    END IF;
    UPDATE "pgs_obq"."orders_control" AS "c"
    SET "paused" = TRUE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_obq.orders: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_pause" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_pause" FROM PUBLIC;

-- qgen 0.1.0: resume pgs_obq.orders_resume, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again. Returns 1 when this call
-- resumed the queue, 0 when it was not paused.
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_resume"()
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
    SELECT "c"."paused" INTO v$was FROM "pgs_obq"."orders_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "pgs_obq"."orders_control" ("paused", "changed_at", "changed_by")
        VALUES (FALSE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "pgs_obq"."orders_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = FALSE THEN
        RETURN 0;
    END IF;
    UPDATE "pgs_obq"."orders_control" AS "c"
    SET "paused" = FALSE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_obq.orders: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_resume" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_resume" FROM PUBLIC;

-- qgen 0.1.0: cancel pgs_obq.orders_cancel, rendered for PostgreSQL from spec.yaml.
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
CREATE OR REPLACE FUNCTION "pgs_obq"."orders_cancel"
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
    IF "orders_cancel"."ids" IS NULL OR EXISTS (SELECT 1 FROM pg_catalog.unnest("orders_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NULL OR "a"."id" < 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: ids must be an array of job ids (whole numbers from 1)';
    END IF;
    IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_obq.orders: cancel at REPEATABLE READ or SERIALIZABLE would answer from the transaction''s snapshot, which does not show a job enqueued since (it would say not_queued of a job that then runs); run it at READ COMMITTED';
    END IF;
    IF (SELECT count(DISTINCT "a"."id") FROM pg_catalog.unnest("orders_cancel"."ids") AS "a" ("id")) > 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: ids lists more than 4000 jobs; accepted: 1 to 4000 per call';
    END IF;
    RETURN QUERY
    WITH "asked" AS
    (
        SELECT DISTINCT "a"."id" FROM pg_catalog.unnest("orders_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NOT NULL
    ),
    "found" AS
    (
        -- The rows by their id, locked (waiting for a completion's short lock).
        SELECT "job"."id"
        FROM "pgs_obq"."orders" AS "job"
        WHERE "job"."id" IN (SELECT "a"."id" FROM "asked" AS "a")
        ORDER BY "job"."id"
        FOR UPDATE
    ),
    "gone" AS
    (
        DELETE FROM "pgs_obq"."orders" AS "job"
        USING "found" AS "f"
        WHERE "job"."id" = "f"."id"
        RETURNING "job".*
    ),
    "dead" AS
    (
        INSERT INTO "pgs_obq"."orders_dead" ("id", "order_no", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."order_no", "g"."enqueued_at", "g"."attempts", 'cancelled', pg_catalog.clock_timestamp()
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
            MESSAGE = 'qgen: refused on pgs_obq.orders: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again';
END
$qgen$;
ALTER FUNCTION "pgs_obq"."orders_cancel" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."orders_cancel" FROM PUBLIC;

-- qgen 0.1.0: claim_index pgs_obq.invoices_claim_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Rows in claim order, leased ones included (a claim writes no column this index names: a HOT
-- update); a claim starts at the watermark and steps over the jobs in flight there.
-- Deferred jobs (delayed, or released with a backoff) are left out of it: see the due index below.
CREATE INDEX IF NOT EXISTS "invoices_claim_ix"
    ON "pgs_obq"."invoices" ("id")
    WHERE "available_at" <= "enqueued_at"
    ;
-- The due index: deferred jobs not yet claimed (a claim takes a job out of it), by the time they
-- become available. A claim takes the due ones from here first, so however many wait for their
-- time, no claim and no watermark steps over them.
CREATE INDEX IF NOT EXISTS "invoices_claim_ix_due"
    ON "pgs_obq"."invoices" ("available_at", "id")
    WHERE "available_at" > "enqueued_at";

-- qgen 0.1.0: dead_letter_table pgs_obq.invoices_dead, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: "id" is the job's id, which repeats once the queue's identity is restarted.
CREATE TABLE IF NOT EXISTS "pgs_obq"."invoices_dead"
(
    "entry_id" bigint GENERATED ALWAYS AS IDENTITY,
    "id" bigint NOT NULL,
    "order_no" varchar(30) NOT NULL,
    "total" numeric(12, 2) NOT NULL,
    "enqueued_at" timestamptz NOT NULL,
    "enqueued_by" varchar(128) NULL,
    "claimed_at" timestamptz NULL,
    "claimed_by" varchar(128) NULL,
    "attempts" integer NOT NULL,
    "last_error" varchar(4000) NULL,
    "dead_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("entry_id")
);
ALTER TABLE "pgs_obq"."invoices_dead" OWNER TO "pgs_obq_owner";

-- qgen 0.1.0: dedupe_index pgs_obq.invoices_dedupe_ux, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there.
CREATE UNIQUE INDEX IF NOT EXISTS "invoices_dedupe_ux"
    ON "pgs_obq"."invoices" ("order_no");

-- qgen 0.1.0: watermark_table pgs_obq.invoices_watermark, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their index range here instead of
-- walking the dead index entries that claimed or deleted rows leave at the low end.
CREATE TABLE IF NOT EXISTS "pgs_obq"."invoices_watermark"
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
ALTER TABLE "pgs_obq"."invoices_watermark" OWNER TO "pgs_obq_owner";
INSERT INTO "pgs_obq"."invoices_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dead_letter_index pgs_obq.invoices_dead_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
CREATE INDEX IF NOT EXISTS "invoices_dead_ix"
    ON "pgs_obq"."invoices_dead" ("dead_at");
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
CREATE INDEX IF NOT EXISTS "invoices_dead_id_ix"
    ON "pgs_obq"."invoices_dead" ("id");

-- qgen 0.1.0: pending_view pgs_obq.invoices_pending, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "pgs_obq"."invoices_pending" AS
SELECT "job"."id", "job"."order_no", "job"."total", "job"."available_at", "job"."enqueued_at", "job"."enqueued_by", "job"."attempts", "job"."last_error"
FROM "pgs_obq"."invoices" AS "job"
WHERE "job"."lease_token" IS NULL;
ALTER VIEW "pgs_obq"."invoices_pending" OWNER TO "pgs_obq_owner";

-- qgen 0.1.0: batch_type pgs_obq.invoices_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) when missing, and the table rejects a missing required column.
-- Its string and decimal fields have no length or scale (m.param_type): reading a job into
-- varchar(n) or numeric(p,s) would cut or round a value past its column before enqueue_batch
-- could refuse it (QG010).
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"pgs_obq"."invoices_batch"') IS NULL THEN
        CREATE TYPE "pgs_obq"."invoices_batch" AS
        (
            "ordinal" integer,
            "order_no" varchar,
            "total" numeric
        );
    END IF;
END
$qgen$;
ALTER TYPE "pgs_obq"."invoices_batch" OWNER TO "pgs_obq_owner";

-- qgen 0.1.0: enqueue pgs_obq.invoices_enqueue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_enqueue"
(
    "order_no" varchar(30),
    "total" numeric(12, 2),
    "enqueued_by" varchar(128) DEFAULT NULL
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF pg_catalog.length("invoices_enqueue"."order_no") > 30 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: order_no is past its column''s limit in pgs_obq.invoices_enqueue; accepted: string(30), at most 30 characters';
    END IF;
    IF (pg_catalog.abs("invoices_enqueue"."total") >= 10000000000 OR "invoices_enqueue"."total" <> pg_catalog.round("invoices_enqueue"."total", 2)) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: total is past its column''s limit in pgs_obq.invoices_enqueue; accepted: decimal(12,2), at most 10 digits before the point and 2 after, never rounded';
    END IF;
    IF pg_catalog.length("invoices_enqueue"."enqueued_by") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: enqueued_by is past its column''s limit in pgs_obq.invoices_enqueue; accepted: string(128), at most 128 characters';
    END IF;
    -- ON CONFLICT waits for a concurrent insert of the same key to commit or roll back, so two
    -- sessions can never both enqueue it, and no subtransaction is needed to catch the violation.
    -- The existing row can be finished and deleted between the conflict and the lookup: then try again.
    LOOP
        INSERT INTO "pgs_obq"."invoices" AS "job" ("order_no", "total", "enqueued_by")
            VALUES ("invoices_enqueue"."order_no", "invoices_enqueue"."total", coalesce("invoices_enqueue"."enqueued_by", session_user::text))
            ON CONFLICT ("order_no") DO NOTHING
            RETURNING "job"."id" INTO "id";
        IF FOUND THEN
            "enqueued" := TRUE;
            RETURN NEXT;
            RETURN;
        END IF;
        SELECT "e"."id" INTO "id"
        FROM "pgs_obq"."invoices" AS "e"
        WHERE "e"."order_no" = "invoices_enqueue"."order_no";
        IF FOUND THEN
            "enqueued" := FALSE;
            RETURN NEXT;
            RETURN;
        END IF;
    END LOOP;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_enqueue" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_enqueue" FROM PUBLIC;

-- qgen 0.1.0: enqueue_batch pgs_obq.invoices_enqueue_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job: a job already
-- queued, or repeated earlier in the batch, returns that id with enqueued = false.
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_enqueue_batch"
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
    v$sequence regclass := pg_catalog.pg_get_serial_sequence('"pgs_obq"."invoices"', 'id')::regclass;
    v$over integer;
    v$over_column text;
    v$ordinal integer;
    v$id bigint;
    v$enqueued boolean;
    v$key_1 varchar(30);
BEGIN

    IF pg_catalog.length("invoices_enqueue_batch"."enqueued_by") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: enqueued_by is past its column''s limit in pgs_obq.invoices_enqueue_batch; accepted: string(128), at most 128 characters';
    END IF;

    SELECT coalesce("j"."ordinal", "e"."position$"::integer),
           CASE WHEN pg_catalog.length("j"."order_no") > 30 THEN 'order_no; accepted: string(30), at most 30 characters' WHEN (pg_catalog.abs("j"."total") >= 10000000000 OR "j"."total" <> pg_catalog.round("j"."total", 2)) THEN 'total; accepted: decimal(12,2), at most 10 digits before the point and 2 after, never rounded' END
    INTO v$over, v$over_column
    FROM jsonb_array_elements("invoices_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
    CROSS JOIN LATERAL jsonb_populate_record(NULL::"pgs_obq"."invoices_batch", "e"."job$") AS "j"
    WHERE pg_catalog.length("j"."order_no") > 30 OR (pg_catalog.abs("j"."total") >= 10000000000 OR "j"."total" <> pg_catalog.round("j"."total", 2))
    ORDER BY "e"."position$"
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = pg_catalog.format('qgen: job %s of the batch has a value past its column''s limit in pgs_obq.invoices_enqueue_batch: column %s', v$over, v$over_column);
    END IF;
    FOR v$ordinal, v$id, v$enqueued, v$key_1 IN
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "e"."position$"::integer) AS "ordinal",
                   "j"."order_no", "j"."total"
            -- The array position and the new id are qgen's own columns beside the job's: their names
            -- hold a $, which no spec column can.
            FROM jsonb_array_elements("invoices_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
            CROSS JOIN LATERAL jsonb_populate_record(NULL::"pgs_obq"."invoices_batch", "e"."job$") AS "j"
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
            INSERT INTO "pgs_obq"."invoices" AS "job" ("id", "order_no", "total", "enqueued_by")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new$id", "n"."order_no", "n"."total", coalesce("invoices_enqueue_batch"."enqueued_by", session_user::text)
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            -- A key already queued, or repeated in the batch, is skipped here and reported below.
            ON CONFLICT ("order_no") DO NOTHING
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal",
               CASE WHEN "k"."id" IS NOT NULL THEN "n"."new$id"
                    ELSE coalesce(
                        -- A job queued before this statement ...
                        (SELECT "e"."id" FROM "pgs_obq"."invoices" AS "e" WHERE "e"."order_no" = "n"."order_no"),
                        -- ... or the first job of this batch with that key.
                        (SELECT min("d"."new$id") FROM "numbered" AS "d" INNER JOIN "inserted" AS "x" ON "x"."id" = "d"."new$id"
                         WHERE "d"."order_no" = "n"."order_no"))
               END,
               "k"."id" IS NOT NULL,
               "n"."order_no"

        FROM "numbered" AS "n"
        LEFT JOIN "inserted" AS "k" ON "k"."id" = "n"."new$id"
        ORDER BY "n"."ordinal"
    LOOP
        IF v$id IS NULL THEN
            -- Another session committed this key while the statement ran (ON CONFLICT saw it, the
            -- statement's snapshot did not): a new statement sees it.
            SELECT "e"."id" INTO v$id
            FROM "pgs_obq"."invoices" AS "e"
            WHERE "e"."order_no" = v$key_1;
        END IF;
        "ordinal" := v$ordinal;
        "id" := v$id;
        "enqueued" := v$enqueued;
        RETURN NEXT;
    END LOOP;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_enqueue_batch" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: watermark_move pgs_obq.invoices_watermark_move, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_watermark_move"
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
    v$target bigint := "invoices_watermark_move"."claimed_from" - 50;
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
    SELECT "w"."id" INTO v$current FROM "pgs_obq"."invoices_watermark" AS "w";
    IF NOT FOUND OR v$current >= v$target THEN
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM "pgs_obq"."invoices" AS "job"
               WHERE "job"."id" = v$current AND ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp()) AND "job"."available_at" <= "job"."enqueued_at") THEN
        RETURN;
    END IF;
    -- SKIP LOCKED: a session already moving it (or a release lowering it) wins; this one skips.
    SELECT "w"."id" INTO v$current FROM "pgs_obq"."invoices_watermark" AS "w" FOR UPDATE SKIP LOCKED;
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
    FROM "pgs_obq"."invoices" AS "job"
    WHERE "job"."id" >= v$current AND "job"."id" < v$target AND ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp()) AND "job"."available_at" <= "job"."enqueued_at";
    UPDATE "pgs_obq"."invoices_watermark" AS "w"
    SET "id" = coalesce(v$lowest, v$target)
    WHERE "w"."id" < coalesce(v$lowest, v$target);
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_watermark_move" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_watermark_move" FROM PUBLIC;

-- qgen 0.1.0: watermark_correct pgs_obq.invoices_watermark_correct, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids (the slack, for inserts still in flight) below
-- the lowest unclaimed id, or below the next id when every row is claimed or gone (the table's highest
-- id, or its identity when it is empty), never below 0. It repairs a watermark that is wrong either
-- way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it after a
-- drain (run it after a dequeue that found nothing) and for a watermark set by hand.
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_watermark_correct"()
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
        SELECT "w"."id" INTO "old_watermark" FROM "pgs_obq"."invoices_watermark" AS "w" FOR UPDATE SKIP LOCKED;
        v$held := NOT FOUND AND EXISTS (SELECT 1 FROM "pgs_obq"."invoices_watermark");
    EXCEPTION WHEN serialization_failure THEN
        v$held := TRUE;
    END;
    IF v$held THEN
        SELECT "w"."id", "w"."id" INTO "old_watermark", "new_watermark" FROM "pgs_obq"."invoices_watermark" AS "w";
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
    SELECT min("job"."id") INTO v$new FROM "pgs_obq"."invoices" AS "job" WHERE ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp()) AND "job"."available_at" <= "job"."enqueued_at";
    IF v$new IS NULL THEN
        SELECT max("job"."id") + 1 INTO v$new FROM "pgs_obq"."invoices" AS "job";
    END IF;
    IF v$new IS NULL THEN
        -- Drained: the next id comes from the identity. Left where it was, a watermark a release
        -- had lowered would make every claim walk the whole drained range again.
        v$new := pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence('"pgs_obq"."invoices"', 'id')::regclass) + 1;
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
    FROM "pgs_obq"."invoices" AS "d"
    WHERE "d"."available_at" > "d"."enqueued_at" AND "d"."available_at" < (SELECT "b"."due_from" FROM "pgs_obq"."invoices_watermark" AS "b")
    ORDER BY "d"."available_at"
    LIMIT 1;
    IF "old_watermark" IS NULL THEN
        -- The row was deleted by hand: put it back.
        INSERT INTO "pgs_obq"."invoices_watermark" ("id", "corrected_at") VALUES ("invoices_watermark_correct"."new_watermark", coalesce(v$searched, '-infinity'))
        ON CONFLICT DO NOTHING;
    ELSE
        UPDATE "pgs_obq"."invoices_watermark" AS "w" SET "id" = "invoices_watermark_correct"."new_watermark", "corrected_at" = coalesce(v$searched, "w"."corrected_at"),
            -- It counts as a rescan (corrected_at): lower the due bound as the rescan does.
            "due_from" = least("w"."due_from", coalesce(v$due_low, "w"."due_from"));
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_watermark_correct" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_watermark_correct" FROM PUBLIC;

-- qgen 0.1.0: control_table pgs_obq.invoices_control, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which role). Every
-- claim reads it first (a plain read: a pause or resume counts from its commit, and no claim waits
-- on one left open). A missing row (deleted by hand) reads as running.
CREATE TABLE IF NOT EXISTS "pgs_obq"."invoices_control"
(
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    "paused" boolean NOT NULL DEFAULT FALSE,
    "changed_at" timestamptz NULL,
    "changed_by" varchar(128) NULL,
    PRIMARY KEY ("one_row")
);
ALTER TABLE "pgs_obq"."invoices_control" OWNER TO "pgs_obq_owner";
INSERT INTO "pgs_obq"."invoices_control" ("paused") VALUES (FALSE) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dequeue pgs_obq.invoices_dequeue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"pgs_obq"."invoices_dequeue_row"') IS NULL THEN
        CREATE TYPE "pgs_obq"."invoices_dequeue_row" AS
        (
            "id" bigint,
            "order_no" varchar(30),
            "total" numeric(12, 2),
            "attempts" integer,
            "lease_token" uuid,
            "lease_expires_at" timestamptz
        );
    END IF;
END
$qgen$;
ALTER TYPE "pgs_obq"."invoices_dequeue_row" OWNER TO "pgs_obq_owner";
-- Claims up to batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With complete_lease_token it first completes that lease's jobs as complete does, in the same
-- transaction: one commit per batch instead of two; complete_ids names them (primary-key lookups;
-- without it the whole table is searched for the token). A token that holds none of them raises
-- QG001 and nothing is claimed. A job whose lease expired is claimed again like a new one (the
-- old worker's token no longer holds it); one that was on its last attempt is
-- dead-lettered here instead of being handed out, and another claimed in its place.
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 10,
    "lease_seconds" integer DEFAULT 300,
    "complete_lease_token" uuid DEFAULT NULL,
    "complete_ids" bigint[] DEFAULT NULL
)
RETURNS SETOF "pgs_obq"."invoices_dequeue_row"
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
    v$want integer := "invoices_dequeue"."batch_size";
    v$exhausted bigint[];
    -- The previous lease's jobs this call completes by id (in its first claim statement).
    v$ids bigint[];
    v$start bigint;
    v$top bigint;
    v$rows "pgs_obq"."invoices_dequeue_row"[];
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
    IF "invoices_dequeue"."batch_size" IS NULL OR "invoices_dequeue"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for pgs_obq.invoices_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("invoices_dequeue"."batch_size"::text, 'NULL'));
    END IF;
    IF pg_catalog.length("invoices_dequeue"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in pgs_obq.invoices_dequeue; accepted: string(128), at most 128 characters';
    END IF;
    IF "invoices_dequeue"."lease_seconds" IS NULL OR "invoices_dequeue"."lease_seconds" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: lease_seconds ' || coalesce("invoices_dequeue"."lease_seconds"::text, 'NULL') || ' is out of range; accepted: 1 or more seconds';
    END IF;
    IF "invoices_dequeue"."complete_lease_token" IS NOT NULL THEN
        -- Named by id: completed by the claim statement below. Otherwise: a search for the token.
        v$ids := "invoices_dequeue"."complete_ids";
        IF v$ids IS NULL THEN
            DELETE FROM "pgs_obq"."invoices" AS "job"
            WHERE "job"."lease_token" = "invoices_dequeue"."complete_lease_token";
            GET DIAGNOSTICS v$completed = ROW_COUNT;
            IF v$completed = 0 THEN
                RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_obq.invoices: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
            END IF;
        END IF;
    END IF;
    -- Paused (pause, resume): complete what was asked, claim nothing.
    IF NOT EXISTS (SELECT 1 FROM "pgs_obq"."invoices_control" AS "c" WHERE NOT "c"."paused") THEN
        IF v$ids IS NOT NULL THEN
            DELETE FROM "pgs_obq"."invoices" AS "job"
            WHERE "job"."id" = ANY (v$ids) AND "job"."lease_token" = "invoices_dequeue"."complete_lease_token";
            GET DIAGNOSTICS v$completed = ROW_COUNT;
            IF v$completed = 0 THEN
                RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_obq.invoices: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
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
            LEFT JOIN "pgs_obq"."invoices_watermark" AS "w" ON TRUE
        ),
        "done" AS
        (
            DELETE FROM "pgs_obq"."invoices" AS "job"
            WHERE "job"."id" = ANY (v$ids) AND "job"."lease_token" = "invoices_dequeue"."complete_lease_token"
            RETURNING "job"."id"
        ),
        "due" AS MATERIALIZED
        (
            -- Deferred jobs (delayed, or released with a backoff) whose time has come, first: they are not
            -- in the claim index, and the watermark passes them. The due index holds only those not yet
            -- claimed, by available_at: while none is due this reads one page.
            SELECT "d"."id"
            FROM "pgs_obq"."invoices" AS "d"
            -- now(), not the clock: what a claim may take is judged as of its transaction's start, which
            -- can only make it take less (never a job before its time, never a live lease); the leases it
            -- grants are timed from the clock. A stable now() also keeps the planner's estimates, and with
            -- them the seeks tests/test_claim_cost.py holds (with clock_timestamp() the job-type claim
            -- walked 142 buffers where it walks 11).
            WHERE ("d"."lease_token" IS NULL OR "d"."lease_expires_at" < now()) AND "d"."available_at" <= now() AND "d"."available_at" > "d"."enqueued_at"
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
            FROM "pgs_obq"."invoices" AS "next"
            WHERE ("next"."lease_token" IS NULL OR "next"."lease_expires_at" < now())
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
            UPDATE "pgs_obq"."invoices" AS "job"
            SET "lease_token" = CASE WHEN "job"."lease_token" IS NOT NULL AND "job"."attempts" >= 5 THEN v$spent ELSE v$token END,
                "lease_owner" = "invoices_dequeue"."owner",
                "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "invoices_dequeue"."lease_seconds"),
                "claimed_at" = pg_catalog.clock_timestamp(),
                "claimed_by" = coalesce("invoices_dequeue"."owner", session_user::text),
                -- A deferred job leaves the due index as it is claimed (no other claim changes an indexed column).
                "available_at" = least("job"."available_at", "job"."enqueued_at"),
                "attempts" = "job"."attempts" + 1,
                -- A job taken over from an expired lease says so (the old token no longer holds it).
                "last_error" = CASE WHEN "job"."lease_token" IS NULL THEN "job"."last_error" ELSE 'qgen: lease expired before the job was completed' END
            -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
            -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
            WHERE "job"."id" = ANY (ARRAY (SELECT "u"."id" FROM "due" AS "u" UNION ALL SELECT "r"."id" FROM "ready" AS "r"))
            RETURNING "job"."id", "job"."order_no", "job"."total", "job"."attempts", "job"."lease_token", "job"."lease_expires_at"
        )
        SELECT (SELECT count(*) FROM "done"), (SELECT "m"."from" FROM "mark" AS "m"), max("c"."id"),
               (SELECT "m"."due_from" FROM "mark" AS "m"), (SELECT "m"."due_move" FROM "mark" AS "m") AND EXISTS (SELECT 1 FROM "due"),
               array_agg(ROW("c"."id", "c"."order_no", "c"."total", "c"."attempts", "c"."lease_token", "c"."lease_expires_at")::"pgs_obq"."invoices_dequeue_row" ORDER BY "c"."id") FILTER (WHERE "c"."lease_token" = v$token),
               array_agg("c"."id") FILTER (WHERE "c"."lease_token" = v$spent)
        INTO v$completed, v$from, v$top, v$due_from, v$due_move, v$rows, v$exhausted
        FROM "claimed" AS "c";
        IF v$ids IS NOT NULL THEN
            -- The previous lease: a token that held none of its jobs claims nothing (this rolls back).
            IF v$completed = 0 THEN
                RAISE EXCEPTION USING ERRCODE = 'QG001',
                    MESSAGE = 'qgen: lease lost on pgs_obq.invoices: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
            END IF;
            v$ids := NULL;
        END IF;
        IF v$from IS NULL THEN
            -- A rescan is due, or the watermark row is missing: every 10 s, look below the
            -- watermark first for jobs it passed (see the macro watermark_start), then claim from there.
            SELECT "w"."id", "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) INTO v$from, v$rescan FROM "pgs_obq"."invoices_watermark" AS "w";
            IF NOT FOUND THEN
                v$from := 0;
                INSERT INTO "pgs_obq"."invoices_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;
            ELSIF v$rescan AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
                -- Only at READ COMMITTED: at REPEATABLE READ or SERIALIZABLE the search would read the
                -- transaction's first snapshot, and locking a row another worker changed since fails the
                -- caller's whole transaction (40001); a READ COMMITTED dequeue or maintain rescans instead.
                SELECT "w"."id", pg_catalog.clock_timestamp() INTO v$mark, v$searched
                FROM "pgs_obq"."invoices_watermark" AS "w" WHERE "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) FOR UPDATE SKIP LOCKED;
                IF FOUND THEN
                    -- A statement of its own: its snapshot is taken after the lock, so it sees every release
                    -- committed before; one that commits later waits for this row and lowers the watermark itself.
                    -- corrected_at gets the time before the search, so a job committed after it is left to the next.
                    SELECT min("job"."id") INTO v$stranded
                    FROM "pgs_obq"."invoices" AS "job"
                    WHERE "job"."id" < v$mark AND ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp()) AND "job"."available_at" <= "job"."enqueued_at";
                    -- Below the due index's bound: a deferred job written past the routines may be due before it.
                    SELECT "d"."available_at" INTO v$due_low
                    FROM "pgs_obq"."invoices" AS "d"
                    WHERE "d"."available_at" > "d"."enqueued_at" AND "d"."available_at" < (SELECT "b"."due_from" FROM "pgs_obq"."invoices_watermark" AS "b")
                    ORDER BY "d"."available_at"
                    LIMIT 1;
                    UPDATE "pgs_obq"."invoices_watermark" AS "w"
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
            DELETE FROM "pgs_obq"."invoices" AS "job"
            WHERE "job"."id" = ANY (v$exhausted) AND "job"."lease_token" = v$spent
            RETURNING "job".*
        )
        INSERT INTO "pgs_obq"."invoices_dead" ("id", "order_no", "total", "enqueued_at", "enqueued_by", "claimed_at", "claimed_by", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."order_no", "g"."total", "g"."enqueued_at", "g"."enqueued_by", "g"."claimed_at", "g"."claimed_by", "g"."attempts" - 1, 'qgen: lease expired on the last attempt', pg_catalog.clock_timestamp()
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
            LOCK TABLE "pgs_obq"."invoices_watermark" IN EXCLUSIVE MODE NOWAIT;
            v$due_clock := pg_catalog.clock_timestamp();
            -- Ends the block: rolling back its subtransaction releases the lock at once.
            RAISE EXCEPTION USING ERRCODE = 'lock_not_available';
        EXCEPTION WHEN lock_not_available THEN
            NULL;
        END;
        IF v$due_clock IS NOT NULL THEN
            SELECT "d"."available_at" INTO v$due_low
            FROM "pgs_obq"."invoices" AS "d"
            WHERE "d"."available_at" > "d"."enqueued_at" AND "d"."available_at" >= v$due_from
            ORDER BY "d"."available_at"
            LIMIT 1;
            -- SKIP LOCKED: a session that holds the row (a watermark move in an open transaction) wins.
            PERFORM 1 FROM "pgs_obq"."invoices_watermark" AS "w" FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE "pgs_obq"."invoices_watermark" AS "w"
                SET "due_from" = greatest("w"."due_from", least(v$due_clock, coalesce(v$due_low, v$due_clock))),
                    "due_moved_at" = v$due_clock;
            END IF;
        END IF;
    END IF;
    -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
    -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
    -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
    IF v$highest - v$from >= 150 THEN
        PERFORM "pgs_obq"."invoices_watermark_move"(v$highest);
    END IF;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_dequeue" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_dequeue" FROM PUBLIC;

-- qgen 0.1.0: complete pgs_obq.invoices_complete, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: deletes them. With id, only that job; with ids, those of
-- them the lease holds (primary-key lookups); with neither, every job of the lease, which needs a
-- search of the whole table for the token (no index holds tokens: a claim writes no indexed column). The token is the fence: a worker whose lease was released or taken over gets QG001.
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_complete"
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
    IF "invoices_complete"."id" IS NULL THEN
        IF "invoices_complete"."ids" IS NULL THEN
            DELETE FROM "pgs_obq"."invoices" AS "job"
            WHERE "job"."lease_token" = "invoices_complete"."lease_token";
            GET DIAGNOSTICS v$completed = ROW_COUNT;
        ELSE
            DELETE FROM "pgs_obq"."invoices" AS "job"
            WHERE "job"."id" = ANY ("invoices_complete"."ids") AND "job"."lease_token" = "invoices_complete"."lease_token";
            GET DIAGNOSTICS v$completed = ROW_COUNT;
        END IF;
    ELSE
        DELETE FROM "pgs_obq"."invoices" AS "job"
        WHERE "job"."id" = "invoices_complete"."id" AND "job"."lease_token" = "invoices_complete"."lease_token";
        GET DIAGNOSTICS v$completed = ROW_COUNT;
    END IF;
    IF v$completed = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_obq.invoices: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$completed;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_complete" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_complete" FROM PUBLIC;

-- qgen 0.1.0: fail pgs_obq.invoices_fail, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 5) and retry it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_fail"
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
    v$error text := pg_catalog.left("invoices_fail"."error", 4000);
    v$gone integer;
BEGIN
    -- NULL is not "no retry": refused, so a caller passing an unset flag does not dead-letter the job.
    IF "invoices_fail"."retry" IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: retry NULL is out of range; accepted: true or false';
    END IF;
    IF "invoices_fail"."retry" THEN
        -- The job is deferred again: no earlier than the clock read under this lock (postgres__due_bound_move).
        LOCK TABLE "pgs_obq"."invoices_watermark" IN ROW SHARE MODE;
        UPDATE "pgs_obq"."invoices" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL,
            "last_error" = v$error,
            "available_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => least(3600::float8, 10 * power(2::float8, least("job"."attempts" - 1, 60))))
        WHERE "job"."id" = "invoices_fail"."id" AND "job"."lease_token" = "invoices_fail"."lease_token"
          AND "job"."attempts" < 5;
        IF FOUND THEN
            -- The job is claimable again: the watermark must not stay above it.
            IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
                FOR v$try IN 1 .. 5 LOOP
                    PERFORM 1 FROM "pgs_obq"."invoices_watermark" AS "w" WHERE "w"."id" > "invoices_fail"."id" FOR UPDATE SKIP LOCKED;
                    IF FOUND THEN
                        UPDATE "pgs_obq"."invoices_watermark" AS "w" SET "id" = "invoices_fail"."id" WHERE "w"."id" > "invoices_fail"."id";
                        EXIT;
                    END IF;
                    -- Not taken: either nothing to lower, or another transaction holds the row.
                    EXIT WHEN NOT EXISTS (SELECT 1 FROM "pgs_obq"."invoices_watermark" AS "w" WHERE "w"."id" > "invoices_fail"."id");
                    PERFORM pg_catalog.pg_sleep(0.01);
                END LOOP;
            END IF;
            RETURN 0;
        END IF;
    END IF;
    -- No retry (asked, or attempts used up), or the token does not hold the job: then nothing matches.
    WITH "gone" AS
    (
        DELETE FROM "pgs_obq"."invoices" AS "job"
        WHERE "job"."id" = "invoices_fail"."id" AND "job"."lease_token" = "invoices_fail"."lease_token"
        RETURNING "job".*
    )
    INSERT INTO "pgs_obq"."invoices_dead" ("id", "order_no", "total", "enqueued_at", "enqueued_by", "claimed_at", "claimed_by", "attempts", "last_error", "dead_at")
    SELECT "g"."id", "g"."order_no", "g"."total", "g"."enqueued_at", "g"."enqueued_by", "g"."claimed_at", "g"."claimed_by", "g"."attempts", v$error, pg_catalog.clock_timestamp()
    FROM "gone" AS "g";
    GET DIAGNOSTICS v$gone = ROW_COUNT;
    IF v$gone = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_obq.invoices: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN 1;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_fail" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_fail" FROM PUBLIC;

-- qgen 0.1.0: extend_lease pgs_obq.invoices_extend_lease, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire lease_seconds from now.
-- With id, one job; with ids, those of them the lease holds (primary-key lookups); with neither,
-- every job of the lease (a search of the whole table). Only lease_expires_at changes: a HOT update.
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_extend_lease"
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
    IF "invoices_extend_lease"."lease_seconds" IS NULL OR "invoices_extend_lease"."lease_seconds" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: lease_seconds ' || coalesce("invoices_extend_lease"."lease_seconds"::text, 'NULL') || ' is out of range; accepted: 1 or more seconds';
    END IF;
    IF "invoices_extend_lease"."ids" IS NOT NULL THEN
        UPDATE "pgs_obq"."invoices" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "invoices_extend_lease"."lease_seconds")
        WHERE "job"."id" = ANY ("invoices_extend_lease"."ids") AND "job"."id" = coalesce("invoices_extend_lease"."id", "job"."id")
          AND "job"."lease_token" = "invoices_extend_lease"."lease_token";
    ELSIF "invoices_extend_lease"."id" IS NULL THEN
        -- No index holds tokens (a claim writes no indexed column): this searches the whole table.
        UPDATE "pgs_obq"."invoices" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "invoices_extend_lease"."lease_seconds")
        WHERE "job"."lease_token" = "invoices_extend_lease"."lease_token";
    ELSE
        UPDATE "pgs_obq"."invoices" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "invoices_extend_lease"."lease_seconds")
        WHERE "job"."id" = "invoices_extend_lease"."id" AND "job"."lease_token" = "invoices_extend_lease"."lease_token";
    END IF;
    GET DIAGNOSTICS v$extended = ROW_COUNT;
    IF v$extended = 0 THEN
        IF "invoices_extend_lease"."id" IS NOT NULL AND EXISTS (SELECT 1 FROM "pgs_obq"."invoices_dead" AS "d"
                                                          WHERE "d"."id" = "invoices_extend_lease"."id" AND "d"."last_error" = 'cancelled') THEN
            RAISE EXCEPTION USING ERRCODE = 'QG006',
                MESSAGE = 'qgen: job cancelled on pgs_obq.invoices: cancel took it out of the queue while its lease ran; stop working on it (its complete and fail are refused)';
        END IF;
RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_obq.invoices: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$extended;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_extend_lease" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_extend_lease" FROM PUBLIC;

-- qgen 0.1.0: reap pgs_obq.invoices_reap, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- batch_size per call: those with attempts left become claimable again, with their old token
-- cleared so the late worker is fenced off; the rest are dead-lettered.
-- No index holds leases (a claim writes no indexed column, so that it is a HOT update): reap looks
-- at the first 10 x batch_size unfinished jobs in queue order, which is where claims take jobs
-- and so where leases are. It is not what brings a job back: a claim takes over an expired lease
-- it reaches (and dequeue's rescan below the watermark finds those the watermark passed); reap
-- releases them sooner where nobody claims, and keeps metrics and the pending view current. An
-- expired lease behind more than that many jobs waits for a claim.
-- Deferred jobs (delayed, backed off) are not among them: they are never leased, and the claim
-- index that reap walks leaves them out.
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_reap"
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
BEGIN
    IF "invoices_reap"."batch_size" IS NULL OR "invoices_reap"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for pgs_obq.invoices_reap; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("invoices_reap"."batch_size"::text, 'NULL'));
    END IF;
    -- Released jobs are deferred: due at the clock read under this lock (postgres__due_bound_move).
    LOCK TABLE "pgs_obq"."invoices_watermark" IN ROW SHARE MODE;
    WITH "expired" AS
    (
        -- SKIP LOCKED: a job being completed right now is locked by its worker; leave it to finish.
        SELECT "job"."id", "job"."attempts"
        FROM "pgs_obq"."invoices" AS "job"
        WHERE "job"."id" IN
              (
                  SELECT "first"."id"
                  FROM "pgs_obq"."invoices" AS "first"
                  WHERE "first"."available_at" <= "first"."enqueued_at"
                  ORDER BY "first"."id"
                  LIMIT "invoices_reap"."batch_size" * 10
              )
          AND "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < pg_catalog.clock_timestamp()
        LIMIT "invoices_reap"."batch_size"
        FOR UPDATE SKIP LOCKED
    ),
    "freed" AS
    (
        UPDATE "pgs_obq"."invoices" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
            "last_error" = 'qgen: lease expired before the job was completed'
        FROM "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" < 5
        RETURNING "job"."id"
    ),
    "gone" AS
    (
        DELETE FROM "pgs_obq"."invoices" AS "job"
        USING "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" >= 5
        RETURNING "job".*
    ),
    "buried" AS
    (
        INSERT INTO "pgs_obq"."invoices_dead" ("id", "order_no", "total", "enqueued_at", "enqueued_by", "claimed_at", "claimed_by", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."order_no", "g"."total", "g"."enqueued_at", "g"."enqueued_by", "g"."claimed_at", "g"."claimed_by", "g"."attempts", 'qgen: lease expired on the last attempt', pg_catalog.clock_timestamp()
        FROM "gone" AS "g"
    )
    SELECT (SELECT count(*) FROM "freed"), (SELECT count(*) FROM "gone"), (SELECT min("f"."id") FROM "freed" AS "f")
    INTO "released", "dead_lettered", v$lowest;
    IF v$lowest IS NOT NULL THEN
        -- Released jobs are claimable again: the watermark must not stay above them.
        IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
            FOR v$try IN 1 .. 5 LOOP
                PERFORM 1 FROM "pgs_obq"."invoices_watermark" AS "w" WHERE "w"."id" > v$lowest FOR UPDATE SKIP LOCKED;
                IF FOUND THEN
                    UPDATE "pgs_obq"."invoices_watermark" AS "w" SET "id" = v$lowest WHERE "w"."id" > v$lowest;
                    EXIT;
                END IF;
                -- Not taken: either nothing to lower, or another transaction holds the row.
                EXIT WHEN NOT EXISTS (SELECT 1 FROM "pgs_obq"."invoices_watermark" AS "w" WHERE "w"."id" > v$lowest);
                PERFORM pg_catalog.pg_sleep(0.01);
            END LOOP;
        END IF;
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_reap" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_reap" FROM PUBLIC;

-- qgen 0.1.0: metrics pgs_obq.invoices_metrics, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_metrics"()
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
        (SELECT count(*) FROM "pgs_obq"."invoices_dead"),
        0::bigint,
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."available_at" <= now())))::bigint, 0),
        (SELECT "w"."id" FROM "pgs_obq"."invoices_watermark" AS "w"),
        min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL),
        -- on_complete: delete leaves no trace of a completion to count.
        NULL::bigint,
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        coalesce(min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL), max("job"."id") + 1)
            - (SELECT "w"."id" FROM "pgs_obq"."invoices_watermark" AS "w"),
        NOT EXISTS (SELECT 1 FROM "pgs_obq"."invoices_control" AS "c" WHERE NOT "c"."paused")
    FROM "pgs_obq"."invoices" AS "job";
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_metrics" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek pgs_obq.invoices_peek, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "pgs_obq"."invoices_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "invoices_peek"."limit" IS NULL OR "invoices_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for pgs_obq.invoices_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "pgs_obq"."invoices_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "invoices_peek"."limit";
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_peek" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_peek" FROM PUBLIC;

-- qgen 0.1.0: purge_batch pgs_obq.invoices_purge_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds: at most batch_size rows (1000 by default, refused above 4000) over all
-- those tables together, in the caller's transaction. purge (a procedure) calls it in a loop and
-- commits after each batch; a client can call it in a loop of its own, one transaction per call.
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_purge_batch"
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
    v$left integer := "invoices_purge_batch"."batch_size";
    v$deleted integer;
BEGIN
    IF "invoices_purge_batch"."batch_size" IS NULL OR "invoices_purge_batch"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("invoices_purge_batch"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF "invoices_purge_batch"."older_than_seconds" IS NULL OR "invoices_purge_batch"."older_than_seconds" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: older_than_seconds ' || coalesce("invoices_purge_batch"."older_than_seconds"::text, 'NULL') || ' is out of range; accepted: 0 or more';
    END IF;
    v$cutoff := now() - pg_catalog.make_interval(secs => "invoices_purge_batch"."older_than_seconds");
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    IF v$left > 0 THEN
        DELETE FROM "pgs_obq"."invoices_dead" AS "x"
        WHERE "x"."entry_id" = ANY (ARRAY(
            SELECT "y"."entry_id" FROM "pgs_obq"."invoices_dead" AS "y"
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
ALTER FUNCTION "pgs_obq"."invoices_purge_batch" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_purge_batch" FROM PUBLIC;

-- qgen 0.1.0: purge pgs_obq.invoices_purge, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds, one batch of at most batch_size rows at a time, and COMMITs after each batch:
-- no transaction holds more than one batch, and vacuum can clean up behind it while it runs.
-- Rows that finish while it runs (a second after it began) are left for the next purge, so it ends.
-- A procedure that commits cannot be SECURITY DEFINER nor have a SET clause: it runs with its
-- caller's rights and reaches the tables only through invoices_purge_batch (EXECUTE on that is all it
-- needs); every name in it is schema-qualified. CALL it outside a transaction block (inside one,
-- PostgreSQL refuses its COMMIT: invalid transaction termination, 2D000); there call
-- invoices_purge_batch instead.
CREATE OR REPLACE PROCEDURE "pgs_obq"."invoices_purge"
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
    "invoices_purge"."archived" := 0;
    "invoices_purge"."processed" := 0;
    "invoices_purge"."dead" := 0;
    LOOP
        -- Each batch is a new transaction with a later now(): widen the age by the whole seconds
        -- spent so far, so the cutoff stays within a second of where it was when the call began.
        SELECT * INTO v$batch
        FROM "pgs_obq"."invoices_purge_batch"(
            "invoices_purge"."older_than_seconds" + pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - v$started))::integer,
            "invoices_purge"."batch_size");
        "invoices_purge"."archived" := "invoices_purge"."archived" + v$batch."archived";
        "invoices_purge"."processed" := "invoices_purge"."processed" + v$batch."processed";
        "invoices_purge"."dead" := "invoices_purge"."dead" + v$batch."dead";
        COMMIT;
        -- A short batch: nothing older is left (or what is left is locked: the next purge takes it).
        EXIT WHEN v$batch."archived" + v$batch."processed" + v$batch."dead" < "invoices_purge"."batch_size";
    END LOOP;
END
$qgen$;
ALTER PROCEDURE "pgs_obq"."invoices_purge" OWNER TO "pgs_obq_owner";
REVOKE ALL ON PROCEDURE "pgs_obq"."invoices_purge" FROM PUBLIC;

-- qgen 0.1.0: maintain pgs_obq.invoices_maintain, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- batch_size finished jobs older than the retention (604800 s), releases up to batch_size expired
-- leases (reap), and corrects the watermark, in that order, in one transaction. Only one runs at a
-- time per queue: a caller that finds another one running returns at once with skipped = true.
-- more = true when a step filled its batch: call again (qgen maintain does) to do the rest.
-- Granted to the consumer role, so any worker can run it (run_worker does, every few seconds).
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_maintain"
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
    IF "invoices_maintain"."batch_size" IS NULL OR "invoices_maintain"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("invoices_maintain"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    "released" := 0;
    "dead_lettered" := 0;
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    -- One at a time (see the macro maintain_lock). The lock is the transaction's: it goes with the
    -- commit or the rollback, whatever happens.
    BEGIN
        LOCK TABLE "pgs_obq"."invoices_watermark" IN SHARE UPDATE EXCLUSIVE MODE NOWAIT;
    EXCEPTION WHEN lock_not_available THEN
        "skipped" := TRUE;
        "more" := FALSE;
        RETURN NEXT;
        RETURN;
    END;
    "skipped" := FALSE;
    -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
    SELECT "p"."archived", "p"."processed", "p"."dead" INTO "archived", "processed", "dead"
    FROM "pgs_obq"."invoices_purge_batch"(604800, "invoices_maintain"."batch_size") AS "p";
    SELECT "r"."released", "r"."dead_lettered" INTO "released", "dead_lettered"
    -- reap takes at most the queue's max_batch_size (1000).
    FROM "pgs_obq"."invoices_reap"(least("invoices_maintain"."batch_size", 1000)) AS "r";
    SELECT "w"."old_watermark", "w"."new_watermark" INTO "old_watermark", "new_watermark"
    FROM "pgs_obq"."invoices_watermark_correct"() AS "w";
    "more" := "archived" + "processed" + "dead" >= "invoices_maintain"."batch_size"
              OR "released" + "dead_lettered" >= least("invoices_maintain"."batch_size", 1000);
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_maintain" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_maintain" FROM PUBLIC;

-- qgen 0.1.0: redrive pgs_obq.invoices_redrive, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Puts dead-lettered jobs back into the queue as new jobs: a new id, attempts 0, available now,
-- their last error kept. Either the dead jobs with these ids, or (redrive_all) every dead job
-- after after_id, in the order they died; at most batch_size per call: last_id is the last
-- dead-letter entry looked at (its entry_id: a job id can repeat there), to pass as after_id to
-- the next call. Each job is inserted and removed from the dead-letter
-- table in this one transaction, so it is redriven once: a second call finds nothing, and a
-- concurrent one waits and then finds it gone.
-- A job whose dedupe key is already queued again is not redriven: it stays dead and is counted
-- in skipped_duplicates.
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_redrive"
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
    IF "invoices_redrive"."batch_size" IS NULL OR "invoices_redrive"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("invoices_redrive"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF ("invoices_redrive"."ids" IS NOT NULL) = coalesce("invoices_redrive"."redrive_all", FALSE) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: redrive takes either ids or redrive_all => true, not both and not neither';
    END IF;
    "redriven" := 0;
    "skipped_duplicates" := 0;
    FOR v$dead IN
        SELECT "x".*
        FROM "pgs_obq"."invoices_dead" AS "x"
        WHERE ("invoices_redrive"."redrive_all" AND "x"."entry_id" > coalesce("invoices_redrive"."after_id", 0))
           OR "x"."id" = ANY ("invoices_redrive"."ids")
        ORDER BY "x"."entry_id"
        LIMIT "invoices_redrive"."batch_size"
        FOR UPDATE OF "x"
    LOOP
        "last_id" := v$dead."entry_id";
        INSERT INTO "pgs_obq"."invoices" ("order_no", "total", "enqueued_by", "attempts", "available_at", "last_error")
        VALUES (v$dead."order_no", v$dead."total", v$dead."enqueued_by", 0, now(), v$dead."last_error")
        -- Whatever unique key says the job is queued already, it is not queued twice.
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            DELETE FROM "pgs_obq"."invoices_dead" AS "x" WHERE "x"."entry_id" = v$dead."entry_id";
            "redriven" := "redriven" + 1;
        ELSE
            "skipped_duplicates" := "skipped_duplicates" + 1;
        END IF;
    END LOOP;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_redrive" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_redrive" FROM PUBLIC;

-- qgen 0.1.0: dead_letters pgs_obq.invoices_dead_letters, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first (the order they arrived in: the key backwards, which stops after
-- "limit" rows), with the error each died of: at most "limit" rows (1 to 1000). Reads only: a plain snapshot read, which takes no row lock, never waits on
-- one and makes no fail, reap, redrive or purge wait. "limit" is a reserved word: by name it is
-- passed as "limit" => n.
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_dead_letters"
(
    "limit" integer DEFAULT 100
)
RETURNS TABLE
(
    "id" bigint,
    "order_no" varchar(30),
    "total" numeric(12, 2),
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
    IF "invoices_dead_letters"."limit" IS NULL OR "invoices_dead_letters"."limit" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit ' || coalesce("invoices_dead_letters"."limit"::text, 'NULL') || ' is out of range for pgs_obq.invoices_dead_letters; accepted: 1 to 1000 rows';
    END IF;
    RETURN QUERY
    SELECT "x"."id", "x"."order_no", "x"."total", "x"."enqueued_at", "x"."attempts", "x"."dead_at",
        "x"."last_error"::text
    FROM "pgs_obq"."invoices_dead" AS "x"
    ORDER BY "x"."entry_id" DESC
    LIMIT "invoices_dead_letters"."limit";
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_dead_letters" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_dead_letters" FROM PUBLIC;

-- qgen 0.1.0: job pgs_obq.invoices_job, rendered for PostgreSQL from spec.yaml.
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
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_job"
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
    IF "invoices_job"."job_id" IS NULL OR "invoices_job"."job_id" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: job_id ' || coalesce("invoices_job"."job_id"::text, 'NULL') || ' is out of range for pgs_obq.invoices_job; accepted: a job id, 1 or more';
    END IF;
    RETURN QUERY
    SELECT "j"."id", CASE WHEN "j"."lease_token" IS NOT NULL THEN 'in_flight' WHEN "j"."available_at" > now() THEN 'scheduled' ELSE 'queued' END,
        "j"."enqueued_at", "j"."available_at",
        "j"."attempts", "j"."lease_owner"::text, "j"."lease_expires_at",
        "j"."last_error"::text, NULL::timestamptz
    FROM "pgs_obq"."invoices" AS "j"
    WHERE "j"."id" = "invoices_job"."job_id";
    IF FOUND THEN
        RETURN;
    END IF;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is restarted.
    RETURN QUERY
    SELECT "x"."id", 'dead'::text, "x"."enqueued_at", NULL::timestamptz, "x"."attempts", NULL::text, NULL::timestamptz,
        "x"."last_error"::text, "x"."dead_at"
    FROM "pgs_obq"."invoices_dead" AS "x"
    WHERE "x"."id" = "invoices_job"."job_id"
    ORDER BY "x"."entry_id" DESC
    LIMIT 1;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "invoices_job"."job_id", 'not_found'::text, NULL::timestamptz, NULL::timestamptz, NULL::integer, NULL::text, NULL::timestamptz,
        NULL::text, NULL::timestamptz;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_job" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_job" FROM PUBLIC;

-- qgen 0.1.0: release pgs_obq.invoices_release, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With id, that
-- job; with ids, those of them the lease holds (primary-key lookups); with neither, every job
-- of the lease (a search of the whole table: no index holds tokens). The token is the fence: a
-- job whose lease was released, taken over or finished gets QG001. last_error is kept (no failure happened).
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_release"
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
    LOCK TABLE "pgs_obq"."invoices_watermark" IN ROW SHARE MODE;
    IF "invoices_release"."id" IS NOT NULL THEN
        WITH "freed" AS
        (
            UPDATE "pgs_obq"."invoices" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."id" = "invoices_release"."id" AND "job"."lease_token" = "invoices_release"."lease_token"
            RETURNING "job"."id"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f")
        INTO v$released, v$lowest;
    ELSIF "invoices_release"."ids" IS NOT NULL THEN
        WITH "freed" AS
        (
            UPDATE "pgs_obq"."invoices" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."id" = ANY ("invoices_release"."ids") AND "job"."lease_token" = "invoices_release"."lease_token"
            RETURNING "job"."id"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f")
        INTO v$released, v$lowest;
    ELSE
        WITH "freed" AS
        (
            UPDATE "pgs_obq"."invoices" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."lease_token" = "invoices_release"."lease_token"
            RETURNING "job"."id"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f")
        INTO v$released, v$lowest;
    END IF;
    IF v$released = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_obq.invoices: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    -- Released jobs are claimable again: the watermark must not stay above them.
    IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        FOR v$try IN 1 .. 5 LOOP
            PERFORM 1 FROM "pgs_obq"."invoices_watermark" AS "w" WHERE "w"."id" > v$lowest FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE "pgs_obq"."invoices_watermark" AS "w" SET "id" = v$lowest WHERE "w"."id" > v$lowest;
                EXIT;
            END IF;
            -- Not taken: either nothing to lower, or another transaction holds the row.
            EXIT WHEN NOT EXISTS (SELECT 1 FROM "pgs_obq"."invoices_watermark" AS "w" WHERE "w"."id" > v$lowest);
            PERFORM pg_catalog.pg_sleep(0.01);
        END LOOP;
    END IF;
    RETURN v$released;
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_release" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_release" FROM PUBLIC;

-- qgen 0.1.0: pause pgs_obq.invoices_pause, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job. Enqueues go on, and leases already granted run to their end (complete, fail,
-- extend_lease, release and reap work as before). Returns 1 when this call paused the queue, 0
-- when it was paused already.
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_pause"()
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
    SELECT "c"."paused" INTO v$was FROM "pgs_obq"."invoices_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "pgs_obq"."invoices_control" ("paused", "changed_at", "changed_by")
        VALUES (TRUE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "pgs_obq"."invoices_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = TRUE THEN
        RETURN 0;
    END IF;
    UPDATE "pgs_obq"."invoices_control" AS "c"
    SET "paused" = TRUE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_obq.invoices: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_pause" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_pause" FROM PUBLIC;

-- qgen 0.1.0: resume pgs_obq.invoices_resume, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again. Returns 1 when this call
-- resumed the queue, 0 when it was not paused.
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_resume"()
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
    SELECT "c"."paused" INTO v$was FROM "pgs_obq"."invoices_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "pgs_obq"."invoices_control" ("paused", "changed_at", "changed_by")
        VALUES (FALSE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "pgs_obq"."invoices_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = FALSE THEN
        RETURN 0;
    END IF;
    UPDATE "pgs_obq"."invoices_control" AS "c"
    SET "paused" = FALSE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_obq.invoices: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_resume" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_resume" FROM PUBLIC;

-- qgen 0.1.0: cancel pgs_obq.invoices_cancel, rendered for PostgreSQL from spec.yaml.
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
CREATE OR REPLACE FUNCTION "pgs_obq"."invoices_cancel"
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
    IF "invoices_cancel"."ids" IS NULL OR EXISTS (SELECT 1 FROM pg_catalog.unnest("invoices_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NULL OR "a"."id" < 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: ids must be an array of job ids (whole numbers from 1)';
    END IF;
    IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_obq.invoices: cancel at REPEATABLE READ or SERIALIZABLE would answer from the transaction''s snapshot, which does not show a job enqueued since (it would say not_queued of a job that then runs); run it at READ COMMITTED';
    END IF;
    IF (SELECT count(DISTINCT "a"."id") FROM pg_catalog.unnest("invoices_cancel"."ids") AS "a" ("id")) > 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: ids lists more than 4000 jobs; accepted: 1 to 4000 per call';
    END IF;
    RETURN QUERY
    WITH "asked" AS
    (
        SELECT DISTINCT "a"."id" FROM pg_catalog.unnest("invoices_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NOT NULL
    ),
    "found" AS
    (
        -- The rows by their id, locked (waiting for a completion's short lock).
        SELECT "job"."id"
        FROM "pgs_obq"."invoices" AS "job"
        WHERE "job"."id" IN (SELECT "a"."id" FROM "asked" AS "a")
        ORDER BY "job"."id"
        FOR UPDATE
    ),
    "gone" AS
    (
        DELETE FROM "pgs_obq"."invoices" AS "job"
        USING "found" AS "f"
        WHERE "job"."id" = "f"."id"
        RETURNING "job".*
    ),
    "dead" AS
    (
        INSERT INTO "pgs_obq"."invoices_dead" ("id", "order_no", "total", "enqueued_at", "enqueued_by", "claimed_at", "claimed_by", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."order_no", "g"."total", "g"."enqueued_at", "g"."enqueued_by", "g"."claimed_at", "g"."claimed_by", "g"."attempts", 'cancelled', pg_catalog.clock_timestamp()
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
            MESSAGE = 'qgen: refused on pgs_obq.invoices: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again';
END
$qgen$;
ALTER FUNCTION "pgs_obq"."invoices_cancel" OWNER TO "pgs_obq_owner";
REVOKE ALL ON FUNCTION "pgs_obq"."invoices_cancel" FROM PUBLIC;

-- qgen 0.1.0: grants to roles pgs_obq_producer, pgs_obq_consumer, pgs_obq_admin, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "pgs_obq" TO "pgs_obq_producer", "pgs_obq_consumer", "pgs_obq_admin";
GRANT EXECUTE ON FUNCTION "pgs_obq"."orders_enqueue", "pgs_obq"."orders_enqueue_batch" TO "pgs_obq_producer";
GRANT USAGE ON TYPE "pgs_obq"."orders_batch" TO "pgs_obq_producer";
GRANT EXECUTE ON FUNCTION "pgs_obq"."orders_dequeue", "pgs_obq"."orders_complete", "pgs_obq"."orders_fail", "pgs_obq"."orders_extend_lease" TO "pgs_obq_consumer";
GRANT USAGE ON TYPE "pgs_obq"."orders_dequeue_row" TO "pgs_obq_consumer";
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON FUNCTION "pgs_obq"."orders_watermark_correct" TO "pgs_obq_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "pgs_obq"."orders_maintain" TO "pgs_obq_consumer";
GRANT SELECT ON "pgs_obq"."orders_pending" TO "pgs_obq_admin";
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON FUNCTION "pgs_obq"."orders_release" TO "pgs_obq_consumer";
GRANT EXECUTE ON FUNCTION "pgs_obq"."invoices_enqueue", "pgs_obq"."invoices_enqueue_batch" TO "pgs_obq_producer";
GRANT USAGE ON TYPE "pgs_obq"."invoices_batch" TO "pgs_obq_producer";
GRANT EXECUTE ON FUNCTION "pgs_obq"."invoices_dequeue", "pgs_obq"."invoices_complete", "pgs_obq"."invoices_fail", "pgs_obq"."invoices_extend_lease" TO "pgs_obq_consumer";
GRANT USAGE ON TYPE "pgs_obq"."invoices_dequeue_row" TO "pgs_obq_consumer";
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON FUNCTION "pgs_obq"."invoices_watermark_correct" TO "pgs_obq_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "pgs_obq"."invoices_maintain" TO "pgs_obq_consumer";
GRANT SELECT ON "pgs_obq"."invoices_pending" TO "pgs_obq_admin";
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON FUNCTION "pgs_obq"."invoices_release" TO "pgs_obq_consumer";
-- Admins run every function (and the worker procedure) qgen created, and nothing else: each by
-- name, never ALL ROUTINES IN SCHEMA, which in a shared schema would reach the application's too.
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_enqueue" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_enqueue_batch" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_watermark_move" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_watermark_correct" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_dequeue" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_complete" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_fail" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_extend_lease" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_reap" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_metrics" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_peek" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_purge_batch" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_purge" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_maintain" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_redrive" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_dead_letters" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_job" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_release" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_pause" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_resume" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."orders_cancel" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_enqueue" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_enqueue_batch" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_watermark_move" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_watermark_correct" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_dequeue" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_complete" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_fail" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_extend_lease" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_reap" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_metrics" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_peek" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_purge_batch" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_purge" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_maintain" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_redrive" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_dead_letters" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_job" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_release" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_pause" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_resume" TO "pgs_obq_admin";
GRANT EXECUTE ON ROUTINE "pgs_obq"."invoices_cancel" TO "pgs_obq_admin";

-- qgen 0.1.0: verify pgs_obq, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Install ends here, and fails loudly if any of qgen's functions or tables is owned by another role
-- than pgs_obq_owner, or a SECURITY DEFINER function does not pin its search_path: run with its
-- owner's rights, it would resolve names through its caller's path.
DO $qgen$
DECLARE
    v$wrong text;
BEGIN
    SELECT pg_catalog.string_agg(x.what, ', ' ORDER BY x.what) INTO v$wrong
    FROM
    (
        SELECT p.oid::pg_catalog.regprocedure::text
               || CASE WHEN p.proowner <> '"pgs_obq_owner"'::pg_catalog.regrole THEN ' (owned by ' || p.proowner::pg_catalog.regrole::text || ')'
                       ELSE ' (search_path not pinned)' END AS what
        FROM pg_catalog.pg_proc AS p
        JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
        WHERE n.nspname = 'pgs_obq'
          AND p.proname IN ('orders', 'orders_claim_ix', 'orders_watermark', 'orders_dead', 'orders_dead_ix', 'orders_archive', 'orders_archive_ix', 'orders_pending', 'orders_batch', 'orders_enqueue', 'orders_enqueue_batch', 'orders_watermark_move', 'orders_watermark_correct', 'orders_control', 'orders_dequeue', 'invoices', 'orders_complete', 'orders_fail', 'orders_extend_lease', 'orders_reap', 'orders_metrics', 'orders_peek', 'orders_purge_batch', 'orders_purge', 'orders_maintain', 'orders_redrive', 'orders_dead_letters', 'orders_job', 'orders_release', 'orders_pause', 'orders_resume', 'orders_cancel', 'invoices_claim_ix', 'invoices_dead', 'invoices_dedupe_ux', 'invoices_watermark', 'invoices_dead_ix', 'invoices_pending', 'invoices_batch', 'invoices_enqueue', 'invoices_enqueue_batch', 'invoices_watermark_move', 'invoices_watermark_correct', 'invoices_control', 'invoices_dequeue', 'invoices_complete', 'invoices_fail', 'invoices_extend_lease', 'invoices_reap', 'invoices_metrics', 'invoices_peek', 'invoices_purge_batch', 'invoices_purge', 'invoices_maintain', 'invoices_redrive', 'invoices_dead_letters', 'invoices_job', 'invoices_release', 'invoices_pause', 'invoices_resume', 'invoices_cancel')
          AND (p.proowner <> '"pgs_obq_owner"'::pg_catalog.regrole
               OR (p.prosecdef AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) AS c (setting)
                                               WHERE c.setting LIKE 'search\_path=%')))
        UNION ALL
        SELECT c.oid::pg_catalog.regclass::text || ' (owned by ' || c.relowner::pg_catalog.regrole::text || ')'
        FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'pgs_obq'
          AND c.relkind IN ('r', 'v')
          AND c.relname IN ('orders', 'orders_claim_ix', 'orders_watermark', 'orders_dead', 'orders_dead_ix', 'orders_archive', 'orders_archive_ix', 'orders_pending', 'orders_batch', 'orders_enqueue', 'orders_enqueue_batch', 'orders_watermark_move', 'orders_watermark_correct', 'orders_control', 'orders_dequeue', 'invoices', 'orders_complete', 'orders_fail', 'orders_extend_lease', 'orders_reap', 'orders_metrics', 'orders_peek', 'orders_purge_batch', 'orders_purge', 'orders_maintain', 'orders_redrive', 'orders_dead_letters', 'orders_job', 'orders_release', 'orders_pause', 'orders_resume', 'orders_cancel', 'invoices_claim_ix', 'invoices_dead', 'invoices_dedupe_ux', 'invoices_watermark', 'invoices_dead_ix', 'invoices_pending', 'invoices_batch', 'invoices_enqueue', 'invoices_enqueue_batch', 'invoices_watermark_move', 'invoices_watermark_correct', 'invoices_control', 'invoices_dequeue', 'invoices_complete', 'invoices_fail', 'invoices_extend_lease', 'invoices_reap', 'invoices_metrics', 'invoices_peek', 'invoices_purge_batch', 'invoices_purge', 'invoices_maintain', 'invoices_redrive', 'invoices_dead_letters', 'invoices_job', 'invoices_release', 'invoices_pause', 'invoices_resume', 'invoices_cancel')
          AND c.relowner <> '"pgs_obq_owner"'::pg_catalog.regrole
    ) AS x;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020', MESSAGE = 'qgen: wrongly installed in schema pgs_obq: ' || v$wrong;
    END IF;
    -- And each function is what this install rendered, not an older version left in place (psql
    -- without ON_ERROR_STOP goes on after a CREATE OR REPLACE that failed): md5 of its body without
    -- whitespace (qgen.dialects.postgres.module_fingerprints) against the one rendered.
    SELECT pg_catalog.string_agg(r.name, ', ' ORDER BY r.name) INTO v$wrong
    FROM
    (
        VALUES
            ('invoices_cancel', '1407c57347e7fcbccb6beb6cbed7ae20'),
            ('invoices_complete', 'bec467eefa4717c09e43ff5e005ad1b8'),
            ('invoices_dead_letters', '0c7f703227a35e58bbb24eab1cb139df'),
            ('invoices_dequeue', '1729503bf972ffde4854970c166a6285'),
            ('invoices_enqueue', 'f30b8429df2f1b1e2f5059b1b3589400'),
            ('invoices_enqueue_batch', 'bf5124e1c7e28a392904cb60d6084009'),
            ('invoices_extend_lease', 'd65fb12690887719958453911bc3afcc'),
            ('invoices_fail', 'e2f9246ad1414638f7d58082d5e821db'),
            ('invoices_job', 'aa078f32f9516f0965933a307bea429e'),
            ('invoices_maintain', 'c0bbd6dc5f1ca06cb0b17f7fa9645d36'),
            ('invoices_metrics', '1c6065929c1c183c2cd91cc4e627fccc'),
            ('invoices_pause', 'c7ab78a11ebb360af5decff0f4188750'),
            ('invoices_peek', 'dc849317f6976415d4c0464b248511df'),
            ('invoices_purge', 'bb9c815b97748a267817b88df0e51cfb'),
            ('invoices_purge_batch', '30a7e6ba9670b0802b62250d0de8b6db'),
            ('invoices_reap', '5b16e6dc115a1a373772255de5e507cc'),
            ('invoices_redrive', 'e8ac51b5bf37a03254267b24bbf4e295'),
            ('invoices_release', '07da2b54d457ef1b0955ccc1157e4910'),
            ('invoices_resume', '696d6c48fe67d77e5cd224032dc8539f'),
            ('invoices_watermark_correct', '13c1be69e1545daa82d14cf1e6bd3b65'),
            ('invoices_watermark_move', '9e0d3cdf1783ae447c791097b8cdec76'),
            ('orders_cancel', 'a55fb442ebe4d0b07e3eaa1567930354'),
            ('orders_complete', '9816c7c40ac6a98d7e1d3bc8291fe7bc'),
            ('orders_dead_letters', 'b571a2afe69474232dbd1aa44d2e12d7'),
            ('orders_dequeue', 'bb09b38d2c1040ae01377315375118ec'),
            ('orders_enqueue', '30f6ceabe1e03c470f2457e39882bd63'),
            ('orders_enqueue_batch', 'e26684ce3146e831ffe5313a68142040'),
            ('orders_extend_lease', '7ae8be98b7c4795b6d0d078565ea72a3'),
            ('orders_fail', 'e011ac28687fd641ba18f6693eed705d'),
            ('orders_job', 'd2c3d3b970688ea7cb7ae3be087add53'),
            ('orders_maintain', 'fcbe0f5cf16dfd03e5381a7e1dc6a1c2'),
            ('orders_metrics', '0b4e46ed9908e583592a7bfb680b5a57'),
            ('orders_pause', '37e911f01de4974ce27b9790f348ffb8'),
            ('orders_peek', 'd005405d40f2fa0ca476d952a8ccc526'),
            ('orders_purge', 'a8036f245919cd5095599cc60c0e63a8'),
            ('orders_purge_batch', '7fb693d8a7c74f6a73335e906e1898ed'),
            ('orders_reap', 'caaf53c1baeebd1072ab1c0ecb12d217'),
            ('orders_redrive', '408958d7e330e3a09b9aa825f64d53ff'),
            ('orders_release', '78f9d81b9137bb9e2de9873e337c30b6'),
            ('orders_resume', '5bf0d073b39d812d0a403949c75f46cd'),
            ('orders_watermark_correct', 'fd226a30683142a619b802bf9388c803'),
            ('orders_watermark_move', '93267b1c0a1fb0d48ae36b81498cde6a')
    ) AS r (name, fingerprint)
    JOIN pg_catalog.pg_proc AS p ON p.proname = r.name
    JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace AND n.nspname = 'pgs_obq'
    WHERE pg_catalog.md5(pg_catalog.regexp_replace(p.prosrc, '[[:space:]]', '', 'g')) <> r.fingerprint;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020',
            MESSAGE = 'qgen: installed in schema pgs_obq, but not as this install rendered it: ' || v$wrong,
            HINT = 'An earlier statement failed and left an older version: read its error, fix it and run install.sql again.';
    END IF;
END
$qgen$;
