-- qgen 0.1.0: every object of 002_card_codes.yaml, for PostgreSQL, removed in reverse dependency order.
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
    IF pg_catalog.to_regclass('"cards"."card_codes"') IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM "cards"."card_codes") THEN
            PERFORM pg_catalog.set_config('qgen.uninstall_holding',
                pg_catalog.current_setting('qgen.uninstall_holding') || ' cards.card_codes', false);
        END IF;
    END IF;
    IF pg_catalog.to_regclass('"cards"."card_codes_dead"') IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM "cards"."card_codes_dead") THEN
            PERFORM pg_catalog.set_config('qgen.uninstall_holding',
                pg_catalog.current_setting('qgen.uninstall_holding') || ' cards.card_codes_dead', false);
        END IF;
    END IF;
    IF pg_catalog.to_regclass('"cards"."card_codes_archive"') IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM "cards"."card_codes_archive") THEN
            PERFORM pg_catalog.set_config('qgen.uninstall_holding',
                pg_catalog.current_setting('qgen.uninstall_holding') || ' cards.card_codes_archive', false);
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
    PERFORM pg_catalog.set_config('qgen.uninstall_checked', 'cards', false);
END
$qgen$;
BEGIN;
DO $qgen$
BEGIN
    IF pg_catalog.current_setting('qgen.uninstall_checked', true) IS DISTINCT FROM 'cards' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema cards queue card_codes not run: the check at the start of uninstall.sql refused it (see its error)';
    END IF;
    IF pg_catalog.current_setting('qgen.uninstall_part', true) IS DISTINCT FROM '0' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema cards queue card_codes not run: an earlier part of uninstall.sql failed or was refused and was rolled back (see its error); run uninstall.sql again';
    END IF;
END
$qgen$;
DO $qgen$
DECLARE
    v$holding text := '';
BEGIN
    IF pg_catalog.to_regclass('"cards"."card_codes"') IS NOT NULL THEN
        LOCK TABLE "cards"."card_codes" IN ACCESS EXCLUSIVE MODE;
        IF EXISTS (SELECT 1 FROM "cards"."card_codes") THEN
            v$holding := v$holding || ' cards.card_codes';
        END IF;
    END IF;
    IF pg_catalog.to_regclass('"cards"."card_codes_dead"') IS NOT NULL THEN
        LOCK TABLE "cards"."card_codes_dead" IN ACCESS EXCLUSIVE MODE;
        IF EXISTS (SELECT 1 FROM "cards"."card_codes_dead") THEN
            v$holding := v$holding || ' cards.card_codes_dead';
        END IF;
    END IF;
    IF pg_catalog.to_regclass('"cards"."card_codes_archive"') IS NOT NULL THEN
        LOCK TABLE "cards"."card_codes_archive" IN ACCESS EXCLUSIVE MODE;
        IF EXISTS (SELECT 1 FROM "cards"."card_codes_archive") THEN
            v$holding := v$holding || ' cards.card_codes_archive';
        END IF;
    END IF;
    IF v$holding <> '' AND pg_catalog.current_setting('qgen.force_uninstall', true) IS DISTINCT FROM 'on' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall refused: rows were added while it ran:' || v$holding,
            HINT = 'Nothing of queue card_codes was dropped. To drop its tables with their rows, run SET qgen.force_uninstall = ''on''; in the same session first.';
    END IF;
END
$qgen$;
DROP FUNCTION IF EXISTS "cards"."card_codes_cancel";
DROP FUNCTION IF EXISTS "cards"."card_codes_resume";
DROP FUNCTION IF EXISTS "cards"."card_codes_pause";
DROP FUNCTION IF EXISTS "cards"."card_codes_job";
DROP FUNCTION IF EXISTS "cards"."card_codes_dead_letters";
DROP FUNCTION IF EXISTS "cards"."card_codes_maintain";
DROP ROUTINE IF EXISTS "cards"."card_codes_purge";
DROP FUNCTION IF EXISTS "cards"."card_codes_purge_batch";
DROP FUNCTION IF EXISTS "cards"."card_codes_peek";
DROP FUNCTION IF EXISTS "cards"."card_codes_metrics";
DROP FUNCTION IF EXISTS "cards"."card_codes_dequeue";
DROP TYPE IF EXISTS "cards"."card_codes_dequeue_row";
DROP TRIGGER IF EXISTS "card_codes_dequeue_guard" ON "cards"."card_codes";
DROP FUNCTION IF EXISTS "cards"."card_codes_dequeue_guard";
DROP TABLE IF EXISTS "cards"."card_codes_control";
DROP FUNCTION IF EXISTS "cards"."card_codes_enqueue_batch";
DROP FUNCTION IF EXISTS "cards"."card_codes_enqueue";
DROP TYPE IF EXISTS "cards"."card_codes_batch";
DROP VIEW IF EXISTS "cards"."card_codes_pending";
DROP INDEX IF EXISTS "cards"."card_codes_archive_ix";
DROP INDEX IF EXISTS "cards"."card_codes_dead_id_ix";
DROP INDEX IF EXISTS "cards"."card_codes_dead_ix";
DROP INDEX IF EXISTS "cards"."card_codes_archive_dedupe_ux";
DROP INDEX IF EXISTS "cards"."card_codes_dedupe_ux";
DROP TABLE IF EXISTS "cards"."card_codes_archive";
DROP TABLE IF EXISTS "cards"."card_codes_dead";
DROP TABLE IF EXISTS "cards"."card_codes";
SET qgen.uninstall_part = '1';
COMMIT;
BEGIN;
DO $qgen$
BEGIN
    IF pg_catalog.current_setting('qgen.uninstall_checked', true) IS DISTINCT FROM 'cards' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema cards not run: the check at the start of uninstall.sql refused it (see its error)';
    END IF;
    IF pg_catalog.current_setting('qgen.uninstall_part', true) IS DISTINCT FROM '1' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG021',
            MESSAGE = 'qgen: uninstall of schema cards not run: an earlier part of uninstall.sql failed or was refused and was rolled back (see its error); run uninstall.sql again';
    END IF;
