-- qgen 0.1.0: every object of 001_watermark.yaml, for SQL Server (T-SQL), in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- qgen 0.1.0: schema ghosts, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
-- A schema install creates is marked (extended property qgen.created): uninstall drops only such a one.
IF SCHEMA_ID(N'ghosts') IS NULL
BEGIN
    EXEC(N'CREATE SCHEMA [ghosts] AUTHORIZATION [dbo];');
    EXEC sys.sp_addextendedproperty @name = N'qgen.created', @value = N'created by the install of qgen''s queues',
        @level0type = N'SCHEMA', @level0name = N'ghosts';
END;
GO

-- qgen 0.1.0: roles ghosts_producer, ghosts_consumer, ghosts_admin (server-wide), rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
-- A role install creates is recorded on the schema (extended property qgen.created_role.<role>):
-- uninstall drops only such a one, never a role that was there before and that the spec only names.
IF DATABASE_PRINCIPAL_ID(N'ghosts_producer') IS NULL
BEGIN
    CREATE ROLE [ghosts_producer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'ghosts') AND [name] = N'qgen.created_role.ghosts_producer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.ghosts_producer', @value = N'ghosts_producer',
            @level0type = N'SCHEMA', @level0name = N'ghosts';
END;
IF DATABASE_PRINCIPAL_ID(N'ghosts_consumer') IS NULL
BEGIN
    CREATE ROLE [ghosts_consumer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'ghosts') AND [name] = N'qgen.created_role.ghosts_consumer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.ghosts_consumer', @value = N'ghosts_consumer',
            @level0type = N'SCHEMA', @level0name = N'ghosts';
END;
IF DATABASE_PRINCIPAL_ID(N'ghosts_admin') IS NULL
BEGIN
    CREATE ROLE [ghosts_admin];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'ghosts') AND [name] = N'qgen.created_role.ghosts_admin')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.ghosts_admin', @value = N'ghosts_admin',
            @level0type = N'SCHEMA', @level0name = N'ghosts';
END;
GO

