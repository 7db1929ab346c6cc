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
-- Claims up to batch_size jobs by deleting them into the archive, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
CREATE OR REPLACE FUNCTION "cards"."card_codes_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 1
)
RETURNS SETOF "cards"."card_codes_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 1
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
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
                LIMIT "card_codes_dequeue"."batch_size"
                FOR UPDATE SKIP LOCKED
            ))
            RETURNING "job".*
        ),
        "archived" AS
        (
            INSERT INTO "cards"."card_codes_archive" ("id", "card_number", "card_secret", "enqueued_at", "completed_at")
            SELECT "c"."id", "c"."card_number", "c"."card_secret", "c"."enqueued_at", now()
            FROM "claimed" AS "c"
        )
        SELECT "c"."id", "c"."card_number", "c"."card_secret", "c"."enqueued_at"
        FROM "claimed" AS "c"
        ORDER BY "c"."id";
END
$qgen$;
REVOKE ALL ON FUNCTION "cards"."card_codes_dequeue" FROM PUBLIC;
