-- qgen 0.1.0: cancel four.four_queue_cancel, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Cancels jobs by id (@ids: a JSON array, e.g. N'[3, 7]'; at most 1995): each job still in the queue
-- leaves it at once, in this one transaction, into the dead-letter table with last_error N'cancelled', and never runs.
-- One row per distinct id, in id order, [outcome]:
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   cancelled_in_flight: it held a lease: its worker's complete, fail and extend_lease get 50001 (the
--     token fences them off, so nothing it does commits with the job); a row a completion holds at
--     that moment is waited for (a short lock), then cancelled or found finished;
--   not_queued: finished, dead, purged or never enqueued: nothing done.
CREATE OR ALTER PROCEDURE [four].[four_queue_cancel]
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
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [reputation] int NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL
    );
    INSERT INTO @q$asked ([id])
    SELECT DISTINCT TRY_CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j]
    WHERE TRY_CAST([j].[value] AS bigint) IS NOT NULL;
    IF (SELECT COUNT(*) FROM @q$asked) > 1995
        THROW 50003, N'qgen: @ids lists more than 1995 jobs; accepted: 1 to 1995 per call (a bigger one could escalate to a table lock).', 1;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- The rows by their id, locked (waiting for a completion's short lock).
        INSERT INTO @q$found ([id], [leased])
        SELECT [job].[id], CASE WHEN [job].[lease_token] IS NULL THEN 0 ELSE 1 END
        FROM [four].[four_queue] AS [job] WITH (UPDLOCK, ROWLOCK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]) AND [job].[processed] = 0;
        DELETE FROM [four].[four_queue]
        OUTPUT deleted.[id], deleted.[reputation], deleted.[enqueued_at], deleted.[attempts]
        INTO @q$dead ([id], [reputation], [enqueued_at], [attempts])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [four].[four_queue_dead] ([id], [reputation], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [reputation], [enqueued_at], [attempts], N'cancelled', @q$now FROM @q$dead;
        COMMIT TRANSACTION;
        SELECT [a].[id],
            CASE WHEN [f].[leased] = 1 THEN N'cancelled_in_flight'
                 WHEN [f].[id] IS NOT NULL THEN N'cancelled'
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
