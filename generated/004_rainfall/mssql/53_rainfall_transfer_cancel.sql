-- qgen 0.1.0: cancel rainfall.rainfall_transfer_cancel, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Cancels jobs by id (@ids: a JSON array, e.g. N'[3, 7]'; at most 3599): each job still in the queue
-- leaves it at once, in this one transaction, deleted (this queue keeps no dead letters), and never runs.
-- One row per distinct id, in id order, [outcome]:
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   claimed: a claim's open transaction holds it (READPAST: never waited for); nothing done. If that
--     transaction rolls back the job is queued again, and can be cancelled then;
--   not_queued: finished, dead, purged or never enqueued: nothing done.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_cancel]
    @ids nvarchar(max)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @ids IS NULL OR ISJSON(@ids) = 0 OR LEFT(LTRIM(@ids), 1) <> N'['
        THROW 50003, N'qgen: @ids must be a JSON array of job ids, e.g. N''[3, 7]''.', 1;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$asked TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$found TABLE ([id] bigint NOT NULL PRIMARY KEY, [leased] bit NOT NULL);
    INSERT INTO @q$asked ([id])
    SELECT DISTINCT TRY_CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j]
    WHERE TRY_CAST([j].[value] AS bigint) IS NOT NULL;
    IF (SELECT COUNT(*) FROM @q$asked) > 3599
        THROW 50003, N'qgen: @ids lists more than 3599 jobs; accepted: 1 to 3599 per call (a bigger one could escalate to a table lock).', 1;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- The rows by their id, locked (READPAST: a claim's open transaction is never waited for).
        INSERT INTO @q$found ([id], [leased])
        SELECT [job].[id], 0
        FROM [rainfall].[rainfall_transfer] AS [job] WITH (UPDLOCK, ROWLOCK, READPAST)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]);
        DELETE FROM [rainfall].[rainfall_transfer]
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        COMMIT TRANSACTION;
        SELECT [a].[id],
            CASE WHEN [f].[leased] = 1 THEN N'cancelled_in_flight'
                 WHEN [f].[id] IS NOT NULL THEN N'cancelled'
                 -- Skipped above: a claim's open transaction holds it (NOLOCK: seen, never waited for).
                 WHEN EXISTS (SELECT 1 FROM [rainfall].[rainfall_transfer] AS [job] WITH (NOLOCK) WHERE [job].[id] = [a].[id]) THEN N'claimed'
                 ELSE N'not_queued' END AS [outcome]
        FROM @q$asked AS [a]
        LEFT JOIN @q$found AS [f] ON [f].[id] = [a].[id]
        ORDER BY [a].[id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
