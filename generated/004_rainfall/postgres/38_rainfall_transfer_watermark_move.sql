-- qgen 0.1.0: watermark_move rainfall.rainfall_transfer_watermark_move, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR REPLACE FUNCTION "rainfall"."rainfall_transfer_watermark_move"
(
    "claimed_from" bigint
)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$current bigint;
    v$target bigint := "rainfall_transfer_watermark_move"."claimed_from" - 50;
    v$lowest bigint;
BEGIN
    -- A REPEATABLE READ or SERIALIZABLE caller's snapshot may still show as claimed a job released
    -- since: only a READ COMMITTED call moves the watermark.
    IF NOT pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        RETURN;
    END IF;
    -- First without a lock: while a row it may not pass sits at the watermark (a claim held open
    -- in a caller's transaction), nothing can move, and dequeue calls this after every such claim;
    -- taking the watermark row then would hold it through the caller's transaction, and the rescan
    -- and the other movers would skip it for as long as claims keep coming.
    SELECT "w"."id" INTO v$current FROM "rainfall"."rainfall_transfer_watermark" AS "w";
    IF NOT FOUND OR v$current >= v$target THEN
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM "rainfall"."rainfall_transfer" AS "job"
               WHERE "job"."id" = v$current AND 1 = 1) THEN
        RETURN;
    END IF;
    -- SKIP LOCKED: a session already moving it (or a release lowering it) wins; this one skips.
    SELECT "w"."id" INTO v$current FROM "rainfall"."rainfall_transfer_watermark" AS "w" FOR UPDATE SKIP LOCKED;
    IF NOT FOUND OR v$current >= v$target THEN
        RETURN;
    END IF;
    -- A separate statement, so its snapshot is taken after the lock: a release that committed
    -- before is seen here, and one that commits after lowers the watermark itself. A snapshot shows
    -- each row's last committed version: a row an open claim holds (a delete, or a lease inside a
    -- caller's transaction) still looks unclaimed, so the move stops at it and a rollback strands
    -- nothing. A row whose insert is not yet committed is invisible and can be passed: dequeue's
    -- rescan (watermark.rescan) finds it once it commits.
    SELECT min("job"."id") INTO v$lowest
    FROM "rainfall"."rainfall_transfer" AS "job"
    WHERE "job"."id" >= v$current AND "job"."id" < v$target AND 1 = 1;
    UPDATE "rainfall"."rainfall_transfer_watermark" AS "w"
    SET "id" = coalesce(v$lowest, v$target)
    WHERE "w"."id" < coalesce(v$lowest, v$target);
END
$qgen$;
ALTER FUNCTION "rainfall"."rainfall_transfer_watermark_move" OWNER TO "rainfall_owner";
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_watermark_move" FROM PUBLIC;
