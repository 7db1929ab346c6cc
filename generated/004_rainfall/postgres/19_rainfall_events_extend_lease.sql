-- qgen 0.1.0: extend_lease rainfall.rainfall_events_extend_lease, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire lease_seconds from now.
-- With id, one job; with ids, those of them the lease holds (primary-key lookups); with neither,
-- every job of the lease (a search of the whole table). Only lease_expires_at changes: a HOT update.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_extend_lease"
(
    "lease_token" uuid,
    "lease_seconds" integer DEFAULT 900,
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
    v$extended integer;
BEGIN
    IF "rainfall_events_extend_lease"."lease_seconds" IS NULL OR "rainfall_events_extend_lease"."lease_seconds" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: lease_seconds ' || coalesce("rainfall_events_extend_lease"."lease_seconds"::text, 'NULL') || ' is out of range; accepted: 1 or more seconds';
    END IF;
    IF "rainfall_events_extend_lease"."ids" IS NOT NULL THEN
        UPDATE "rainfall"."rainfall_events" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "rainfall_events_extend_lease"."lease_seconds")
        WHERE "job"."id" = ANY ("rainfall_events_extend_lease"."ids") AND "job"."id" = coalesce("rainfall_events_extend_lease"."id", "job"."id")
          AND "job"."lease_token" = "rainfall_events_extend_lease"."lease_token";
    ELSIF "rainfall_events_extend_lease"."id" IS NULL THEN
        -- No index holds tokens (a claim writes no indexed column): this searches the whole table.
        UPDATE "rainfall"."rainfall_events" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "rainfall_events_extend_lease"."lease_seconds")
        WHERE "job"."lease_token" = "rainfall_events_extend_lease"."lease_token";
    ELSE
        UPDATE "rainfall"."rainfall_events" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "rainfall_events_extend_lease"."lease_seconds")
        WHERE "job"."id" = "rainfall_events_extend_lease"."id" AND "job"."lease_token" = "rainfall_events_extend_lease"."lease_token";
    END IF;
    GET DIAGNOSTICS v$extended = ROW_COUNT;
    IF v$extended = 0 THEN
        IF "rainfall_events_extend_lease"."id" IS NOT NULL AND EXISTS (SELECT 1 FROM "rainfall"."rainfall_events_dead" AS "d"
                                                          WHERE "d"."id" = "rainfall_events_extend_lease"."id" AND "d"."last_error" = 'cancelled') THEN
            RAISE EXCEPTION USING ERRCODE = 'QG006',
                MESSAGE = 'qgen: job cancelled on rainfall.rainfall_events: cancel took it out of the queue while its lease ran; stop working on it (its complete and fail are refused)';
        END IF;
RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$extended;
END
$qgen$;
ALTER FUNCTION "rainfall"."rainfall_events_extend_lease" OWNER TO "rainfall_owner";
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_extend_lease" FROM PUBLIC;
