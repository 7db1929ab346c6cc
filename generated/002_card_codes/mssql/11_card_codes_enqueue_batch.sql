-- qgen 0.1.0: enqueue_batch cards.card_codes_enqueue_batch, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Adds many jobs in one statement (at most 1988: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row: a job already queued, or repeated earlier in the batch, returns that id with enqueued = 0.
CREATE OR ALTER PROCEDURE [cards].[card_codes_enqueue_batch]
    @jobs [cards].[card_codes_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 1988
        THROW 50003, N'qgen: a batch of more than 1988 jobs is out of range for cards.card_codes: one statement writing more could escalate to a table lock; accepted: 1 to 1988 jobs per call (split the batch; the client does).', 1;
    DECLARE @q$over int, @q$over_column nvarchar(2048);
    SELECT TOP (1) @q$over = [j].[ordinal],
           @q$over_column = CASE WHEN DATALENGTH([j].[card_number]) > 64 THEN N'card_number; accepted: string(32), at most 32 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' WHEN DATALENGTH([j].[card_secret]) > 128 THEN N'card_secret; accepted: string(64), at most 64 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
    FROM @jobs AS [j]
    WHERE DATALENGTH([j].[card_number]) > 64 OR DATALENGTH([j].[card_secret]) > 128
    ORDER BY [j].[ordinal];
    IF @q$over IS NOT NULL
    BEGIN
        DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in cards.card_codes_enqueue_batch: column ', @q$over_column, N'.');
        THROW 50010, @q$over_message, 1;
    END;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- The dedupe checks of the queue table read WITH (UPDLOCK, HOLDLOCK): locking reads of current
        -- rows (also under READ_COMMITTED_SNAPSHOT) that keep the key ranges locked until commit. Those
        -- of the finished tables are plain locking reads by key (READCOMMITTEDLOCK): the queue table's
        -- range lock keeps every move of the key there out, and a range lock there would stall claims.
        INSERT INTO [cards].[card_codes] ([card_number], [card_secret])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[card_number], [j].[card_secret]
        FROM @jobs AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [cards].[card_codes] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[card_number] = [j].[card_number])
          -- dedupe.scope: ever: read after the queue table, the order a completion locks them in.
          AND NOT EXISTS (SELECT 1 FROM [cards].[card_codes_archive] AS [f] WITH (READCOMMITTEDLOCK) WHERE [f].[card_number] = [j].[card_number])
          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[card_number] = [j].[card_number] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], COALESCE([e].[id], [f1].[id]) AS [id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[card_number] = [j].[card_number] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @jobs AS [j]
        LEFT JOIN [cards].[card_codes] AS [e] ON [e].[card_number] = [j].[card_number]
        LEFT JOIN [cards].[card_codes_archive] AS [f1] ON [f1].[card_number] = [j].[card_number]
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
