-- qgen 0.1.0: redrive QueueSample.WorkQueue_redrive, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Puts dead-lettered jobs back into the queue as new jobs: a new id, attempts 0, available now,
-- their last error kept. Either the dead jobs with these ids, or (redrive_all) every dead job
-- after after_id, in the order they died; at most batch_size per call: last_id is the last
-- dead-letter entry looked at (its entry_id: a job id can repeat there), to pass as after_id to
-- the next call. Each job is inserted and removed from the dead-letter
-- table in this one transaction, so it is redriven once: a second call finds nothing, and a
-- concurrent one waits and then finds it gone.
CREATE OR REPLACE FUNCTION "QueueSample"."WorkQueue_redrive"
(
    "ids" bigint[] DEFAULT NULL,
    "redrive_all" boolean DEFAULT FALSE,
    "after_id" bigint DEFAULT 0,
    "batch_size" integer DEFAULT 1000
)
RETURNS TABLE ("redriven" integer, "skipped_duplicates" integer, "last_id" bigint)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$dead record;
BEGIN
    IF "WorkQueue_redrive"."batch_size" IS NULL OR "WorkQueue_redrive"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("WorkQueue_redrive"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF ("WorkQueue_redrive"."ids" IS NOT NULL) = coalesce("WorkQueue_redrive"."redrive_all", FALSE) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: redrive takes either ids or redrive_all => true, not both and not neither';
    END IF;
    "redriven" := 0;
    "skipped_duplicates" := 0;
    FOR v$dead IN
        SELECT "x".*
        FROM "QueueSample"."WorkQueue_dead" AS "x"
        WHERE ("WorkQueue_redrive"."redrive_all" AND "x"."entry_id" > coalesce("WorkQueue_redrive"."after_id", 0))
           OR "x"."id" = ANY ("WorkQueue_redrive"."ids")
        ORDER BY "x"."entry_id"
        LIMIT "WorkQueue_redrive"."batch_size"
        FOR UPDATE OF "x"
    LOOP
        "last_id" := v$dead."entry_id";
        INSERT INTO "QueueSample"."WorkQueue" ("JobType", "JobInfo", "enqueued_by", "attempts", "available_at", "last_error")
        VALUES (v$dead."JobType", v$dead."JobInfo", v$dead."enqueued_by", 0, now(), v$dead."last_error");
        IF FOUND THEN
            DELETE FROM "QueueSample"."WorkQueue_dead" AS "x" WHERE "x"."entry_id" = v$dead."entry_id";
            "redriven" := "redriven" + 1;
        ELSE
            "skipped_duplicates" := "skipped_duplicates" + 1;
        END IF;
    END LOOP;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "QueueSample"."WorkQueue_redrive" OWNER TO "QueueSample_owner";
REVOKE ALL ON FUNCTION "QueueSample"."WorkQueue_redrive" FROM PUBLIC;
