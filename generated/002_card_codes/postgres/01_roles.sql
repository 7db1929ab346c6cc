-- qgen 0.1.0: roles cards_producer, cards_consumer, cards_admin (cluster-wide), rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing,
-- and mark the ones install creates (COMMENT): uninstall drops only those, never a role that was
-- there before and that the spec only names.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_producer') THEN
        CREATE ROLE "cards_producer" NOLOGIN;
        COMMENT ON ROLE "cards_producer" IS 'qgen: created by the install of schema cards';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_consumer') THEN
        CREATE ROLE "cards_consumer" NOLOGIN;
        COMMENT ON ROLE "cards_consumer" IS 'qgen: created by the install of schema cards';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_admin') THEN
        CREATE ROLE "cards_admin" NOLOGIN;
        COMMENT ON ROLE "cards_admin" IS 'qgen: created by the install of schema cards';
    END IF;
END
$qgen$;
