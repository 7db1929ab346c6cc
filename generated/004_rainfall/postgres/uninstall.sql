-- qgen 0.1.0: every object of 004_rainfall.yaml, for PostgreSQL, removed in reverse dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The objects take their own grants with them; what stays is the schema's and anything left over.
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'rainfall') THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'rainfall_producer') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "rainfall" FROM "rainfall_producer";
            REVOKE ALL ON ALL TABLES IN SCHEMA "rainfall" FROM "rainfall_producer";
            REVOKE ALL ON SCHEMA "rainfall" FROM "rainfall_producer";
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'rainfall_consumer') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "rainfall" FROM "rainfall_consumer";
            REVOKE ALL ON ALL TABLES IN SCHEMA "rainfall" FROM "rainfall_consumer";
            REVOKE ALL ON SCHEMA "rainfall" FROM "rainfall_consumer";
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'rainfall_admin') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "rainfall" FROM "rainfall_admin";
            REVOKE ALL ON ALL TABLES IN SCHEMA "rainfall" FROM "rainfall_admin";
            REVOKE ALL ON SCHEMA "rainfall" FROM "rainfall_admin";
        END IF;
    END IF;
END
$qgen$;
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_purge";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_peek";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_metrics";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_dequeue";
DROP TYPE IF EXISTS "rainfall"."rainfall_transfer_dequeue_row";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_watermark_correct";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_watermark_move";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_enqueue_batch";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_enqueue";
DROP TYPE IF EXISTS "rainfall"."rainfall_transfer_batch";
DROP VIEW IF EXISTS "rainfall"."rainfall_transfer_pending";
DROP TABLE IF EXISTS "rainfall"."rainfall_transfer_watermark";
DROP INDEX IF EXISTS "rainfall"."rainfall_transfer_claim_ix";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_purge";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_peek";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_metrics";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_reap";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_extend_lease";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_fail";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_complete";
DROP TABLE IF EXISTS "rainfall"."rainfall_transfer";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_dequeue";
DROP TYPE IF EXISTS "rainfall"."rainfall_events_dequeue_row";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_watermark_correct";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_watermark_move";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_enqueue_batch";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_enqueue";
DROP TYPE IF EXISTS "rainfall"."rainfall_events_batch";
DROP VIEW IF EXISTS "rainfall"."rainfall_events_pending";
DROP TABLE IF EXISTS "rainfall"."rainfall_events_dead";
DROP TABLE IF EXISTS "rainfall"."rainfall_events_watermark";
DROP INDEX IF EXISTS "rainfall"."rainfall_events_lease_ix";
DROP INDEX IF EXISTS "rainfall"."rainfall_events_claim_ix";
DROP TABLE IF EXISTS "rainfall"."rainfall_events";
-- A role still granted something elsewhere (another database with this schema) is kept.
DO $qgen$
BEGIN
    BEGIN
        DROP ROLE IF EXISTS "rainfall_producer";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role rainfall_producer kept: it still has privileges or objects elsewhere';
    END;
    BEGIN
        DROP ROLE IF EXISTS "rainfall_consumer";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role rainfall_consumer kept: it still has privileges or objects elsewhere';
    END;
    BEGIN
        DROP ROLE IF EXISTS "rainfall_admin";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role rainfall_admin kept: it still has privileges or objects elsewhere';
    END;
END
$qgen$;
-- Only an empty schema goes: anything else still in it (someone else's objects) keeps it.
DO $qgen$
BEGIN
    DROP SCHEMA IF EXISTS "rainfall";
EXCEPTION WHEN dependent_objects_still_exist THEN
    RAISE NOTICE 'qgen: schema rainfall kept: it still holds other objects';
END
$qgen$;
