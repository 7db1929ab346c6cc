-- qgen 0.1.0: roles four_producer, four_consumer, four_admin (cluster-wide), rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing,
-- and mark the ones install creates (COMMENT): uninstall drops only those, never a role that was
-- there before and that the spec only names.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'four_producer') THEN
        CREATE ROLE "four_producer" NOLOGIN;
        COMMENT ON ROLE "four_producer" IS 'qgen: created by the install of schema four';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'four_consumer') THEN
        CREATE ROLE "four_consumer" NOLOGIN;
        COMMENT ON ROLE "four_consumer" IS 'qgen: created by the install of schema four';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'four_admin') THEN
        CREATE ROLE "four_admin" NOLOGIN;
        COMMENT ON ROLE "four_admin" IS 'qgen: created by the install of schema four';
    END IF;
END
$qgen$;
