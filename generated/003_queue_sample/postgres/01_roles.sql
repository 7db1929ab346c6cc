-- qgen 0.1.0: roles QueueSample_producer, QueueSample_consumer, QueueSample_admin (cluster-wide), rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing,
-- and mark the ones install creates (COMMENT): uninstall drops only those, never a role that was
-- there before and that the spec only names.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'QueueSample_producer') THEN
        CREATE ROLE "QueueSample_producer" NOLOGIN;
        COMMENT ON ROLE "QueueSample_producer" IS 'qgen: created by the install of schema QueueSample';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'QueueSample_consumer') THEN
        CREATE ROLE "QueueSample_consumer" NOLOGIN;
        COMMENT ON ROLE "QueueSample_consumer" IS 'qgen: created by the install of schema QueueSample';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'QueueSample_admin') THEN
        CREATE ROLE "QueueSample_admin" NOLOGIN;
        COMMENT ON ROLE "QueueSample_admin" IS 'qgen: created by the install of schema QueueSample';
    END IF;
END
$qgen$;
