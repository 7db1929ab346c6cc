-- qgen 0.1.0: enqueue_batch four.four_queue_enqueue_batch, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row: a job already queued, or repeated earlier in the batch, returns that id with enqueued = 0.
CREATE OR ALTER PROCEDURE [four].[four_queue_enqueue_batch]
    @jobs [four].[four_queue_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [four].[four_queue] ([reputation])
        OUTPUT inserted.[id] INTO @new ([id])
        SELECT [j].[reputation]
        FROM @jobs AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [four].[four_queue] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[reputation] = [j].[reputation])
          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[reputation] = [j].[reputation] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], [e].[id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[reputation] = [j].[reputation] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @jobs AS [j]
        INNER JOIN [four].[four_queue] AS [e] ON [e].[reputation] = [j].[reputation]
        LEFT JOIN @new AS [n] ON [n].[id] = [e].[id]
        ORDER BY [j].[ordinal];
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
