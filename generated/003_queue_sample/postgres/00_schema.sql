-- qgen 0.1.0: schema QueueSample, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- QueueSample_owner owns every object qgen creates here, and cannot log in: the SECURITY DEFINER
-- functions run with its rights (its own tables and nothing else), not with those of whoever ran
-- install. The schema and the role are marked (COMMENT) when install creates them: uninstall drops
-- only what carries the mark.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'QueueSample_owner') THEN
        CREATE ROLE "QueueSample_owner" NOLOGIN;
        COMMENT ON ROLE "QueueSample_owner" IS 'qgen: created by the install of schema QueueSample';
    ELSIF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'QueueSample_owner' AND (rolcanlogin OR rolsuper)) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG022',
            MESSAGE = 'qgen: role QueueSample_owner exists and can log in or is a superuser; qgen''s SECURITY DEFINER functions run as this role',
            HINT = 'Make it NOLOGIN NOSUPERUSER, or drop it and let install create it.';
    END IF;
    -- Whoever installs creates the objects and hands them to the owner (ALTER ... OWNER TO), which
    -- takes membership of it unless it is a superuser.
    IF NOT pg_catalog.pg_has_role(current_user, 'QueueSample_owner', 'MEMBER') THEN
        GRANT "QueueSample_owner" TO CURRENT_USER;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'QueueSample') THEN
        CREATE SCHEMA "QueueSample";
        COMMENT ON SCHEMA "QueueSample" IS 'qgen: created by the install of schema QueueSample';
    END IF;
END
$qgen$;
GRANT USAGE, CREATE ON SCHEMA "QueueSample" TO "QueueSample_owner";
