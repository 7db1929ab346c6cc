-- qgen 0.1.0: watermark_move QueueSample.WorkQueue_watermark_move, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
-- Deferred jobs ([deferred] = 1) do not stop it: claims find them through the due index, whatever their id.
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_watermark_move]
    @claimed_from bigint
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$target bigint = @claimed_from - 50;
    -- READPAST on the watermark row: a session already moving it wins, this one skips.
    -- NOLOCK on the queue: the move stops at the lowest row in the range it would pass that is
    -- unclaimed as far as any session can see, committed or not. So it stops at a job whose insert
    -- is not yet committed (a locking or READPAST read would skip it and strand it), and at a job
    -- a release (fail, reap) is putting back (that release also lowers the watermark itself, after
    -- this move, since it waits for the watermark row).
    -- It also stops at a row another open transaction has locked (present under NOLOCK, skipped by
    -- READPAST): a lease claim inside a caller's transaction that may still roll back, or a
    -- completion in flight. Rows this transaction claimed itself are not skipped by READPAST.
    -- First without a lock: while a row it may not pass sits at the watermark (a claim held open
    -- in a caller's transaction, an insert not yet committed), nothing can move, and dequeue calls
    -- this after every such claim; writing the watermark row then would hold it through the
    -- caller's transaction, and the rescan and the other movers would skip it while claims go on.
    DECLARE @q$current bigint = (SELECT [id] FROM [QueueSample].[WorkQueue_watermark] WITH (NOLOCK));
    IF @q$current IS NULL OR @q$current >= @q$target
        RETURN;
    IF EXISTS (SELECT 1 FROM [QueueSample].[WorkQueue] AS [job] WITH (NOLOCK)
               WHERE [job].[id] = @q$current
                 AND ([job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0
                      OR NOT EXISTS (SELECT 1 FROM [QueueSample].[WorkQueue] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                     WHERE [settled].[id] = [job].[id]))
              )
        RETURN;
    UPDATE [w]
    SET [id] = COALESCE(
            (
                SELECT MIN([job].[id])
                FROM [QueueSample].[WorkQueue] AS [job] WITH (NOLOCK)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @q$target
                  AND ([job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0
                       OR NOT EXISTS (SELECT 1 FROM [QueueSample].[WorkQueue] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                      WHERE [settled].[id] = [job].[id]))
            ), @q$target),
        [version] = [w].[version] + 1
    FROM [QueueSample].[WorkQueue_watermark] AS [w] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK)
    WHERE [w].[id] < @q$target;
END;
GO
