-- qgen 0.1.0: release four.four_queue_release, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With id, that
-- job; with ids, those of them the lease holds (primary-key lookups); with neither, every job
-- of the lease (a search of the whole table: no index holds tokens). The token is the fence: a
-- job whose lease was released, taken over or finished gets QG001. last_error is kept (no failure happened).
CREATE OR REPLACE FUNCTION "four"."four_queue_release"
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
    LOCK TABLE "four"."four_queue_watermark" IN ROW SHARE MODE;
    IF "four_queue_release"."id" IS NOT NULL THEN
        WITH "freed" AS
        (
            UPDATE "four"."four_queue" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."id" = "four_queue_release"."id" AND "job"."lease_token" = "four_queue_release"."lease_token"
            RETURNING "job"."id"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f")
        INTO v$released, v$lowest;
    ELSIF "four_queue_release"."ids" IS NOT NULL THEN
        WITH "freed" AS
        (
            UPDATE "four"."four_queue" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."id" = ANY ("four_queue_release"."ids") AND "job"."lease_token" = "four_queue_release"."lease_token"
            RETURNING "job"."id"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f")
        INTO v$released, v$lowest;
    ELSE
        WITH "freed" AS
        (
            UPDATE "four"."four_queue" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."lease_token" = "four_queue_release"."lease_token"
            RETURNING "job"."id"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f")
        INTO v$released, v$lowest;
    END IF;
    IF v$released = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    -- Released jobs are claimable again: the watermark must not stay above them.
    IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        FOR v$try IN 1 .. 5 LOOP
            PERFORM 1 FROM "four"."four_queue_watermark" AS "w" WHERE "w"."id" > v$lowest FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE "four"."four_queue_watermark" AS "w" SET "id" = v$lowest WHERE "w"."id" > v$lowest;
                EXIT;
            END IF;
            -- Not taken: either nothing to lower, or another transaction holds the row.
            EXIT WHEN NOT EXISTS (SELECT 1 FROM "four"."four_queue_watermark" AS "w" WHERE "w"."id" > v$lowest);
            PERFORM pg_catalog.pg_sleep(0.01);
        END LOOP;
    END IF;
    RETURN v$released;
END
$qgen$;
ALTER FUNCTION "four"."four_queue_release" OWNER TO "four_owner";
REVOKE ALL ON FUNCTION "four"."four_queue_release" FROM PUBLIC;
