-- qgen 0.1.0: run before install.sql where an older qgen installed 002_card_codes.yaml, for PostgreSQL: drops or adds what the objects of this version replace.
-- A fresh install and a qgen revision do not need it. Do not edit: change the spec or the templates, then run `qgen render`.
-- An earlier qgen's metrics returned no "paused" column: CREATE OR REPLACE cannot change the columns
-- a function returns, so that version goes first (install creates and grants this one).
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_proc AS "p"
               JOIN pg_catalog.pg_namespace AS "n" ON "n"."oid" = "p"."pronamespace"
               WHERE "n"."nspname" = 'cards' AND "p"."proname" = 'card_codes_metrics'
                 AND NOT ('paused' = ANY (coalesce("p"."proargnames", '{}')))) THEN
        EXECUTE 'DROP FUNCTION "cards"."card_codes_metrics"';
    END IF;
END
$qgen$;
-- Earlier qgen versions made purge a function: drop that one, so this procedure can take its name.
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_proc AS "p"
               WHERE "p"."oid" = pg_catalog.to_regprocedure('"cards"."card_codes_purge"(integer, integer)') AND "p"."prokind" = 'f') THEN
        DROP FUNCTION "cards"."card_codes_purge"(integer, integer);
    END IF;
END
$qgen$;
