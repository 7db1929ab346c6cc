-- qgen 0.1.0: peek ghosts.testq_peek, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "ghosts"."testq_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "ghosts"."testq_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "testq_peek"."limit" IS NULL OR "testq_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for ghosts.testq_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "ghosts"."testq_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "testq_peek"."limit";
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_peek" OWNER TO "ghosts_owner";
REVOKE ALL ON FUNCTION "ghosts"."testq_peek" FROM PUBLIC;
