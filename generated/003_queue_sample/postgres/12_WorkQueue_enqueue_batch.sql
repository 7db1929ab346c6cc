-- qgen 0.1.0: enqueue_batch QueueSample.WorkQueue_enqueue_batch, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job.
CREATE OR REPLACE FUNCTION "QueueSample"."WorkQueue_enqueue_batch"
(
    "jobs" jsonb,
    "enqueued_by" varchar(128) DEFAULT NULL
)
RETURNS TABLE ("ordinal" integer, "id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    -- The ids are drawn before the insert, so each input job knows its id whether or not it is inserted.
    v$sequence regclass := pg_catalog.pg_get_serial_sequence('"QueueSample"."WorkQueue"', 'id')::regclass;
BEGIN

    IF pg_catalog.length("WorkQueue_enqueue_batch"."enqueued_by") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: enqueued_by is past its column''s limit in QueueSample.WorkQueue_enqueue_batch; accepted: string(128), at most 128 characters';
    END IF;

    RETURN QUERY
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "e"."position$"::integer) AS "ordinal",
                   "j"."JobType", "j"."JobInfo"
            -- The array position and the new id are qgen's own columns beside the job's: their names
            -- hold a $, which no spec column can.
            FROM jsonb_array_elements("WorkQueue_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
            CROSS JOIN LATERAL jsonb_populate_record(NULL::"QueueSample"."WorkQueue_batch", "e"."job$") AS "j"
        ),
        "numbered" AS
        (
            -- A volatile target list runs after ORDER BY, so the ids follow the ordinals.
            SELECT "i".*, nextval(v$sequence) AS "new$id"
            FROM "input" AS "i"
            ORDER BY "i"."ordinal"
        ),
        "inserted" AS
        (
            INSERT INTO "QueueSample"."WorkQueue" AS "job" ("id", "JobType", "JobInfo", "enqueued_by")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new$id", "n"."JobType", "n"."JobInfo", coalesce("WorkQueue_enqueue_batch"."enqueued_by", session_user::text)
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal", "n"."new$id", TRUE
        FROM "numbered" AS "n"
        ORDER BY "n"."ordinal";
END
$qgen$;
ALTER FUNCTION "QueueSample"."WorkQueue_enqueue_batch" OWNER TO "QueueSample_owner";
REVOKE ALL ON FUNCTION "QueueSample"."WorkQueue_enqueue_batch" FROM PUBLIC;
