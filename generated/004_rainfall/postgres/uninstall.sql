-- qgen 0.1.0: every object of 004_rainfall.yaml, for PostgreSQL, removed in reverse dependency order.
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
    IF pg_catalog.to_regclass('"rainfall"."rainfall_events"') IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM "rainfall"."rainfall_events") THEN
            PERFORM pg_catalog.set_config('qgen.uninstall_holding',
                pg_catalog.current_setting('qgen.uninstall_holding') || ' rainfall.rainfall_events', false);
        END IF;
    END IF;
    IF pg_catalog.to_regclass('"rainfall"."rainfall_events_dead"') IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM "rainfall"."rainfall_events_dead") THEN
            PERFORM pg_catalog.set_config('qgen.uninstall_holding',
                pg_catalog.current_setting('qgen.uninstall_holding') || ' rainfall.rainfall_events_dead', false);
        END IF;
    END IF;
END
$qgen$;
DO $qgen$
BEGIN
    IF pg_catalog.to_regclass('"rainfall"."rainfall_transfer"') IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM "rainfall"."rainfall_transfer") THEN
            PERFORM pg_catalog.set_config('qgen.uninstall_holding',
                pg_catalog.current_setting('qgen.uninstall_holding') || ' rainfall.rainfall_transfer', false);
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
    PERFORM pg_catalog.set_config('qgen.uninstall_checked', 'rainfall', false);
END
$qgen$;
BEGIN;
DO $qgen$
BEGIN
    IF pg_catalog.current_setting('qgen.uninstall_checked', true) IS DISTINCT FROM 'rainfall' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema rainfall queue rainfall_events not run: the check at the start of uninstall.sql refused it (see its error)';
    END IF;
    IF pg_catalog.current_setting('qgen.uninstall_part', true) IS DISTINCT FROM '0' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema rainfall queue rainfall_events not run: an earlier part of uninstall.sql failed or was refused and was rolled back (see its error); run uninstall.sql again';
    END IF;
END
$qgen$;
DO $qgen$
DECLARE
    v$holding text := '';
BEGIN
    IF pg_catalog.to_regclass('"rainfall"."rainfall_events"') IS NOT NULL THEN
        LOCK TABLE "rainfall"."rainfall_events" IN ACCESS EXCLUSIVE MODE;
        IF EXISTS (SELECT 1 FROM "rainfall"."rainfall_events") THEN
            v$holding := v$holding || ' rainfall.rainfall_events';
        END IF;
    END IF;
    IF pg_catalog.to_regclass('"rainfall"."rainfall_events_dead"') IS NOT NULL THEN
        LOCK TABLE "rainfall"."rainfall_events_dead" IN ACCESS EXCLUSIVE MODE;
        IF EXISTS (SELECT 1 FROM "rainfall"."rainfall_events_dead") THEN
            v$holding := v$holding || ' rainfall.rainfall_events_dead';
        END IF;
    END IF;
    IF v$holding <> '' AND pg_catalog.current_setting('qgen.force_uninstall', true) IS DISTINCT FROM 'on' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall refused: rows were added while it ran:' || v$holding,
            HINT = 'Nothing of queue rainfall_events was dropped. To drop its tables with their rows, run SET qgen.force_uninstall = ''on''; in the same session first.';
    END IF;