END
$qgen$;
-- The objects take their own grants with them; what stays is the schema's and anything left over.
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'cards') THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_producer') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "cards" FROM "cards_producer";
            REVOKE ALL ON ALL TABLES IN SCHEMA "cards" FROM "cards_producer";
            REVOKE ALL ON SCHEMA "cards" FROM "cards_producer";
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_consumer') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "cards" FROM "cards_consumer";
            REVOKE ALL ON ALL TABLES IN SCHEMA "cards" FROM "cards_consumer";
            REVOKE ALL ON SCHEMA "cards" FROM "cards_consumer";
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_admin') THEN
            REVOKE ALL ON ALL ROUTINES IN SCHEMA "cards" FROM "cards_admin";
            REVOKE ALL ON ALL TABLES IN SCHEMA "cards" FROM "cards_admin";
            REVOKE ALL ON SCHEMA "cards" FROM "cards_admin";
        END IF;
    END IF;
END
$qgen$;
-- Only the roles install created (their mark). A role with members is kept, and said so: the
-- memberships are someone else's. A role still granted something elsewhere (another database with
-- this schema) is kept too.
DO $qgen$
BEGIN
    IF pg_catalog.shobj_description(pg_catalog.to_regrole('"cards_producer"'), 'pg_authid') = 'qgen: created by the install of schema cards' THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members WHERE roleid = pg_catalog.to_regrole('"cards_producer"')) THEN
            RAISE NOTICE 'qgen: role cards_producer kept: it still has members; revoke it from them, then DROP ROLE "cards_producer"';
        ELSE
            BEGIN
                DROP ROLE "cards_producer";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role cards_producer kept: it still has privileges or objects elsewhere';
            END;
        END IF;
    END IF;
    IF pg_catalog.shobj_description(pg_catalog.to_regrole('"cards_consumer"'), 'pg_authid') = 'qgen: created by the install of schema cards' THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members WHERE roleid = pg_catalog.to_regrole('"cards_consumer"')) THEN
            RAISE NOTICE 'qgen: role cards_consumer kept: it still has members; revoke it from them, then DROP ROLE "cards_consumer"';
        ELSE
            BEGIN
                DROP ROLE "cards_consumer";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role cards_consumer kept: it still has privileges or objects elsewhere';
            END;
        END IF;
    END IF;
    IF pg_catalog.shobj_description(pg_catalog.to_regrole('"cards_admin"'), 'pg_authid') = 'qgen: created by the install of schema cards' THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members WHERE roleid = pg_catalog.to_regrole('"cards_admin"')) THEN
            RAISE NOTICE 'qgen: role cards_admin kept: it still has members; revoke it from them, then DROP ROLE "cards_admin"';
        ELSE
            BEGIN
                DROP ROLE "cards_admin";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role cards_admin kept: it still has privileges or objects elsewhere';
            END;
        END IF;
    END IF;
END
$qgen$;
-- Only a schema install created (its mark), and only once nothing else is in it; then the owner role,
-- unless it still owns or holds something (in another database with this schema, say).
DO $qgen$
BEGIN
    IF pg_catalog.obj_description(pg_catalog.to_regnamespace('"cards"'), 'pg_namespace') = 'qgen: created by the install of schema cards' THEN
        BEGIN
            DROP SCHEMA "cards";
        EXCEPTION WHEN dependent_objects_still_exist THEN
            RAISE NOTICE 'qgen: schema cards kept: it still holds other objects';
        END;
    END IF;
    IF pg_catalog.to_regrole('"cards_owner"') IS NOT NULL THEN
        IF pg_catalog.to_regnamespace('"cards"') IS NOT NULL THEN
            REVOKE ALL ON SCHEMA "cards" FROM "cards_owner";
        END IF;
        IF pg_catalog.shobj_description(pg_catalog.to_regrole('"cards_owner"'), 'pg_authid') = 'qgen: created by the install of schema cards' THEN
            BEGIN
                DROP ROLE "cards_owner";
            EXCEPTION WHEN dependent_objects_still_exist THEN
                RAISE NOTICE 'qgen: role cards_owner kept: it still owns or holds rights on objects elsewhere';
            END;
        END IF;
    END IF;
END
$qgen$;
SET qgen.uninstall_part = '2';
COMMIT;
RESET qgen.uninstall_checked;
RESET qgen.uninstall_part;
