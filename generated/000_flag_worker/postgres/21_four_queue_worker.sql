-- qgen 0.1.0: worker four.four_queue_worker, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Drains the queue from inside the database (a looping worker), so a scheduled job can run
-- it with CALL: claims one job at a time, calls four.count_users_with_reputation with id and the payload, completes the
-- job when the handler returns and fails it (retry or dead letter) when the handler raises. Stops
-- when nothing is claimable, after max_items jobs or after max_seconds (0: no limit); processed
-- reports the jobs handled.
-- It commits after every job, which PostgreSQL allows only in a procedure that is neither SECURITY
-- DEFINER nor has a SET clause: it runs with its caller's rights (admins only) and reaches the
-- queue through dequeue, complete and fail; every name in it is schema-qualified. Without a SET
-- clause it pins search_path itself, for each transaction it runs (set_config(..., true) lasts until
-- the next COMMIT), so an operator or function in a schema of the caller's path cannot stand in
-- for pg_catalog's; the handler runs with the caller's own path. CALL it outside an explicit
-- transaction block.
CREATE OR REPLACE PROCEDURE "four"."four_queue_worker"
(
    "max_items" integer DEFAULT 0,
    "max_seconds" integer DEFAULT 0,
    "owner" varchar(128) DEFAULT NULL,
    "lease_seconds" integer DEFAULT 300,
    INOUT "processed" integer DEFAULT NULL
)
LANGUAGE plpgsql
AS $qgen$
#variable_conflict use_column
DECLARE
    v$started timestamptz := pg_catalog.clock_timestamp();
    v$path text := pg_catalog.current_setting('search_path');
    v$owner text;
    v$job "four"."four_queue_dequeue_row";
    v$state text;
    v$error text;
BEGIN
    PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
    IF pg_catalog.length("four_queue_worker"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in four.four_queue_worker; accepted: string(128), at most 128 characters';
    END IF;
    v$owner := coalesce("four_queue_worker"."owner", 'four_queue_worker:' || pg_catalog.pg_backend_pid());
    "four_queue_worker"."processed" := 0;
    WHILE ("four_queue_worker"."max_items" = 0 OR "four_queue_worker"."processed" < "four_queue_worker"."max_items")
      AND ("four_queue_worker"."max_seconds" = 0 OR pg_catalog.clock_timestamp() < v$started + pg_catalog.make_interval(secs => "four_queue_worker"."max_seconds"))
    LOOP
        v$job := NULL;
        SELECT * INTO v$job
        FROM "four"."four_queue_dequeue"("owner" => v$owner, "batch_size" => 1, "lease_seconds" => "four_queue_worker"."lease_seconds");
        EXIT WHEN v$job."id" IS NULL;
        -- The claim is committed before the handler runs: if the handler takes the session down,
        -- the job stays leased, reap releases it and the attempt counts (a poison job ends dead).
        COMMIT;
        PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
        v$state := NULL;
        BEGIN
            PERFORM pg_catalog.set_config('search_path', v$path, true);
            CALL "four"."count_users_with_reputation"("id" => v$job."id", "reputation" => v$job."reputation");
            PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
            -- In the same block: if the lease was lost meanwhile (QG001), the handler's work is undone too.
            PERFORM "four"."four_queue_complete"(v$job."lease_token", v$job."id");
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS v$state = RETURNED_SQLSTATE, v$error = MESSAGE_TEXT;
        END;
        IF v$state IS NOT NULL AND v$state <> 'QG001' THEN
            BEGIN
                PERFORM "four"."four_queue_fail"(v$job."lease_token", v$job."id", pg_catalog.left(v$error, 4000));
            EXCEPTION WHEN SQLSTATE 'QG001' THEN
                NULL;  -- reaped and released while the handler ran: nothing left to fail
            END;
        END IF;
        "four_queue_worker"."processed" := "four_queue_worker"."processed" + 1;
        COMMIT;
        PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
    END LOOP;
END
$qgen$;
ALTER PROCEDURE "four"."four_queue_worker" OWNER TO "four_owner";
REVOKE ALL ON PROCEDURE "four"."four_queue_worker" FROM PUBLIC;
