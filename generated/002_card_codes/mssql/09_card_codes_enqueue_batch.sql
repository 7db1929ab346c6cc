-- qgen 0.1.0: enqueue_batch cards.card_codes_enqueue_batch, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row: a job already queued, or repeated earlier in the batch, returns that id with enqueued = 0.
CREATE OR ALTER PROCEDURE [cards].[card_codes_enqueue_batch]
    @jobs [cards].[card_codes_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [cards].[card_codes] ([card_number], [card_secret])
        OUTPUT inserted.[id] INTO @new ([id])
        SELECT [j].[card_number], [j].[card_secret]
        FROM @jobs AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [cards].[card_codes] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[card_number] = [j].[card_number])
          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[card_number] = [j].[card_number] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], [e].[id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[card_number] = [j].[card_number] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @jobs AS [j]
        INNER JOIN [cards].[card_codes] AS [e] ON [e].[card_number] = [j].[card_number]
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
