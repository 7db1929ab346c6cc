-- qgen 0.1.0: pause QueueSample.WorkQueue_pause, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job. Enqueues go on, and leases already granted run to their end (complete, fail,
-- extend_lease, release and reap work as before). Returns 1 when this call paused the queue, 0
-- when it was paused already.
CREATE OR REPLACE FUNCTION "QueueSample"."WorkQueue_pause"()
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$changed integer;
BEGIN
    UPDATE "QueueSample"."WorkQueue_control" AS "c"
    SET "paused" = TRUE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row" AND NOT "c"."paused";
    GET DIAGNOSTICS v$changed = ROW_COUNT;
    -- A missing row (deleted by hand) read as running: put it back, paused.
    IF v$changed = 0 THEN
        INSERT INTO "QueueSample"."WorkQueue_control" ("paused", "changed_at", "changed_by")
        VALUES (TRUE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        GET DIAGNOSTICS v$changed = ROW_COUNT;
    END IF;
    RETURN v$changed;
END
$qgen$;
ALTER FUNCTION "QueueSample"."WorkQueue_pause" OWNER TO "QueueSample_owner";
REVOKE ALL ON FUNCTION "QueueSample"."WorkQueue_pause" FROM PUBLIC;
