-- qgen 0.1.0: peek rainfall.rainfall_transfer_peek, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "rainfall"."rainfall_transfer_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "rainfall_transfer_peek"."limit" IS NULL OR "rainfall_transfer_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for rainfall.rainfall_transfer_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "rainfall"."rainfall_transfer_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "rainfall_transfer_peek"."limit";
END
$qgen$;
ALTER FUNCTION "rainfall"."rainfall_transfer_peek" OWNER TO "rainfall_owner";
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_peek" FROM PUBLIC;