END
$qgen$;
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_cancel";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_resume";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_pause";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_release";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_job";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_dead_letters";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_redrive";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_maintain";
DROP ROUTINE IF EXISTS "rainfall"."rainfall_events_purge";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_purge_batch";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_peek";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_metrics";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_reap";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_extend_lease";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_fail";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_complete";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_dequeue";
DROP TYPE IF EXISTS "rainfall"."rainfall_events_dequeue_row";
DROP TABLE IF EXISTS "rainfall"."rainfall_events_control";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_watermark_correct";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_watermark_move";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_enqueue_batch";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_events_enqueue";
DROP TYPE IF EXISTS "rainfall"."rainfall_events_batch";
DROP VIEW IF EXISTS "rainfall"."rainfall_events_pending";
DROP INDEX IF EXISTS "rainfall"."rainfall_events_dead_id_ix";
DROP INDEX IF EXISTS "rainfall"."rainfall_events_dead_ix";
DROP TABLE IF EXISTS "rainfall"."rainfall_events_dead";
DROP TABLE IF EXISTS "rainfall"."rainfall_events_watermark";
DROP INDEX IF EXISTS "rainfall"."rainfall_events_processed_ix";
DROP INDEX IF EXISTS "rainfall"."rainfall_events_claim_ix_due";
DROP INDEX IF EXISTS "rainfall"."rainfall_events_claim_ix";
DROP TABLE IF EXISTS "rainfall"."rainfall_events";
SET qgen.uninstall_part = '1';
COMMIT;
BEGIN;
DO $qgen$
BEGIN
    IF pg_catalog.current_setting('qgen.uninstall_checked', true) IS DISTINCT FROM 'rainfall' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema rainfall queue rainfall_transfer not run: the check at the start of uninstall.sql refused it (see its error)';
    END IF;
    IF pg_catalog.current_setting('qgen.uninstall_part', true) IS DISTINCT FROM '1' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema rainfall queue rainfall_transfer not run: an earlier part of uninstall.sql failed or was refused and was rolled back (see its error); run uninstall.sql again';
    END IF;
END
$qgen$;
DO $qgen$
DECLARE
    v$holding text := '';
BEGIN
    IF pg_catalog.to_regclass('"rainfall"."rainfall_transfer"') IS NOT NULL THEN
        LOCK TABLE "rainfall"."rainfall_transfer" IN ACCESS EXCLUSIVE MODE;
        IF EXISTS (SELECT 1 FROM "rainfall"."rainfall_transfer") THEN
            v$holding := v$holding || ' rainfall.rainfall_transfer';
        END IF;
    END IF;
    IF v$holding <> '' AND pg_catalog.current_setting('qgen.force_uninstall', true) IS DISTINCT FROM 'on' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall refused: rows were added while it ran:' || v$holding,
            HINT = 'Nothing of queue rainfall_transfer was dropped. To drop its tables with their rows, run SET qgen.force_uninstall = ''on''; in the same session first.';
    END IF;
END
$qgen$;
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_cancel";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_resume";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_pause";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_job";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_maintain";
DROP ROUTINE IF EXISTS "rainfall"."rainfall_transfer_purge";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_purge_batch";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_peek";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_metrics";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_dequeue";
DROP TYPE IF EXISTS "rainfall"."rainfall_transfer_dequeue_row";
DROP TRIGGER IF EXISTS "rainfall_transfer_dequeue_guard" ON "rainfall"."rainfall_transfer";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_dequeue_guard";
DROP TABLE IF EXISTS "rainfall"."rainfall_transfer_control";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_watermark_correct";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_watermark_move";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_enqueue_batch";
DROP FUNCTION IF EXISTS "rainfall"."rainfall_transfer_enqueue";
DROP TYPE IF EXISTS "rainfall"."rainfall_transfer_batch";
DROP VIEW IF EXISTS "rainfall"."rainfall_transfer_pending";
DROP TABLE IF EXISTS "rainfall"."rainfall_transfer_watermark";
DROP TABLE IF EXISTS "rainfall"."rainfall_transfer";
SET qgen.uninstall_part = '2';
COMMIT;
BEGIN;
DO $qgen$
BEGIN
    IF pg_catalog.current_setting('qgen.uninstall_checked', true) IS DISTINCT FROM 'rainfall' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema rainfall not run: the check at the start of uninstall.sql refused it (see its error)';
    END IF;
    IF pg_catalog.current_setting('qgen.uninstall_part', true) IS DISTINCT FROM '2' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema rainfall not run: an earlier part of uninstall.sql failed or was refused and was rolled back (see its error); run uninstall.sql again';
    END IF;
