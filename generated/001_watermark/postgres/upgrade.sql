-- qgen 0.1.0: run before install.sql where an older qgen installed 001_watermark.yaml, for PostgreSQL: drops or adds what the objects of this version replace.
-- A fresh install and a qgen revision do not need it. Do not edit: change the spec or the templates, then run `qgen render`.
-- A watermark table an earlier qgen made has no corrected_at.
ALTER TABLE IF EXISTS "ghosts"."testq_watermark" ADD COLUMN IF NOT EXISTS "corrected_at" timestamptz NOT NULL DEFAULT '-infinity';
-- Nor due_from and due_moved_at.
ALTER TABLE IF EXISTS "ghosts"."testq_watermark" ADD COLUMN IF NOT EXISTS "due_from" timestamptz NOT NULL DEFAULT '-infinity';
ALTER TABLE IF EXISTS "ghosts"."testq_watermark" ADD COLUMN IF NOT EXISTS "due_moved_at" timestamptz NOT NULL DEFAULT '-infinity';
-- An earlier qgen's metrics returned no "paused" column: CREATE OR REPLACE cannot change the columns
-- a function returns, so that version goes first (install creates and grants this one).
DO $qgen$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_proc AS "p"
               JOIN pg_catalog.pg_namespace AS "n" ON "n"."oid" = "p"."pronamespace"
               WHERE "n"."nspname" = 'ghosts' AND "p"."proname" = 'testq_metrics'
                 AND NOT ('paused' = ANY (coalesce("p"."proargnames", '{}')))) THEN
        EXECUTE 'DROP FUNCTION "ghosts"."testq_metrics"';
    END IF;
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
