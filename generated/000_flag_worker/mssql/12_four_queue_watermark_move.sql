-- qgen 0.1.0: watermark_move four.four_queue_watermark_move, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR ALTER PROCEDURE [four].[four_queue_watermark_move]
    @claimed_from bigint
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @target bigint = @claimed_from - 50;
    -- READPAST on the watermark row: a session already moving it wins, this one skips.
    -- READPAST on the queue: rows locked by other claimers are being claimed; rows locked by a
    -- release (fail, reap) are lowered by that release itself after this move.
    UPDATE [w]
    SET [id] = COALESCE(
            (
                SELECT MIN([job].[id])
                FROM [four].[four_queue] AS [job] WITH (READPAST)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @target AND [job].[lease_token] IS NULL AND [job].[processed] = 0
            ), @target),
        [version] = [w].[version] + 1
    FROM [four].[four_queue_watermark] AS [w] WITH (ROWLOCK, READPAST)
    WHERE [w].[id] < @target;
END;
GO
