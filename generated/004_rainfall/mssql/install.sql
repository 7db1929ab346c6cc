-- qgen 0.1.0: every object of 004_rainfall.yaml, for SQL Server (T-SQL), in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema rainfall, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
IF SCHEMA_ID(N'rainfall') IS NULL
    EXEC(N'CREATE SCHEMA [rainfall] AUTHORIZATION [dbo];');
GO

-- qgen 0.1.0: roles rainfall_admin, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
IF DATABASE_PRINCIPAL_ID(N'rainfall_producer') IS NULL
    CREATE ROLE [rainfall_producer];
IF DATABASE_PRINCIPAL_ID(N'rainfall_consumer') IS NULL
    CREATE ROLE [rainfall_consumer];
IF DATABASE_PRINCIPAL_ID(N'rainfall_admin') IS NULL
    CREATE ROLE [rainfall_admin];
GO

-- qgen 0.1.0: table rainfall.rainfall_events, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'rainfall.rainfall_events', N'U') IS NULL
BEGIN
    CREATE TABLE [rainfall].[rainfall_events]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [rainfall_id] bigint NOT NULL,
        [available_at] datetime2(3) NOT NULL CONSTRAINT [rainfall_events_available_at_df] DEFAULT (SYSUTCDATETIME()),
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [rainfall_events_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        [attempts] int NOT NULL CONSTRAINT [rainfall_events_attempts_df] DEFAULT (0),
        [lease_token] uniqueidentifier NULL,
        [lease_owner] nvarchar(128) NULL,
        [lease_expires_at] datetime2(3) NULL,
        [last_error] nvarchar(4000) NULL,
        [processed] bit NOT NULL CONSTRAINT [rainfall_events_processed_df] DEFAULT (0),
        [processed_at] datetime2(3) NULL,
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [rainfall_events_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: claim_index rainfall.rainfall_events_claim_ix, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_claim_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events'))
    CREATE NONCLUSTERED INDEX [rainfall_events_claim_ix]
    ON [rainfall].[rainfall_events] ([id])
    INCLUDE ([available_at])
    WHERE [lease_token] IS NULL AND [processed] = 0;
GO

-- qgen 0.1.0: lease_index rainfall.rainfall_events_lease_ix, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_lease_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events'))
    CREATE NONCLUSTERED INDEX [rainfall_events_lease_ix]
    ON [rainfall].[rainfall_events] ([lease_token]) INCLUDE ([lease_expires_at], [attempts])
    WHERE [lease_token] IS NOT NULL;
GO

-- qgen 0.1.0: watermark_table rainfall.rainfall_events_watermark, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their range seek here instead of
-- walking the ghost records that deleted or claimed rows leave at the low end of the index.
IF OBJECT_ID(N'rainfall.rainfall_events_watermark', N'U') IS NULL
BEGIN
    CREATE TABLE [rainfall].[rainfall_events_watermark]
    (
        [id] bigint NOT NULL,
        -- Bumped by every change, so watermark_correct can tell a release happened while it scanned.
        [version] bigint NOT NULL CONSTRAINT [rainfall_events_watermark_version_df] DEFAULT (0),
        [one_row] bit NOT NULL CONSTRAINT [rainfall_events_watermark_one_row_df] DEFAULT (1),
        CONSTRAINT [rainfall_events_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [rainfall_events_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_events_watermark])
    INSERT INTO [rainfall].[rainfall_events_watermark] ([id]) VALUES (0);
GO

-- qgen 0.1.0: dead_letter_table rainfall.rainfall_events_dead, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged.
IF OBJECT_ID(N'rainfall.rainfall_events_dead', N'U') IS NULL
BEGIN
    CREATE TABLE [rainfall].[rainfall_events_dead]
    (
        [id] bigint NOT NULL,
        [rainfall_id] bigint NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL,
        [last_error] nvarchar(4000) NULL,
        [dead_at] datetime2(3) NOT NULL CONSTRAINT [rainfall_events_dead_dead_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [rainfall_events_dead_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: pending_view rainfall.rainfall_events_pending, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [rainfall].[rainfall_events_pending]
AS
SELECT [id], [rainfall_id], [available_at], [enqueued_at], [attempts], [last_error]
FROM [rainfall].[rainfall_events]
WHERE [lease_token] IS NULL AND [processed] = 0;
GO

-- qgen 0.1.0: batch_type rainfall.rainfall_events_batch, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it.
IF TYPE_ID(N'rainfall.rainfall_events_batch') IS NULL
    CREATE TYPE [rainfall].[rainfall_events_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [rainfall_id] bigint NOT NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue rainfall.rainfall_events_enqueue, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0).
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_enqueue]
    @rainfall_id bigint
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    BEGIN TRY
        INSERT INTO [rainfall].[rainfall_events] ([rainfall_id])
        OUTPUT inserted.[id], CAST(1 AS bit) AS [enqueued]
        VALUES (@rainfall_id);
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch rainfall.rainfall_events_enqueue_batch, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_enqueue_batch]
    @jobs [rainfall].[rainfall_events_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [rainfall].[rainfall_events] ([rainfall_id])
        OUTPUT inserted.[id] INTO @new ([id])
        SELECT [j].[rainfall_id]
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

-- qgen 0.1.0: watermark_move rainfall.rainfall_events_watermark_move, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_watermark_move]
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
                FROM [rainfall].[rainfall_events] AS [job] WITH (READPAST)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @target AND [job].[lease_token] IS NULL AND [job].[processed] = 0
            ), @target),
        [version] = [w].[version] + 1
    FROM [rainfall].[rainfall_events_watermark] AS [w] WITH (ROWLOCK, READPAST)
    WHERE [w].[id] < @target;
END;
GO

-- qgen 0.1.0: watermark_correct rainfall.rainfall_events_watermark_correct, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty).
-- Run it from a periodic job and after a dequeue that found nothing; it repairs a watermark that is
-- wrong either way.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_watermark_correct]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @old bigint, @version bigint, @new bigint, @tries int = 0, @written int = 0;
    WHILE @written = 0 AND @tries < 5
    BEGIN
        SET @tries += 1;
        SELECT @old = [id], @version = [version] FROM [rainfall].[rainfall_events_watermark];
        SET @new = (SELECT MIN([id]) FROM [rainfall].[rainfall_events] WHERE [lease_token] IS NULL AND [processed] = 0) - 50;
        IF @new IS NULL
            SET @new = (SELECT MAX([id]) + 1 FROM [rainfall].[rainfall_events]) - 50;
        -- Drained: the next id comes from the identity (NULL if none was ever generated). Left where
        -- it was, a watermark a release had lowered would make every claim walk the drained range.
        IF @new IS NULL
            SET @new = (SELECT CONVERT(bigint, [last_value]) + 1 FROM sys.identity_columns
                        WHERE [object_id] = OBJECT_ID(N'[rainfall].[rainfall_events]') AND [name] = N'id') - 50;
        IF @new IS NULL
            SET @new = @old;
        IF @new < 0
            SET @new = 0;
        -- Compare-and-set on version: a release that lowered the watermark while we scanned wins,
        -- and we scan again.
        UPDATE [rainfall].[rainfall_events_watermark] SET [id] = @new, [version] = [version] + 1 WHERE [version] = @version;
        SET @written = @@ROWCOUNT;
    END;
    SELECT @old AS [old_watermark], CASE WHEN @written = 1 THEN @new ELSE @old END AS [new_watermark];
