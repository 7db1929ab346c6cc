-- qgen 0.1.0: every object of 001_watermark.yaml, for PostgreSQL, removed in reverse dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The objects take their own grants with them; what stays is the schema's and anything left over.
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'ghosts') THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_producer') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "ghosts" FROM "ghosts_producer";
            REVOKE ALL ON ALL TABLES IN SCHEMA "ghosts" FROM "ghosts_producer";
            REVOKE ALL ON SCHEMA "ghosts" FROM "ghosts_producer";
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_consumer') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "ghosts" FROM "ghosts_consumer";
            REVOKE ALL ON ALL TABLES IN SCHEMA "ghosts" FROM "ghosts_consumer";
            REVOKE ALL ON SCHEMA "ghosts" FROM "ghosts_consumer";
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_admin') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "ghosts" FROM "ghosts_admin";
            REVOKE ALL ON ALL TABLES IN SCHEMA "ghosts" FROM "ghosts_admin";
            REVOKE ALL ON SCHEMA "ghosts" FROM "ghosts_admin";
        END IF;
    END IF;
END
$qgen$;
DROP FUNCTION IF EXISTS "ghosts"."testq_purge";
DROP FUNCTION IF EXISTS "ghosts"."testq_peek";
DROP FUNCTION IF EXISTS "ghosts"."testq_metrics";
DROP FUNCTION IF EXISTS "ghosts"."testq_dequeue";
DROP TYPE IF EXISTS "ghosts"."testq_dequeue_row";
DROP FUNCTION IF EXISTS "ghosts"."testq_watermark_correct";
DROP FUNCTION IF EXISTS "ghosts"."testq_watermark_move";
DROP FUNCTION IF EXISTS "ghosts"."testq_enqueue_batch";
DROP FUNCTION IF EXISTS "ghosts"."testq_enqueue";
DROP TYPE IF EXISTS "ghosts"."testq_batch";
DROP VIEW IF EXISTS "ghosts"."testq_pending";
DROP TABLE IF EXISTS "ghosts"."testq_watermark";
DROP INDEX IF EXISTS "ghosts"."testq_claim_ix";
DROP TABLE IF EXISTS "ghosts"."testq";
-- A role still granted something elsewhere (another database with this schema) is kept.
DO $qgen$
BEGIN
    BEGIN
        DROP ROLE IF EXISTS "ghosts_producer";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role ghosts_producer kept: it still has privileges or objects elsewhere';
    END;
    BEGIN
        DROP ROLE IF EXISTS "ghosts_consumer";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role ghosts_consumer kept: it still has privileges or objects elsewhere';
    END;
    BEGIN
        DROP ROLE IF EXISTS "ghosts_admin";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role ghosts_admin kept: it still has privileges or objects elsewhere';
    END;
END
$qgen$;
-- Only an empty schema goes: anything else still in it (someone else's objects) keeps it.
DO $qgen$
BEGIN
    DROP SCHEMA IF EXISTS "ghosts";
EXCEPTION WHEN dependent_objects_still_exist THEN
    RAISE NOTICE 'qgen: schema ghosts kept: it still holds other objects';
END
$qgen$;
