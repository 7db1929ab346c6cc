-- qgen 0.1.0: every object of 003_queue_sample.yaml, for PostgreSQL, removed in reverse dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- First the check: it refuses (and drops nothing) while a table holds rows or an object that is not
-- qgen's uses one of qgen's. Then each part (a queue's objects, then the schema-wide ones: grants,
-- roles, schema) is dropped in a transaction of its own: all of it or none of it, and no
-- transaction locks more than one queue's objects, so a spec of any number of queues fits the
-- server's lock table (max_locks_per_transaction). A queue's part locks its tables ACCESS EXCLUSIVE
-- and looks again before it drops them: a producer, hand-off or dead-lettering that committed after
-- the first check is waited for and seen, and the part is refused with its row kept.
-- A part runs only once this session's check passed and the part before it committed, even under
-- psql without ON_ERROR_STOP (which goes on after an error: the failed part's COMMIT is a
-- ROLLBACK): the check sets qgen.uninstall_checked, and each part's last statement sets
-- qgen.uninstall_part to its number, a SET that its transaction's rollback undoes. So a part that
-- fails or is refused stops every part after it: what is left is whole queues, each with its grants,
-- the queues they hand off to, and the owner role's rights on the schema; run uninstall.sql again.
SET qgen.uninstall_checked = '';
SET qgen.uninstall_part = '0';
-- Uninstall starts here. It refuses to drop tables that still hold rows (jobs, dead letters,
-- archived jobs, outbox rows) unless this session has said so first:
--     SET qgen.force_uninstall = 'on';   (psql: PGOPTIONS='-c qgen.force_uninstall=on' psql -f uninstall.sql)
-- Refused, it drops nothing. Each queue's tables are looked at in a statement of their own (run by
-- psql, a transaction of their own: a spec of any size stays within the server's lock table).
SET qgen.uninstall_holding = '';
DO $qgen$
BEGIN
    IF pg_catalog.to_regclass('"QueueSample"."WorkQueue"') IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM "QueueSample"."WorkQueue") THEN
            PERFORM pg_catalog.set_config('qgen.uninstall_holding',
                pg_catalog.current_setting('qgen.uninstall_holding') || ' QueueSample.WorkQueue', false);
        END IF;
    END IF;
    IF pg_catalog.to_regclass('"QueueSample"."WorkQueue_dead"') IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM "QueueSample"."WorkQueue_dead") THEN
            PERFORM pg_catalog.set_config('qgen.uninstall_holding',
                pg_catalog.current_setting('qgen.uninstall_holding') || ' QueueSample.WorkQueue_dead', false);
        END IF;
    END IF;
END
$qgen$;
DO $qgen$
DECLARE
    v$holding text := pg_catalog.current_setting('qgen.uninstall_holding');
BEGIN
    IF v$holding <> '' AND pg_catalog.current_setting('qgen.force_uninstall', true) IS DISTINCT FROM 'on' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall refused: these tables still hold rows:' || v$holding,
            HINT = 'To drop them with their rows, run SET qgen.force_uninstall = ''on''; in the same session first.';
    END IF;
    -- The parts that follow run only after this (uninstall_part_begin, templates/postgres/script.sql.j2).
    PERFORM pg_catalog.set_config('qgen.uninstall_checked', 'QueueSample', false);
END
$qgen$;
BEGIN;
DO $qgen$
BEGIN
    IF pg_catalog.current_setting('qgen.uninstall_checked', true) IS DISTINCT FROM 'QueueSample' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema QueueSample queue WorkQueue not run: the check at the start of uninstall.sql refused it (see its error)';
    END IF;
    IF pg_catalog.current_setting('qgen.uninstall_part', true) IS DISTINCT FROM '0' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema QueueSample queue WorkQueue not run: an earlier part of uninstall.sql failed or was refused and was rolled back (see its error); run uninstall.sql again';
    END IF;
END
$qgen$;
DO $qgen$
DECLARE
    v$holding text := '';
BEGIN
    IF pg_catalog.to_regclass('"QueueSample"."WorkQueue"') IS NOT NULL THEN
        LOCK TABLE "QueueSample"."WorkQueue" IN ACCESS EXCLUSIVE MODE;
        IF EXISTS (SELECT 1 FROM "QueueSample"."WorkQueue") THEN
            v$holding := v$holding || ' QueueSample.WorkQueue';
        END IF;
    END IF;
    IF pg_catalog.to_regclass('"QueueSample"."WorkQueue_dead"') IS NOT NULL THEN
        LOCK TABLE "QueueSample"."WorkQueue_dead" IN ACCESS EXCLUSIVE MODE;
        IF EXISTS (SELECT 1 FROM "QueueSample"."WorkQueue_dead") THEN
            v$holding := v$holding || ' QueueSample.WorkQueue_dead';
        END IF;
    END IF;
    IF v$holding <> '' AND pg_catalog.current_setting('qgen.force_uninstall', true) IS DISTINCT FROM 'on' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall refused: rows were added while it ran:' || v$holding,
            HINT = 'Nothing of queue WorkQueue was dropped. To drop its tables with their rows, run SET qgen.force_uninstall = ''on''; in the same session first.';
    END IF;
