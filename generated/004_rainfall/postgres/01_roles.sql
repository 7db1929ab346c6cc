-- qgen 0.1.0: roles rainfall_producer, rainfall_consumer, rainfall_admin (cluster-wide), rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing,
-- and mark the ones install creates (COMMENT): uninstall drops only those, never a role that was
-- there before and that the spec only names.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'rainfall_producer') THEN
        CREATE ROLE "rainfall_producer" NOLOGIN;
        COMMENT ON ROLE "rainfall_producer" IS 'qgen: created by the install of schema rainfall';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'rainfall_consumer') THEN
        CREATE ROLE "rainfall_consumer" NOLOGIN;
        COMMENT ON ROLE "rainfall_consumer" IS 'qgen: created by the install of schema rainfall';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'rainfall_admin') THEN
        CREATE ROLE "rainfall_admin" NOLOGIN;
        COMMENT ON ROLE "rainfall_admin" IS 'qgen: created by the install of schema rainfall';
    END IF;
END
$qgen$;