END;
GO

-- qgen 0.1.0: dequeue rainfall.rainfall_events_dequeue, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With @complete_lease_token it first completes that lease's jobs as complete(@lease_token) does,
-- in the same transaction: one commit per batch instead of two. A token that holds no job raises
-- 50001 and nothing is claimed.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_dequeue]
    @owner nvarchar(128) = NULL,
    @batch_size int = 5,
    @lease_seconds int = 900,
    @complete_lease_token uniqueidentifier = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    DECLARE @token uniqueidentifier = NEWID();
    DECLARE @claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [rainfall_id] bigint NOT NULL,
        [attempts] int NOT NULL,
        [lease_token] uniqueidentifier NOT NULL,
        [lease_expires_at] datetime2(3) NOT NULL
    );
    -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
    -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
    -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
    DECLARE @from bigint = (SELECT [id] FROM [rainfall].[rainfall_events_watermark] WITH (NOLOCK));
    BEGIN TRY
        BEGIN TRANSACTION;
        IF @complete_lease_token IS NOT NULL
        BEGIN
            UPDATE [rainfall].[rainfall_events]
            SET [processed] = 1, [processed_at] = @now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [lease_token] = @complete_lease_token;

            IF @@ROWCOUNT = 0
                THROW 50001, N'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        UPDATE [job]
        SET [lease_token] = @token,
            [lease_owner] = @owner,
            [lease_expires_at] = DATEADD(second, @lease_seconds, @now),
            [attempts] = [job].[attempts] + 1
        OUTPUT inserted.[id], inserted.[rainfall_id], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
        INTO @claimed ([id], [rainfall_id], [attempts], [lease_token], [lease_expires_at])
        FROM [rainfall].[rainfall_events] AS [job]
        INNER JOIN
        (
            SELECT TOP (@batch_size) [id]
            FROM [rainfall].[rainfall_events] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @now
              AND [id] >= @from
            ORDER BY [id]
        ) AS [next_job] ON [next_job].[id] = [job].[id];
        -- Move the watermark about once per 100 claimed ids: when this claim's ids cross a multiple of it.
        DECLARE @lowest bigint, @highest bigint;
        SELECT @lowest = MIN([id]), @highest = MAX([id]) FROM @claimed;
        IF @highest / 100 > (@lowest - 1) / 100
            EXEC [rainfall].[rainfall_events_watermark_move] @claimed_from = @lowest;
        COMMIT TRANSACTION;
        SELECT [id], [rainfall_id], [attempts], [lease_token], [lease_expires_at]
        FROM @claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: table rainfall.rainfall_transfer, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'rainfall.rainfall_transfer', N'U') IS NULL
