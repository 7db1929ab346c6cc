-- qgen 0.1.0: purge ghosts.testq_purge, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than older_than_seconds, in
-- batches of batch_size. A function cannot commit, so all batches share the caller's transaction:
-- batches bound each statement, not the transaction.
CREATE OR REPLACE FUNCTION "ghosts"."testq_purge"
(
    "older_than_seconds" integer DEFAULT 604800,
    "batch_size" integer DEFAULT 10000
)
RETURNS TABLE ("archived" integer, "processed" integer, "dead" integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v_cutoff timestamptz := now() - pg_catalog.make_interval(secs => "testq_purge"."older_than_seconds");
    v_deleted integer;
BEGIN
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    RETURN NEXT;
END
$qgen$;
REVOKE ALL ON FUNCTION "ghosts"."testq_purge" FROM PUBLIC;
