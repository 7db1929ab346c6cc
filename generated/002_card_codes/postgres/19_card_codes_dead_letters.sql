-- qgen 0.1.0: dead_letters cards.card_codes_dead_letters, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first (the order they arrived in: the key backwards, which stops after
-- "limit" rows), with the error each died of: at most "limit" rows (1 to 1000). Reads only: a plain snapshot read, which takes no row lock, never waits on
-- one and makes no fail, reap, redrive or purge wait. "limit" is a reserved word: by name it is
-- passed as "limit" => n.
CREATE OR REPLACE FUNCTION "cards"."card_codes_dead_letters"
(
    "limit" integer DEFAULT 100
)
RETURNS TABLE
(
    "id" bigint,
    "card_number" varchar(32),
    "card_secret" varchar(64),
    "enqueued_at" timestamptz,
    "attempts" integer,
    "dead_at" timestamptz,
    "last_error" text
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "card_codes_dead_letters"."limit" IS NULL OR "card_codes_dead_letters"."limit" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit ' || coalesce("card_codes_dead_letters"."limit"::text, 'NULL') || ' is out of range for cards.card_codes_dead_letters; accepted: 1 to 1000 rows';
    END IF;
    RETURN QUERY
    SELECT "x"."id", "x"."card_number", "x"."card_secret", "x"."enqueued_at", "x"."attempts", "x"."dead_at",
        "x"."last_error"::text
    FROM "cards"."card_codes_dead" AS "x"
    ORDER BY "x"."entry_id" DESC
    LIMIT "card_codes_dead_letters"."limit";
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_dead_letters" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_dead_letters" FROM PUBLIC;
