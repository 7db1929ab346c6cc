-- qgen 0.1.0: redrive QueueSample.WorkQueue_redrive, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Puts dead-lettered jobs back into the queue as new jobs: a new id, attempts 0, available now,
-- their last error kept. Either the dead jobs whose ids @ids lists (a JSON array, e.g. N'[3, 7]';
-- OPENJSON needs database compatibility level 130 or later), or (@redrive_all = 1) every dead job
-- after @after_id, in the order they died; at most @batch_size per call: [last_id] is the last
-- dead-letter entry looked at (its entry_id: a job id can repeat there), to pass as @after_id to
-- the next call. Each job is inserted and removed from the
-- dead-letter table in this one transaction, so it is redriven once: a second call finds
-- nothing, and a concurrent one waits (UPDLOCK) and then finds it gone.
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_redrive]
    @ids nvarchar(max) = NULL,
    @redrive_all bit = 0,
    @after_id bigint = 0,
    @batch_size int = 1000
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1999
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1999 (a batch stays well under lock escalation).', 1;
    IF (@ids IS NULL AND ISNULL(@redrive_all, 0) = 0) OR (@ids IS NOT NULL AND @redrive_all = 1)
        THROW 50003, N'qgen: redrive takes either @ids or @redrive_all = 1, not both and not neither.', 1;
    IF @ids IS NOT NULL AND ISJSON(@ids) = 0
        THROW 50003, N'qgen: @ids must be a JSON array of ids, e.g. N''[3, 7]''.', 1;
    DECLARE @q$picked TABLE ([entry_id] bigint NOT NULL PRIMARY KEY, [keep] bit NOT NULL DEFAULT (0));
    DECLARE @q$redriven int = 0, @q$skipped int = 0, @q$last_id bigint;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- Two statements, so each seeks the clustered key and locks only the rows it picks.
        IF @redrive_all = 1
            INSERT INTO @q$picked ([entry_id])
            SELECT TOP (@batch_size) [x].[entry_id]
            FROM [QueueSample].[WorkQueue_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[entry_id] > ISNULL(@after_id, 0)
            ORDER BY [x].[entry_id];
        ELSE
            INSERT INTO @q$picked ([entry_id])
            SELECT TOP (@batch_size) [x].[entry_id]
            FROM [QueueSample].[WorkQueue_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[id] IN (SELECT TRY_CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j])
            ORDER BY [x].[entry_id];
        SET @q$last_id = (SELECT MAX([entry_id]) FROM @q$picked);
        INSERT INTO [QueueSample].[WorkQueue] ([JobType], [JobInfo], [enqueued_by], [attempts], [available_at], [last_error])
        SELECT [x].[JobType], [x].[JobInfo], [x].[enqueued_by], 0, SYSUTCDATETIME(), [x].[last_error]
        FROM [QueueSample].[WorkQueue_dead] AS [x]
        INNER JOIN @q$picked AS [p] ON [p].[entry_id] = [x].[entry_id] AND [p].[keep] = 0
        ORDER BY [x].[entry_id];
        SET @q$redriven = @@ROWCOUNT;
        DELETE [x]
        FROM [QueueSample].[WorkQueue_dead] AS [x]
        INNER JOIN @q$picked AS [p] ON [p].[entry_id] = [x].[entry_id] AND [p].[keep] = 0;
        SET @q$skipped = (SELECT COUNT(*) FROM @q$picked WHERE [keep] = 1);
        COMMIT TRANSACTION;
        SELECT @q$redriven AS [redriven], @q$skipped AS [skipped_duplicates], @q$last_id AS [last_id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
