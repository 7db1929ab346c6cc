-- qgen 0.1.0: watermark_correct rainfall.rainfall_transfer_watermark_correct, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids (the slack, for inserts still in flight) below
-- the lowest unclaimed id, or below the next id when every row is claimed or gone (the table's highest
-- id, or its identity when it is empty), never below 0. It repairs a watermark that is wrong either
-- way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it after a
-- drain (run it after a dequeue that found nothing) and for a watermark set by hand.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_watermark_correct"()
RETURNS TABLE ("old_watermark" bigint, "new_watermark" bigint)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$new bigint;
    v$held boolean;
    v$searched timestamptz;
BEGIN
    -- The row first, so that the scan below starts after whatever held it committed; but never
    -- waiting for it: a worker runs this (after an empty dequeue, and in maintain), and another
    -- transaction may hold the row for as long as it stays open (a caller's transaction whose
    -- dequeue moved the watermark, another uncommitted correction). Then nothing changes: the call
    -- returns the watermark it reads, as old and new. So does a REPEATABLE READ or SERIALIZABLE
    -- caller whose snapshot is older than the row (a serialization failure otherwise).
    BEGIN
        SELECT "w"."id" INTO "old_watermark" FROM "rainfall"."rainfall_transfer_watermark" AS "w" FOR UPDATE SKIP LOCKED;
        v$held := NOT FOUND AND EXISTS (SELECT 1 FROM "rainfall"."rainfall_transfer_watermark");
    EXCEPTION WHEN serialization_failure THEN
        v$held := TRUE;
    END;
    IF v$held THEN
        SELECT "w"."id", "w"."id" INTO "old_watermark", "new_watermark" FROM "rainfall"."rainfall_transfer_watermark" AS "w";
        RETURN NEXT;
        RETURN;
    END IF;
    -- corrected_at gets the time before the search (it counts as a dequeue's rescan): the search's
    -- snapshot is taken after it, so a job that becomes claimable below the watermark later may be
    -- missed here, and the next rescan is due watermark.rescan seconds after this moment, within the
    -- bound. A REPEATABLE READ or SERIALIZABLE caller searches its transaction's first snapshot,
    -- older than any clock reading here: its search does not count (corrected_at is left as it is).
    IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        v$searched := pg_catalog.clock_timestamp();
    END IF;
    SELECT min("job"."id") INTO v$new FROM "rainfall"."rainfall_transfer" AS "job" WHERE 1 = 1;
    IF v$new IS NULL THEN
        SELECT max("job"."id") + 1 INTO v$new FROM "rainfall"."rainfall_transfer" AS "job";
    END IF;
    IF v$new IS NULL THEN
        -- Drained: the next id comes from the identity. Left where it was, a watermark a release
        -- had lowered would make every claim walk the whole drained range again.
        v$new := pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence('"rainfall"."rainfall_transfer"', 'id')::regclass) + 1;
    END IF;
    -- greatest() skips NULLs, so a table never inserted into (v$new NULL) must not reach it.
    "new_watermark" := CASE WHEN v$new IS NULL THEN coalesce("old_watermark", 0)
                            ELSE greatest(v$new - 50, 0) END;
    IF "new_watermark" > "old_watermark" AND NOT pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        -- REPEATABLE READ or SERIALIZABLE: the scans above read the transaction's first snapshot,
        -- which may still show as claimed a job released since. Lowering is safe; raising waits
        -- for a READ COMMITTED call.
        "new_watermark" := "old_watermark";
    END IF;
    IF "old_watermark" IS NULL THEN
        -- The row was deleted by hand: put it back.
        INSERT INTO "rainfall"."rainfall_transfer_watermark" ("id", "corrected_at") VALUES ("rainfall_transfer_watermark_correct"."new_watermark", coalesce(v$searched, '-infinity'))
        ON CONFLICT DO NOTHING;
    ELSE
        UPDATE "rainfall"."rainfall_transfer_watermark" AS "w" SET "id" = "rainfall_transfer_watermark_correct"."new_watermark", "corrected_at" = coalesce(v$searched, "w"."corrected_at");
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "rainfall"."rainfall_transfer_watermark_correct" OWNER TO "rainfall_owner";
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_watermark_correct" FROM PUBLIC;
