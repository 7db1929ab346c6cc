-- qgen 0.1.0: every object of 003_queue_sample.yaml, for SQL Server (T-SQL), in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema QueueSample, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
IF SCHEMA_ID(N'QueueSample') IS NULL
    EXEC(N'CREATE SCHEMA [QueueSample] AUTHORIZATION [dbo];');
GO

-- qgen 0.1.0: roles QueueSample_admin, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
IF DATABASE_PRINCIPAL_ID(N'QueueSample_producer') IS NULL
    CREATE ROLE [QueueSample_producer];
IF DATABASE_PRINCIPAL_ID(N'QueueSample_consumer') IS NULL
    CREATE ROLE [QueueSample_consumer];
IF DATABASE_PRINCIPAL_ID(N'QueueSample_admin') IS NULL
    CREATE ROLE [QueueSample_admin];
GO

-- qgen 0.1.0: table QueueSample.WorkQueue, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'QueueSample.WorkQueue', N'U') IS NULL
BEGIN
    CREATE TABLE [QueueSample].[WorkQueue]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [JobType] uniqueidentifier NOT NULL,
        [JobInfo] xml NULL,
        [available_at] datetime2(3) NOT NULL CONSTRAINT [WorkQueue_available_at_df] DEFAULT (SYSUTCDATETIME()),
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [WorkQueue_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        [enqueued_by] nvarchar(128) NULL,
        [attempts] int NOT NULL CONSTRAINT [WorkQueue_attempts_df] DEFAULT (0),
        [lease_token] uniqueidentifier NULL,
        [lease_owner] nvarchar(128) NULL,
        [lease_expires_at] datetime2(3) NULL,
        [claimed_at] datetime2(3) NULL,
        [claimed_by] nvarchar(128) NULL,
        [last_error] nvarchar(4000) NULL,
        [processed] bit NOT NULL CONSTRAINT [WorkQueue_processed_df] DEFAULT (0),
        [processed_at] datetime2(3) NULL,
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [WorkQueue_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: claim_index QueueSample.WorkQueue_claim_ix, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'WorkQueue_claim_ix' AND object_id = OBJECT_ID(N'QueueSample.WorkQueue'))
    CREATE NONCLUSTERED INDEX [WorkQueue_claim_ix]
    ON [QueueSample].[WorkQueue] ([JobType], [id])
    INCLUDE ([available_at])
    WHERE [lease_token] IS NULL AND [processed] = 0;
GO

-- qgen 0.1.0: lease_index QueueSample.WorkQueue_lease_ix, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'WorkQueue_lease_ix' AND object_id = OBJECT_ID(N'QueueSample.WorkQueue'))
    CREATE NONCLUSTERED INDEX [WorkQueue_lease_ix]
    ON [QueueSample].[WorkQueue] ([lease_token]) INCLUDE ([lease_expires_at], [attempts])
    WHERE [lease_token] IS NOT NULL;
GO