BEGIN
    CREATE TABLE [rainfall].[rainfall_transfer]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [rainfall_id] bigint NOT NULL,
        [summary] nvarchar(400) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [rainfall_transfer_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [rainfall_transfer_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: complete rainfall.rainfall_events_complete, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: marks them processed. With @id, only that job; without, every job of
-- the lease. The token is the fence: a worker whose lease was released or taken over gets error 50001.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_complete]
    @lease_token uniqueidentifier,
    @id bigint = NULL,
    @rainfall_id bigint = NULL,
    @summary nvarchar(400) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    DECLARE @completed int;
    BEGIN TRY
        BEGIN TRANSACTION;
        IF @id IS NULL
        BEGIN
            UPDATE [rainfall].[rainfall_events]
            SET [processed] = 1, [processed_at] = @now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [lease_token] = @lease_token;

            SET @completed = @@ROWCOUNT;
        END
        ELSE
        BEGIN
            UPDATE [rainfall].[rainfall_events]
            SET [processed] = 1, [processed_at] = @now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [id] = @id AND [lease_token] = @lease_token;

            SET @completed = @@ROWCOUNT;
        END;
        IF @completed = 0
            THROW 50001, N'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        -- The result goes on in the same transaction as the completion (seed 004's local queue table).
        IF @id IS NOT NULL AND (@rainfall_id IS NOT NULL OR @summary IS NOT NULL)
            INSERT INTO [rainfall].[rainfall_transfer] ([rainfall_id], [summary])
            VALUES (@rainfall_id, @summary);
        COMMIT TRANSACTION;
        RETURN @completed;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: fail rainfall.rainfall_events_fail, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 3) and @retry = 1 it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_fail]
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
        FROM [rainfall].[rainfall_events] WITH (UPDLOCK, ROWLOCK)
        WHERE [id] = @id AND [lease_token] = @lease_token;
        IF @attempts IS NULL
            THROW 50001, N'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        IF @retry = 1 AND @attempts < 3
        BEGIN
            UPDATE [rainfall].[rainfall_events]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [last_error] = @error,
                [available_at] = DATEADD(second, CAST(CASE WHEN 30 * POWER(CAST(2 AS float), @attempts - 1) > 600 THEN 600 ELSE 30 * POWER(CAST(2 AS float), @attempts - 1) END AS int), @now)
            WHERE [id] = @id;
            -- The job is claimable again: the watermark must not stay above it.
            UPDATE [rainfall].[rainfall_events_watermark]
            SET [id] = CASE WHEN [id] > @id THEN @id ELSE [id] END, [version] = [version] + 1;
            COMMIT TRANSACTION;
            RETURN 0;
        END;
        DELETE FROM [rainfall].[rainfall_events]
        OUTPUT deleted.[id], deleted.[rainfall_id], deleted.[enqueued_at], deleted.[attempts], @error, @now
        INTO [rainfall].[rainfall_events_dead] ([id], [rainfall_id], [enqueued_at], [attempts], [last_error], [dead_at])
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

