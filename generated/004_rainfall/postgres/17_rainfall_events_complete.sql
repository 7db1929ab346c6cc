-- qgen 0.1.0: complete rainfall.rainfall_events_complete, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: marks them processed. With id, only that job; with ids, those of
-- them the lease holds (primary-key lookups); with neither, every job of the lease, which needs a
-- search of the whole table for the token (no index holds tokens: a claim writes no indexed column)
-- (refused here with QG002: this queue has an outbox, whose values belong to one job). The token is the fence: a worker whose lease was released or taken over gets QG001.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_events_complete"
(
    "lease_token" uuid,
    "id" bigint DEFAULT NULL,
    "ids" bigint[] DEFAULT NULL,
    "rainfall_id" bigint DEFAULT NULL,
    "summary" varchar(400) DEFAULT NULL,
    "no_result" boolean DEFAULT FALSE
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$completed integer;
BEGIN
    IF pg_catalog.length("rainfall_events_complete"."summary") > 400 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: summary is past its column''s limit in rainfall.rainfall_events_complete; accepted: string(400), at most 400 characters';
    END IF;
    IF "rainfall_events_complete"."id" IS NULL THEN
        -- Outbox values belong to one job: a whole lease completed at once would skip them silently.
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on rainfall.rainfall_events: this queue has an outbox: complete each job with its id and its outbox values, not a whole lease by its token';
    ELSE
        -- A job hands its outbox values on, or the caller says it has none (no_result => true).
        IF "rainfall_events_complete"."no_result" IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = 'QG003',
                MESSAGE = 'qgen: no_result NULL is out of range; accepted: false (the outbox values are given) or true (this job hands nothing on)';
        ELSIF "rainfall_events_complete"."no_result" AND ("rainfall_events_complete"."rainfall_id" IS NOT NULL OR "rainfall_events_complete"."summary" IS NOT NULL) THEN
            RAISE EXCEPTION USING ERRCODE = 'QG003',
                MESSAGE = 'qgen: complete on rainfall.rainfall_events: no_result => true says this job hands nothing on, yet outbox values were given; pass the values or no_result => true, not both';
        ELSIF NOT "rainfall_events_complete"."no_result" AND NOT ("rainfall_events_complete"."rainfall_id" IS NOT NULL OR "rainfall_events_complete"."summary" IS NOT NULL) THEN
            RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on rainfall.rainfall_events: this queue has an outbox: complete each job with its outbox values (rainfall_id, summary), or with no_result => true when the job hands nothing on';
        ELSIF NOT "rainfall_events_complete"."no_result" AND "rainfall_events_complete"."rainfall_id" IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = 'QG003',
                MESSAGE = 'qgen: complete on rainfall.rainfall_events: outbox value rainfall_id is missing (NULL); it is NOT NULL in the outbox; accepted: every NOT NULL outbox value, or no_result => true';
        ELSIF NOT "rainfall_events_complete"."no_result" AND "rainfall_events_complete"."summary" IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = 'QG003',
                MESSAGE = 'qgen: complete on rainfall.rainfall_events: outbox value summary is missing (NULL); it is NOT NULL in the outbox; accepted: every NOT NULL outbox value, or no_result => true';
        END IF;
        WITH "done" AS
        (
            UPDATE "rainfall"."rainfall_events" AS "job"
            SET "processed" = TRUE, "processed_at" = pg_catalog.clock_timestamp(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
            WHERE "job"."id" = "rainfall_events_complete"."id" AND "job"."lease_token" = "rainfall_events_complete"."lease_token"
            RETURNING "job"."id"
        ),
        -- The result goes on in the same transaction as the completion (seed 004's local queue table).
        "handed_on" AS
        (
            INSERT INTO "rainfall"."rainfall_transfer" AS "next" ("rainfall_id", "summary")
            SELECT "rainfall_events_complete"."rainfall_id", "rainfall_events_complete"."summary"
            FROM "done" AS "d"
            WHERE "rainfall_events_complete"."rainfall_id" IS NOT NULL OR "rainfall_events_complete"."summary" IS NOT NULL
        )
        SELECT count(*) INTO v$completed FROM "done";
    END IF;
    IF v$completed = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$completed;
END
$qgen$;
ALTER FUNCTION "rainfall"."rainfall_events_complete" OWNER TO "rainfall_owner";
REVOKE ALL ON FUNCTION "rainfall"."rainfall_events_complete" FROM PUBLIC;
