-- qgen 0.1.0: fail QueueSample.WorkQueue_fail, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 5) and retry it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR REPLACE FUNCTION "QueueSample"."WorkQueue_fail"
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
    v$error text := pg_catalog.left("WorkQueue_fail"."error", 4000);
    v$gone integer;
BEGIN
    -- NULL is not "no retry": refused, so a caller passing an unset flag does not dead-letter the job.
    IF "WorkQueue_fail"."retry" IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: retry NULL is out of range; accepted: true or false';
    END IF;
    IF "WorkQueue_fail"."retry" THEN
        -- The job is deferred again: no earlier than the clock read under this lock (postgres__due_bound_move).
        LOCK TABLE "QueueSample"."WorkQueue_watermark" IN ROW SHARE MODE;
        UPDATE "QueueSample"."WorkQueue" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL,
            "last_error" = v$error,
            "available_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => least(3600::float8, 10 * power(2::float8, least("job"."attempts" - 1, 60))))
        WHERE "job"."id" = "WorkQueue_fail"."id" AND "job"."lease_token" = "WorkQueue_fail"."lease_token"
          AND "job"."attempts" < 5;
        IF FOUND THEN
            -- The job is claimable again: the watermark must not stay above it.
            IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
                FOR v$try IN 1 .. 5 LOOP
                    PERFORM 1 FROM "QueueSample"."WorkQueue_watermark" AS "w" WHERE "w"."id" > "WorkQueue_fail"."id" FOR UPDATE SKIP LOCKED;
                    IF FOUND THEN
                        UPDATE "QueueSample"."WorkQueue_watermark" AS "w" SET "id" = "WorkQueue_fail"."id" WHERE "w"."id" > "WorkQueue_fail"."id";
                        EXIT;
                    END IF;
                    -- Not taken: either nothing to lower, or another transaction holds the row.
                    EXIT WHEN NOT EXISTS (SELECT 1 FROM "QueueSample"."WorkQueue_watermark" AS "w" WHERE "w"."id" > "WorkQueue_fail"."id");
                    PERFORM pg_catalog.pg_sleep(0.01);
                END LOOP;
            END IF;
            RETURN 0;
        END IF;
    END IF;
    -- No retry (asked, or attempts used up), or the token does not hold the job: then nothing matches.
    WITH "gone" AS
    (
        DELETE FROM "QueueSample"."WorkQueue" AS "job"
        WHERE "job"."id" = "WorkQueue_fail"."id" AND "job"."lease_token" = "WorkQueue_fail"."lease_token"
        RETURNING "job".*
    )
    INSERT INTO "QueueSample"."WorkQueue_dead" ("id", "JobType", "JobInfo", "enqueued_at", "enqueued_by", "claimed_at", "claimed_by", "attempts", "last_error", "dead_at")
    SELECT "g"."id", "g"."JobType", "g"."JobInfo", "g"."enqueued_at", "g"."enqueued_by", "g"."claimed_at", "g"."claimed_by", "g"."attempts", v$error, pg_catalog.clock_timestamp()
    FROM "gone" AS "g";
    GET DIAGNOSTICS v$gone = ROW_COUNT;
    IF v$gone = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on QueueSample.WorkQueue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN 1;
END
$qgen$;
ALTER FUNCTION "QueueSample"."WorkQueue_fail" OWNER TO "QueueSample_owner";
REVOKE ALL ON FUNCTION "QueueSample"."WorkQueue_fail" FROM PUBLIC;
