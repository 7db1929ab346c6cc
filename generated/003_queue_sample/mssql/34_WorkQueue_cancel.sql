-- qgen 0.1.0: cancel QueueSample.WorkQueue_cancel, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Cancels jobs by id (@ids: a JSON array of whole numbers from 1, e.g. N'[3, 7]'; at most 1999): each job still
-- in the queue leaves it at once, in this one transaction, into the dead-letter table with last_error N'cancelled', and
-- never runs. One row per distinct id, in id order, [outcome]:
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   cancelled_in_flight: it held a lease: its worker's complete, fail and extend_lease get 50001 (the
--     token fences them off, so nothing it does commits with the job);
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order (the clustered key, FORCESEEK from the ordered list of ids), as
-- every other statement that locks several jobs does, so cancel deadlocks with none of them; a row a
-- completion or a claim holds is waited for, at most 5 s (then refused, 50005: nothing done).
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_cancel]
    @ids nvarchar(max)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    SET LOCK_TIMEOUT 5000;
    IF @ids IS NULL OR ISJSON(@ids) = 0
        OR EXISTS (SELECT 1 FROM OPENJSON(@ids) AS [j]
                   WHERE TRY_CAST([j].[key] AS int) IS NULL OR [j].[type] <> 2 OR [j].[value] LIKE N'%[.eE]%'
                      OR TRY_CAST([j].[value] AS bigint) IS NULL OR TRY_CAST([j].[value] AS bigint) < 1)
        THROW 50003, N'qgen: @ids must be a JSON array of job ids (whole numbers from 1), e.g. N''[3, 7]''.', 1;
    IF (SELECT COUNT(*) FROM OPENJSON(@ids)) > 1999
        THROW 50003, N'qgen: @ids lists more than 1999 jobs; accepted: 1 to 1999 per call (a bigger one could escalate to a table lock).', 1;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$asked TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$found TABLE ([id] bigint NOT NULL PRIMARY KEY);
    -- What the DELETE took out (its OUTPUT): the outcome is what happened, not what was found.
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [JobType] uniqueidentifier NOT NULL,
        [JobInfo] xml NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [enqueued_by] nvarchar(128) NULL,
        [claimed_at] datetime2(3) NULL,
        [claimed_by] nvarchar(128) NULL,
        [attempts] int NOT NULL,
        -- The lease the row held when it left, if any (cancel's outcome).
        [lease_token] uniqueidentifier NULL
    );
    INSERT INTO @q$asked ([id])
    SELECT DISTINCT CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j];
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO @q$found ([id])
        SELECT [job].[id]
        FROM [QueueSample].[WorkQueue] AS [job] WITH (UPDLOCK, ROWLOCK, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]) AND [job].[processed] = 0;
        DELETE FROM [QueueSample].[WorkQueue]
        OUTPUT deleted.[id], deleted.[JobType], deleted.[JobInfo], deleted.[enqueued_at], deleted.[enqueued_by], deleted.[claimed_at], deleted.[claimed_by], deleted.[attempts], deleted.[lease_token]
        INTO @q$dead ([id], [JobType], [JobInfo], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], [lease_token])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [QueueSample].[WorkQueue_dead] ([id], [JobType], [JobInfo], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], [last_error], [dead_at])
        SELECT [id], [JobType], [JobInfo], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], N'cancelled', @q$now FROM @q$dead;
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on QueueSample.WorkQueue: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
        THROW;
    END CATCH;
    SELECT [a].[id],
        CASE
             WHEN [g].[lease_token] IS NOT NULL THEN N'cancelled_in_flight'
             WHEN [g].[id] IS NOT NULL THEN N'cancelled'
             ELSE N'not_queued' END AS [outcome]
    FROM @q$asked AS [a]
    LEFT JOIN @q$dead AS [g] ON [g].[id] = [a].[id]
    ORDER BY [a].[id];
END;
GO