END
$qgen$;
-- The objects take their own grants with them; what stays is the schema's and anything left over.
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'rainfall') THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'rainfall_producer') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "rainfall" FROM "rainfall_producer";
            REVOKE ALL ON ALL TABLES IN SCHEMA "rainfall" FROM "rainfall_producer";
            REVOKE ALL ON SCHEMA "rainfall" FROM "rainfall_producer";
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'rainfall_consumer') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "rainfall" FROM "rainfall_consumer";
            REVOKE ALL ON ALL TABLES IN SCHEMA "rainfall" FROM "rainfall_consumer";
            REVOKE ALL ON SCHEMA "rainfall" FROM "rainfall_consumer";
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'rainfall_admin') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "rainfall" FROM "rainfall_admin";
            REVOKE ALL ON ALL TABLES IN SCHEMA "rainfall" FROM "rainfall_admin";
            REVOKE ALL ON SCHEMA "rainfall" FROM "rainfall_admin";
        END IF;
    END IF;
END
$qgen$;
-- Only the roles install created (their mark). A role with members is kept, and said so: the
-- memberships are someone else's. A role still granted something elsewhere (another database with
-- this schema) is kept too.
DO $qgen$
BEGIN
    IF pg_catalog.shobj_description(pg_catalog.to_regrole('"rainfall_producer"'), 'pg_authid') = 'qgen: created by the install of schema rainfall' THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members WHERE roleid = pg_catalog.to_regrole('"rainfall_producer"')) THEN
            RAISE NOTICE 'qgen: role rainfall_producer kept: it still has members; revoke it from them, then DROP ROLE "rainfall_producer"';
        ELSE
            BEGIN
                DROP ROLE "rainfall_producer";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role rainfall_producer kept: it still has privileges or objects elsewhere';
            END;
        END IF;
    END IF;
    IF pg_catalog.shobj_description(pg_catalog.to_regrole('"rainfall_consumer"'), 'pg_authid') = 'qgen: created by the install of schema rainfall' THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members WHERE roleid = pg_catalog.to_regrole('"rainfall_consumer"')) THEN
            RAISE NOTICE 'qgen: role rainfall_consumer kept: it still has members; revoke it from them, then DROP ROLE "rainfall_consumer"';
        ELSE
            BEGIN
                DROP ROLE "rainfall_consumer";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role rainfall_consumer kept: it still has privileges or objects elsewhere';
            END;
        END IF;
    END IF;
    IF pg_catalog.shobj_description(pg_catalog.to_regrole('"rainfall_admin"'), 'pg_authid') = 'qgen: created by the install of schema rainfall' THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members WHERE roleid = pg_catalog.to_regrole('"rainfall_admin"')) THEN
            RAISE NOTICE 'qgen: role rainfall_admin kept: it still has members; revoke it from them, then DROP ROLE "rainfall_admin"';
        ELSE
            BEGIN
                DROP ROLE "rainfall_admin";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role rainfall_admin kept: it still has privileges or objects elsewhere';
            END;
        END IF;
    END IF;
END
$qgen$;
-- Only a schema install created (its mark), and only once nothing else is in it; then the owner role,
-- unless it still owns or holds something (in another database with this schema, say).
DO $qgen$
BEGIN
    IF pg_catalog.obj_description(pg_catalog.to_regnamespace('"rainfall"'), 'pg_namespace') = 'qgen: created by the install of schema rainfall' THEN
        BEGIN
            DROP SCHEMA "rainfall";
        EXCEPTION WHEN dependent_objects_still_exist THEN
            RAISE NOTICE 'qgen: schema rainfall kept: it still holds other objects';
        END;
    END IF;
    IF pg_catalog.to_regrole('"rainfall_owner"') IS NOT NULL THEN
        IF pg_catalog.to_regnamespace('"rainfall"') IS NOT NULL THEN
            REVOKE ALL ON SCHEMA "rainfall" FROM "rainfall_owner";
        END IF;
        IF pg_catalog.shobj_description(pg_catalog.to_regrole('"rainfall_owner"'), 'pg_authid') = 'qgen: created by the install of schema rainfall' THEN
            BEGIN
                DROP ROLE "rainfall_owner";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role rainfall_owner kept: it still owns or holds rights on objects elsewhere';
            END;
        END IF;
    END IF;
END
$qgen$;
SET qgen.uninstall_part = '3';
COMMIT;
RESET qgen.uninstall_checked;
RESET qgen.uninstall_part;
