-- qgen 0.1.0: cancel rainfall.rainfall_transfer_cancel, rendered for PostgreSQL from 004_rainfall.yaml.
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
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_cancel"
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
    IF "rainfall_transfer_cancel"."ids" IS NULL OR EXISTS (SELECT 1 FROM pg_catalog.unnest("rainfall_transfer_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NULL OR "a"."id" < 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: ids must be an array of job ids (whole numbers from 1)';
    END IF;
    IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on rainfall.rainfall_transfer: cancel at REPEATABLE READ or SERIALIZABLE would answer from the transaction''s snapshot, which does not show a job enqueued since (it would say not_queued of a job that then runs); run it at READ COMMITTED';
    END IF;
    IF (SELECT count(DISTINCT "a"."id") FROM pg_catalog.unnest("rainfall_transfer_cancel"."ids") AS "a" ("id")) > 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: ids lists more than 4000 jobs; accepted: 1 to 4000 per call';
    END IF;
    RETURN QUERY
    WITH "asked" AS
    (
        SELECT DISTINCT "a"."id" FROM pg_catalog.unnest("rainfall_transfer_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NOT NULL
    ),
    "found" AS
    (
        -- The rows by their id, locked (SKIP LOCKED: a claim's open transaction is never waited for).
        SELECT "job"."id"
        FROM "rainfall"."rainfall_transfer" AS "job"
        WHERE "job"."id" IN (SELECT "a"."id" FROM "asked" AS "a")
        ORDER BY "job"."id"
        FOR UPDATE SKIP LOCKED
    ),
    "gone" AS
    (
        DELETE FROM "rainfall"."rainfall_transfer" AS "job"
        USING "found" AS "f"
        WHERE "job"."id" = "f"."id"
        RETURNING "job".*
    )
    SELECT "a"."id",
        CASE
             WHEN "g"."id" IS NOT NULL THEN 'cancelled'
             -- Skipped above: another open transaction holds it.
             WHEN EXISTS (SELECT 1 FROM "rainfall"."rainfall_transfer" AS "job" WHERE "job"."id" = "a"."id") THEN 'held'
             ELSE 'not_queued' END
    FROM "asked" AS "a"
    -- What the DELETE took out: the outcome is what happened, not what was found.
    LEFT JOIN "gone" AS "g" ON "g"."id" = "a"."id"
    ORDER BY "a"."id";
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on rainfall.rainfall_transfer: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again';
END
$qgen$;
ALTER FUNCTION "rainfall"."rainfall_transfer_cancel" OWNER TO "rainfall_owner";
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_cancel" FROM PUBLIC;
