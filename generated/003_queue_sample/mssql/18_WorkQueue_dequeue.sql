-- qgen 0.1.0: dequeue QueueSample.GetNextJob, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Claims up to @batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With @complete_lease_token it first completes that lease's jobs as complete(@lease_token) does,
-- in the same transaction: one commit per batch instead of two. A token that holds no job raises
-- 50001 and nothing is claimed.
CREATE OR ALTER PROCEDURE [QueueSample].[GetNextJob]
    @owner nvarchar(129) = NULL,
    @batch_size int = 1,
    @job_type uniqueidentifier = NULL,
    @lease_seconds int = 300,
    @complete_lease_token uniqueidentifier = NULL,
    @wait_ms int = 0
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1000
    BEGIN
        DECLARE @q$error nvarchar(2048) = CONCAT(N'qgen: batch_size ', COALESCE(CAST(@batch_size AS nvarchar(11)), N'NULL'),
            N' is out of range for QueueSample.GetNextJob; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in QueueSample.GetNextJob; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF @lease_seconds IS NULL OR @lease_seconds < 1
        THROW 50003, N'qgen: @lease_seconds is out of range; accepted: 1 or more seconds.', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on QueueSample.WorkQueue: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$token uniqueidentifier = NEWID();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [JobType] uniqueidentifier NOT NULL,
        [JobInfo] xml NULL,
        [attempts] int NOT NULL,
        [lease_token] uniqueidentifier NOT NULL,
        [lease_expires_at] datetime2(3) NOT NULL
    );
    DECLARE @q$from bigint;
    -- What the claim index is left to fill once the due deferred jobs are claimed.
    DECLARE @q$rest int;
    BEGIN TRY
        -- @wait_ms: each attempt to claim starts here, in a transaction of its own (see the wait block below).
    q$attempt:
        BEGIN TRANSACTION;
        IF @complete_lease_token IS NOT NULL
        BEGIN
            DECLARE @q$held TABLE ([id] bigint NOT NULL PRIMARY KEY);
            INSERT INTO @q$held ([id])
            SELECT [id] FROM [QueueSample].[WorkQueue] WHERE [lease_token] = @complete_lease_token;
            UPDATE [QueueSample].[WorkQueue]
            SET [processed] = 1, [processed_at] = @q$now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @complete_lease_token;

            IF @@ROWCOUNT = 0
                THROW 50001, N'qgen: lease lost on QueueSample.WorkQueue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [QueueSample].[WorkQueue_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
        -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
        IF EXISTS (SELECT 1 FROM [QueueSample].[WorkQueue_watermark] WITH (NOLOCK) WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME()))
        BEGIN
            DECLARE @q$mark bigint, @q$stranded bigint;
            UPDATE [QueueSample].[WorkQueue_watermark] WITH (ROWLOCK, READPAST, UPDLOCK)
            SET @q$mark = [id], [corrected_at] = SYSUTCDATETIME(), [version] = [version] + 1
            WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME());
            IF @@ROWCOUNT = 1
            BEGIN
                SELECT @q$stranded = MIN([job].[id])
                FROM [QueueSample].[WorkQueue] AS [job] WITH (NOLOCK)
                WHERE [job].[id] < @q$mark AND [job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0;
                IF @q$stranded IS NOT NULL
                    UPDATE [QueueSample].[WorkQueue_watermark]
                    SET [id] = CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END,
                        [version] = [version] + 1
                    WHERE [id] > CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END;
            END;
        END
        ELSE IF NOT EXISTS (SELECT 1 FROM [QueueSample].[WorkQueue_watermark] WITH (NOLOCK))
            INSERT INTO [QueueSample].[WorkQueue_watermark] ([id])
            SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM [QueueSample].[WorkQueue_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
        -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
        -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
        -- A missing row reads as 0.
        SET @q$from = COALESCE((SELECT [id] FROM [QueueSample].[WorkQueue_watermark] WITH (NOLOCK)), 0);
        IF @job_type IS NULL
        BEGIN
            ;WITH [due_job] AS
            (
                SELECT TOP (@batch_size) [id], [JobType], [JobInfo], [attempts], [lease_token], [lease_owner], [lease_expires_at], [claimed_at], [claimed_by], [deferred]
                -- The one reference to the table (see the claim below); it seeks the due index.
                FROM [QueueSample].[WorkQueue] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE [deferred] = 1 AND [available_at] <= @q$now
                ORDER BY [available_at], [id]
            )
            UPDATE [due_job]
            SET [lease_token] = @q$token,
                [lease_owner] = @owner,
                [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
                [claimed_at] = @q$now,
                [claimed_by] = COALESCE(@owner, ORIGINAL_LOGIN()),
                [deferred] = 0,
                [attempts] = [attempts] + 1
            OUTPUT inserted.[id], inserted.[JobType], inserted.[JobInfo], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
            INTO @q$claimed ([id], [JobType], [JobInfo], [attempts], [lease_token], [lease_expires_at])
            -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
            OPTION (OPTIMIZE FOR (@batch_size = 1));
            -- Then the rest of the batch from the claim index, which holds only claimable jobs.
            SET @q$rest = @batch_size - @@ROWCOUNT;
            IF @q$rest > 0
            BEGIN
                ;WITH [next_job] AS
                (
                    SELECT TOP (@q$rest) [id], [JobType], [JobInfo], [attempts], [lease_token], [lease_owner], [lease_expires_at], [claimed_at], [claimed_by]
                    -- The one reference to the table: these hints hold for every row the claim reads.
                    FROM [QueueSample].[WorkQueue] WITH (ROWLOCK, READPAST, UPDLOCK)
                    WHERE [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @q$now AND [deferred] = 0
                      AND [id] >= @q$from
                    ORDER BY [id]
                )
                UPDATE [next_job]
                SET [lease_token] = @q$token,
                    [lease_owner] = @owner,
                    [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
                    [claimed_at] = @q$now,
                    [claimed_by] = COALESCE(@owner, ORIGINAL_LOGIN()),
                    [attempts] = [attempts] + 1
                OUTPUT inserted.[id], inserted.[JobType], inserted.[JobInfo], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
                INTO @q$claimed ([id], [JobType], [JobInfo], [attempts], [lease_token], [lease_expires_at])
                -- Planned for one row, whatever @q$rest the first call sniffed: a seek in queue order.
                OPTION (OPTIMIZE FOR (@q$rest = 1));
            END;
        END
        ELSE
        BEGIN
            ;WITH [due_job] AS
            (
                SELECT TOP (@batch_size) [id], [JobType], [JobInfo], [attempts], [lease_token], [lease_owner], [lease_expires_at], [claimed_at], [claimed_by], [deferred]
                -- The one reference to the table (see the claim below); it seeks the due index.
                FROM [QueueSample].[WorkQueue] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE [deferred] = 1 AND [available_at] <= @q$now
                  AND [JobType] = @job_type
                ORDER BY [available_at], [id]
            )
            UPDATE [due_job]
            SET [lease_token] = @q$token,
                [lease_owner] = @owner,
                [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
                [claimed_at] = @q$now,
                [claimed_by] = COALESCE(@owner, ORIGINAL_LOGIN()),
                [deferred] = 0,
                [attempts] = [attempts] + 1
            OUTPUT inserted.[id], inserted.[JobType], inserted.[JobInfo], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
            INTO @q$claimed ([id], [JobType], [JobInfo], [attempts], [lease_token], [lease_expires_at])
            -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
            OPTION (OPTIMIZE FOR (@batch_size = 1));
            -- Then the rest of the batch from the claim index, which holds only claimable jobs.
            SET @q$rest = @batch_size - @@ROWCOUNT;
            IF @q$rest > 0
            BEGIN
                ;WITH [next_job] AS
                (
                    SELECT TOP (@q$rest) [id], [JobType], [JobInfo], [attempts], [lease_token], [lease_owner], [lease_expires_at], [claimed_at], [claimed_by]
                    -- The one reference to the table: these hints hold for every row the claim reads.
                    FROM [QueueSample].[WorkQueue] WITH (ROWLOCK, READPAST, UPDLOCK)
                    WHERE [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @q$now AND [deferred] = 0
                      AND [id] >= @q$from
                      AND [JobType] = @job_type
                    ORDER BY [id]
                )
                UPDATE [next_job]
                SET [lease_token] = @q$token,
                    [lease_owner] = @owner,
                    [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
                    [claimed_at] = @q$now,
                    [claimed_by] = COALESCE(@owner, ORIGINAL_LOGIN()),
                    [attempts] = [attempts] + 1
                OUTPUT inserted.[id], inserted.[JobType], inserted.[JobInfo], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
                INTO @q$claimed ([id], [JobType], [JobInfo], [attempts], [lease_token], [lease_expires_at])
                -- Planned for one row, whatever @q$rest the first call sniffed: a seek in queue order.
                OPTION (OPTIMIZE FOR (@q$rest = 1));
            END;
        END;
        -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
        -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
        -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
        DECLARE @q$highest bigint;
        SELECT @q$highest = MAX([id]) FROM @q$claimed;
        IF @q$highest - @q$from >= 150
            EXEC [QueueSample].[WorkQueue_watermark_move] @claimed_from = @q$highest;
    q$paused:
        COMMIT TRANSACTION;
        -- ---- wait block: no job yet, and a whole step fits before @wait_ms: sleep, then claim again ----
        IF @wait_ms > 0 AND NOT EXISTS (SELECT 1 FROM @q$claimed)
            AND DATEDIFF(millisecond, @q$began, SYSUTCDATETIME()) + 50 < @wait_ms
        BEGIN
            WAITFOR DELAY '00:00:00.050';
            -- No claim starts after the deadline, even when the sleep overran it.
            IF DATEDIFF(millisecond, @q$began, SYSUTCDATETIME()) < @wait_ms
            BEGIN
                SET @complete_lease_token = NULL;
                SET @q$now = SYSUTCDATETIME();
                GOTO q$attempt;
            END;
        END;
        -- ---- end of the wait block ----
        SELECT [id], [JobType], [JobInfo], [attempts], [lease_token], [lease_expires_at]
        FROM @q$claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
