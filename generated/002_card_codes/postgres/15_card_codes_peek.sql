-- qgen 0.1.0: peek cards.card_codes_peek, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "cards"."card_codes_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "cards"."card_codes_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "card_codes_peek"."limit" IS NULL OR "card_codes_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for cards.card_codes_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "cards"."card_codes_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "card_codes_peek"."limit";
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_peek" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_peek" FROM PUBLIC;