-- qgen 0.1.0: extend_lease rainfall.rainfall_events_extend_lease, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire @lease_seconds from now.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_extend_lease]
    @lease_token uniqueidentifier,
    @lease_seconds int = 900,
    @id bigint = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @until datetime2(3) = DATEADD(second, @lease_seconds, SYSUTCDATETIME());
    DECLARE @extended int;
    BEGIN TRY
        IF @id IS NULL
            UPDATE [rainfall].[rainfall_events] SET [lease_expires_at] = @until WHERE [lease_token] = @lease_token;
        ELSE
            UPDATE [rainfall].[rainfall_events] SET [lease_expires_at] = @until WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @extended = @@ROWCOUNT;
        IF @extended = 0
            THROW 50001, N'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        RETURN @extended;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: reap rainfall.rainfall_events_reap, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- @batch_size per call so it never holds many locks: those with attempts left become claimable
-- again, with their old token cleared so the late worker is fenced off; the rest are dead-lettered.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_reap]
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
        FROM [rainfall].[rainfall_events] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [lease_token] IS NOT NULL AND [lease_expires_at] < @now;

        UPDATE [job]
        SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @now,
            [last_error] = N'qgen: lease expired before the job was completed'
        FROM [rainfall].[rainfall_events] AS [job]
        INNER JOIN @expired AS [e] ON [e].[id] = [job].[id]
        WHERE [e].[attempts] < 3;
        SET @released = @@ROWCOUNT;

        DELETE [job]
        OUTPUT deleted.[id], deleted.[rainfall_id], deleted.[enqueued_at], deleted.[attempts], N'qgen: lease expired on the last attempt', @now
        INTO [rainfall].[rainfall_events_dead] ([id], [rainfall_id], [enqueued_at], [attempts], [last_error], [dead_at])
        FROM [rainfall].[rainfall_events] AS [job]
        INNER JOIN @expired AS [e] ON [e].[id] = [job].[id]
        WHERE [e].[attempts] >= 3;
        SET @dead_lettered = @@ROWCOUNT;

        -- Released jobs are claimable again: the watermark must not stay above them.
        SELECT @lowest = MIN([id]) FROM @expired WHERE [attempts] < 3;
        IF @lowest IS NOT NULL
            UPDATE [rainfall].[rainfall_events_watermark]
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

-- qgen 0.1.0: metrics rainfall.rainfall_events_metrics, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_metrics]
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
        (SELECT COUNT_BIG(*) FROM [rainfall].[rainfall_events_dead]) AS [dead],
        CAST(0 AS bigint) AS [archived],
        COALESCE(DATEDIFF_BIG(second, MIN(CASE WHEN [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @now THEN [enqueued_at] END), @now), 0) AS [oldest_ready_age_seconds],
        (SELECT [id] FROM [rainfall].[rainfall_events_watermark]) AS [watermark],
        MIN(CASE WHEN [lease_token] IS NULL AND [processed] = 0 THEN [id] END) AS [lowest_pending_id]
    FROM [rainfall].[rainfall_events];
END;
GO

-- qgen 0.1.0: peek rainfall.rainfall_events_peek, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue).
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SELECT TOP (@limit) [id], [rainfall_id], [available_at], [enqueued_at], [attempts], [last_error]
    FROM [rainfall].[rainfall_events_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge rainfall.rainfall_events_purge, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than @older_than_seconds, in
-- batches of @batch_size so no single delete escalates to a table lock or bloats the log.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_purge]
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
        DELETE TOP (@batch_size) FROM [rainfall].[rainfall_events] WHERE [processed] = 1 AND [processed_at] < @cutoff;
        SET @deleted = @@ROWCOUNT;
        SET @processed += @deleted;
    END;

    SET @deleted = 1;
    WHILE @deleted > 0
    BEGIN
        DELETE TOP (@batch_size) FROM [rainfall].[rainfall_events_dead] WHERE [dead_at] < @cutoff;
        SET @deleted = @@ROWCOUNT;
        SET @dead += @deleted;
    END;

    SELECT @archived AS [archived], @processed AS [processed], @dead AS [dead];
END;
GO

-- qgen 0.1.0: claim_index rainfall.rainfall_transfer_claim_ix, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A delete queue holds only unclaimed rows, so the clustered id already is claim order; this index
-- serves the job-type filter and priority order when there is one.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_transfer_claim_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_transfer'))
    CREATE NONCLUSTERED INDEX [rainfall_transfer_claim_ix]
    ON [rainfall].[rainfall_transfer] ([id]);
