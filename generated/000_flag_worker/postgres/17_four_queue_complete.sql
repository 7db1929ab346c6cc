-- qgen 0.1.0: complete four.four_queue_complete, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: marks them processed. With id, only that job; with ids, those of
-- them the lease holds (primary-key lookups); with neither, every job of the lease, which needs a
-- search of the whole table for the token (no index holds tokens: a claim writes no indexed column). The token is the fence: a worker whose lease was released or taken over gets QG001.
CREATE OR REPLACE FUNCTION "four"."four_queue_complete"
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
    v$completed integer;
BEGIN
    IF "four_queue_complete"."id" IS NULL THEN
        IF "four_queue_complete"."ids" IS NULL THEN
            UPDATE "four"."four_queue" AS "job"
            SET "processed" = TRUE, "processed_at" = pg_catalog.clock_timestamp(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
            WHERE "job"."lease_token" = "four_queue_complete"."lease_token";
            GET DIAGNOSTICS v$completed = ROW_COUNT;
        ELSE
            UPDATE "four"."four_queue" AS "job"
            SET "processed" = TRUE, "processed_at" = pg_catalog.clock_timestamp(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
            WHERE "job"."id" = ANY ("four_queue_complete"."ids") AND "job"."lease_token" = "four_queue_complete"."lease_token";
            GET DIAGNOSTICS v$completed = ROW_COUNT;
        END IF;
    ELSE
        UPDATE "four"."four_queue" AS "job"
        SET "processed" = TRUE, "processed_at" = pg_catalog.clock_timestamp(), "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL
        WHERE "job"."id" = "four_queue_complete"."id" AND "job"."lease_token" = "four_queue_complete"."lease_token";
        GET DIAGNOSTICS v$completed = ROW_COUNT;
    END IF;
    IF v$completed = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$completed;
END
$qgen$;
ALTER FUNCTION "four"."four_queue_complete" OWNER TO "four_owner";
REVOKE ALL ON FUNCTION "four"."four_queue_complete" FROM PUBLIC;
