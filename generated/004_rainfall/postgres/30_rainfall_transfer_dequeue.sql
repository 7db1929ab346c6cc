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
