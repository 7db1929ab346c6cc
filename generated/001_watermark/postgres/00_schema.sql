-- qgen 0.1.0: schema ghosts, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- ghosts_owner owns every object qgen creates here, and cannot log in: the SECURITY DEFINER
-- functions run with its rights (its own tables and nothing else), not with those of whoever ran
-- install. The schema and the role are marked (COMMENT) when install creates them: uninstall drops
-- only what carries the mark.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_owner') THEN
        CREATE ROLE "ghosts_owner" NOLOGIN;
        COMMENT ON ROLE "ghosts_owner" IS 'qgen: created by the install of schema ghosts';
    ELSIF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ghosts_owner' AND (rolcanlogin OR rolsuper)) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG022',
            MESSAGE = 'qgen: role ghosts_owner exists and can log in or is a superuser; qgen''s SECURITY DEFINER functions run as this role',
            HINT = 'Make it NOLOGIN NOSUPERUSER, or drop it and let install create it.';
    END IF;
    -- Whoever installs creates the objects and hands them to the owner (ALTER ... OWNER TO), which
    -- takes membership of it unless it is a superuser.
    IF NOT pg_catalog.pg_has_role(current_user, 'ghosts_owner', 'MEMBER') THEN
        GRANT "ghosts_owner" TO CURRENT_USER;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'ghosts') THEN
        CREATE SCHEMA "ghosts";
        COMMENT ON SCHEMA "ghosts" IS 'qgen: created by the install of schema ghosts';
    END IF;
END
$qgen$;
GRANT USAGE, CREATE ON SCHEMA "ghosts" TO "ghosts_owner";
