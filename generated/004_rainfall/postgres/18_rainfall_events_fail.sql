-- qgen 0.1.0: fail rainfall.rainfall_events_fail, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 3) and retry it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_fail"
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
    v$error text := pg_catalog.left("rainfall_events_fail"."error", 4000);
    v$gone integer;
BEGIN
    -- NULL is not "no retry": refused, so a caller passing an unset flag does not dead-letter the job.
    IF "rainfall_events_fail"."retry" IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: retry NULL is out of range; accepted: true or false';
    END IF;
    IF "rainfall_events_fail"."retry" THEN
        -- The job is deferred again: no earlier than the clock read under this lock (postgres__due_bound_move).
        LOCK TABLE "rainfall"."rainfall_events_watermark" IN ROW SHARE MODE;
        UPDATE "rainfall"."rainfall_events" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL,
            "last_error" = v$error,
            "available_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => least(600::float8, 30 * power(2::float8, least("job"."attempts" - 1, 60))))
        WHERE "job"."id" = "rainfall_events_fail"."id" AND "job"."lease_token" = "rainfall_events_fail"."lease_token"
          AND "job"."attempts" < 3;
        IF FOUND THEN
            -- The job is claimable again: the watermark must not stay above it.
            IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
                FOR v$try IN 1 .. 5 LOOP
                    PERFORM 1 FROM "rainfall"."rainfall_events_watermark" AS "w" WHERE "w"."id" > "rainfall_events_fail"."id" FOR UPDATE SKIP LOCKED;
                    IF FOUND THEN
                        UPDATE "rainfall"."rainfall_events_watermark" AS "w" SET "id" = "rainfall_events_fail"."id" WHERE "w"."id" > "rainfall_events_fail"."id";
                        EXIT;
                    END IF;
                    -- Not taken: either nothing to lower, or another transaction holds the row.
                    EXIT WHEN NOT EXISTS (SELECT 1 FROM "rainfall"."rainfall_events_watermark" AS "w" WHERE "w"."id" > "rainfall_events_fail"."id");
                    PERFORM pg_catalog.pg_sleep(0.01);
                END LOOP;
            END IF;
            RETURN 0;
        END IF;
    END IF;
    -- No retry (asked, or attempts used up), or the token does not hold the job: then nothing matches.
    WITH "gone" AS
    (
        DELETE FROM "rainfall"."rainfall_events" AS "job"
        WHERE "job"."id" = "rainfall_events_fail"."id" AND "job"."lease_token" = "rainfall_events_fail"."lease_token"
        RETURNING "job".*
    )
    INSERT INTO "rainfall"."rainfall_events_dead" ("id", "rainfall_id", "enqueued_at", "attempts", "last_error", "dead_at")
    SELECT "g"."id", "g"."rainfall_id", "g"."enqueued_at", "g"."attempts", v$error, pg_catalog.clock_timestamp()
    FROM "gone" AS "g";
    GET DIAGNOSTICS v$gone = ROW_COUNT;
    IF v$gone = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN 1;
END
$qgen$;
ALTER FUNCTION "rainfall"."rainfall_events_fail" OWNER TO "rainfall_owner";
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_fail" FROM PUBLIC;
