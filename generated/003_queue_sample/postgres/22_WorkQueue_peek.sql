-- qgen 0.1.0: peek QueueSample.ViewQueue, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "QueueSample"."ViewQueue"
(
    "job_type" uuid DEFAULT NULL,
    "limit" integer DEFAULT 100
)
RETURNS SETOF "QueueSample"."WorkQueue_Pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "ViewQueue"."limit" IS NULL OR "ViewQueue"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for QueueSample.ViewQueue; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "QueueSample"."WorkQueue_Pending" AS "p"
    WHERE "ViewQueue"."job_type" IS NULL OR "p"."JobType" = "ViewQueue"."job_type"
    ORDER BY "p"."id"
    LIMIT "ViewQueue"."limit";
END
$qgen$;
ALTER FUNCTION "QueueSample"."ViewQueue" OWNER TO "QueueSample_owner";
REVOKE ALL ON FUNCTION "QueueSample"."ViewQueue" FROM PUBLIC;