-- qgen 0.1.0: table ghosts.testq, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'ghosts.testq', N'U') IS NULL
BEGIN
    CREATE TABLE [ghosts].[testq]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [filler] nvarchar(400) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [testq_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [testq_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: watermark_table ghosts.testq_watermark, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their range seek here instead of
-- walking the ghost records that deleted or claimed rows leave at the low end of the index.
IF OBJECT_ID(N'ghosts.testq_watermark', N'U') IS NULL
BEGIN
    CREATE TABLE [ghosts].[testq_watermark]
    (
        [id] bigint NOT NULL,
        -- Bumped by every change, so watermark_correct can tell a release happened while it scanned.
        [version] bigint NOT NULL CONSTRAINT [testq_watermark_version_df] DEFAULT (0),
        [one_row] bit NOT NULL CONSTRAINT [testq_watermark_one_row_df] DEFAULT (1),
        CONSTRAINT [testq_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [testq_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
-- When the table was last searched below the watermark (by a dequeue's rescan or watermark_correct):
-- a dequeue rescans when this is watermark.rescan old. Added to a table an earlier version made.
IF COL_LENGTH(N'ghosts.testq_watermark', N'corrected_at') IS NULL
    ALTER TABLE [ghosts].[testq_watermark] ADD [corrected_at] datetime2(3) NOT NULL
        CONSTRAINT [testq_watermark_corrected_at_df] DEFAULT ('0001-01-01');
IF NOT EXISTS (SELECT 1 FROM [ghosts].[testq_watermark])
    INSERT INTO [ghosts].[testq_watermark] ([id]) VALUES (0);
GO

-- qgen 0.1.0: pending_view ghosts.testq_pending, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [ghosts].[testq_pending]
AS
SELECT [id], [filler], [enqueued_at]
FROM [ghosts].[testq]
WHERE 1 = 1;
GO

-- qgen 0.1.0: batch_type ghosts.testq_batch, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it.
IF TYPE_ID(N'ghosts.testq_batch') IS NULL
    CREATE TYPE [ghosts].[testq_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [filler] nvarchar(400) NOT NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue ghosts.testq_enqueue, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0).
CREATE OR ALTER PROCEDURE [ghosts].[testq_enqueue]
    @filler nvarchar(400)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    -- The caller's session may have IMPLICIT_TRANSACTIONS ON (JDBC and ODBC with autocommit off):
    -- then BEGIN TRANSACTION below would open two levels and COMMIT close one (error 266 on return).
    -- Only ANSI_NULLS and QUOTED_IDENTIFIER are stored with a procedure; the other options a write
    -- to a table with a filtered index needs come from the session (error 1934 without them).
    -- Each SET here holds until the procedure returns.
    SET IMPLICIT_TRANSACTIONS OFF;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL);
    BEGIN TRY
        INSERT INTO [ghosts].[testq] ([filler])
        -- OUTPUT INTO a table variable: a bare OUTPUT fails once someone adds a trigger to the table (error 334).
        OUTPUT inserted.[id] INTO @q$new ([id])
        VALUES (@filler);
        SELECT [id], CAST(1 AS bit) AS [enqueued] FROM @q$new;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch ghosts.testq_enqueue_batch, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row.
CREATE OR ALTER PROCEDURE [ghosts].[testq_enqueue_batch]
    @jobs [ghosts].[testq_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    -- The caller's session may have IMPLICIT_TRANSACTIONS ON (JDBC and ODBC with autocommit off):
    -- then BEGIN TRANSACTION below would open two levels and COMMIT close one (error 266 on return).
    -- Only ANSI_NULLS and QUOTED_IDENTIFIER are stored with a procedure; the other options a write
    -- to a table with a filtered index needs come from the session (error 1934 without them).
    -- Each SET here holds until the procedure returns.
    SET IMPLICIT_TRANSACTIONS OFF;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [ghosts].[testq] ([filler])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[filler]
        FROM @jobs AS [j]
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        -- The nth lowest new id belongs to the nth lowest ordinal.
        SELECT [j].[ordinal], [n].[id], CAST(1 AS bit) AS [enqueued]
        FROM (SELECT [ordinal], ROW_NUMBER() OVER (ORDER BY [ordinal]) AS [position] FROM @jobs) AS [j]
        INNER JOIN (SELECT [id], ROW_NUMBER() OVER (ORDER BY [id]) AS [position] FROM @q$new) AS [n]
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

-- qgen 0.1.0: enqueue_json ghosts.testq_enqueue_json, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- enqueue_batch for callers that cannot send a table-valued parameter (pyodbc through FreeTDS):
-- the same jobs as one JSON array of objects, one per job, keyed by the batch type's column names.
-- "ordinal" is optional (the job's position in the array, from 1); a datetime is ISO 8601, UTC when
-- it has no offset; a json column is the JSON text as a string. Needs SQL Server 2016 or later and
-- database compatibility level 130 or higher (OPENJSON). Returns what enqueue_batch returns.
CREATE OR ALTER PROCEDURE [ghosts].[testq_enqueue_json]
    @jobs nvarchar(max)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    -- The caller's session may have IMPLICIT_TRANSACTIONS ON (JDBC and ODBC with autocommit off):
    -- then BEGIN TRANSACTION below would open two levels and COMMIT close one (error 266 on return).
    -- Only ANSI_NULLS and QUOTED_IDENTIFIER are stored with a procedure; the other options a write
    -- to a table with a filtered index needs come from the session (error 1934 without them).
    -- Each SET here holds until the procedure returns.
    SET IMPLICIT_TRANSACTIONS OFF;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$batch [ghosts].[testq_batch];
    BEGIN TRY
        INSERT INTO @q$batch ([ordinal], [filler])
        SELECT COALESCE([j].[ordinal], CAST([a].[key] AS int) + 1),
               [j].[filler]
        FROM OPENJSON(@jobs) AS [a]
        CROSS APPLY OPENJSON([a].[value])
        WITH
        (
            [ordinal] int '$.ordinal',
            [filler] nvarchar(400) '$.filler'
        ) AS [j];
        BEGIN TRANSACTION;
        INSERT INTO [ghosts].[testq] ([filler])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[filler]
        FROM @q$batch AS [j]
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        -- The nth lowest new id belongs to the nth lowest ordinal.
        SELECT [j].[ordinal], [n].[id], CAST(1 AS bit) AS [enqueued]
        FROM (SELECT [ordinal], ROW_NUMBER() OVER (ORDER BY [ordinal]) AS [position] FROM @q$batch) AS [j]
        INNER JOIN (SELECT [id], ROW_NUMBER() OVER (ORDER BY [id]) AS [position] FROM @q$new) AS [n]
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

-- qgen 0.1.0: watermark_move ghosts.testq_watermark_move, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR ALTER PROCEDURE [ghosts].[testq_watermark_move]
    @claimed_from bigint
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    -- The caller's session may have IMPLICIT_TRANSACTIONS ON (JDBC and ODBC with autocommit off):
    -- then BEGIN TRANSACTION below would open two levels and COMMIT close one (error 266 on return).
    -- Only ANSI_NULLS and QUOTED_IDENTIFIER are stored with a procedure; the other options a write
    -- to a table with a filtered index needs come from the session (error 1934 without them).
    -- Each SET here holds until the procedure returns.
    SET IMPLICIT_TRANSACTIONS OFF;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$target bigint = @claimed_from - 50;
    -- READPAST on the watermark row: a session already moving it wins, this one skips.
    -- NOLOCK on the queue: the move stops at the lowest row in the range it would pass that is
    -- unclaimed as far as any session can see, committed or not. So it stops at a job whose insert
    -- is not yet committed (a locking or READPAST read would skip it and strand it), and at a job
    -- a release (fail, reap) is putting back (that release also lowers the watermark itself, after
    -- this move, since it waits for the watermark row).
    -- A row an open delete-mode claim holds is invisible to NOLOCK (deleted, uncommitted) and
    -- skipped by READPAST; only a locking read could see it, and that would wait for the claimer.
    -- If that claim rolls back below the watermark, dequeue's rescan (watermark.rescan) finds it.
    UPDATE [w]
    SET [id] = COALESCE(
            (
                SELECT MIN([job].[id])
                FROM [ghosts].[testq] AS [job] WITH (NOLOCK)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @q$target
            ), @q$target),
        [version] = [w].[version] + 1
    FROM [ghosts].[testq_watermark] AS [w] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK)
    WHERE [w].[id] < @q$target;
END;
GO

-- qgen 0.1.0: watermark_correct ghosts.testq_watermark_correct, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty;
-- unchanged only when no id was ever generated), never below 0. It repairs a watermark that is wrong
-- either way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it
-- after a drain (run it after a dequeue that found nothing) and for a watermark set by hand.
CREATE OR ALTER PROCEDURE [ghosts].[testq_watermark_correct]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    -- The caller's session may have IMPLICIT_TRANSACTIONS ON (JDBC and ODBC with autocommit off):
    -- then BEGIN TRANSACTION below would open two levels and COMMIT close one (error 266 on return).
    -- Only ANSI_NULLS and QUOTED_IDENTIFIER are stored with a procedure; the other options a write
    -- to a table with a filtered index needs come from the session (error 1934 without them).
    -- Each SET here holds until the procedure returns.
    SET IMPLICIT_TRANSACTIONS OFF;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$old bigint, @q$new bigint;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- Take the watermark row first and keep it (HOLDLOCK: also the empty range when the row was
        -- deleted by hand): a mover skips it meanwhile, and a release (fail, reap), which locks its
        -- job row and then this row, waits and lowers the watermark after this write. The scan below
        -- never waits on a job row (NOLOCK), so there is no cycle, and nothing to retry.
        SELECT @q$old = [id] FROM [ghosts].[testq_watermark] WITH (UPDLOCK, HOLDLOCK, ROWLOCK);
        -- NOLOCK also sees a job whose insert is not yet committed, so the watermark does not pass it.
        SET @q$new = (SELECT MIN([id]) FROM [ghosts].[testq] WITH (NOLOCK) WHERE 1 = 1) - 50;
        IF @q$new IS NULL
            SET @q$new = (SELECT MAX([id]) + 1 FROM [ghosts].[testq] WITH (NOLOCK)) - 50;
        -- Drained: the next id comes from the identity (NULL if none was ever generated). Left where
        -- it was, a watermark a release had lowered would make every claim walk the drained range.
        -- sys.identity_columns is metadata, which ownership chaining does not open: a login sees it
        -- only with a permission on the table, so qgen's roles that may run this procedure get VIEW
        -- DEFINITION on it (metadata only, no rows; grants.sql). IDENT_CURRENT has the same limit
        -- and returns the seed for a table never inserted into, and MAX(id) of the archive or dead
        -- letters could be above the identity after a reseed. Without the permission @q$new stays
        -- NULL and the watermark is left where it was: never past a row, only slower to claim from.
        IF @q$new IS NULL
            SET @q$new = (SELECT CONVERT(bigint, [last_value]) + 1 FROM sys.identity_columns
                        WHERE [object_id] = OBJECT_ID(N'[ghosts].[testq]') AND [name] = N'id') - 50;
        IF @q$new IS NULL
            SET @q$new = COALESCE(@q$old, 0);
        IF @q$new < 0
            SET @q$new = 0;
        -- corrected_at: this search counts as a dequeue's rescan (watermark.rescan).
        IF @q$old IS NULL
            INSERT INTO [ghosts].[testq_watermark] ([id], [corrected_at]) VALUES (@q$new, SYSUTCDATETIME());
        ELSE
            UPDATE [ghosts].[testq_watermark] SET [id] = @q$new, [version] = [version] + 1, [corrected_at] = SYSUTCDATETIME();
        COMMIT TRANSACTION;
        SELECT @q$old AS [old_watermark], @q$new AS [new_watermark];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: dequeue ghosts.testq_dequeue, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs by deleting them, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction the claim would commit at once (at-most-once delivery): refused unless
-- the caller says so with @at_most_once = 1.
CREATE OR ALTER PROCEDURE [ghosts].[testq_dequeue]
    @owner nvarchar(128) = NULL,
    @batch_size int = 1,
    @at_most_once bit = 0,
    @wait_ms int = 0
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    -- The caller's session may have IMPLICIT_TRANSACTIONS ON (JDBC and ODBC with autocommit off):
    -- then BEGIN TRANSACTION below would open two levels and COMMIT close one (error 266 on return).
    -- Only ANSI_NULLS and QUOTED_IDENTIFIER are stored with a procedure; the other options a write
    -- to a table with a filtered index needs come from the session (error 1934 without them).
    -- Each SET here holds until the procedure returns.
    SET IMPLICIT_TRANSACTIONS OFF;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1000
    BEGIN
        DECLARE @q$error nvarchar(2048) = CONCAT(N'qgen: batch_size ', COALESCE(CAST(@batch_size AS nvarchar(11)), N'NULL'),
            N' is out of range for ghosts.testq_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF @@TRANCOUNT = 0 AND ISNULL(@at_most_once, 0) = 0
        THROW 50005, N'qgen: refused on ghosts.testq: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass @at_most_once = 1', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 30000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 30000 milliseconds.', 1;
    IF @wait_ms > 0 AND @@TRANCOUNT > 0
        THROW 50005, N'qgen: refused on ghosts.testq: dequeue waits for work (@wait_ms) only outside a transaction: inside one it would hold that transaction open while it waits; pass @wait_ms = 0, or claim with @at_most_once = 1', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [filler] nvarchar(400) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL
    );
    DECLARE @q$from bigint;
    BEGIN TRY
        -- @wait_ms: each attempt to claim starts here, in a transaction of its own (see the wait block below).
    q$attempt:
        BEGIN TRANSACTION;
        -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
        IF EXISTS (SELECT 1 FROM [ghosts].[testq_watermark] WITH (NOLOCK) WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME()))
        BEGIN
            DECLARE @q$mark bigint, @q$stranded bigint;
            UPDATE [ghosts].[testq_watermark] WITH (ROWLOCK, READPAST, UPDLOCK)
            SET @q$mark = [id], [corrected_at] = SYSUTCDATETIME(), [version] = [version] + 1
            WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME());
            IF @@ROWCOUNT = 1
            BEGIN
                SELECT @q$stranded = MIN([job].[id])
                FROM [ghosts].[testq] AS [job] WITH (NOLOCK)
                WHERE [job].[id] < @q$mark AND 1 = 1;
                IF @q$stranded IS NOT NULL
                    UPDATE [ghosts].[testq_watermark]
                    SET [id] = CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END,
                        [version] = [version] + 1
                    WHERE [id] > CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END;
            END;
        END
        ELSE IF NOT EXISTS (SELECT 1 FROM [ghosts].[testq_watermark] WITH (NOLOCK))
            INSERT INTO [ghosts].[testq_watermark] ([id])
            SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM [ghosts].[testq_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
        -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
        -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
        -- A missing row reads as 0.
        SET @q$from = COALESCE((SELECT [id] FROM [ghosts].[testq_watermark] WITH (NOLOCK)), 0);
        ;WITH [next_job] AS
        (
            SELECT TOP (@batch_size) [id], [filler], [enqueued_at]
            -- The one reference to the table: these hints hold for every row the claim reads.
            FROM [ghosts].[testq] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE 1 = 1
              AND [id] >= @q$from
            ORDER BY [id]
        )
        DELETE FROM [next_job]
        OUTPUT deleted.[id], deleted.[filler], deleted.[enqueued_at]
        INTO @q$claimed ([id], [filler], [enqueued_at])
        -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        -- Move the watermark about once per 100 claimed ids: when this claim's ids cross a multiple of it.
        DECLARE @q$lowest bigint, @q$highest bigint;
        SELECT @q$lowest = MIN([id]), @q$highest = MAX([id]) FROM @q$claimed;
        IF @q$highest / 100 > (@q$lowest - 1) / 100
            EXEC [ghosts].[testq_watermark_move] @claimed_from = @q$lowest;
        COMMIT TRANSACTION;
        -- ---- wait block: no job yet, and @wait_ms not over: sleep, then claim again ----
        IF @wait_ms > 0 AND NOT EXISTS (SELECT 1 FROM @q$claimed)
            AND DATEDIFF(millisecond, @q$began, SYSUTCDATETIME()) < @wait_ms
        BEGIN
            WAITFOR DELAY '00:00:00.050';
            SET @q$now = SYSUTCDATETIME();
            GOTO q$attempt;
        END;
        -- ---- end of the wait block ----
        SELECT [id], [filler], [enqueued_at]
        FROM @q$claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: metrics ghosts.testq_metrics, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR ALTER PROCEDURE [ghosts].[testq_metrics]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    -- The caller's session may have IMPLICIT_TRANSACTIONS ON (JDBC and ODBC with autocommit off):
    -- then BEGIN TRANSACTION below would open two levels and COMMIT close one (error 266 on return).
    -- Only ANSI_NULLS and QUOTED_IDENTIFIER are stored with a procedure; the other options a write
    -- to a table with a filtered index needs come from the session (error 1934 without them).
    -- Each SET here holds until the procedure returns.
    SET IMPLICIT_TRANSACTIONS OFF;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    SELECT
        COUNT_BIG(CASE WHEN 1 = 1 THEN 1 END) AS [ready],
        CAST(0 AS bigint) AS [scheduled],
        CAST(0 AS bigint) AS [in_flight],
        CAST(0 AS bigint) AS [expired],
        CAST(0 AS bigint) AS [processed],
        CAST(0 AS bigint) AS [dead],
        CAST(0 AS bigint) AS [archived],
        COALESCE(DATEDIFF_BIG(second, MIN(CASE WHEN 1 = 1 THEN [enqueued_at] END), @q$now), 0) AS [oldest_ready_age_seconds],
        (SELECT [id] FROM [ghosts].[testq_watermark]) AS [watermark],
        MIN(CASE WHEN 1 = 1 THEN [id] END) AS [lowest_pending_id],
        -- on_complete: delete leaves no trace of a completion to count.
        CAST(NULL AS bigint) AS [completed_last_minute],
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        COALESCE(MIN(CASE WHEN 1 = 1 THEN [id] END), MAX([id]) + 1)
            - (SELECT [id] FROM [ghosts].[testq_watermark]) AS [watermark_lag]
    FROM [ghosts].[testq];
END;
GO

-- qgen 0.1.0: peek ghosts.testq_peek, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue).
CREATE OR ALTER PROCEDURE [ghosts].[testq_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    -- The caller's session may have IMPLICIT_TRANSACTIONS ON (JDBC and ODBC with autocommit off):
    -- then BEGIN TRANSACTION below would open two levels and COMMIT close one (error 266 on return).
    -- Only ANSI_NULLS and QUOTED_IDENTIFIER are stored with a procedure; the other options a write
    -- to a table with a filtered index needs come from the session (error 1934 without them).
    -- Each SET here holds until the procedure returns.
    SET IMPLICIT_TRANSACTIONS OFF;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    SELECT TOP (@limit) [id], [filler], [enqueued_at]
    FROM [ghosts].[testq_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge_batch ghosts.testq_purge_batch, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds: at most @batch_size rows (1000 by default, refused above 4000) over all those
-- tables together, in one transaction (the caller's, when there is one). purge loops over batches;
-- maintain runs one.
CREATE OR ALTER PROCEDURE [ghosts].[testq_purge_batch]
    @older_than_seconds int = 604800,
    @batch_size int = 1000
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    -- READPAST needs READ COMMITTED (or REPEATABLE READ): pinned here, whatever the caller runs at.
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 4000
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 4000 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$left int = @batch_size, @q$archived int = 0, @q$processed int = 0, @q$dead int = 0;
    BEGIN TRY
        BEGIN TRANSACTION;
        COMMIT TRANSACTION;
        SELECT @q$archived AS [archived], @q$processed AS [processed], @q$dead AS [dead];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: purge ghosts.testq_purge, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds, in batches of at most @batch_size rows (1000 by default, refused above 4000),
-- each committed on its own, so no statement takes enough locks to escalate to a table lock and
-- no transaction holds more than one batch. The cutoff is fixed when the call begins, so rows that
-- finish while it runs are left for the next purge and the loop ends. It must commit per batch,
-- so it refuses to run inside the caller's transaction (error 50004: there, call
-- testq_purge_batch, which deletes one batch in that transaction).
CREATE OR ALTER PROCEDURE [ghosts].[testq_purge]
    @older_than_seconds int = 604800,
    @batch_size int = 1000
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    -- READPAST needs READ COMMITTED (or REPEATABLE READ): pinned here, whatever the caller runs at.
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 4000
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 4000 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    IF @@TRANCOUNT > 0
        THROW 50004, N'qgen: purge commits after every batch, which it cannot do inside the caller''s transaction; call it outside a transaction, or call testq_purge_batch (one batch) there.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$archived bigint = 0, @q$processed bigint = 0, @q$dead bigint = 0, @q$deleted int;
    SELECT @q$archived AS [archived], @q$processed AS [processed], @q$dead AS [dead];
END;
GO

-- qgen 0.1.0: maintain ghosts.testq_maintain, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- @batch_size finished jobs older than the retention (604800 s), and corrects the watermark, in that order, in one transaction. Only one runs at a
-- time per queue (an application lock owned by the transaction, so it goes with the commit or the
-- rollback, a client timeout included): a caller that finds another one running returns at once
-- with skipped = 1. more = 1 when a step filled its batch: call again to do the rest.
-- Inside a caller's transaction its work commits with that transaction, and the lock is held
-- until then. It reads the steps' results with INSERT ... EXEC, so it cannot itself be called by
-- INSERT ... EXEC (error 8164). Granted to the consumer role, so any worker can run it.
CREATE OR ALTER PROCEDURE [ghosts].[testq_maintain]
    @batch_size int = 1000
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    -- reap and purge READPAST, which needs READ COMMITTED: pinned here, whatever the caller runs at.
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 4000
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 4000 (a batch stays well under lock escalation).', 1;
    DECLARE @q$lock int, @q$skipped bit = 0, @q$more bit = 0;
    DECLARE @q$purged TABLE ([archived] int NOT NULL, [processed] int NOT NULL, [dead] int NOT NULL);
    DECLARE @q$reaped TABLE ([released] int NOT NULL, [dead_lettered] int NOT NULL);
    DECLARE @q$corrected TABLE ([old_watermark] bigint NULL, [new_watermark] bigint NULL);
    -- reap takes at most the queue's max_batch_size: a larger batch would be refused (50003).
    DECLARE @q$reap_batch int = CASE WHEN @batch_size > 1000 THEN 1000 ELSE @batch_size END;
    BEGIN TRY
        BEGIN TRANSACTION;
        EXEC @q$lock = sys.sp_getapplock
            @Resource = N'qgen.maintain:[ghosts].[testq]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0;
        IF @q$lock < 0
            SET @q$skipped = 1;
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            INSERT INTO @q$purged ([archived], [processed], [dead])
            EXEC [ghosts].[testq_purge_batch] @older_than_seconds = 604800, @batch_size = @batch_size;
            INSERT INTO @q$corrected ([old_watermark], [new_watermark])
            EXEC [ghosts].[testq_watermark_correct];
        END;
        COMMIT TRANSACTION;
        IF EXISTS (SELECT 1 FROM @q$purged WHERE [archived] + [processed] + [dead] >= @batch_size)
           OR EXISTS (SELECT 1 FROM @q$reaped WHERE [released] + [dead_lettered] >= @q$reap_batch)
            SET @q$more = 1;
        SELECT
            @q$skipped AS [skipped],
            COALESCE((SELECT [released] FROM @q$reaped), 0) AS [released],
            COALESCE((SELECT [dead_lettered] FROM @q$reaped), 0) AS [dead_lettered],
            (SELECT [old_watermark] FROM @q$corrected) AS [old_watermark],
            (SELECT [new_watermark] FROM @q$corrected) AS [new_watermark],
            COALESCE((SELECT [archived] FROM @q$purged), 0) AS [archived],
            COALESCE((SELECT [processed] FROM @q$purged), 0) AS [processed],
            COALESCE((SELECT [dead] FROM @q$purged), 0) AS [dead],
            @q$more AS [more];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: grants to roles ghosts_producer, ghosts_consumer, ghosts_admin, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue] TO [ghosts_producer];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue_batch] TO [ghosts_producer];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue_json] TO [ghosts_producer];
GRANT EXECUTE ON TYPE::[ghosts].[testq_batch] TO [ghosts_producer];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_dequeue] TO [ghosts_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[ghosts].[testq_watermark_correct] TO [ghosts_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[ghosts].[testq] TO [ghosts_consumer];
GRANT VIEW DEFINITION ON OBJECT::[ghosts].[testq] TO [ghosts_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[ghosts].[testq_maintain] TO [ghosts_consumer];
GRANT SELECT ON OBJECT::[ghosts].[testq_pending] TO [ghosts_admin];
GRANT EXECUTE ON SCHEMA::[ghosts] TO [ghosts_admin];
GO

-- qgen 0.1.0: verify ghosts, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Install ends here, and fails loudly if any of qgen's procedures or views is stored with
-- ANSI_NULLS or QUOTED_IDENTIFIER OFF: a module keeps the options of the session that created it,
-- and such a module fails on every call once a filtered index exists (one created or altered
-- from a session with them OFF, as sqlcmd without -I is, and without the SET batch qgen's files begin with).
DECLARE @q$wrong nvarchar(max) = N'';
SELECT @q$wrong = @q$wrong + N' ' + QUOTENAME([s].[name]) + N'.' + QUOTENAME([o].[name])
FROM sys.sql_modules AS [sm]
INNER JOIN sys.objects AS [o] ON [o].[object_id] = [sm].[object_id]
INNER JOIN sys.schemas AS [s] ON [s].[schema_id] = [o].[schema_id]
WHERE [s].[name] = N'ghosts'
  AND [o].[name] IN
  (
      N'testq',
      N'testq_watermark',
      N'testq_pending',
      N'testq_batch',
      N'testq_enqueue',
      N'testq_enqueue_batch',
      N'testq_enqueue_json',
      N'testq_watermark_move',
      N'testq_watermark_correct',
      N'testq_dequeue',
      N'testq_metrics',
      N'testq_peek',
      N'testq_purge_batch',
      N'testq_purge',
      N'testq_maintain'
  )
  AND ([sm].[uses_ansi_nulls] = 0 OR [sm].[uses_quoted_identifier] = 0);
IF @q$wrong <> N''
BEGIN
    DECLARE @q$message nvarchar(2048) = LEFT(N'qgen: stored with ANSI_NULLS or QUOTED_IDENTIFIER OFF, so they fail once a '
        + N'filtered index exists:' + @q$wrong + N'. Run install.sql again from a session with both ON (sqlcmd -I).', 2048);
    THROW 50020, @q$message, 1;
END;
-- And every object install makes must exist: sqlcmd without -b goes on after a batch that failed
-- (a CREATE PROCEDURE that does not compile, an OPENJSON under compatibility level 130), so an
-- install that printed an error and carried on ends here with the names of what is missing.
DECLARE @q$missing nvarchar(max) = N'';
IF OBJECT_ID(N'ghosts.testq') IS NULL
    SET @q$missing += N' ghosts.testq';
IF OBJECT_ID(N'ghosts.testq_watermark') IS NULL
    SET @q$missing += N' ghosts.testq_watermark';
IF OBJECT_ID(N'ghosts.testq_pending') IS NULL
    SET @q$missing += N' ghosts.testq_pending';
IF TYPE_ID(N'ghosts.testq_batch') IS NULL
    SET @q$missing += N' ghosts.testq_batch';
IF OBJECT_ID(N'ghosts.testq_enqueue') IS NULL
    SET @q$missing += N' ghosts.testq_enqueue';
IF OBJECT_ID(N'ghosts.testq_enqueue_batch') IS NULL
    SET @q$missing += N' ghosts.testq_enqueue_batch';
IF OBJECT_ID(N'ghosts.testq_enqueue_json') IS NULL
    SET @q$missing += N' ghosts.testq_enqueue_json';
IF OBJECT_ID(N'ghosts.testq_watermark_move') IS NULL
    SET @q$missing += N' ghosts.testq_watermark_move';
IF OBJECT_ID(N'ghosts.testq_watermark_correct') IS NULL
    SET @q$missing += N' ghosts.testq_watermark_correct';
IF OBJECT_ID(N'ghosts.testq_dequeue') IS NULL
    SET @q$missing += N' ghosts.testq_dequeue';
IF OBJECT_ID(N'ghosts.testq_metrics') IS NULL
    SET @q$missing += N' ghosts.testq_metrics';
IF OBJECT_ID(N'ghosts.testq_peek') IS NULL
    SET @q$missing += N' ghosts.testq_peek';
IF OBJECT_ID(N'ghosts.testq_purge_batch') IS NULL
    SET @q$missing += N' ghosts.testq_purge_batch';
IF OBJECT_ID(N'ghosts.testq_purge') IS NULL
    SET @q$missing += N' ghosts.testq_purge';
IF OBJECT_ID(N'ghosts.testq_maintain') IS NULL
    SET @q$missing += N' ghosts.testq_maintain';
IF @q$missing <> N''
BEGIN
    DECLARE @q$absent nvarchar(2048) = LEFT(N'qgen: install did not create:' + @q$missing
        + N'. An earlier batch failed: read its error above, fix it and run install.sql again (sqlcmd -b stops at the first error).', 2048);
    THROW 50020, @q$absent, 1;
END;
GO