GO

-- qgen 0.1.0: watermark_table rainfall.rainfall_transfer_watermark, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their range seek here instead of
-- walking the ghost records that deleted or claimed rows leave at the low end of the index.
IF OBJECT_ID(N'rainfall.rainfall_transfer_watermark', N'U') IS NULL
BEGIN
    CREATE TABLE [rainfall].[rainfall_transfer_watermark]
    (
        [id] bigint NOT NULL,
        -- Bumped by every change, so watermark_correct can tell a release happened while it scanned.
        [version] bigint NOT NULL CONSTRAINT [rainfall_transfer_watermark_version_df] DEFAULT (0),
        [one_row] bit NOT NULL CONSTRAINT [rainfall_transfer_watermark_one_row_df] DEFAULT (1),
        CONSTRAINT [rainfall_transfer_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [rainfall_transfer_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_transfer_watermark])
    INSERT INTO [rainfall].[rainfall_transfer_watermark] ([id]) VALUES (0);
GO

-- qgen 0.1.0: pending_view rainfall.rainfall_transfer_pending, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [rainfall].[rainfall_transfer_pending]
AS
SELECT [id], [rainfall_id], [summary], [enqueued_at]
FROM [rainfall].[rainfall_transfer]
WHERE 1 = 1;
GO

-- qgen 0.1.0: batch_type rainfall.rainfall_transfer_batch, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it.
IF TYPE_ID(N'rainfall.rainfall_transfer_batch') IS NULL
    CREATE TYPE [rainfall].[rainfall_transfer_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [rainfall_id] bigint NOT NULL,
        [summary] nvarchar(400) NOT NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue rainfall.rainfall_transfer_enqueue, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0).
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_enqueue]
    @rainfall_id bigint,
    @summary nvarchar(400)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    BEGIN TRY
        INSERT INTO [rainfall].[rainfall_transfer] ([rainfall_id], [summary])
        OUTPUT inserted.[id], CAST(1 AS bit) AS [enqueued]
        VALUES (@rainfall_id, @summary);
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch rainfall.rainfall_transfer_enqueue_batch, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_enqueue_batch]
    @jobs [rainfall].[rainfall_transfer_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [rainfall].[rainfall_transfer] ([rainfall_id], [summary])
        OUTPUT inserted.[id] INTO @new ([id])
        SELECT [j].[rainfall_id], [j].[summary]
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

-- qgen 0.1.0: watermark_move rainfall.rainfall_transfer_watermark_move, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_watermark_move]
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
                FROM [rainfall].[rainfall_transfer] AS [job] WITH (READPAST)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @target AND 1 = 1
            ), @target),
        [version] = [w].[version] + 1
    FROM [rainfall].[rainfall_transfer_watermark] AS [w] WITH (ROWLOCK, READPAST)
    WHERE [w].[id] < @target;
END;
GO

-- qgen 0.1.0: watermark_correct rainfall.rainfall_transfer_watermark_correct, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty).
-- Run it from a periodic job and after a dequeue that found nothing; it repairs a watermark that is
-- wrong either way.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_watermark_correct]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @old bigint, @version bigint, @new bigint, @tries int = 0, @written int = 0;
    WHILE @written = 0 AND @tries < 5
    BEGIN
        SET @tries += 1;
        SELECT @old = [id], @version = [version] FROM [rainfall].[rainfall_transfer_watermark];
        SET @new = (SELECT MIN([id]) FROM [rainfall].[rainfall_transfer] WHERE 1 = 1) - 50;
        IF @new IS NULL
            SET @new = (SELECT MAX([id]) + 1 FROM [rainfall].[rainfall_transfer]) - 50;
        -- Drained: the next id comes from the identity (NULL if none was ever generated). Left where
        -- it was, a watermark a release had lowered would make every claim walk the drained range.
        IF @new IS NULL
            SET @new = (SELECT CONVERT(bigint, [last_value]) + 1 FROM sys.identity_columns
                        WHERE [object_id] = OBJECT_ID(N'[rainfall].[rainfall_transfer]') AND [name] = N'id') - 50;
        IF @new IS NULL
            SET @new = @old;
        IF @new < 0
            SET @new = 0;
        -- Compare-and-set on version: a release that lowered the watermark while we scanned wins,
        -- and we scan again.
        UPDATE [rainfall].[rainfall_transfer_watermark] SET [id] = @new, [version] = [version] + 1 WHERE [version] = @version;
        SET @written = @@ROWCOUNT;
    END;
    SELECT @old AS [old_watermark], CASE WHEN @written = 1 THEN @new ELSE @old END AS [new_watermark];
