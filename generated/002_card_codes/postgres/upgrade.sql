-- qgen 0.1.0: run before install.sql where an older qgen installed 002_card_codes.yaml, for PostgreSQL: drops or adds what the objects of this version replace.
-- A fresh install and a qgen revision do not need it. Do not edit: change the spec or the templates, then run `qgen render`.
DO $qgen$
DECLARE
    v$old regprocedure;
    v$users text;
BEGIN
    SELECT "p"."oid"::regprocedure INTO v$old
    FROM pg_catalog.pg_proc AS "p"
    JOIN pg_catalog.pg_namespace AS "n" ON "n"."oid" = "p"."pronamespace"
    WHERE "n"."nspname" = 'cards' AND "p"."proname" = 'card_codes_metrics'
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
    EXECUTE pg_catalog.format('ALTER FUNCTION %s RENAME TO %I', v$old, 'card_codes_metrics_before_paused');
END
$qgen$;
CREATE OR REPLACE FUNCTION "cards"."card_codes_metrics"()
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
        (SELECT count(*) FROM "cards"."card_codes_dead"),
        (SELECT count(*) FROM "cards"."card_codes_archive"),
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE 1 = 1)))::bigint, 0),
        NULL::bigint,
        min("job"."id") FILTER (WHERE 1 = 1),
        (SELECT count(*) FROM "cards"."card_codes_archive" AS "a" WHERE "a"."completed_at" >= now() - interval '1 minute'),
        NULL::bigint,
        NOT EXISTS (SELECT 1 FROM "cards"."card_codes_control" AS "c" WHERE NOT "c"."paused")
    FROM "cards"."card_codes" AS "job";
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_metrics" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_metrics" FROM PUBLIC;
DO $qgen$
DECLARE
    v$old regprocedure := pg_catalog.to_regprocedure('"cards"."card_codes_metrics_before_paused"()');
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
        EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s() TO %s', '"cards"."card_codes_metrics"', v$grantee);
    END LOOP;
    EXECUTE pg_catalog.format('DROP FUNCTION %s', v$old);
END
$qgen$;
-- Earlier qgen versions made purge a function: drop that one, so this procedure can take its name.
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_proc AS "p"
               WHERE "p"."oid" = pg_catalog.to_regprocedure('"cards"."card_codes_purge"(integer, integer)') AND "p"."prokind" = 'f') THEN
        DROP FUNCTION "cards"."card_codes_purge"(integer, integer);
    END IF;
END
$qgen$;
