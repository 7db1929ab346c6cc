-- qgen 0.1.0: reap four.four_queue_reap, rendered for PostgreSQL from 000_flag_worker.yaml.
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
CREATE OR REPLACE FUNCTION "four"."four_queue_reap"
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
    IF "four_queue_reap"."batch_size" IS NULL OR "four_queue_reap"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for four.four_queue_reap; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("four_queue_reap"."batch_size"::text, 'NULL'));
    END IF;
    -- Released jobs are deferred: due at the clock read under this lock (postgres__due_bound_move).
    LOCK TABLE "four"."four_queue_watermark" IN ROW SHARE MODE;
    WITH "expired" AS
    (
        -- SKIP LOCKED: a job being completed right now is locked by its worker; leave it to finish.
        SELECT "job"."id", "job"."attempts"
        FROM "four"."four_queue" AS "job"
        WHERE "job"."id" IN
              (
                  SELECT "first"."id"
                  FROM "four"."four_queue" AS "first"
                  WHERE "first"."processed" = FALSE AND "first"."available_at" <= "first"."enqueued_at"
                  ORDER BY "first"."id"
                  LIMIT "four_queue_reap"."batch_size" * 10
              )
          AND "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < pg_catalog.clock_timestamp()
        LIMIT "four_queue_reap"."batch_size"
        FOR UPDATE SKIP LOCKED
    ),
    "freed" AS
    (
        UPDATE "four"."four_queue" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
            "last_error" = 'qgen: lease expired before the job was completed'
        FROM "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" < 5
        RETURNING "job"."id"
    ),
    "gone" AS
    (
        DELETE FROM "four"."four_queue" AS "job"
        USING "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" >= 5
        RETURNING "job".*
    ),
    "buried" AS
    (
        INSERT INTO "four"."four_queue_dead" ("id", "reputation", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."reputation", "g"."enqueued_at", "g"."attempts", 'qgen: lease expired on the last attempt', pg_catalog.clock_timestamp()
        FROM "gone" AS "g"
    )
    SELECT (SELECT count(*) FROM "freed"), (SELECT count(*) FROM "gone"), (SELECT min("f"."id") FROM "freed" AS "f")
    INTO "released", "dead_lettered", v$lowest;
    IF v$lowest IS NOT NULL THEN
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
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "four"."four_queue_reap" OWNER TO "four_owner";
REVOKE ALL ON FUNCTION "four"."four_queue_reap" FROM PUBLIC;