END;
GO

-- qgen 0.1.0: dequeue rainfall.rainfall_transfer_dequeue, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs by deleting them, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_dequeue]
    @owner nvarchar(128) = NULL,
    @batch_size int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    DECLARE @claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [rainfall_id] bigint NOT NULL,
        [summary] nvarchar(400) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL
    );
    -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
    -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
    -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
    DECLARE @from bigint = (SELECT [id] FROM [rainfall].[rainfall_transfer_watermark] WITH (NOLOCK));
    BEGIN TRY
        BEGIN TRANSACTION;
        DELETE [job]
        OUTPUT deleted.[id], deleted.[rainfall_id], deleted.[summary], deleted.[enqueued_at]
        INTO @claimed ([id], [rainfall_id], [summary], [enqueued_at])
        FROM [rainfall].[rainfall_transfer] AS [job]
        INNER JOIN
        (
            SELECT TOP (@batch_size) [id]
            FROM [rainfall].[rainfall_transfer] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE 1 = 1
              AND [id] >= @from
            ORDER BY [id]
        ) AS [next_job] ON [next_job].[id] = [job].[id];
        -- Move the watermark about once per 100 claimed ids: when this claim's ids cross a multiple of it.
        DECLARE @lowest bigint, @highest bigint;
        SELECT @lowest = MIN([id]), @highest = MAX([id]) FROM @claimed;
        IF @highest / 100 > (@lowest - 1) / 100
            EXEC [rainfall].[rainfall_transfer_watermark_move] @claimed_from = @lowest;
        COMMIT TRANSACTION;
        SELECT [id], [rainfall_id], [summary], [enqueued_at]
        FROM @claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: metrics rainfall.rainfall_transfer_metrics, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_metrics]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    SELECT
        COUNT_BIG(CASE WHEN 1 = 1 THEN 1 END) AS [ready],
        CAST(0 AS bigint) AS [scheduled],
        CAST(0 AS bigint) AS [in_flight],
        CAST(0 AS bigint) AS [expired],
        CAST(0 AS bigint) AS [processed],
        CAST(0 AS bigint) AS [dead],
        CAST(0 AS bigint) AS [archived],
        COALESCE(DATEDIFF_BIG(second, MIN(CASE WHEN 1 = 1 THEN [enqueued_at] END), @now), 0) AS [oldest_ready_age_seconds],
        (SELECT [id] FROM [rainfall].[rainfall_transfer_watermark]) AS [watermark],
        MIN(CASE WHEN 1 = 1 THEN [id] END) AS [lowest_pending_id]
    FROM [rainfall].[rainfall_transfer];
END;
GO

-- qgen 0.1.0: peek rainfall.rainfall_transfer_peek, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue).
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SELECT TOP (@limit) [id], [rainfall_id], [summary], [enqueued_at]
    FROM [rainfall].[rainfall_transfer_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge rainfall.rainfall_transfer_purge, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than @older_than_seconds, in
-- batches of @batch_size so no single delete escalates to a table lock or bloats the log.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_purge]
    @older_than_seconds int = 604800,
    @batch_size int = 10000
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @archived bigint = 0, @processed bigint = 0, @dead bigint = 0, @deleted int;
    SELECT @archived AS [archived], @processed AS [processed], @dead AS [dead];
END;
GO

-- qgen 0.1.0: grants rainfall_consumer, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue_batch] TO [rainfall_producer];
GRANT EXECUTE ON TYPE::[rainfall].[rainfall_events_batch] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_dequeue] TO [rainfall_consumer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_complete] TO [rainfall_consumer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_fail] TO [rainfall_consumer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_extend_lease] TO [rainfall_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_watermark_correct] TO [rainfall_consumer];
GRANT SELECT ON OBJECT::[rainfall].[rainfall_events_pending] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue_batch] TO [rainfall_producer];
GRANT EXECUTE ON TYPE::[rainfall].[rainfall_transfer_batch] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_dequeue] TO [rainfall_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_watermark_correct] TO [rainfall_consumer];
GRANT SELECT ON OBJECT::[rainfall].[rainfall_transfer_pending] TO [rainfall_admin];
GRANT EXECUTE ON SCHEMA::[rainfall] TO [rainfall_admin];
GO
