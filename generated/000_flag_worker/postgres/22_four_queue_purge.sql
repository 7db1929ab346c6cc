-- qgen 0.1.0: purge four.four_queue_purge, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than older_than_seconds, in
-- batches of batch_size. A function cannot commit, so all batches share the caller's transaction:
-- batches bound each statement, not the transaction.
CREATE OR REPLACE FUNCTION "four"."four_queue_purge"
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
    v_cutoff timestamptz := now() - pg_catalog.make_interval(secs => "four_queue_purge"."older_than_seconds");
    v_deleted integer;
BEGIN
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    LOOP
        DELETE FROM "four"."four_queue" AS "x"
        WHERE "x"."id" IN (SELECT "y"."id" FROM "four"."four_queue" AS "y" WHERE "y"."processed" AND "y"."processed_at" < v_cutoff LIMIT "four_queue_purge"."batch_size");
        GET DIAGNOSTICS v_deleted = ROW_COUNT;
        "processed" := "processed" + v_deleted;
        EXIT WHEN v_deleted < "four_queue_purge"."batch_size" OR v_deleted = 0;
    END LOOP;
    LOOP
        DELETE FROM "four"."four_queue_dead" AS "x"
        WHERE "x"."id" IN (SELECT "y"."id" FROM "four"."four_queue_dead" AS "y" WHERE "y"."dead_at" < v_cutoff LIMIT "four_queue_purge"."batch_size");
        GET DIAGNOSTICS v_deleted = ROW_COUNT;
        "dead" := "dead" + v_deleted;
        EXIT WHEN v_deleted < "four_queue_purge"."batch_size" OR v_deleted = 0;
    END LOOP;
    RETURN NEXT;
END
$qgen$;
REVOKE ALL ON FUNCTION "four"."four_queue_purge" FROM PUBLIC;
