-- qgen 0.1.0: every object of 000_flag_worker.yaml, for PostgreSQL, removed in reverse dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The objects take their own grants with them; what stays is the schema's and anything left over.
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'four') THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'four_producer') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "four" FROM "four_producer";
            REVOKE ALL ON ALL TABLES IN SCHEMA "four" FROM "four_producer";
            REVOKE ALL ON SCHEMA "four" FROM "four_producer";
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'four_consumer') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "four" FROM "four_consumer";
            REVOKE ALL ON ALL TABLES IN SCHEMA "four" FROM "four_consumer";
            REVOKE ALL ON SCHEMA "four" FROM "four_consumer";
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'four_admin') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "four" FROM "four_admin";
            REVOKE ALL ON ALL TABLES IN SCHEMA "four" FROM "four_admin";
            REVOKE ALL ON SCHEMA "four" FROM "four_admin";
        END IF;
    END IF;
END
$qgen$;
DROP FUNCTION IF EXISTS "four"."four_queue_purge";
DROP FUNCTION IF EXISTS "four"."four_queue_peek";
DROP FUNCTION IF EXISTS "four"."four_queue_metrics";
DROP PROCEDURE IF EXISTS "four"."four_queue_worker";
DROP FUNCTION IF EXISTS "four"."four_queue_reap";
DROP FUNCTION IF EXISTS "four"."four_queue_extend_lease";
DROP FUNCTION IF EXISTS "four"."four_queue_fail";
DROP FUNCTION IF EXISTS "four"."four_queue_complete";
DROP FUNCTION IF EXISTS "four"."four_queue_dequeue";
DROP TYPE IF EXISTS "four"."four_queue_dequeue_row";
DROP FUNCTION IF EXISTS "four"."four_queue_watermark_correct";
DROP FUNCTION IF EXISTS "four"."four_queue_watermark_move";
DROP FUNCTION IF EXISTS "four"."four_queue_enqueue_batch";
DROP FUNCTION IF EXISTS "four"."four_queue_enqueue";
DROP TYPE IF EXISTS "four"."four_queue_batch";
DROP VIEW IF EXISTS "four"."four_queue_pending";
DROP TABLE IF EXISTS "four"."four_queue_dead";
DROP TABLE IF EXISTS "four"."four_queue_watermark";
DROP INDEX IF EXISTS "four"."four_queue_lease_ix";
DROP INDEX IF EXISTS "four"."four_queue_dedupe_ux";
DROP INDEX IF EXISTS "four"."four_queue_claim_ix";
DROP TABLE IF EXISTS "four"."four_queue";
-- A role still granted something elsewhere (another database with this schema) is kept.
DO $qgen$
BEGIN
    BEGIN
        DROP ROLE IF EXISTS "four_producer";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role four_producer kept: it still has privileges or objects elsewhere';
    END;
    BEGIN
        DROP ROLE IF EXISTS "four_consumer";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role four_consumer kept: it still has privileges or objects elsewhere';
    END;
    BEGIN
        DROP ROLE IF EXISTS "four_admin";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role four_admin kept: it still has privileges or objects elsewhere';
    END;
END
$qgen$;
-- Only an empty schema goes: anything else still in it (someone else's objects) keeps it.
DO $qgen$
BEGIN
    DROP SCHEMA IF EXISTS "four";
EXCEPTION WHEN dependent_objects_still_exist THEN
    RAISE NOTICE 'qgen: schema four kept: it still holds other objects';
END
$qgen$;
