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
ALTER TYPE "rainfall"."rainfall_transfer_dequeue_row" OWNER TO "rainfall_owner";
-- A claim that would commit by itself (no transaction block around it) is refused when the
-- transaction commits, unless the caller said at_most_once: then the claim is the commit. A
-- function cannot see whether the caller opened a transaction block, so dequeue notes its own
-- statement's start time, and this deferred trigger, run at commit, accepts only a commit made
-- while a later statement of the caller's runs (its COMMIT). It refuses a commit made during the
-- claim's own statement (autocommit, or a COMMIT sent in the same query string) and one made
-- while no statement runs: the Sync that ends an extended-protocol message sequence, where a
-- driver's autocommit call, or a pipeline of them, commits (current_query() is NULL there).
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_dequeue_guard"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
BEGIN
    IF pg_catalog.current_query() IS NULL
       OR pg_catalog.current_setting('qgen.claim_statement', TRUE) = pg_catalog.statement_timestamp()::text THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on rainfall.rainfall_transfer: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass at_most_once => true';
    END IF;
    RETURN NULL;
END
$qgen$;
ALTER FUNCTION "rainfall"."rainfall_transfer_dequeue_guard" OWNER TO "rainfall_owner";
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_dequeue_guard" FROM PUBLIC;
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger
                   WHERE tgrelid = '"rainfall"."rainfall_transfer"'::regclass AND tgname = 'rainfall_transfer_dequeue_guard') THEN
        -- WHEN is checked as each row is deleted: only a dequeue's own rows queue the check.
        CREATE CONSTRAINT TRIGGER "rainfall_transfer_dequeue_guard"
        AFTER DELETE ON "rainfall"."rainfall_transfer"
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW
        WHEN (pg_catalog.current_setting('qgen.claim_statement', TRUE) = pg_catalog.statement_timestamp()::text)
        EXECUTE FUNCTION "rainfall"."rainfall_transfer_dequeue_guard"();
    END IF;
END
$qgen$;
-- Claims up to batch_size jobs by deleting them, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction block the commit is refused (see above) unless at_most_once is true.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 100,
    "at_most_once" boolean DEFAULT FALSE
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
    v$job "rainfall"."rainfall_transfer_dequeue_row";
    v$highest bigint;
    v$from bigint;
    v$rescan boolean;
    v$mark bigint;
    v$searched timestamptz;
    v$stranded bigint;
BEGIN
    IF "rainfall_transfer_dequeue"."batch_size" IS NULL OR "rainfall_transfer_dequeue"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for rainfall.rainfall_transfer_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("rainfall_transfer_dequeue"."batch_size"::text, 'NULL'));
    END IF;
    IF pg_catalog.length("rainfall_transfer_dequeue"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in rainfall.rainfall_transfer_dequeue; accepted: string(128), at most 128 characters';
    END IF;
    -- Read by the guard trigger at commit; at_most_once clears it.
    PERFORM pg_catalog.set_config('qgen.claim_statement',
                                  CASE WHEN "rainfall_transfer_dequeue"."at_most_once" THEN '' ELSE pg_catalog.statement_timestamp()::text END, TRUE);
    -- The guard's check belongs at the commit: a caller's SET CONSTRAINTS ALL IMMEDIATE would run it
    -- at the end of this statement instead, and refuse a claim its transaction was about to commit.
    SET CONSTRAINTS "rainfall"."rainfall_transfer_dequeue_guard" DEFERRED;
    -- Paused (pause, resume): complete what was asked, claim nothing.
    IF NOT EXISTS (SELECT 1 FROM "rainfall"."rainfall_transfer_control" AS "c" WHERE NOT "c"."paused") THEN
        RETURN;
    END IF;
    -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
    SELECT "w"."id", "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) INTO v$from, v$rescan FROM "rainfall"."rainfall_transfer_watermark" AS "w";
    IF NOT FOUND THEN
        v$from := 0;
        INSERT INTO "rainfall"."rainfall_transfer_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;
    ELSIF v$rescan AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        -- Only at READ COMMITTED: at REPEATABLE READ or SERIALIZABLE the search would read the
        -- transaction's first snapshot, and locking a row another worker changed since fails the
        -- caller's whole transaction (40001); a READ COMMITTED dequeue or maintain rescans instead.
        SELECT "w"."id", pg_catalog.clock_timestamp() INTO v$mark, v$searched
        FROM "rainfall"."rainfall_transfer_watermark" AS "w" WHERE "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            -- A statement of its own: its snapshot is taken after the lock, so it sees every release
            -- committed before; one that commits later waits for this row and lowers the watermark itself.
            -- corrected_at gets the time before the search, so a job committed after it is left to the next.
            SELECT min("job"."id") INTO v$stranded
            FROM "rainfall"."rainfall_transfer" AS "job"
            WHERE "job"."id" < v$mark AND 1 = 1;
            UPDATE "rainfall"."rainfall_transfer_watermark" AS "w"
            SET "corrected_at" = v$searched,
                "id" = CASE WHEN v$stranded IS NULL THEN "w"."id" ELSE least("w"."id", greatest(v$stranded - 50, 0)) END
            RETURNING "w"."id" INTO v$from;
        END IF;
    END IF;
    FOR v$job IN
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
                  -- Below the watermark every row is claimed, gone or deferred: start the index range there.
                  AND "next"."id" >= v$from
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
        v$highest := greatest(v$highest, v$job."id");
        RETURN NEXT v$job;
    END LOOP;
    -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
    -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
    -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
    IF v$highest - v$from >= 150 THEN
        PERFORM "rainfall"."rainfall_transfer_watermark_move"(v$highest);
    END IF;
END
$qgen$;
ALTER FUNCTION "rainfall"."rainfall_transfer_dequeue" OWNER TO "rainfall_owner";
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_dequeue" FROM PUBLIC;
