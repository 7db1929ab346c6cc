-- qgen 0.1.0: every object of 000_flag_worker.yaml, for SQL Server (T-SQL), in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema four, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
IF SCHEMA_ID(N'four') IS NULL
    EXEC(N'CREATE SCHEMA [four] AUTHORIZATION [dbo];');
GO

-- qgen 0.1.0: roles four_admin, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
IF DATABASE_PRINCIPAL_ID(N'four_producer') IS NULL
    CREATE ROLE [four_producer];
IF DATABASE_PRINCIPAL_ID(N'four_consumer') IS NULL
    CREATE ROLE [four_consumer];
IF DATABASE_PRINCIPAL_ID(N'four_admin') IS NULL
    CREATE ROLE [four_admin];
GO

-- qgen 0.1.0: table four.four_queue, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'four.four_queue', N'U') IS NULL
BEGIN
    CREATE TABLE [four].[four_queue]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [reputation] int NOT NULL,
        [available_at] datetime2(3) NOT NULL CONSTRAINT [four_queue_available_at_df] DEFAULT (SYSUTCDATETIME()),
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [four_queue_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        [attempts] int NOT NULL CONSTRAINT [four_queue_attempts_df] DEFAULT (0),
        [lease_token] uniqueidentifier NULL,
        [lease_owner] nvarchar(128) NULL,
        [lease_expires_at] datetime2(3) NULL,
        [last_error] nvarchar(4000) NULL,
        [processed] bit NOT NULL CONSTRAINT [four_queue_processed_df] DEFAULT (0),
        [processed_at] datetime2(3) NULL,
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [four_queue_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: claim_index four.four_queue_claim_ix, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_claim_ix' AND object_id = OBJECT_ID(N'four.four_queue'))
    CREATE NONCLUSTERED INDEX [four_queue_claim_ix]
    ON [four].[four_queue] ([id])
    INCLUDE ([available_at])
    WHERE [lease_token] IS NULL AND [processed] = 0;
GO

-- qgen 0.1.0: dedupe_index four.four_queue_dedupe_ux, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_dedupe_ux' AND object_id = OBJECT_ID(N'four.four_queue'))
    CREATE UNIQUE NONCLUSTERED INDEX [four_queue_dedupe_ux]
    ON [four].[four_queue] ([reputation]);
GO

-- qgen 0.1.0: lease_index four.four_queue_lease_ix, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_lease_ix' AND object_id = OBJECT_ID(N'four.four_queue'))
    CREATE NONCLUSTERED INDEX [four_queue_lease_ix]
    ON [four].[four_queue] ([lease_token]) INCLUDE ([lease_expires_at], [attempts])
    WHERE [lease_token] IS NOT NULL;
GO

-- qgen 0.1.0: watermark_table four.four_queue_watermark, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their range seek here instead of
-- walking the ghost records that deleted or claimed rows leave at the low end of the index.
IF OBJECT_ID(N'four.four_queue_watermark', N'U') IS NULL
BEGIN
    CREATE TABLE [four].[four_queue_watermark]
    (
        [id] bigint NOT NULL,
        -- Bumped by every change, so watermark_correct can tell a release happened while it scanned.
        [version] bigint NOT NULL CONSTRAINT [four_queue_watermark_version_df] DEFAULT (0),
        [one_row] bit NOT NULL CONSTRAINT [four_queue_watermark_one_row_df] DEFAULT (1),
        CONSTRAINT [four_queue_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [four_queue_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [four].[four_queue_watermark])
    INSERT INTO [four].[four_queue_watermark] ([id]) VALUES (0);
GO

-- qgen 0.1.0: dead_letter_table four.four_queue_dead, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged.
IF OBJECT_ID(N'four.four_queue_dead', N'U') IS NULL
BEGIN
    CREATE TABLE [four].[four_queue_dead]
    (
        [id] bigint NOT NULL,
        [reputation] int NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL,
        [last_error] nvarchar(4000) NULL,
        [dead_at] datetime2(3) NOT NULL CONSTRAINT [four_queue_dead_dead_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [four_queue_dead_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: pending_view four.four_queue_pending, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [four].[four_queue_pending]
AS
SELECT [id], [reputation], [available_at], [enqueued_at], [attempts], [last_error]
FROM [four].[four_queue]
WHERE [lease_token] IS NULL AND [processed] = 0;
GO

-- qgen 0.1.0: batch_type four.four_queue_batch, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it.
IF TYPE_ID(N'four.four_queue_batch') IS NULL
    CREATE TYPE [four].[four_queue_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [reputation] int NOT NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue four.four_queue_enqueue, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0).
CREATE OR ALTER PROCEDURE [four].[four_queue_enqueue]
    @reputation int
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK + HOLDLOCK keep the key range locked until the insert, so two sessions enqueueing
        -- the same key cannot both find it missing.
        DECLARE @existing bigint =
        (
            SELECT [id] FROM [four].[four_queue] WITH (UPDLOCK, HOLDLOCK)
            WHERE [reputation] = @reputation
        );
        IF @existing IS NOT NULL
        BEGIN
            COMMIT TRANSACTION;
            SELECT @existing AS [id], CAST(0 AS bit) AS [enqueued];
            RETURN;
        END;
        INSERT INTO [four].[four_queue] ([reputation])
        OUTPUT inserted.[id], CAST(1 AS bit) AS [enqueued]
        VALUES (@reputation);
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch four.four_queue_enqueue_batch, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row: a job already queued, or repeated earlier in the batch, returns that id with enqueued = 0.
CREATE OR ALTER PROCEDURE [four].[four_queue_enqueue_batch]
    @jobs [four].[four_queue_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [four].[four_queue] ([reputation])
        OUTPUT inserted.[id] INTO @new ([id])
        SELECT [j].[reputation]
        FROM @jobs AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [four].[four_queue] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[reputation] = [j].[reputation])
          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[reputation] = [j].[reputation] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], [e].[id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[reputation] = [j].[reputation] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @jobs AS [j]
        INNER JOIN [four].[four_queue] AS [e] ON [e].[reputation] = [j].[reputation]
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

-- qgen 0.1.0: watermark_move four.four_queue_watermark_move, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR ALTER PROCEDURE [four].[four_queue_watermark_move]
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
                FROM [four].[four_queue] AS [job] WITH (READPAST)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @target AND [job].[lease_token] IS NULL AND [job].[processed] = 0
            ), @target),
        [version] = [w].[version] + 1
    FROM [four].[four_queue_watermark] AS [w] WITH (ROWLOCK, READPAST)
    WHERE [w].[id] < @target;
END;
GO

-- qgen 0.1.0: watermark_correct four.four_queue_watermark_correct, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty).
-- Run it from a periodic job and after a dequeue that found nothing; it repairs a watermark that is
-- wrong either way.
CREATE OR ALTER PROCEDURE [four].[four_queue_watermark_correct]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @old bigint, @version bigint, @new bigint, @tries int = 0, @written int = 0;
    WHILE @written = 0 AND @tries < 5
    BEGIN
        SET @tries += 1;
        SELECT @old = [id], @version = [version] FROM [four].[four_queue_watermark];
        SET @new = (SELECT MIN([id]) FROM [four].[four_queue] WHERE [lease_token] IS NULL AND [processed] = 0) - 50;
        IF @new IS NULL
            SET @new = (SELECT MAX([id]) + 1 FROM [four].[four_queue]) - 50;
        -- Drained: the next id comes from the identity (NULL if none was ever generated). Left where
        -- it was, a watermark a release had lowered would make every claim walk the drained range.
        IF @new IS NULL
            SET @new = (SELECT CONVERT(bigint, [last_value]) + 1 FROM sys.identity_columns
                        WHERE [object_id] = OBJECT_ID(N'[four].[four_queue]') AND [name] = N'id') - 50;
        IF @new IS NULL
            SET @new = @old;
        IF @new < 0
            SET @new = 0;
        -- Compare-and-set on version: a release that lowered the watermark while we scanned wins,
        -- and we scan again.
        UPDATE [four].[four_queue_watermark] SET [id] = @new, [version] = [version] + 1 WHERE [version] = @version;
        SET @written = @@ROWCOUNT;
    END;
    SELECT @old AS [old_watermark], CASE WHEN @written = 1 THEN @new ELSE @old END AS [new_watermark];
END;
GO

-- qgen 0.1.0: dequeue four.four_queue_dequeue, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With @complete_lease_token it first completes that lease's jobs as complete(@lease_token) does,
-- in the same transaction: one commit per batch instead of two. A token that holds no job raises
-- 50001 and nothing is claimed.
CREATE OR ALTER PROCEDURE [four].[four_queue_dequeue]
    @owner nvarchar(128) = NULL,
    @batch_size int = 1,
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
        [reputation] int NOT NULL,
        [attempts] int NOT NULL,
        [lease_token] uniqueidentifier NOT NULL,
        [lease_expires_at] datetime2(3) NOT NULL
    );
    -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
    -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
    -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
    DECLARE @from bigint = (SELECT [id] FROM [four].[four_queue_watermark] WITH (NOLOCK));
    BEGIN TRY
        BEGIN TRANSACTION;
        IF @complete_lease_token IS NOT NULL
        BEGIN
            UPDATE [four].[four_queue]
            SET [processed] = 1, [processed_at] = @now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [lease_token] = @complete_lease_token;

            IF @@ROWCOUNT = 0
                THROW 50001, N'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        UPDATE [job]
        SET [lease_token] = @token,
            [lease_owner] = @owner,
            [lease_expires_at] = DATEADD(second, @lease_seconds, @now),
            [attempts] = [job].[attempts] + 1
        OUTPUT inserted.[id], inserted.[reputation], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
        INTO @claimed ([id], [reputation], [attempts], [lease_token], [lease_expires_at])
        FROM [four].[four_queue] AS [job]
        INNER JOIN
        (
            SELECT TOP (@batch_size) [id]
            FROM [four].[four_queue] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @now
              AND [id] >= @from
            ORDER BY [id]
        ) AS [next_job] ON [next_job].[id] = [job].[id];
        -- Move the watermark about once per 100 claimed ids: when this claim's ids cross a multiple of it.
        DECLARE @lowest bigint, @highest bigint;
        SELECT @lowest = MIN([id]), @highest = MAX([id]) FROM @claimed;
        IF @highest / 100 > (@lowest - 1) / 100
            EXEC [four].[four_queue_watermark_move] @claimed_from = @lowest;
        COMMIT TRANSACTION;
        SELECT [id], [reputation], [attempts], [lease_token], [lease_expires_at]
        FROM @claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: complete four.four_queue_complete, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: marks them processed. With @id, only that job; without, every job of
-- the lease. The token is the fence: a worker whose lease was released or taken over gets error 50001.
CREATE OR ALTER PROCEDURE [four].[four_queue_complete]
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
            UPDATE [four].[four_queue]
            SET [processed] = 1, [processed_at] = @now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [lease_token] = @lease_token;

            SET @completed = @@ROWCOUNT;
        END
        ELSE
        BEGIN
            UPDATE [four].[four_queue]
            SET [processed] = 1, [processed_at] = @now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [id] = @id AND [lease_token] = @lease_token;

            SET @completed = @@ROWCOUNT;
        END;
        IF @completed = 0
            THROW 50001, N'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        COMMIT TRANSACTION;
        RETURN @completed;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: fail four.four_queue_fail, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 5) and @retry = 1 it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR ALTER PROCEDURE [four].[four_queue_fail]
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
        FROM [four].[four_queue] WITH (UPDLOCK, ROWLOCK)
        WHERE [id] = @id AND [lease_token] = @lease_token;
        IF @attempts IS NULL
            THROW 50001, N'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        IF @retry = 1 AND @attempts < 5
        BEGIN
            UPDATE [four].[four_queue]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [last_error] = @error,
                [available_at] = DATEADD(second, CAST(CASE WHEN 10 * POWER(CAST(2 AS float), @attempts - 1) > 3600 THEN 3600 ELSE 10 * POWER(CAST(2 AS float), @attempts - 1) END AS int), @now)
            WHERE [id] = @id;
            -- The job is claimable again: the watermark must not stay above it.
            UPDATE [four].[four_queue_watermark]
            SET [id] = CASE WHEN [id] > @id THEN @id ELSE [id] END, [version] = [version] + 1;
            COMMIT TRANSACTION;
            RETURN 0;
        END;
        DELETE FROM [four].[four_queue]
        OUTPUT deleted.[id], deleted.[reputation], deleted.[enqueued_at], deleted.[attempts], @error, @now
        INTO [four].[four_queue_dead] ([id], [reputation], [enqueued_at], [attempts], [last_error], [dead_at])
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

-- qgen 0.1.0: extend_lease four.four_queue_extend_lease, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire @lease_seconds from now.
CREATE OR ALTER PROCEDURE [four].[four_queue_extend_lease]
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
            UPDATE [four].[four_queue] SET [lease_expires_at] = @until WHERE [lease_token] = @lease_token;
        ELSE
            UPDATE [four].[four_queue] SET [lease_expires_at] = @until WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @extended = @@ROWCOUNT;
        IF @extended = 0
            THROW 50001, N'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        RETURN @extended;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: reap four.four_queue_reap, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- @batch_size per call so it never holds many locks: those with attempts left become claimable
-- again, with their old token cleared so the late worker is fenced off; the rest are dead-lettered.
CREATE OR ALTER PROCEDURE [four].[four_queue_reap]
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
        FROM [four].[four_queue] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [lease_token] IS NOT NULL AND [lease_expires_at] < @now;

        UPDATE [job]
        SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @now,
            [last_error] = N'qgen: lease expired before the job was completed'
        FROM [four].[four_queue] AS [job]
        INNER JOIN @expired AS [e] ON [e].[id] = [job].[id]
        WHERE [e].[attempts] < 5;
        SET @released = @@ROWCOUNT;

        DELETE [job]
        OUTPUT deleted.[id], deleted.[reputation], deleted.[enqueued_at], deleted.[attempts], N'qgen: lease expired on the last attempt', @now
        INTO [four].[four_queue_dead] ([id], [reputation], [enqueued_at], [attempts], [last_error], [dead_at])
        FROM [four].[four_queue] AS [job]
        INNER JOIN @expired AS [e] ON [e].[id] = [job].[id]
        WHERE [e].[attempts] >= 5;
        SET @dead_lettered = @@ROWCOUNT;

        -- Released jobs are claimable again: the watermark must not stay above them.
        SELECT @lowest = MIN([id]) FROM @expired WHERE [attempts] < 5;
        IF @lowest IS NOT NULL
            UPDATE [four].[four_queue_watermark]
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

-- qgen 0.1.0: worker four.four_queue_worker, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Drains the queue from inside the database (seed 000's looping worker), so a scheduled job can run
-- it: claims one job at a time, calls four.count_users_with_reputation with @id and the payload, completes the job when
-- the handler returns and fails it (retry or dead letter) when the handler raises. Stops when nothing
-- is claimable, after @max_items jobs or after @max_seconds (0: no limit).
CREATE OR ALTER PROCEDURE [four].[four_queue_worker]
    @max_items int = 0,
    @max_seconds int = 0,
    @owner nvarchar(128) = NULL,
    @lease_seconds int = 300
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @started datetime2(3) = SYSUTCDATETIME();
    DECLARE @now datetime2(3), @token uniqueidentifier, @processed int = 0, @job_id bigint, @error nvarchar(4000);
    DECLARE @reputation int;
    DECLARE @claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [reputation] int NOT NULL,
        [attempts] int NOT NULL,
        [lease_token] uniqueidentifier NOT NULL,
        [lease_expires_at] datetime2(3) NOT NULL
    );
    SET @owner = COALESCE(@owner, N'four_queue_worker:' + CAST(@@SPID AS nvarchar(10)));
    WHILE (@max_items = 0 OR @processed < @max_items)
      AND (@max_seconds = 0 OR DATEDIFF(second, @started, SYSUTCDATETIME()) < @max_seconds)
    BEGIN
        DELETE FROM @claimed;
        SET @now = SYSUTCDATETIME();
        SET @token = NEWID();
        UPDATE [job]
        SET [lease_token] = @token,
            [lease_owner] = @owner,
            [lease_expires_at] = DATEADD(second, @lease_seconds, @now),
            [attempts] = [job].[attempts] + 1
        OUTPUT inserted.[id], inserted.[reputation], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
        INTO @claimed ([id], [reputation], [attempts], [lease_token], [lease_expires_at])
        FROM [four].[four_queue] AS [job]
        INNER JOIN
        (
            SELECT TOP (1) [id]
            FROM [four].[four_queue] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @now
            ORDER BY [id]
        ) AS [next_job] ON [next_job].[id] = [job].[id];
        IF NOT EXISTS (SELECT 1 FROM @claimed)
            BREAK;
        SELECT @job_id = [id], @reputation = [reputation] FROM @claimed;
        BEGIN TRY
            -- The handler's work and the completion commit together or not at all, so a job that
            -- is retried never has its work applied twice.
            BEGIN TRANSACTION;
            EXEC [four].[count_users_with_reputation] @id = @job_id, @reputation = @reputation;
            EXEC [four].[four_queue_complete] @lease_token = @token, @id = @job_id;
            COMMIT TRANSACTION;
        END TRY
        BEGIN CATCH
            IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
            SET @error = ERROR_MESSAGE();
            -- Fail the job only while this lease still holds it: a lost lease (50001) means the
            -- reaper released it and another worker may have it now.
            IF EXISTS (SELECT 1 FROM [four].[four_queue] WHERE [id] = @job_id AND [lease_token] = @token)
            BEGIN
                BEGIN TRY
                    EXEC [four].[four_queue_fail] @lease_token = @token, @id = @job_id, @error = @error;
                END TRY
                BEGIN CATCH
                    IF ERROR_NUMBER() <> 50001
                        THROW;
                END CATCH;
            END;
        END CATCH;
        SET @processed += 1;
    END;
    SELECT @processed AS [processed];
END;
GO

-- qgen 0.1.0: metrics four.four_queue_metrics, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR ALTER PROCEDURE [four].[four_queue_metrics]
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
        (SELECT COUNT_BIG(*) FROM [four].[four_queue_dead]) AS [dead],
        CAST(0 AS bigint) AS [archived],
        COALESCE(DATEDIFF_BIG(second, MIN(CASE WHEN [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @now THEN [enqueued_at] END), @now), 0) AS [oldest_ready_age_seconds],
        (SELECT [id] FROM [four].[four_queue_watermark]) AS [watermark],
        MIN(CASE WHEN [lease_token] IS NULL AND [processed] = 0 THEN [id] END) AS [lowest_pending_id]
    FROM [four].[four_queue];
END;
GO

-- qgen 0.1.0: peek four.four_queue_peek, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue).
CREATE OR ALTER PROCEDURE [four].[four_queue_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SELECT TOP (@limit) [id], [reputation], [available_at], [enqueued_at], [attempts], [last_error]
    FROM [four].[four_queue_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge four.four_queue_purge, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than @older_than_seconds, in
-- batches of @batch_size so no single delete escalates to a table lock or bloats the log.
CREATE OR ALTER PROCEDURE [four].[four_queue_purge]
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
        DELETE TOP (@batch_size) FROM [four].[four_queue] WHERE [processed] = 1 AND [processed_at] < @cutoff;
        SET @deleted = @@ROWCOUNT;
        SET @processed += @deleted;
    END;

    SET @deleted = 1;
    WHILE @deleted > 0
    BEGIN
        DELETE TOP (@batch_size) FROM [four].[four_queue_dead] WHERE [dead_at] < @cutoff;
        SET @deleted = @@ROWCOUNT;
        SET @dead += @deleted;
    END;

    SELECT @archived AS [archived], @processed AS [processed], @dead AS [dead];
END;
GO

-- qgen 0.1.0: grants four_consumer, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue] TO [four_producer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue_batch] TO [four_producer];
GRANT EXECUTE ON TYPE::[four].[four_queue_batch] TO [four_producer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_dequeue] TO [four_consumer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_complete] TO [four_consumer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_fail] TO [four_consumer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_extend_lease] TO [four_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[four].[four_queue_watermark_correct] TO [four_consumer];
GRANT SELECT ON OBJECT::[four].[four_queue_pending] TO [four_admin];
GRANT EXECUTE ON SCHEMA::[four] TO [four_admin];
GO
