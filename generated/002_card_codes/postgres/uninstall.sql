-- qgen 0.1.0: every object of 002_card_codes.yaml, for PostgreSQL, removed in reverse dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The objects take their own grants with them; what stays is the schema's and anything left over.
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'cards') THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_producer') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "cards" FROM "cards_producer";
            REVOKE ALL ON ALL TABLES IN SCHEMA "cards" FROM "cards_producer";
            REVOKE ALL ON SCHEMA "cards" FROM "cards_producer";
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_consumer') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "cards" FROM "cards_consumer";
            REVOKE ALL ON ALL TABLES IN SCHEMA "cards" FROM "cards_consumer";
            REVOKE ALL ON SCHEMA "cards" FROM "cards_consumer";
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_admin') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "cards" FROM "cards_admin";
            REVOKE ALL ON ALL TABLES IN SCHEMA "cards" FROM "cards_admin";
            REVOKE ALL ON SCHEMA "cards" FROM "cards_admin";
        END IF;
    END IF;
END
$qgen$;
DROP FUNCTION IF EXISTS "cards"."card_codes_purge";
DROP FUNCTION IF EXISTS "cards"."card_codes_peek";
DROP FUNCTION IF EXISTS "cards"."card_codes_metrics";
DROP FUNCTION IF EXISTS "cards"."card_codes_dequeue";
DROP TYPE IF EXISTS "cards"."card_codes_dequeue_row";
DROP FUNCTION IF EXISTS "cards"."card_codes_enqueue_batch";
DROP FUNCTION IF EXISTS "cards"."card_codes_enqueue";
DROP TYPE IF EXISTS "cards"."card_codes_batch";
DROP VIEW IF EXISTS "cards"."card_codes_pending";
DROP TABLE IF EXISTS "cards"."card_codes_archive";
DROP INDEX IF EXISTS "cards"."card_codes_dedupe_ux";
DROP INDEX IF EXISTS "cards"."card_codes_claim_ix";
DROP TABLE IF EXISTS "cards"."card_codes";
-- A role still granted something elsewhere (another database with this schema) is kept.
DO $qgen$
BEGIN
    BEGIN
        DROP ROLE IF EXISTS "cards_producer";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role cards_producer kept: it still has privileges or objects elsewhere';
    END;
    BEGIN
        DROP ROLE IF EXISTS "cards_consumer";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role cards_consumer kept: it still has privileges or objects elsewhere';
    END;
    BEGIN
        DROP ROLE IF EXISTS "cards_admin";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role cards_admin kept: it still has privileges or objects elsewhere';
    END;
END
$qgen$;
-- Only an empty schema goes: anything else still in it (someone else's objects) keeps it.
DO $qgen$
BEGIN
    DROP SCHEMA IF EXISTS "cards";
EXCEPTION WHEN dependent_objects_still_exist THEN
    RAISE NOTICE 'qgen: schema cards kept: it still holds other objects';
END
$qgen$;
