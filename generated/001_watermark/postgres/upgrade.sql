-- qgen 0.1.0: run before install.sql where an older qgen installed 001_watermark.yaml, for PostgreSQL: drops or adds what the objects of this version replace.
-- A fresh install and a qgen revision do not need it. Do not edit: change the spec or the templates, then run `qgen render`.
-- A watermark table an earlier qgen made has no corrected_at.
ALTER TABLE IF EXISTS "ghosts"."testq_watermark" ADD COLUMN IF NOT EXISTS "corrected_at" timestamptz NOT NULL DEFAULT '-infinity';
-- Nor due_from and due_moved_at.
ALTER TABLE IF EXISTS "ghosts"."testq_watermark" ADD COLUMN IF NOT EXISTS "due_from" timestamptz NOT NULL DEFAULT '-infinity';
ALTER TABLE IF EXISTS "ghosts"."testq_watermark" ADD COLUMN IF NOT EXISTS "due_moved_at" timestamptz NOT NULL DEFAULT '-infinity';
DO $qgen$
DECLARE
    v$old regprocedure;
    v$users text;
BEGIN
    SELECT "p"."oid"::regprocedure INTO v$old
    FROM pg_catalog.pg_proc AS "p"
    JOIN pg_catalog.pg_namespace AS "n" ON "n"."oid" = "p"."pronamespace"
    WHERE "n"."nspname" = 'ghosts' AND "p"."proname" = 'testq_metrics'
      AND NOT ('paused' = ANY (coalesce("p"."proargnames", '{}')));
    IF v$old IS NULL THEN
        RETURN;
    END IF;
    SELECT pg_catalog.string_agg(DISTINCT pg_catalog.pg_describe_object("d"."classid", "d"."objid", "d"."objsubid"), ', ')
    INTO v$users
    FROM pg_catalog.pg_depend AS "d"
    WHERE "d"."refclassid" = 'pg_catalog.pg_proc'::regclass AND "d"."refobjid" = v$old AND "d"."deptype" = 'n';
    IF v$users IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG022',
            MESSAGE = pg_catalog.format('qgen: upgrade refused, nothing changed: %s use %s, whose result columns change '
                                        '(a "paused" column): drop them, run upgrade.sql and install.sql, then create them again',
                                        v$users, v$old);
    END IF;
    EXECUTE pg_catalog.format('ALTER FUNCTION %s RENAME TO %I', v$old, 'testq_metrics_before_paused');
END
$qgen$;
CREATE OR REPLACE FUNCTION "ghosts"."testq_metrics"()
RETURNS TABLE
(
    "ready" bigint,
    "scheduled" bigint,
    "in_flight" bigint,
    "expired" bigint,
    "processed" bigint,
    "dead" bigint,
    "archived" bigint,
    "oldest_ready_age_seconds" bigint,
    "watermark" bigint,
    "lowest_pending_id" bigint,
    "completed_last_minute" bigint,
    "watermark_lag" bigint,
    "paused" boolean
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT
        count(*) FILTER (WHERE 1 = 1),
        0::bigint,
        0::bigint,
        0::bigint,
        0::bigint,
        0::bigint,
        0::bigint,
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE 1 = 1)))::bigint, 0),
        (SELECT "w"."id" FROM "ghosts"."testq_watermark" AS "w"),
        min("job"."id") FILTER (WHERE 1 = 1),
        -- on_complete: delete leaves no trace of a completion to count.
        NULL::bigint,
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        coalesce(min("job"."id") FILTER (WHERE 1 = 1), max("job"."id") + 1)
            - (SELECT "w"."id" FROM "ghosts"."testq_watermark" AS "w"),
        NOT EXISTS (SELECT 1 FROM "ghosts"."testq_control" AS "c" WHERE NOT "c"."paused")
    FROM "ghosts"."testq" AS "job";
END
$qgen$;
ALTER FUNCTION "ghosts"."testq_metrics" OWNER TO "ghosts_owner";
REVOKE ALL ON FUNCTION "ghosts"."testq_metrics" FROM PUBLIC;
DO $qgen$
DECLARE
    v$old regprocedure := pg_catalog.to_regprocedure('"ghosts"."testq_metrics_before_paused"()');
    v$grantee regrole;
BEGIN
    IF v$old IS NULL THEN
        RETURN;
    END IF;
    FOR v$grantee IN
        SELECT "a"."grantee"::regrole
        FROM pg_catalog.pg_proc AS "p", pg_catalog.aclexplode("p"."proacl") AS "a"
        WHERE "p"."oid" = v$old AND "a"."privilege_type" = 'EXECUTE' AND "a"."grantee" <> 0 AND "a"."grantee" <> "p"."proowner"
    LOOP
        EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s() TO %s', '"ghosts"."testq_metrics"', v$grantee);
    END LOOP;
    EXECUTE pg_catalog.format('DROP FUNCTION %s', v$old);
END
$qgen$;
-- Earlier qgen versions made purge a function: drop that one, so this procedure can take its name.
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_proc AS "p"
               WHERE "p"."oid" = pg_catalog.to_regprocedure('"ghosts"."testq_purge"(integer, integer)') AND "p"."prokind" = 'f') THEN
        DROP FUNCTION "ghosts"."testq_purge"(integer, integer);
    END IF;
END
$qgen$;
