-- qgen 0.1.0: dequeue cards.card_codes_dequeue, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"cards"."card_codes_dequeue_row"') IS NULL THEN
        CREATE TYPE "cards"."card_codes_dequeue_row" AS
        (
            "id" bigint,
            "card_number" varchar(32),
            "card_secret" varchar(64),
            "enqueued_at" timestamptz
        );
    END IF;
END
$qgen$;
ALTER TYPE "cards"."card_codes_dequeue_row" OWNER TO "cards_owner";
-- A claim that would commit by itself (no transaction block around it) is refused when the
-- transaction commits, unless the caller said at_most_once: then the claim is the commit. A
-- function cannot see whether the caller opened a transaction block, so dequeue notes its own
-- statement's start time, and this deferred trigger, run at commit, accepts only a commit made
-- while a later statement of the caller's runs (its COMMIT). It refuses a commit made during the
-- claim's own statement (autocommit, or a COMMIT sent in the same query string) and one made
-- while no statement runs: the Sync that ends an extended-protocol message sequence, where a
-- driver's autocommit call, or a pipeline of them, commits (current_query() is NULL there).
CREATE OR REPLACE FUNCTION "cards"."card_codes_dequeue_guard"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
BEGIN
    IF pg_catalog.current_query() IS NULL
       OR pg_catalog.current_setting('qgen.claim_statement', TRUE) = pg_catalog.statement_timestamp()::text THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on cards.card_codes: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass at_most_once => true';
    END IF;
    RETURN NULL;
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_dequeue_guard" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_dequeue_guard" FROM PUBLIC;
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger
                   WHERE tgrelid = '"cards"."card_codes"'::regclass AND tgname = 'card_codes_dequeue_guard') THEN
        -- WHEN is checked as each row is deleted: only a dequeue's own rows queue the check.
        CREATE CONSTRAINT TRIGGER "card_codes_dequeue_guard"
        AFTER DELETE ON "cards"."card_codes"
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW
        WHEN (pg_catalog.current_setting('qgen.claim_statement', TRUE) = pg_catalog.statement_timestamp()::text)
        EXECUTE FUNCTION "cards"."card_codes_dequeue_guard"();
    END IF;
END
$qgen$;
-- Claims up to batch_size jobs by deleting them into the archive, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction block the commit is refused (see above) unless at_most_once is true.
CREATE OR REPLACE FUNCTION "cards"."card_codes_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 1,
    "at_most_once" boolean DEFAULT FALSE
)
RETURNS SETOF "cards"."card_codes_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 1
AS $qgen$
#variable_conflict use_column
DECLARE
    v$want integer;
    v$rows "cards"."card_codes_dequeue_row"[];
    v$dropped bigint;
BEGIN
    IF "card_codes_dequeue"."batch_size" IS NULL OR "card_codes_dequeue"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for cards.card_codes_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("card_codes_dequeue"."batch_size"::text, 'NULL'));
    END IF;
    IF pg_catalog.length("card_codes_dequeue"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in cards.card_codes_dequeue; accepted: string(128), at most 128 characters';
    END IF;
    -- Read by the guard trigger at commit; at_most_once clears it.
    PERFORM pg_catalog.set_config('qgen.claim_statement',
                                  CASE WHEN "card_codes_dequeue"."at_most_once" THEN '' ELSE pg_catalog.statement_timestamp()::text END, TRUE);
    -- The guard's check belongs at the commit: a caller's SET CONSTRAINTS ALL IMMEDIATE would run it
    -- at the end of this statement instead, and refuse a claim its transaction was about to commit.
    SET CONSTRAINTS "cards"."card_codes_dequeue_guard" DEFERRED;
    -- Paused (pause, resume): complete what was asked, claim nothing.
    IF NOT EXISTS (SELECT 1 FROM "cards"."card_codes_control" AS "c" WHERE NOT "c"."paused") THEN
        RETURN;
    END IF;
    -- Jobs kept back are claimed again in their place (each round takes rows out of the queue, so it ends).
    v$want := "card_codes_dequeue"."batch_size";
    LOOP
        WITH "claimed" AS
        (
            DELETE FROM "cards"."card_codes" AS "job"
            -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
            -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
            WHERE "job"."id" = ANY (ARRAY
            (
                SELECT "next"."id"
                FROM "cards"."card_codes" AS "next"
                WHERE 1 = 1
                ORDER BY "next"."id"
                LIMIT v$want
                FOR UPDATE SKIP LOCKED
            ))
            RETURNING "job".*
        ),
        "archived" AS
        (
            INSERT INTO "cards"."card_codes_archive" AS "kept" ("id", "card_number", "card_secret", "enqueued_at", "completed_at")
            SELECT "c"."id", "c"."card_number", "c"."card_secret", "c"."enqueued_at", pg_catalog.clock_timestamp()
            FROM "claimed" AS "c"
            -- dedupe.scope: ever (issue 24, item 4): the archive's unique index finds a claimed job whose key
            -- it already holds: one handed out before (a row loaded past enqueue, a hand insert). It is not
            -- archived, nor handed out (see "kept_back"). No claim waits on another here: the check waits
            -- only for an uncommitted row of the same key, and a claim holds its queue row's key, which the
            -- queue's unique index keeps from every other queued row.
            ON CONFLICT DO NOTHING
            RETURNING "kept"."id"
        ),
        -- ... it goes to the dead letters with the reason as its last_error, and dequeue claims another in
        -- its place.
        "kept_back" AS
        (
            INSERT INTO "cards"."card_codes_dead" ("id", "card_number", "card_secret", "enqueued_at", "attempts", "last_error")
            SELECT "c"."id", "c"."card_number", "c"."card_secret", "c"."enqueued_at", 0,
                   'qgen: not handed out: the archive already holds this dedupe key (card_number), so it was handed out before (a row loaded past enqueue?); kept here instead'
            FROM "claimed" AS "c"
            WHERE NOT EXISTS (SELECT 1 FROM "archived" AS "a" WHERE "a"."id" = "c"."id")
        )
        SELECT coalesce(pg_catalog.array_agg(ROW("c"."id", "c"."card_number", "c"."card_secret", "c"."enqueued_at")::"cards"."card_codes_dequeue_row" ORDER BY "c"."id")
                        FILTER (WHERE "a"."id" IS NOT NULL), '{}'),
               count(*) FILTER (WHERE "a"."id" IS NULL)
        INTO v$rows, v$dropped
        FROM "claimed" AS "c"
        LEFT JOIN "archived" AS "a" ON "a"."id" = "c"."id";
        RETURN QUERY SELECT * FROM pg_catalog.unnest(v$rows);
        v$want := v$want - pg_catalog.cardinality(v$rows);
        EXIT WHEN v$dropped = 0 OR v$want <= 0;
    END LOOP;
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_dequeue" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_dequeue" FROM PUBLIC;
