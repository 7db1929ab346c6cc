-- qgen 0.1.0: peek four.four_queue_peek, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "four"."four_queue_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "four"."four_queue_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "four_queue_peek"."limit" IS NULL OR "four_queue_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for four.four_queue_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "four"."four_queue_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "four_queue_peek"."limit";
END
$qgen$;
ALTER FUNCTION "four"."four_queue_peek" OWNER TO "four_owner";
REVOKE ALL ON FUNCTION "four"."four_queue_peek" FROM PUBLIC;