-- qgen 0.1.0: watermark_table QueueSample.WorkQueue_watermark, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their range seek here instead of
-- walking the ghost records that deleted or claimed rows leave at the low end of the index.
IF OBJECT_ID(N'QueueSample.WorkQueue_watermark', N'U') IS NULL
BEGIN
    CREATE TABLE [QueueSample].[WorkQueue_watermark]
    (
        [id] bigint NOT NULL,
        -- Bumped by every change, so watermark_correct can tell a release happened while it scanned.
        [version] bigint NOT NULL CONSTRAINT [WorkQueue_watermark_version_df] DEFAULT (0),
        [one_row] bit NOT NULL CONSTRAINT [WorkQueue_watermark_one_row_df] DEFAULT (1),
        CONSTRAINT [WorkQueue_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [WorkQueue_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [QueueSample].[WorkQueue_watermark])
    INSERT INTO [QueueSample].[WorkQueue_watermark] ([id]) VALUES (0);
GO

-- qgen 0.1.0: dead_letter_table QueueSample.WorkQueue_dead, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged.
IF OBJECT_ID(N'QueueSample.WorkQueue_dead', N'U') IS NULL
BEGIN
    CREATE TABLE [QueueSample].[WorkQueue_dead]
    (
        [id] bigint NOT NULL,
        [JobType] uniqueidentifier NOT NULL,
        [JobInfo] xml NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [enqueued_by] nvarchar(128) NULL,
        [claimed_at] datetime2(3) NULL,
        [claimed_by] nvarchar(128) NULL,
        [attempts] int NOT NULL,
        [last_error] nvarchar(4000) NULL,
        [dead_at] datetime2(3) NOT NULL CONSTRAINT [WorkQueue_dead_dead_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [WorkQueue_dead_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: pending_view QueueSample.WorkQueue_Pending, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [QueueSample].[WorkQueue_Pending]
AS
SELECT [id], [JobType], [JobInfo], [available_at], [enqueued_at], [enqueued_by], [attempts], [last_error]
FROM [QueueSample].[WorkQueue]
WHERE [lease_token] IS NULL AND [processed] = 0;
GO

-- qgen 0.1.0: batch_type QueueSample.WorkQueue_batch, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it.
IF TYPE_ID(N'QueueSample.WorkQueue_batch') IS NULL
    CREATE TYPE [QueueSample].[WorkQueue_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [JobType] uniqueidentifier NOT NULL,
        [JobInfo] xml NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue QueueSample.QueueJob, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0).
CREATE OR ALTER PROCEDURE [QueueSample].[QueueJob]
    @JobType uniqueidentifier,
    @JobInfo xml = NULL,
    @enqueued_by nvarchar(128) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    BEGIN TRY
        INSERT INTO [QueueSample].[WorkQueue] ([JobType], [JobInfo], [enqueued_by])
        OUTPUT inserted.[id], CAST(1 AS bit) AS [enqueued]
        VALUES (@JobType, @JobInfo, COALESCE(@enqueued_by, ORIGINAL_LOGIN()));
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch QueueSample.WorkQueue_enqueue_batch, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row.
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_enqueue_batch]
    @jobs [QueueSample].[WorkQueue_batch] READONLY,
    @enqueued_by nvarchar(128) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [QueueSample].[WorkQueue] ([JobType], [JobInfo], [enqueued_by])
        OUTPUT inserted.[id] INTO @new ([id])
        SELECT [j].[JobType], [j].[JobInfo], COALESCE(@enqueued_by, ORIGINAL_LOGIN())
        FROM @jobs AS [j]
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        -- The nth lowest new id belongs to the nth lowest ordinal.
        SELECT [j].[ordinal], [n].[id], CAST(1 AS bit) AS [enqueued]
        FROM (SELECT [ordinal], ROW_NUMBER() OVER (ORDER BY [ordinal]) AS [position] FROM @jobs) AS [j]
        INNER JOIN (SELECT [id], ROW_NUMBER() OVER (ORDER BY [id]) AS [position] FROM @new) AS [n]
            ON [n].[position] = [j].[position]
        ORDER BY [j].[ordinal];
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: watermark_move QueueSample.WorkQueue_watermark_move, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_watermark_move]
    @claimed_from bigint
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @target bigint = @claimed_from - 50;
    -- READPAST on the watermark row: a session already moving it wins, this one skips.
    -- READPAST on the queue: rows locked by other claimers are being claimed; rows locked by a
    -- release (fail, reap) are lowered by that release itself after this move.
    UPDATE [w]
    SET [id] = COALESCE(
            (
                SELECT MIN([job].[id])
                FROM [QueueSample].[WorkQueue] AS [job] WITH (READPAST)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @target AND [job].[lease_token] IS NULL AND [job].[processed] = 0
            ), @target),
        [version] = [w].[version] + 1
    FROM [QueueSample].[WorkQueue_watermark] AS [w] WITH (ROWLOCK, READPAST)
    WHERE [w].[id] < @target;
END;
GO

-- qgen 0.1.0: watermark_correct QueueSample.WorkQueue_watermark_correct, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty).
-- Run it from a periodic job and after a dequeue that found nothing; it repairs a watermark that is
-- wrong either way.
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_watermark_correct]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @old bigint, @version bigint, @new bigint, @tries int = 0, @written int = 0;
    WHILE @written = 0 AND @tries < 5
    BEGIN
        SET @tries += 1;
        SELECT @old = [id], @version = [version] FROM [QueueSample].[WorkQueue_watermark];
        SET @new = (SELECT MIN([id]) FROM [QueueSample].[WorkQueue] WHERE [lease_token] IS NULL AND [processed] = 0) - 50;
        IF @new IS NULL
            SET @new = (SELECT MAX([id]) + 1 FROM [QueueSample].[WorkQueue]) - 50;
        -- Drained: the next id comes from the identity (NULL if none was ever generated). Left where
        -- it was, a watermark a release had lowered would make every claim walk the drained range.
        IF @new IS NULL
            SET @new = (SELECT CONVERT(bigint, [last_value]) + 1 FROM sys.identity_columns
                        WHERE [object_id] = OBJECT_ID(N'[QueueSample].[WorkQueue]') AND [name] = N'id') - 50;
        IF @new IS NULL
            SET @new = @old;
        IF @new < 0
            SET @new = 0;
        -- Compare-and-set on version: a release that lowered the watermark while we scanned wins,
        -- and we scan again.
        UPDATE [QueueSample].[WorkQueue_watermark] SET [id] = @new, [version] = [version] + 1 WHERE [version] = @version;
        SET @written = @@ROWCOUNT;
    END;
    SELECT @old AS [old_watermark], CASE WHEN @written = 1 THEN @new ELSE @old END AS [new_watermark];
END;
GO

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

-- qgen 0.1.0: complete QueueSample.WorkQueue_complete, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: marks them processed. With @id, only that job; without, every job of
-- the lease. The token is the fence: a worker whose lease was released or taken over gets error 50001.
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_complete]
    @lease_token uniqueidentifier,
    @id bigint = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    DECLARE @completed int;
    BEGIN TRY
        BEGIN TRANSACTION;
        IF @id IS NULL
        BEGIN
            UPDATE [QueueSample].[WorkQueue]
            SET [processed] = 1, [processed_at] = @now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [lease_token] = @lease_token;

            SET @completed = @@ROWCOUNT;
        END
        ELSE
        BEGIN
            UPDATE [QueueSample].[WorkQueue]
            SET [processed] = 1, [processed_at] = @now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [id] = @id AND [lease_token] = @lease_token;

            SET @completed = @@ROWCOUNT;
        END;
        IF @completed = 0
            THROW 50001, N'qgen: lease lost on QueueSample.WorkQueue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        COMMIT TRANSACTION;
        RETURN @completed;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: fail QueueSample.WorkQueue_fail, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 5) and @retry = 1 it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_fail]
    @lease_token uniqueidentifier,
    @id bigint,
    @error nvarchar(4000) = NULL,
    @retry bit = 1
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    DECLARE @attempts int;
    BEGIN TRY
        BEGIN TRANSACTION;
        SELECT @attempts = [attempts]
        FROM [QueueSample].[WorkQueue] WITH (UPDLOCK, ROWLOCK)
        WHERE [id] = @id AND [lease_token] = @lease_token;
        IF @attempts IS NULL
            THROW 50001, N'qgen: lease lost on QueueSample.WorkQueue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        IF @retry = 1 AND @attempts < 5
        BEGIN
            UPDATE [QueueSample].[WorkQueue]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [last_error] = @error,
                [available_at] = DATEADD(second, CAST(CASE WHEN 10 * POWER(CAST(2 AS float), @attempts - 1) > 3600 THEN 3600 ELSE 10 * POWER(CAST(2 AS float), @attempts - 1) END AS int), @now)
            WHERE [id] = @id;
            -- The job is claimable again: the watermark must not stay above it.
            UPDATE [QueueSample].[WorkQueue_watermark]
            SET [id] = CASE WHEN [id] > @id THEN @id ELSE [id] END, [version] = [version] + 1;
            COMMIT TRANSACTION;
            RETURN 0;
        END;
        DELETE FROM [QueueSample].[WorkQueue]
        OUTPUT deleted.[id], deleted.[JobType], deleted.[JobInfo], deleted.[enqueued_at], deleted.[enqueued_by], deleted.[claimed_at], deleted.[claimed_by], deleted.[attempts], @error, @now
        INTO [QueueSample].[WorkQueue_dead] ([id], [JobType], [JobInfo], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], [last_error], [dead_at])
        WHERE [id] = @id;
        COMMIT TRANSACTION;
        RETURN 1;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: extend_lease QueueSample.WorkQueue_extend_lease, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire @lease_seconds from now.
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_extend_lease]
    @lease_token uniqueidentifier,
    @lease_seconds int = 300,
    @id bigint = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @until datetime2(3) = DATEADD(second, @lease_seconds, SYSUTCDATETIME());
    DECLARE @extended int;
    BEGIN TRY
        IF @id IS NULL
            UPDATE [QueueSample].[WorkQueue] SET [lease_expires_at] = @until WHERE [lease_token] = @lease_token;
        ELSE
            UPDATE [QueueSample].[WorkQueue] SET [lease_expires_at] = @until WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @extended = @@ROWCOUNT;
        IF @extended = 0
            THROW 50001, N'qgen: lease lost on QueueSample.WorkQueue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        RETURN @extended;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: reap QueueSample.WorkQueue_reap, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- @batch_size per call so it never holds many locks: those with attempts left become claimable
