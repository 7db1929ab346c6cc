-- qgen 0.1.0: fail QueueSample.WorkQueue_fail, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- A worker could not finish a job. With attempts left (at most 5) and @retry = 1 it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_fail]
    @lease_token uniqueidentifier,
    @id bigint,
    @error nvarchar(max) = NULL,
    @retry bit = 1
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    -- NULL is not "no retry": refused, so a caller passing an unset flag does not dead-letter the job.
    IF @retry IS NULL
        THROW 50003, N'qgen: @retry NULL is out of range; accepted: 0 or 1.', 1;
    -- The error text is cut to its column's 4000 characters here, on purpose and never
    -- refused: a worker reports an exception whose text it does not control (a stack trace runs to
    -- many thousands), and a failure that could not be recorded would leave the job leased until
    -- its lease ran out, to be retried with no error kept (docs/api.md, "Values past a column's
    -- limit"). The parameter is nvarchar(max) so that the cut is this one, not the call's.
    DECLARE @q$error nvarchar(4000) = LEFT(@error, 4000);
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$attempts int;
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [JobType] uniqueidentifier NOT NULL,
        [JobInfo] xml NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [enqueued_by] nvarchar(128) NULL,
        [claimed_at] datetime2(3) NULL,
        [claimed_by] nvarchar(128) NULL,
        [attempts] int NOT NULL
    );
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK: a locking read of the current row (also under READ_COMMITTED_SNAPSHOT), held
        -- until commit, so a reaper cannot release the job between this read and the change below.
        SELECT @q$attempts = [attempts]
        FROM [QueueSample].[WorkQueue] WITH (UPDLOCK, ROWLOCK)
        WHERE [id] = @id AND [lease_token] = @lease_token;
        IF @q$attempts IS NULL
            THROW 50001, N'qgen: lease lost on QueueSample.WorkQueue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        IF @retry = 1 AND @q$attempts < 5
        BEGIN
            UPDATE [QueueSample].[WorkQueue]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [last_error] = @q$error,
                [available_at] = DATEADD(second, CAST(CASE WHEN 10 * POWER(CAST(2 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) > 3600 THEN 3600 ELSE 10 * POWER(CAST(2 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) END AS int), @q$now),
                -- Into the due index for its backoff, off the claim index and the watermark's way.
                [deferred] = 1
            WHERE [id] = @id;
            -- The job is claimable again: the watermark must not stay above it (unless another
            -- transaction holds the watermark row: then the rescan finds the job; never a wait).
            UPDATE [w]
            SET [id] = @id, [version] = [w].[version] + 1
            FROM [QueueSample].[WorkQueue_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [w].[id] > @id;
            COMMIT TRANSACTION;
            RETURN 0;
        END;
        DELETE FROM [QueueSample].[WorkQueue]
        OUTPUT deleted.[id], deleted.[JobType], deleted.[JobInfo], deleted.[enqueued_at], deleted.[enqueued_by], deleted.[claimed_at], deleted.[claimed_by], deleted.[attempts]
        INTO @q$dead ([id], [JobType], [JobInfo], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts])
        WHERE [id] = @id;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [QueueSample].[WorkQueue_dead] ([id], [JobType], [JobInfo], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], [last_error], [dead_at])
        SELECT [id], [JobType], [JobInfo], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], @q$error, @q$now FROM @q$dead;
        COMMIT TRANSACTION;
        RETURN 1;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
