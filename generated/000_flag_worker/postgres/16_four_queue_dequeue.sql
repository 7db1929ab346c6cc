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
ALTER TYPE "four"."four_queue_dequeue_row" OWNER TO "four_owner";
-- Claims up to batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With complete_lease_token it first completes that lease's jobs as complete does, in the same
-- transaction: one commit per batch instead of two; complete_ids names them (primary-key lookups;
-- without it the whole table is searched for the token). A token that holds none of them raises
-- QG001 and nothing is claimed. A job whose lease expired is claimed again like a new one (the
-- old worker's token no longer holds it); one that was on its last attempt is
-- dead-lettered here instead of being handed out, and another claimed in its place.
CREATE OR REPLACE FUNCTION "four"."four_queue_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 1,
    "lease_seconds" integer DEFAULT 300,
    "complete_lease_token" uuid DEFAULT NULL,
    "complete_ids" bigint[] DEFAULT NULL
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
    v$token uuid := gen_random_uuid();
    v$completed integer;
    v$want integer := "four_queue_dequeue"."batch_size";
    v$exhausted bigint[];
    -- The previous lease's jobs this call completes by id (in its first claim statement).
    v$ids bigint[];
    v$start bigint;
    v$top bigint;
    v$rows "four"."four_queue_dequeue_row"[];
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
    IF "four_queue_dequeue"."batch_size" IS NULL OR "four_queue_dequeue"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for four.four_queue_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("four_queue_dequeue"."batch_size"::text, 'NULL'));
    END IF;
    IF pg_catalog.length("four_queue_dequeue"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in four.four_queue_dequeue; accepted: string(128), at most 128 characters';
    END IF;
    IF "four_queue_dequeue"."lease_seconds" IS NULL OR "four_queue_dequeue"."lease_seconds" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: lease_seconds ' || coalesce("four_queue_dequeue"."lease_seconds"::text, 'NULL') || ' is out of range; accepted: 1 or more seconds';
    END IF;
    IF "four_queue_dequeue"."complete_lease_token" IS NOT NULL THEN
        -- Named by id: completed by the claim statement below. Otherwise: a search for the token.
        v$ids := "four_queue_dequeue"."complete_ids";
        IF v$ids IS NULL THEN
            UPDATE "four"."four_queue" AS "job"
            SET "processed" = TRUE, "processed_at" = pg_catalog.clock_timestamp(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
            WHERE "job"."lease_token" = "four_queue_dequeue"."complete_lease_token";
            GET DIAGNOSTICS v$completed = ROW_COUNT;
            IF v$completed = 0 THEN
                RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
            END IF;
        END IF;
    END IF;
    -- Paused (pause, resume): complete what was asked, claim nothing.
    IF NOT EXISTS (SELECT 1 FROM "four"."four_queue_control" AS "c" WHERE NOT "c"."paused") THEN
        IF v$ids IS NOT NULL THEN
            UPDATE "four"."four_queue" AS "job"
            SET "processed" = TRUE, "processed_at" = pg_catalog.clock_timestamp(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
            WHERE "job"."id" = ANY (v$ids) AND "job"."lease_token" = "four_queue_dequeue"."complete_lease_token";
            GET DIAGNOSTICS v$completed = ROW_COUNT;
            IF v$completed = 0 THEN
                RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
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
            LEFT JOIN "four"."four_queue_watermark" AS "w" ON TRUE
        ),
        "done" AS
        (
            UPDATE "four"."four_queue" AS "job"
            SET "processed" = TRUE, "processed_at" = pg_catalog.clock_timestamp(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
            WHERE "job"."id" = ANY (v$ids) AND "job"."lease_token" = "four_queue_dequeue"."complete_lease_token"
            RETURNING "job"."id"
        ),
        "due" AS MATERIALIZED
        (
            -- Deferred jobs (delayed, or released with a backoff) whose time has come, first: they are not
            -- in the claim index, and the watermark passes them. The due index holds only those not yet
            -- claimed, by available_at: while none is due this reads one page.
            SELECT "d"."id"
            FROM "four"."four_queue" AS "d"
            -- now(), not the clock: what a claim may take is judged as of its transaction's start, which
            -- can only make it take less (never a job before its time, never a live lease); the leases it
            -- grants are timed from the clock. A stable now() also keeps the planner's estimates, and with
            -- them the seeks tests/test_claim_cost.py holds (with clock_timestamp() the job-type claim
            -- walked 142 buffers where it walks 11).
            WHERE ("d"."lease_token" IS NULL OR "d"."lease_expires_at" < now()) AND "d"."processed" = FALSE AND "d"."available_at" <= now() AND "d"."available_at" > "d"."enqueued_at"
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
            FROM "four"."four_queue" AS "next"
            WHERE ("next"."lease_token" IS NULL OR "next"."lease_expires_at" < now()) AND "next"."processed" = FALSE
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
            UPDATE "four"."four_queue" AS "job"
            SET "lease_token" = CASE WHEN "job"."lease_token" IS NOT NULL AND "job"."attempts" >= 5 THEN v$spent ELSE v$token END,
                "lease_owner" = "four_queue_dequeue"."owner",
                "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "four_queue_dequeue"."lease_seconds"),
                -- A deferred job leaves the due index as it is claimed (no other claim changes an indexed column).
                "available_at" = least("job"."available_at", "job"."enqueued_at"),
                "attempts" = "job"."attempts" + 1,
                -- A job taken over from an expired lease says so (the old token no longer holds it).
                "last_error" = CASE WHEN "job"."lease_token" IS NULL THEN "job"."last_error" ELSE 'qgen: lease expired before the job was completed' END
            -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
            -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
            WHERE "job"."id" = ANY (ARRAY (SELECT "u"."id" FROM "due" AS "u" UNION ALL SELECT "r"."id" FROM "ready" AS "r"))
            RETURNING "job"."id", "job"."reputation", "job"."attempts", "job"."lease_token", "job"."lease_expires_at"
        )
        SELECT (SELECT count(*) FROM "done"), (SELECT "m"."from" FROM "mark" AS "m"), max("c"."id"),
               (SELECT "m"."due_from" FROM "mark" AS "m"), (SELECT "m"."due_move" FROM "mark" AS "m") AND EXISTS (SELECT 1 FROM "due"),
               array_agg(ROW("c"."id", "c"."reputation", "c"."attempts", "c"."lease_token", "c"."lease_expires_at")::"four"."four_queue_dequeue_row" ORDER BY "c"."id") FILTER (WHERE "c"."lease_token" = v$token),
               array_agg("c"."id") FILTER (WHERE "c"."lease_token" = v$spent)
        INTO v$completed, v$from, v$top, v$due_from, v$due_move, v$rows, v$exhausted
        FROM "claimed" AS "c";
        IF v$ids IS NOT NULL THEN
            -- The previous lease: a token that held none of its jobs claims nothing (this rolls back).
            IF v$completed = 0 THEN
                RAISE EXCEPTION USING ERRCODE = 'QG001',
                    MESSAGE = 'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
            END IF;
            v$ids := NULL;
        END IF;
        IF v$from IS NULL THEN
            -- A rescan is due, or the watermark row is missing: every 10 s, look below the
            -- watermark first for jobs it passed (see the macro watermark_start), then claim from there.
            SELECT "w"."id", "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) INTO v$from, v$rescan FROM "four"."four_queue_watermark" AS "w";
            IF NOT FOUND THEN
                v$from := 0;
                INSERT INTO "four"."four_queue_watermark" ("id") VALUES (0) ON CONFLICT DO NOTHING;
            ELSIF v$rescan AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
                -- Only at READ COMMITTED: at REPEATABLE READ or SERIALIZABLE the search would read the
                -- transaction's first snapshot, and locking a row another worker changed since fails the
                -- caller's whole transaction (40001); a READ COMMITTED dequeue or maintain rescans instead.
                SELECT "w"."id", pg_catalog.clock_timestamp() INTO v$mark, v$searched
                FROM "four"."four_queue_watermark" AS "w" WHERE "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) FOR UPDATE SKIP LOCKED;
                IF FOUND THEN
                    -- A statement of its own: its snapshot is taken after the lock, so it sees every release
                    -- committed before; one that commits later waits for this row and lowers the watermark itself.
                    -- corrected_at gets the time before the search, so a job committed after it is left to the next.
                    SELECT min("job"."id") INTO v$stranded
                    FROM "four"."four_queue" AS "job"
                    WHERE "job"."id" < v$mark AND ("job"."lease_token" IS NULL OR "job"."lease_expires_at" < pg_catalog.clock_timestamp()) AND "job"."processed" = FALSE AND "job"."available_at" <= "job"."enqueued_at";
                    -- Below the due index's bound: a deferred job written past the routines may be due before it.
                    SELECT "d"."available_at" INTO v$due_low
                    FROM "four"."four_queue" AS "d"
                    WHERE "d"."available_at" > "d"."enqueued_at" AND "d"."processed" = FALSE AND "d"."available_at" < (SELECT "b"."due_from" FROM "four"."four_queue_watermark" AS "b")
                    ORDER BY "d"."available_at"
                    LIMIT 1;
                    UPDATE "four"."four_queue_watermark" AS "w"
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
            DELETE FROM "four"."four_queue" AS "job"
            WHERE "job"."id" = ANY (v$exhausted) AND "job"."lease_token" = v$spent
            RETURNING "job".*
        )
        INSERT INTO "four"."four_queue_dead" ("id", "reputation", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."reputation", "g"."enqueued_at", "g"."attempts" - 1, 'qgen: lease expired on the last attempt', pg_catalog.clock_timestamp()
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
            LOCK TABLE "four"."four_queue_watermark" IN EXCLUSIVE MODE NOWAIT;
            v$due_clock := pg_catalog.clock_timestamp();
            -- Ends the block: rolling back its subtransaction releases the lock at once.
            RAISE EXCEPTION USING ERRCODE = 'lock_not_available';
        EXCEPTION WHEN lock_not_available THEN
            NULL;
        END;
        IF v$due_clock IS NOT NULL THEN
            SELECT "d"."available_at" INTO v$due_low
            FROM "four"."four_queue" AS "d"
            WHERE "d"."available_at" > "d"."enqueued_at" AND "d"."processed" = FALSE AND "d"."available_at" >= v$due_from
            ORDER BY "d"."available_at"
            LIMIT 1;
            -- SKIP LOCKED: a session that holds the row (a watermark move in an open transaction) wins.
            PERFORM 1 FROM "four"."four_queue_watermark" AS "w" FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE "four"."four_queue_watermark" AS "w"
                SET "due_from" = greatest("w"."due_from", least(v$due_clock, coalesce(v$due_low, v$due_clock))),
                    "due_moved_at" = v$due_clock;
            END IF;
        END IF;
    END IF;
    -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
    -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
    -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
    IF v$highest - v$from >= 150 THEN
        PERFORM "four"."four_queue_watermark_move"(v$highest);
    END IF;
END
$qgen$;
ALTER FUNCTION "four"."four_queue_dequeue" OWNER TO "four_owner";
REVOKE ALL ON FUNCTION "four"."four_queue_dequeue" FROM PUBLIC;
