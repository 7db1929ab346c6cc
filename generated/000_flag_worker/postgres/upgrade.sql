-- qgen 0.1.0: run before install.sql where an older qgen installed 000_flag_worker.yaml, for PostgreSQL: drops or adds what the objects of this version replace.
-- A fresh install and a qgen revision do not need it. Do not edit: change the spec or the templates, then run `qgen render`.
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_indexes AS "i"
               WHERE "i"."schemaname" = 'four' AND "i"."indexname" = 'four_queue_claim_ix'
                 AND "i"."indexdef" LIKE '%lease_token%') THEN
        DROP INDEX "four"."four_queue_claim_ix";
    END IF;
END
$qgen$;
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_indexes AS "i"
               WHERE "i"."schemaname" = 'four' AND "i"."indexname" = 'four_queue_claim_ix'
                 AND "i"."indexdef" NOT LIKE '%enqueued_at%') THEN
        DROP INDEX "four"."four_queue_claim_ix";
    END IF;
END
$qgen$;
-- A watermark table an earlier qgen made has no corrected_at.
ALTER TABLE IF EXISTS "four"."four_queue_watermark" ADD COLUMN IF NOT EXISTS "corrected_at" timestamptz NOT NULL DEFAULT '-infinity';
-- Nor due_from and due_moved_at.
ALTER TABLE IF EXISTS "four"."four_queue_watermark" ADD COLUMN IF NOT EXISTS "due_from" timestamptz NOT NULL DEFAULT '-infinity';
ALTER TABLE IF EXISTS "four"."four_queue_watermark" ADD COLUMN IF NOT EXISTS "due_moved_at" timestamptz NOT NULL DEFAULT '-infinity';
-- A claim here writes no indexed column; indexes an earlier qgen made over the lease go.
DROP INDEX IF EXISTS "four"."four_queue_lease_ix";
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_indexes AS "i"
               WHERE "i"."schemaname" = 'four' AND "i"."indexname" = 'four_queue_claim_ix'
                 AND "i"."indexdef" LIKE '%lease_token%') THEN
        DROP INDEX "four"."four_queue_claim_ix";
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_indexes AS "i"
               WHERE "i"."schemaname" = 'four' AND "i"."indexname" = 'four_queue_claim_order_ix'
                 AND "i"."indexdef" LIKE '%lease_token%') THEN
        DROP INDEX "four"."four_queue_claim_order_ix";
    END IF;
END
$qgen$;
DO $qgen$
BEGIN
    EXECUTE coalesce((SELECT pg_catalog.string_agg('DROP FUNCTION ' || "p"."oid"::regprocedure::text, '; ')
                      FROM pg_catalog.pg_proc AS "p"
                      JOIN pg_catalog.pg_namespace AS "n" ON "n"."oid" = "p"."pronamespace"
                      WHERE "n"."nspname" = 'four' AND "p"."proname" = 'four_queue_dequeue'
                        AND "p"."pronargs" <> 5), 'SELECT 1');
END
$qgen$;
DO $qgen$
BEGIN
    EXECUTE coalesce((SELECT pg_catalog.string_agg('DROP FUNCTION ' || "p"."oid"::regprocedure::text, '; ')
                      FROM pg_catalog.pg_proc AS "p"
                      JOIN pg_catalog.pg_namespace AS "n" ON "n"."oid" = "p"."pronamespace"
                      WHERE "n"."nspname" = 'four' AND "p"."proname" = 'four_queue_complete'
                        AND "p"."pronargs" <> 3), 'SELECT 1');
END
$qgen$;
DO $qgen$
BEGIN
    EXECUTE coalesce((SELECT pg_catalog.string_agg('DROP FUNCTION ' || "p"."oid"::regprocedure::text, '; ')
                      FROM pg_catalog.pg_proc AS "p"
                      JOIN pg_catalog.pg_namespace AS "n" ON "n"."oid" = "p"."pronamespace"
                      WHERE "n"."nspname" = 'four' AND "p"."proname" = 'four_queue_extend_lease'
                        AND "p"."pronargs" <> 4), 'SELECT 1');
END
$qgen$;
DO $qgen$
DECLARE
    v$old regprocedure;
    v$users text;
BEGIN
    SELECT "p"."oid"::regprocedure INTO v$old
    FROM pg_catalog.pg_proc AS "p"
    JOIN pg_catalog.pg_namespace AS "n" ON "n"."oid" = "p"."pronamespace"
    WHERE "n"."nspname" = 'four' AND "p"."proname" = 'four_queue_metrics'
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
    EXECUTE pg_catalog.format('ALTER FUNCTION %s RENAME TO %I', v$old, 'four_queue_metrics_before_paused');
END
$qgen$;
CREATE OR REPLACE FUNCTION "four"."four_queue_metrics"()
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
        count(*) FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."available_at" <= now()),
        count(*) FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."available_at" > now()),
        count(*) FILTER (WHERE "job"."lease_token" IS NOT NULL),
        count(*) FILTER (WHERE "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < now()),
        count(*) FILTER (WHERE "job"."processed"),
        (SELECT count(*) FROM "four"."four_queue_dead"),
        0::bigint,
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE AND "job"."available_at" <= now())))::bigint, 0),
        (SELECT "w"."id" FROM "four"."four_queue_watermark" AS "w"),
        min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE),
        count(*) FILTER (WHERE "job"."processed" AND "job"."processed_at" >= now() - interval '1 minute'),
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        coalesce(min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE), max("job"."id") + 1)
            - (SELECT "w"."id" FROM "four"."four_queue_watermark" AS "w"),
        NOT EXISTS (SELECT 1 FROM "four"."four_queue_control" AS "c" WHERE NOT "c"."paused")
    FROM "four"."four_queue" AS "job";
END
$qgen$;
ALTER FUNCTION "four"."four_queue_metrics" OWNER TO "four_owner";
REVOKE ALL ON FUNCTION "four"."four_queue_metrics" FROM PUBLIC;
DO $qgen$
DECLARE
    v$old regprocedure := pg_catalog.to_regprocedure('"four"."four_queue_metrics_before_paused"()');
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
        EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s() TO %s', '"four"."four_queue_metrics"', v$grantee);
    END LOOP;
    EXECUTE pg_catalog.format('DROP FUNCTION %s', v$old);
END
$qgen$;
-- Earlier qgen versions made purge a function: drop that one, so this procedure can take its name.
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_proc AS "p"
               WHERE "p"."oid" = pg_catalog.to_regprocedure('"four"."four_queue_purge"(integer, integer)') AND "p"."prokind" = 'f') THEN
        DROP FUNCTION "four"."four_queue_purge"(integer, integer);
    END IF;
END
$qgen$;
