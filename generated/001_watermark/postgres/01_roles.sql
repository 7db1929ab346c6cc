-- qgen 0.1.0: roles ghosts_producer, ghosts_consumer, ghosts_admin (cluster-wide), rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing,
-- and mark the ones install creates (COMMENT): uninstall drops only those, never a role that was
-- there before and that the spec only names.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_producer') THEN
        CREATE ROLE "ghosts_producer" NOLOGIN;
        COMMENT ON ROLE "ghosts_producer" IS 'qgen: created by the install of schema ghosts';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_consumer') THEN
        CREATE ROLE "ghosts_consumer" NOLOGIN;
        COMMENT ON ROLE "ghosts_consumer" IS 'qgen: created by the install of schema ghosts';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_admin') THEN
        CREATE ROLE "ghosts_admin" NOLOGIN;
        COMMENT ON ROLE "ghosts_admin" IS 'qgen: created by the install of schema ghosts';
    END IF;
END
$qgen$;
