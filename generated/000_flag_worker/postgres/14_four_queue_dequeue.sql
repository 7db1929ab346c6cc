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
