-- qgen 0.1.0: every object of 000_flag_worker.yaml, for PostgreSQL, removed in reverse dependency order.
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
    IF pg_catalog.to_regclass('"four"."four_queue"') IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM "four"."four_queue") THEN
            PERFORM pg_catalog.set_config('qgen.uninstall_holding',
                pg_catalog.current_setting('qgen.uninstall_holding') || ' four.four_queue', false);
        END IF;
    END IF;
    IF pg_catalog.to_regclass('"four"."four_queue_dead"') IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM "four"."four_queue_dead") THEN
            PERFORM pg_catalog.set_config('qgen.uninstall_holding',
                pg_catalog.current_setting('qgen.uninstall_holding') || ' four.four_queue_dead', false);
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
    PERFORM pg_catalog.set_config('qgen.uninstall_checked', 'four', false);
END
$qgen$;
BEGIN;
DO $qgen$
BEGIN
    IF pg_catalog.current_setting('qgen.uninstall_checked', true) IS DISTINCT FROM 'four' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema four queue four_queue not run: the check at the start of uninstall.sql refused it (see its error)';
    END IF;
    IF pg_catalog.current_setting('qgen.uninstall_part', true) IS DISTINCT FROM '0' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema four queue four_queue not run: an earlier part of uninstall.sql failed or was refused and was rolled back (see its error); run uninstall.sql again';
    END IF;
END
$qgen$;
DO $qgen$
DECLARE
    v$holding text := '';
BEGIN
    IF pg_catalog.to_regclass('"four"."four_queue"') IS NOT NULL THEN
        LOCK TABLE "four"."four_queue" IN ACCESS EXCLUSIVE MODE;
        IF EXISTS (SELECT 1 FROM "four"."four_queue") THEN
            v$holding := v$holding || ' four.four_queue';
        END IF;
    END IF;
    IF pg_catalog.to_regclass('"four"."four_queue_dead"') IS NOT NULL THEN
        LOCK TABLE "four"."four_queue_dead" IN ACCESS EXCLUSIVE MODE;
        IF EXISTS (SELECT 1 FROM "four"."four_queue_dead") THEN
            v$holding := v$holding || ' four.four_queue_dead';
        END IF;
    END IF;
    IF v$holding <> '' AND pg_catalog.current_setting('qgen.force_uninstall', true) IS DISTINCT FROM 'on' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall refused: rows were added while it ran:' || v$holding,
            HINT = 'Nothing of queue four_queue was dropped. To drop its tables with their rows, run SET qgen.force_uninstall = ''on''; in the same session first.';
    END IF;
END
$qgen$;
DROP FUNCTION IF EXISTS "four"."four_queue_cancel";
DROP FUNCTION IF EXISTS "four"."four_queue_resume";
DROP FUNCTION IF EXISTS "four"."four_queue_pause";
DROP FUNCTION IF EXISTS "four"."four_queue_release";
DROP FUNCTION IF EXISTS "four"."four_queue_job";
DROP FUNCTION IF EXISTS "four"."four_queue_dead_letters";
DROP FUNCTION IF EXISTS "four"."four_queue_redrive";
DROP FUNCTION IF EXISTS "four"."four_queue_maintain";
DROP ROUTINE IF EXISTS "four"."four_queue_purge";
DROP FUNCTION IF EXISTS "four"."four_queue_purge_batch";
DROP FUNCTION IF EXISTS "four"."four_queue_peek";
DROP FUNCTION IF EXISTS "four"."four_queue_metrics";
DROP PROCEDURE IF EXISTS "four"."four_queue_worker";
DROP FUNCTION IF EXISTS "four"."four_queue_reap";
DROP FUNCTION IF EXISTS "four"."four_queue_extend_lease";
DROP FUNCTION IF EXISTS "four"."four_queue_fail";
DROP FUNCTION IF EXISTS "four"."four_queue_complete";
DROP FUNCTION IF EXISTS "four"."four_queue_dequeue";
DROP TYPE IF EXISTS "four"."four_queue_dequeue_row";
DROP TABLE IF EXISTS "four"."four_queue_control";
DROP FUNCTION IF EXISTS "four"."four_queue_watermark_correct";
DROP FUNCTION IF EXISTS "four"."four_queue_watermark_move";
DROP FUNCTION IF EXISTS "four"."four_queue_enqueue_batch";
DROP FUNCTION IF EXISTS "four"."four_queue_enqueue";
DROP TYPE IF EXISTS "four"."four_queue_batch";
DROP VIEW IF EXISTS "four"."four_queue_pending";
DROP INDEX IF EXISTS "four"."four_queue_dead_id_ix";
DROP INDEX IF EXISTS "four"."four_queue_dead_ix";
DROP TABLE IF EXISTS "four"."four_queue_watermark";
DROP INDEX IF EXISTS "four"."four_queue_processed_ix";
DROP INDEX IF EXISTS "four"."four_queue_dead_dedupe_ux";
DROP INDEX IF EXISTS "four"."four_queue_dedupe_ux";
DROP TABLE IF EXISTS "four"."four_queue_dead";
DROP INDEX IF EXISTS "four"."four_queue_claim_ix_due";
DROP INDEX IF EXISTS "four"."four_queue_claim_ix";
DROP TABLE IF EXISTS "four"."four_queue";
SET qgen.uninstall_part = '1';
COMMIT;
BEGIN;
DO $qgen$
BEGIN
    IF pg_catalog.current_setting('qgen.uninstall_checked', true) IS DISTINCT FROM 'four' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema four not run: the check at the start of uninstall.sql refused it (see its error)';
    END IF;
    IF pg_catalog.current_setting('qgen.uninstall_part', true) IS DISTINCT FROM '1' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema four not run: an earlier part of uninstall.sql failed or was refused and was rolled back (see its error); run uninstall.sql again';
    END IF;
