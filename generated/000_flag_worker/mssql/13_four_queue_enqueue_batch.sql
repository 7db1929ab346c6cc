-- qgen 0.1.0: enqueue_batch four.four_queue_enqueue_batch, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Adds many jobs in one statement (at most 1995: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row: a job already queued, or repeated earlier in the batch, returns that id with enqueued = 0.
CREATE OR ALTER PROCEDURE [four].[four_queue_enqueue_batch]
    @jobs [four].[four_queue_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 1995
        THROW 50003, N'qgen: a batch of more than 1995 jobs is out of range for four.four_queue: one statement writing more could escalate to a table lock; accepted: 1 to 1995 jobs per call (split the batch; the client does).', 1;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- The dedupe checks of the queue table read WITH (UPDLOCK, HOLDLOCK): locking reads of current
        -- rows (also under READ_COMMITTED_SNAPSHOT) that keep the key ranges locked until commit. Those
        -- of the finished tables are plain locking reads by key (READCOMMITTEDLOCK): the queue table's
        -- range lock keeps every move of the key there out, and a range lock there would stall claims.
        INSERT INTO [four].[four_queue] ([reputation])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[reputation]
        FROM @jobs AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [four].[four_queue] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[reputation] = [j].[reputation])
          -- dedupe.scope: ever: read after the queue table, the order a completion locks them in.
          AND NOT EXISTS (SELECT 1 FROM [four].[four_queue_dead] AS [f] WITH (READCOMMITTEDLOCK) WHERE [f].[reputation] = [j].[reputation])
          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[reputation] = [j].[reputation] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], COALESCE([e].[id], [f1].[id]) AS [id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[reputation] = [j].[reputation] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @jobs AS [j]
        LEFT JOIN [four].[four_queue] AS [e] ON [e].[reputation] = [j].[reputation]
        LEFT JOIN [four].[four_queue_dead] AS [f1] ON [f1].[reputation] = [j].[reputation]
        LEFT JOIN @q$new AS [n] ON [n].[id] = [e].[id]
        ORDER BY [j].[ordinal];

        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
