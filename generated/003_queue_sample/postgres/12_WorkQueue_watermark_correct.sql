-- qgen 0.1.0: watermark_correct QueueSample.WorkQueue_watermark_correct, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids (the slack, for inserts still in flight) below
-- the lowest unclaimed id, or below the next id when every row is claimed or gone (the table's highest
-- id, or its identity when it is empty), never below 0. Run it from a periodic job and after a
-- dequeue that found nothing; it repairs a watermark that is wrong either way.
CREATE OR REPLACE FUNCTION "QueueSample"."WorkQueue_watermark_correct"()
RETURNS TABLE ("old_watermark" bigint, "new_watermark" bigint)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v_new bigint;
BEGIN
    -- Wait for a mover or a release holding the row; the scan below then starts after it committed.
    SELECT "w"."id" INTO "old_watermark" FROM "QueueSample"."WorkQueue_watermark" AS "w" FOR UPDATE;
    SELECT min("job"."id") INTO v_new FROM "QueueSample"."WorkQueue" AS "job" WHERE "job"."lease_token" IS NULL AND "job"."processed" = FALSE;
    IF v_new IS NULL THEN
        SELECT max("job"."id") + 1 INTO v_new FROM "QueueSample"."WorkQueue" AS "job";
    END IF;
    IF v_new IS NULL THEN
        -- Drained: the next id comes from the identity. Left where it was, a watermark a release
        -- had lowered would make every claim walk the whole drained range again.
        v_new := pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence('"QueueSample"."WorkQueue"', 'id')::regclass) + 1;
    END IF;
    -- greatest() skips NULLs, so a table never inserted into (v_new NULL) must not reach it.
    "new_watermark" := CASE WHEN v_new IS NULL THEN coalesce("old_watermark", 0)
                            ELSE greatest(v_new - 50, 0) END;
    IF "old_watermark" IS NULL THEN
        -- The row was deleted by hand: put it back.
        INSERT INTO "QueueSample"."WorkQueue_watermark" ("id") VALUES ("WorkQueue_watermark_correct"."new_watermark") ON CONFLICT DO NOTHING;
    ELSIF "new_watermark" <> "old_watermark" THEN
        UPDATE "QueueSample"."WorkQueue_watermark" AS "w" SET "id" = "WorkQueue_watermark_correct"."new_watermark";
    END IF;
    RETURN NEXT;
END
$qgen$;
REVOKE ALL ON FUNCTION "QueueSample"."WorkQueue_watermark_correct" FROM PUBLIC;