END
$qgen$;
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
-- Only the roles install created (their mark). A role with members is kept, and said so: the
-- memberships are someone else's. A role still granted something elsewhere (another database with
-- this schema) is kept too.
DO $qgen$
BEGIN
    IF pg_catalog.shobj_description(pg_catalog.to_regrole('"four_producer"'), 'pg_authid') = 'qgen: created by the install of schema four' THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members WHERE roleid = pg_catalog.to_regrole('"four_producer"')) THEN
            RAISE NOTICE 'qgen: role four_producer kept: it still has members; revoke it from them, then DROP ROLE "four_producer"';
        ELSE
            BEGIN
                DROP ROLE "four_producer";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role four_producer kept: it still has privileges or objects elsewhere';
            END;
        END IF;
    END IF;
    IF pg_catalog.shobj_description(pg_catalog.to_regrole('"four_consumer"'), 'pg_authid') = 'qgen: created by the install of schema four' THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members WHERE roleid = pg_catalog.to_regrole('"four_consumer"')) THEN
            RAISE NOTICE 'qgen: role four_consumer kept: it still has members; revoke it from them, then DROP ROLE "four_consumer"';
        ELSE
            BEGIN
                DROP ROLE "four_consumer";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role four_consumer kept: it still has privileges or objects elsewhere';
            END;
        END IF;
    END IF;
    IF pg_catalog.shobj_description(pg_catalog.to_regrole('"four_admin"'), 'pg_authid') = 'qgen: created by the install of schema four' THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members WHERE roleid = pg_catalog.to_regrole('"four_admin"')) THEN
            RAISE NOTICE 'qgen: role four_admin kept: it still has members; revoke it from them, then DROP ROLE "four_admin"';
        ELSE
            BEGIN
                DROP ROLE "four_admin";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role four_admin kept: it still has privileges or objects elsewhere';
            END;
        END IF;
    END IF;
END
$qgen$;
-- Only a schema install created (its mark), and only once nothing else is in it; then the owner role,
-- unless it still owns or holds something (in another database with this schema, say).
DO $qgen$
BEGIN
    IF pg_catalog.obj_description(pg_catalog.to_regnamespace('"four"'), 'pg_namespace') = 'qgen: created by the install of schema four' THEN
        BEGIN
            DROP SCHEMA "four";
        EXCEPTION WHEN dependent_objects_still_exist THEN
            RAISE NOTICE 'qgen: schema four kept: it still holds other objects';
        END;
    END IF;
    IF pg_catalog.to_regrole('"four_owner"') IS NOT NULL THEN
        IF pg_catalog.to_regnamespace('"four"') IS NOT NULL THEN
            REVOKE ALL ON SCHEMA "four" FROM "four_owner";
        END IF;
        IF pg_catalog.shobj_description(pg_catalog.to_regrole('"four_owner"'), 'pg_authid') = 'qgen: created by the install of schema four' THEN
            BEGIN
                DROP ROLE "four_owner";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role four_owner kept: it still owns or holds rights on objects elsewhere';
            END;
        END IF;
    END IF;
END
$qgen$;
SET qgen.uninstall_part = '2';
COMMIT;
RESET qgen.uninstall_checked;
RESET qgen.uninstall_part;
