-- qgen 0.1.0: run before install.sql where an older qgen installed 003_queue_sample.yaml, for PostgreSQL: drops or adds what the objects of this version replace.
-- A fresh install and a qgen revision do not need it. Do not edit: change the spec or the templates, then run `qgen render`.
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_indexes AS "i"
               WHERE "i"."schemaname" = 'QueueSample' AND "i"."indexname" = 'WorkQueue_claim_ix'
                 AND "i"."indexdef" LIKE '%lease_token%') THEN
        DROP INDEX "QueueSample"."WorkQueue_claim_ix";
    END IF;
END
$qgen$;
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_indexes AS "i"
               WHERE "i"."schemaname" = 'QueueSample' AND "i"."indexname" = 'WorkQueue_claim_ix'
                 AND "i"."indexdef" NOT LIKE '%enqueued_at%') THEN
        DROP INDEX "QueueSample"."WorkQueue_claim_ix";
    END IF;
END
$qgen$;
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_indexes AS "i"
               WHERE "i"."schemaname" = 'QueueSample' AND "i"."indexname" = 'WorkQueue_claim_order_ix'
                 AND "i"."indexdef" LIKE '%lease_token%') THEN
        DROP INDEX "QueueSample"."WorkQueue_claim_order_ix";
    END IF;
END
$qgen$;
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_indexes AS "i"
               WHERE "i"."schemaname" = 'QueueSample' AND "i"."indexname" = 'WorkQueue_claim_order_ix'
                 AND "i"."indexdef" NOT LIKE '%enqueued_at%') THEN
        DROP INDEX "QueueSample"."WorkQueue_claim_order_ix";
    END IF;
END
$qgen$;
-- A watermark table an earlier qgen made has no corrected_at.
ALTER TABLE IF EXISTS "QueueSample"."WorkQueue_watermark" ADD COLUMN IF NOT EXISTS "corrected_at" timestamptz NOT NULL DEFAULT '-infinity';
-- Nor due_from and due_moved_at.
ALTER TABLE IF EXISTS "QueueSample"."WorkQueue_watermark" ADD COLUMN IF NOT EXISTS "due_from" timestamptz NOT NULL DEFAULT '-infinity';
ALTER TABLE IF EXISTS "QueueSample"."WorkQueue_watermark" ADD COLUMN IF NOT EXISTS "due_moved_at" timestamptz NOT NULL DEFAULT '-infinity';
-- A claim here writes no indexed column; indexes an earlier qgen made over the lease go.
DROP INDEX IF EXISTS "QueueSample"."WorkQueue_lease_ix";
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_indexes AS "i"
               WHERE "i"."schemaname" = 'QueueSample' AND "i"."indexname" = 'WorkQueue_claim_ix'
                 AND "i"."indexdef" LIKE '%lease_token%') THEN
        DROP INDEX "QueueSample"."WorkQueue_claim_ix";
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_indexes AS "i"
               WHERE "i"."schemaname" = 'QueueSample' AND "i"."indexname" = 'WorkQueue_claim_order_ix'
                 AND "i"."indexdef" LIKE '%lease_token%') THEN
        DROP INDEX "QueueSample"."WorkQueue_claim_order_ix";
    END IF;
END
$qgen$;
DO $qgen$
BEGIN
    EXECUTE coalesce((SELECT pg_catalog.string_agg('DROP FUNCTION ' || "p"."oid"::regprocedure::text, '; ')
                      FROM pg_catalog.pg_proc AS "p"
                      JOIN pg_catalog.pg_namespace AS "n" ON "n"."oid" = "p"."pronamespace"
                      WHERE "n"."nspname" = 'QueueSample' AND "p"."proname" = 'GetNextJob'
                        AND "p"."pronargs" <> 6), 'SELECT 1');
END
$qgen$;
DO $qgen$
BEGIN
    EXECUTE coalesce((SELECT pg_catalog.string_agg('DROP FUNCTION ' || "p"."oid"::regprocedure::text, '; ')
                      FROM pg_catalog.pg_proc AS "p"
                      JOIN pg_catalog.pg_namespace AS "n" ON "n"."oid" = "p"."pronamespace"
                      WHERE "n"."nspname" = 'QueueSample' AND "p"."proname" = 'WorkQueue_complete'
                        AND "p"."pronargs" <> 3), 'SELECT 1');
END
$qgen$;
DO $qgen$
BEGIN
    EXECUTE coalesce((SELECT pg_catalog.string_agg('DROP FUNCTION ' || "p"."oid"::regprocedure::text, '; ')
                      FROM pg_catalog.pg_proc AS "p"
                      JOIN pg_catalog.pg_namespace AS "n" ON "n"."oid" = "p"."pronamespace"
                      WHERE "n"."nspname" = 'QueueSample' AND "p"."proname" = 'WorkQueue_extend_lease'
                        AND "p"."pronargs" <> 4), 'SELECT 1');
END
$qgen$;
-- An earlier qgen's metrics returned no "paused" column: CREATE OR REPLACE cannot change the columns
-- a function returns, so that version goes first (install creates and grants this one).
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_proc AS "p"
               JOIN pg_catalog.pg_namespace AS "n" ON "n"."oid" = "p"."pronamespace"
               WHERE "n"."nspname" = 'QueueSample' AND "p"."proname" = 'WorkQueue_metrics'
                 AND NOT ('paused' = ANY (coalesce("p"."proargnames", '{}')))) THEN
        EXECUTE 'DROP FUNCTION "QueueSample"."WorkQueue_metrics"';
    END IF;
END
$qgen$;
-- Earlier qgen versions made purge a function: drop that one, so this procedure can take its name.
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_proc AS "p"
               WHERE "p"."oid" = pg_catalog.to_regprocedure('"QueueSample"."WorkQueue_purge"(integer, integer)') AND "p"."prokind" = 'f') THEN
        DROP FUNCTION "QueueSample"."WorkQueue_purge"(integer, integer);
    END IF;
END
$qgen$;
