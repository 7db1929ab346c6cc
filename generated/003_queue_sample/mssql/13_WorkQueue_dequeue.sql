-- qgen 0.1.0: dequeue QueueSample.GetNextJob, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With @complete_lease_token it first completes that lease's jobs as complete(@lease_token) does,
-- in the same transaction: one commit per batch instead of two. A token that holds no job raises
-- 50001 and nothing is claimed.
CREATE OR ALTER PROCEDURE [QueueSample].[GetNextJob]
    @owner nvarchar(128) = NULL,
    @batch_size int = 1,
    @job_type uniqueidentifier = NULL,
    @lease_seconds int = 300,
    @complete_lease_token uniqueidentifier = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    DECLARE @token uniqueidentifier = NEWID();
    DECLARE @claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [JobType] uniqueidentifier NOT NULL,
        [JobInfo] xml NULL,
        [attempts] int NOT NULL,
        [lease_token] uniqueidentifier NOT NULL,
        [lease_expires_at] datetime2(3) NOT NULL
    );
    -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
    -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
    -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
    DECLARE @from bigint = (SELECT [id] FROM [QueueSample].[WorkQueue_watermark] WITH (NOLOCK));
    BEGIN TRY
        BEGIN TRANSACTION;
        IF @complete_lease_token IS NOT NULL
        BEGIN
            UPDATE [QueueSample].[WorkQueue]
            SET [processed] = 1, [processed_at] = @now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [lease_token] = @complete_lease_token;

            IF @@ROWCOUNT = 0
                THROW 50001, N'qgen: lease lost on QueueSample.WorkQueue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        IF @job_type IS NULL
            UPDATE [job]
            SET [lease_token] = @token,
                [lease_owner] = @owner,
                [lease_expires_at] = DATEADD(second, @lease_seconds, @now),
                [claimed_at] = @now,
                [claimed_by] = COALESCE(@owner, ORIGINAL_LOGIN()),
                [attempts] = [job].[attempts] + 1
            OUTPUT inserted.[id], inserted.[JobType], inserted.[JobInfo], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
            INTO @claimed ([id], [JobType], [JobInfo], [attempts], [lease_token], [lease_expires_at])
            FROM [QueueSample].[WorkQueue] AS [job]
            INNER JOIN
            (
                SELECT TOP (@batch_size) [id]
                FROM [QueueSample].[WorkQueue] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @now
                  AND [id] >= @from
                ORDER BY [id]
            ) AS [next_job] ON [next_job].[id] = [job].[id];
        ELSE
            UPDATE [job]
            SET [lease_token] = @token,
                [lease_owner] = @owner,
                [lease_expires_at] = DATEADD(second, @lease_seconds, @now),
                [claimed_at] = @now,
                [claimed_by] = COALESCE(@owner, ORIGINAL_LOGIN()),
                [attempts] = [job].[attempts] + 1
            OUTPUT inserted.[id], inserted.[JobType], inserted.[JobInfo], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
            INTO @claimed ([id], [JobType], [JobInfo], [attempts], [lease_token], [lease_expires_at])
            FROM [QueueSample].[WorkQueue] AS [job]
            INNER JOIN
            (
                SELECT TOP (@batch_size) [id]
                FROM [QueueSample].[WorkQueue] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @now
                  AND [id] >= @from
                  AND [JobType] = @job_type
                ORDER BY [id]
            ) AS [next_job] ON [next_job].[id] = [job].[id];
        -- Move the watermark about once per 100 claimed ids: when this claim's ids cross a multiple of it.
        DECLARE @lowest bigint, @highest bigint;
        SELECT @lowest = MIN([id]), @highest = MAX([id]) FROM @claimed;
        IF @highest / 100 > (@lowest - 1) / 100
            EXEC [QueueSample].[WorkQueue_watermark_move] @claimed_from = @lowest;
        COMMIT TRANSACTION;
        SELECT [id], [JobType], [JobInfo], [attempts], [lease_token], [lease_expires_at]
        FROM @claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
