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
    v_current bigint;
    v_target bigint := "rainfall_transfer_watermark_move"."claimed_from" - 50;
    v_lowest bigint;
BEGIN
    -- SKIP LOCKED: a session already moving it (or a release lowering it) wins; this one skips.
    SELECT "w"."id" INTO v_current FROM "rainfall"."rainfall_transfer_watermark" AS "w" FOR UPDATE SKIP LOCKED;
    IF NOT FOUND OR v_current >= v_target THEN
        RETURN;
    END IF;
    -- A separate statement, so its snapshot is taken after the lock: a release that committed
    -- before is seen here, and one that commits after lowers the watermark itself.
    SELECT min("job"."id") INTO v_lowest
    FROM "rainfall"."rainfall_transfer" AS "job"
    WHERE "job"."id" >= v_current AND "job"."id" < v_target AND 1 = 1;
    UPDATE "rainfall"."rainfall_transfer_watermark" AS "w"
    SET "id" = coalesce(v_lowest, v_target)
    WHERE "w"."id" < coalesce(v_lowest, v_target);
END
$qgen$;
REVOKE ALL ON FUNCTION "rainfall"."rainfall_transfer_watermark_move" FROM PUBLIC;
