-- qgen 0.1.0: dequeue ghosts.testq_dequeue, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs by deleting them, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
CREATE OR ALTER PROCEDURE [ghosts].[testq_dequeue]
    @owner nvarchar(128) = NULL,
    @batch_size int = 1
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    DECLARE @claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [filler] nvarchar(400) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL
    );
    -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
    -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
    -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
    DECLARE @from bigint = (SELECT [id] FROM [ghosts].[testq_watermark] WITH (NOLOCK));
    BEGIN TRY
        BEGIN TRANSACTION;
        DELETE [job]
        OUTPUT deleted.[id], deleted.[filler], deleted.[enqueued_at]
        INTO @claimed ([id], [filler], [enqueued_at])
        FROM [ghosts].[testq] AS [job]
        INNER JOIN
        (
            SELECT TOP (@batch_size) [id]
            FROM [ghosts].[testq] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE 1 = 1
              AND [id] >= @from
            ORDER BY [id]
        ) AS [next_job] ON [next_job].[id] = [job].[id];
        -- Move the watermark about once per 100 claimed ids: when this claim's ids cross a multiple of it.
        DECLARE @lowest bigint, @highest bigint;
        SELECT @lowest = MIN([id]), @highest = MAX([id]) FROM @claimed;
        IF @highest / 100 > (@lowest - 1) / 100
            EXEC [ghosts].[testq_watermark_move] @claimed_from = @lowest;
        COMMIT TRANSACTION;
        SELECT [id], [filler], [enqueued_at]
        FROM @claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