END
$qgen$;
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_cancel";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_resume";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_pause";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_release";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_job";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_dead_letters";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_redrive";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_maintain";
DROP ROUTINE IF EXISTS "QueueSample"."WorkQueue_purge";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_purge_batch";
DROP FUNCTION IF EXISTS "QueueSample"."ViewQueue";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_metrics";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_reap";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_extend_lease";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_fail";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_complete";
DROP FUNCTION IF EXISTS "QueueSample"."GetNextJob";
DROP TYPE IF EXISTS "QueueSample"."GetNextJob_row";
DROP TABLE IF EXISTS "QueueSample"."WorkQueue_control";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_watermark_correct";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_watermark_move";
DROP FUNCTION IF EXISTS "QueueSample"."WorkQueue_enqueue_batch";
DROP FUNCTION IF EXISTS "QueueSample"."QueueJob";
DROP TYPE IF EXISTS "QueueSample"."WorkQueue_batch";
DROP VIEW IF EXISTS "QueueSample"."WorkQueue_Pending";
DROP INDEX IF EXISTS "QueueSample"."WorkQueue_dead_id_ix";
DROP INDEX IF EXISTS "QueueSample"."WorkQueue_dead_ix";
DROP TABLE IF EXISTS "QueueSample"."WorkQueue_dead";
DROP TABLE IF EXISTS "QueueSample"."WorkQueue_watermark";
DROP INDEX IF EXISTS "QueueSample"."WorkQueue_processed_ix";
DROP INDEX IF EXISTS "QueueSample"."WorkQueue_claim_order_ix";
DROP INDEX IF EXISTS "QueueSample"."WorkQueue_claim_ix_due";
DROP INDEX IF EXISTS "QueueSample"."WorkQueue_claim_ix";
DROP TABLE IF EXISTS "QueueSample"."WorkQueue";
SET qgen.uninstall_part = '1';
COMMIT;
BEGIN;
DO $qgen$
BEGIN
    IF pg_catalog.current_setting('qgen.uninstall_checked', true) IS DISTINCT FROM 'QueueSample' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema QueueSample not run: the check at the start of uninstall.sql refused it (see its error)';
    END IF;
    IF pg_catalog.current_setting('qgen.uninstall_part', true) IS DISTINCT FROM '1' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema QueueSample not run: an earlier part of uninstall.sql failed or was refused and was rolled back (see its error); run uninstall.sql again';
    END IF;
END
$qgen$;
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
-- Only the roles install created (their mark). A role with members is kept, and said so: the
-- memberships are someone else's. A role still granted something elsewhere (another database with
-- this schema) is kept too.
DO $qgen$
BEGIN
    IF pg_catalog.shobj_description(pg_catalog.to_regrole('"QueueSample_producer"'), 'pg_authid') = 'qgen: created by the install of schema QueueSample' THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members WHERE roleid = pg_catalog.to_regrole('"QueueSample_producer"')) THEN
            RAISE NOTICE 'qgen: role QueueSample_producer kept: it still has members; revoke it from them, then DROP ROLE "QueueSample_producer"';
        ELSE
            BEGIN
                DROP ROLE "QueueSample_producer";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role QueueSample_producer kept: it still has privileges or objects elsewhere';
            END;
        END IF;
    END IF;
    IF pg_catalog.shobj_description(pg_catalog.to_regrole('"QueueSample_consumer"'), 'pg_authid') = 'qgen: created by the install of schema QueueSample' THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members WHERE roleid = pg_catalog.to_regrole('"QueueSample_consumer"')) THEN
            RAISE NOTICE 'qgen: role QueueSample_consumer kept: it still has members; revoke it from them, then DROP ROLE "QueueSample_consumer"';
        ELSE
            BEGIN
                DROP ROLE "QueueSample_consumer";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role QueueSample_consumer kept: it still has privileges or objects elsewhere';
            END;
        END IF;
    END IF;
    IF pg_catalog.shobj_description(pg_catalog.to_regrole('"QueueSample_admin"'), 'pg_authid') = 'qgen: created by the install of schema QueueSample' THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members WHERE roleid = pg_catalog.to_regrole('"QueueSample_admin"')) THEN
            RAISE NOTICE 'qgen: role QueueSample_admin kept: it still has members; revoke it from them, then DROP ROLE "QueueSample_admin"';
        ELSE
            BEGIN
                DROP ROLE "QueueSample_admin";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role QueueSample_admin kept: it still has privileges or objects elsewhere';
            END;
        END IF;
    END IF;
END
$qgen$;
-- Only a schema install created (its mark), and only once nothing else is in it; then the owner role,
-- unless it still owns or holds something (in another database with this schema, say).
DO $qgen$
BEGIN
    IF pg_catalog.obj_description(pg_catalog.to_regnamespace('"QueueSample"'), 'pg_namespace') = 'qgen: created by the install of schema QueueSample' THEN
        BEGIN
            DROP SCHEMA "QueueSample";
        EXCEPTION WHEN dependent_objects_still_exist THEN
            RAISE NOTICE 'qgen: schema QueueSample kept: it still holds other objects';
        END;
    END IF;
    IF pg_catalog.to_regrole('"QueueSample_owner"') IS NOT NULL THEN
        IF pg_catalog.to_regnamespace('"QueueSample"') IS NOT NULL THEN
            REVOKE ALL ON SCHEMA "QueueSample" FROM "QueueSample_owner";
        END IF;
        IF pg_catalog.shobj_description(pg_catalog.to_regrole('"QueueSample_owner"'), 'pg_authid') = 'qgen: created by the install of schema QueueSample' THEN
            BEGIN
                DROP ROLE "QueueSample_owner";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role QueueSample_owner kept: it still owns or holds rights on objects elsewhere';
            END;
        END IF;
    END IF;
END
$qgen$;
SET qgen.uninstall_part = '2';
COMMIT;
RESET qgen.uninstall_checked;
RESET qgen.uninstall_part;
