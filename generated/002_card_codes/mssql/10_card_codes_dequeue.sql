-- qgen 0.1.0: dequeue cards.card_codes_dequeue, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs by deleting them into the archive, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
CREATE OR ALTER PROCEDURE [cards].[card_codes_dequeue]
    @owner nvarchar(128) = NULL,
    @batch_size int = 1
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    DECLARE @claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [card_number] nvarchar(32) NOT NULL,
        [card_secret] nvarchar(64) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL
    );
    BEGIN TRY
        BEGIN TRANSACTION;
        DELETE [job]
        OUTPUT deleted.[id], deleted.[card_number], deleted.[card_secret], deleted.[enqueued_at]
        INTO @claimed ([id], [card_number], [card_secret], [enqueued_at])
        FROM [cards].[card_codes] AS [job]
        INNER JOIN
        (
            SELECT TOP (@batch_size) [id]
            FROM [cards].[card_codes] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE 1 = 1
            ORDER BY [id]
        ) AS [next_job] ON [next_job].[id] = [job].[id];
        INSERT INTO [cards].[card_codes_archive] ([id], [card_number], [card_secret], [enqueued_at], [completed_at])
        SELECT [id], [card_number], [card_secret], [enqueued_at], @now FROM @claimed;
        COMMIT TRANSACTION;
        SELECT [id], [card_number], [card_secret], [enqueued_at]
        FROM @claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
