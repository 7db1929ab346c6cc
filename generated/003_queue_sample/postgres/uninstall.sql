-- qgen 0.1.0: every object of 003_queue_sample.yaml, for PostgreSQL, removed in reverse dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The objects take their own grants with them; what stays is the schema's and anything left over.
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'QueueSample') THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'QueueSample_producer') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "QueueSample" FROM "QueueSample_producer";
            REVOKE ALL ON ALL TABLES IN SCHEMA "QueueSample" FROM "QueueSample_producer";
            REVOKE ALL ON SCHEMA "QueueSample" FROM "QueueSample_producer";
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'QueueSample_consumer') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "QueueSample" FROM "QueueSample_consumer";
            REVOKE ALL ON ALL TABLES IN SCHEMA "QueueSample" FROM "QueueSample_consumer";
            REVOKE ALL ON SCHEMA "QueueSample" FROM "QueueSample_consumer";
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'QueueSample_admin') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "QueueSample" FROM "QueueSample_admin";
            REVOKE ALL ON ALL TABLES IN SCHEMA "QueueSample" FROM "QueueSample_admin";
            REVOKE ALL ON SCHEMA "QueueSample" FROM "QueueSample_admin";
        END IF;
    END IF;
END
$qgen$;
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_purge";
DROP FUNCTION IF EXISTS "QueueSample"."ViewQueue";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_metrics";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_reap";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_extend_lease";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_fail";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_complete";
DROP FUNCTION IF EXISTS "QueueSample"."GetNextJob";
DROP TYPE IF EXISTS "QueueSample"."GetNextJob_row";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_watermark_correct";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_watermark_move";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_enqueue_batch";
DROP FUNCTION IF EXISTS "QueueSample"."QueueJob";
DROP TYPE IF EXISTS "QueueSample"."WorkQueue_batch";
DROP VIEW IF EXISTS "QueueSample"."WorkQueue_Pending";
DROP TABLE IF EXISTS "QueueSample"."WorkQueue_dead";
DROP TABLE IF EXISTS "QueueSample"."WorkQueue_watermark";
DROP INDEX IF EXISTS "QueueSample"."WorkQueue_lease_ix";
DROP INDEX IF EXISTS "QueueSample"."WorkQueue_claim_ix";
DROP TABLE IF EXISTS "QueueSample"."WorkQueue";
-- A role still granted something elsewhere (another database with this schema) is kept.
DO $qgen$
BEGIN
    BEGIN
        DROP ROLE IF EXISTS "QueueSample_producer";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role QueueSample_producer kept: it still has privileges or objects elsewhere';
    END;
    BEGIN
        DROP ROLE IF EXISTS "QueueSample_consumer";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role QueueSample_consumer kept: it still has privileges or objects elsewhere';
    END;
    BEGIN
        DROP ROLE IF EXISTS "QueueSample_admin";
    EXCEPTION WHEN dependent_objects_still_exist THEN
        RAISE NOTICE 'qgen: role QueueSample_admin kept: it still has privileges or objects elsewhere';
    END;
END
$qgen$;
-- Only an empty schema goes: anything else still in it (someone else's objects) keeps it.
DO $qgen$
BEGIN
    DROP SCHEMA IF EXISTS "QueueSample";
EXCEPTION WHEN dependent_objects_still_exist THEN
    RAISE NOTICE 'qgen: schema QueueSample kept: it still holds other objects';
END
$qgen$;