-- again, with their old token cleared so the late worker is fenced off; the rest are dead-lettered.
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_reap]
    @batch_size int = 1000
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    DECLARE @expired TABLE ([id] bigint NOT NULL PRIMARY KEY, [attempts] int NOT NULL);
    DECLARE @released int = 0, @dead_lettered int = 0, @lowest bigint;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- READPAST: a job being completed right now is locked by its worker; leave it to finish.
        INSERT INTO @expired ([id], [attempts])
        SELECT TOP (@batch_size) [id], [attempts]
        FROM [QueueSample].[WorkQueue] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [lease_token] IS NOT NULL AND [lease_expires_at] < @now;

        UPDATE [job]
        SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @now,
            [last_error] = N'qgen: lease expired before the job was completed'
        FROM [QueueSample].[WorkQueue] AS [job]
        INNER JOIN @expired AS [e] ON [e].[id] = [job].[id]
        WHERE [e].[attempts] < 5;
        SET @released = @@ROWCOUNT;

        DELETE [job]
        OUTPUT deleted.[id], deleted.[JobType], deleted.[JobInfo], deleted.[enqueued_at], deleted.[enqueued_by], deleted.[claimed_at], deleted.[claimed_by], deleted.[attempts], N'qgen: lease expired on the last attempt', @now
        INTO [QueueSample].[WorkQueue_dead] ([id], [JobType], [JobInfo], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], [last_error], [dead_at])
        FROM [QueueSample].[WorkQueue] AS [job]
        INNER JOIN @expired AS [e] ON [e].[id] = [job].[id]
        WHERE [e].[attempts] >= 5;
        SET @dead_lettered = @@ROWCOUNT;

        -- Released jobs are claimable again: the watermark must not stay above them.
        SELECT @lowest = MIN([id]) FROM @expired WHERE [attempts] < 5;
        IF @lowest IS NOT NULL
            UPDATE [QueueSample].[WorkQueue_watermark]
            SET [id] = CASE WHEN [id] > @lowest THEN @lowest ELSE [id] END, [version] = [version] + 1;
        COMMIT TRANSACTION;
        SELECT @released AS [released], @dead_lettered AS [dead_lettered];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: metrics QueueSample.WorkQueue_metrics, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_metrics]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    SELECT
        COUNT_BIG(CASE WHEN [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @now THEN 1 END) AS [ready],
        COUNT_BIG(CASE WHEN [lease_token] IS NULL AND [processed] = 0 AND [available_at] > @now THEN 1 END) AS [scheduled],
        COUNT_BIG(CASE WHEN [lease_token] IS NOT NULL THEN 1 END) AS [in_flight],
        COUNT_BIG(CASE WHEN [lease_token] IS NOT NULL AND [lease_expires_at] < @now THEN 1 END) AS [expired],
        COUNT_BIG(CASE WHEN [processed] = 1 THEN 1 END) AS [processed],
        (SELECT COUNT_BIG(*) FROM [QueueSample].[WorkQueue_dead]) AS [dead],
        CAST(0 AS bigint) AS [archived],
        COALESCE(DATEDIFF_BIG(second, MIN(CASE WHEN [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @now THEN [enqueued_at] END), @now), 0) AS [oldest_ready_age_seconds],
        (SELECT [id] FROM [QueueSample].[WorkQueue_watermark]) AS [watermark],
        MIN(CASE WHEN [lease_token] IS NULL AND [processed] = 0 THEN [id] END) AS [lowest_pending_id]
    FROM [QueueSample].[WorkQueue];
END;
GO

-- qgen 0.1.0: peek QueueSample.ViewQueue, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue).
CREATE OR ALTER PROCEDURE [QueueSample].[ViewQueue]
    @job_type uniqueidentifier = NULL,
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SELECT TOP (@limit) [id], [JobType], [JobInfo], [available_at], [enqueued_at], [enqueued_by], [attempts], [last_error]
    FROM [QueueSample].[WorkQueue_Pending]
    WHERE @job_type IS NULL OR [JobType] = @job_type
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge QueueSample.WorkQueue_purge, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than @older_than_seconds, in
-- batches of @batch_size so no single delete escalates to a table lock or bloats the log.
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_purge]
    @older_than_seconds int = 604800,
    @batch_size int = 10000
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @archived bigint = 0, @processed bigint = 0, @dead bigint = 0, @deleted int;
    SET @deleted = 1;
    WHILE @deleted > 0
    BEGIN
        DELETE TOP (@batch_size) FROM [QueueSample].[WorkQueue] WHERE [processed] = 1 AND [processed_at] < @cutoff;
        SET @deleted = @@ROWCOUNT;
        SET @processed += @deleted;
    END;

    SET @deleted = 1;
    WHILE @deleted > 0
    BEGIN
        DELETE TOP (@batch_size) FROM [QueueSample].[WorkQueue_dead] WHERE [dead_at] < @cutoff;
        SET @deleted = @@ROWCOUNT;
        SET @dead += @deleted;
    END;

    SELECT @archived AS [archived], @processed AS [processed], @dead AS [dead];
END;
GO

-- qgen 0.1.0: grants QueueSample_consumer, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[QueueSample].[QueueJob] TO [QueueSample_producer];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_enqueue_batch] TO [QueueSample_producer];
GRANT EXECUTE ON TYPE::[QueueSample].[WorkQueue_batch] TO [QueueSample_producer];
GRANT EXECUTE ON OBJECT::[QueueSample].[GetNextJob] TO [QueueSample_consumer];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_complete] TO [QueueSample_consumer];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_fail] TO [QueueSample_consumer];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_extend_lease] TO [QueueSample_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_watermark_correct] TO [QueueSample_consumer];
GRANT SELECT ON OBJECT::[QueueSample].[WorkQueue_Pending] TO [QueueSample_admin];
GRANT EXECUTE ON SCHEMA::[QueueSample] TO [QueueSample_admin];
GO
