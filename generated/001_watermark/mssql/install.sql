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
-- Refused before anything is created: a schema that exists and is owned by a database role (or an
-- application role, a group, a user mapped to a certificate or key). Its procedures are owned by
-- that owner, and maintain runs WITH EXECUTE AS OWNER, which can impersonate only a user: every
-- call of maintain would fail (error 15517) long after install succeeded. sqlcmd and SSMS go on to
-- the next batch after an error: the batch after the refusal sets NOEXEC ON, so no later batch runs
-- (verify, install's last batch, sets it OFF again).
DECLARE @q$refused nvarchar(2048);
SELECT @q$refused = CONCAT(N'qgen: install refused: schema [ghosts] is owned by ', QUOTENAME([p].[name]), N' (',
    [p].[type_desc], N'), which EXECUTE AS OWNER cannot impersonate: qgen''s maintain procedures run as the schema''s owner, ',
    N'so every call of maintain would fail. Give the schema to a user, ALTER AUTHORIZATION ON SCHEMA::[ghosts] TO [dbo]; ',
    N'(or to another user), then run install.sql again.')
FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'ghosts' AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$refused IS NOT NULL
    THROW 50022, @q$refused, 1;
GO

IF EXISTS (SELECT 1 FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'ghosts' AND [p].[type] NOT IN ('S', 'U', 'E'))
    SET NOEXEC ON;
GO

-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
-- A schema install creates is marked (extended property qgen.created): uninstall drops only such a one.
IF SCHEMA_ID(N'ghosts') IS NULL
BEGIN
    EXEC(N'CREATE SCHEMA [ghosts] AUTHORIZATION [dbo];');
    EXEC sys.sp_addextendedproperty @name = N'qgen.created', @value = N'created by the install of qgen''s queues',
        @level0type = N'SCHEMA', @level0name = N'ghosts';
END;
GO

-- qgen 0.1.0: roles ghosts_producer, ghosts_consumer, ghosts_admin (database roles), rendered for SQL Server (T-SQL) from 001_watermark.yaml.
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
        -- When the table was last searched below the watermark (by a dequeue's rescan or
        -- watermark_correct): a dequeue rescans when this is watermark.rescan old.
        [corrected_at] datetime2(3) NOT NULL
            CONSTRAINT [testq_watermark_corrected_at_df] DEFAULT ('0001-01-01'),
        CONSTRAINT [testq_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [testq_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
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
-- drops and recreates it with the procedures that use it. Its columns are one wider than the
-- table's (m.param_type): a caller's insert into a variable of this type cannot cut or round a value
-- past its column unseen; enqueue_batch refuses it with error 50010.
IF TYPE_ID(N'ghosts.testq_batch') IS NULL
    CREATE TYPE [ghosts].[testq_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [filler] nvarchar(401) NOT NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue ghosts.testq_enqueue, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0). A value past its column's
-- limit is refused with error 50010, never cut or rounded: its parameter is one wider (m.param_type).
CREATE OR ALTER PROCEDURE [ghosts].[testq_enqueue]
    @filler nvarchar(401)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF DATALENGTH(@filler) > 800
        THROW 50010, N'qgen: @filler is past its column''s limit in ghosts.testq_enqueue; accepted: string(400), at most 400 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
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
-- Adds many jobs in one statement (at most 3599: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row.
CREATE OR ALTER PROCEDURE [ghosts].[testq_enqueue_batch]
    @jobs [ghosts].[testq_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 3599
        THROW 50003, N'qgen: a batch of more than 3599 jobs is out of range for ghosts.testq: one statement writing more could escalate to a table lock; accepted: 1 to 3599 jobs per call (split the batch; the client does).', 1;
    DECLARE @q$over int, @q$over_column nvarchar(2048);
    SELECT TOP (1) @q$over = [j].[ordinal],
           @q$over_column = CASE WHEN DATALENGTH([j].[filler]) > 800 THEN N'filler; accepted: string(400), at most 400 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
    FROM @jobs AS [j]
    WHERE DATALENGTH([j].[filler]) > 800
    ORDER BY [j].[ordinal];
    IF @q$over IS NOT NULL
    BEGIN
        DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in ghosts.testq_enqueue_batch: column ', @q$over_column, N'.');
        THROW 50010, @q$over_message, 1;
    END;
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
-- Every job-type and payload column's key must be there (strict paths: a missing or misspelt key is
-- an error, never a silent NULL; give null for no value); "ordinal" (the job's position in the
-- array, from 1), "priority" and "run_at" are optional. A datetime is ISO 8601, UTC when
-- it has no offset; a json column is the JSON text as a string. Needs SQL Server 2016 or later and
-- database compatibility level 130 or higher (OPENJSON). Returns what enqueue_batch returns.
CREATE OR ALTER PROCEDURE [ghosts].[testq_enqueue_json]
    @jobs nvarchar(max)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
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
            [filler] nvarchar(401) 'strict $.filler'
        ) AS [j];
        IF (SELECT COUNT(*) FROM @q$batch) > 3599
            THROW 50003, N'qgen: a batch of more than 3599 jobs is out of range for ghosts.testq: one statement writing more could escalate to a table lock; accepted: 1 to 3599 jobs per call (split the batch; the client does).', 1;
        DECLARE @q$over int, @q$over_column nvarchar(2048);
        SELECT TOP (1) @q$over = [j].[ordinal],
               @q$over_column = CASE WHEN DATALENGTH([j].[filler]) > 800 THEN N'filler; accepted: string(400), at most 400 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
        FROM @q$batch AS [j]
        WHERE DATALENGTH([j].[filler]) > 800
        ORDER BY [j].[ordinal];
        IF @q$over IS NOT NULL
        BEGIN
            DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in ghosts.testq_enqueue_json: column ', @q$over_column, N'.');
            THROW 50010, @q$over_message, 1;
        END;
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
    -- First without a lock: while a row it may not pass sits at the watermark (a claim held open
    -- in a caller's transaction, an insert not yet committed), nothing can move, and dequeue calls
    -- this after every such claim; writing the watermark row then would hold it through the
    -- caller's transaction, and the rescan and the other movers would skip it while claims go on.
    DECLARE @q$current bigint = (SELECT [id] FROM [ghosts].[testq_watermark] WITH (NOLOCK));
    IF @q$current IS NULL OR @q$current >= @q$target
        RETURN;
    IF EXISTS (SELECT 1 FROM [ghosts].[testq] AS [job] WITH (NOLOCK)
               WHERE [job].[id] = @q$current
              )
        RETURN;
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
-- after a drain (run it after a dequeue that found nothing) and for a watermark set by hand. It
-- never waits on the watermark row.
CREATE OR ALTER PROCEDURE [ghosts].[testq_watermark_correct]
    -- maintain reads the result here (OUTPUT) and asks for no result set (see reap).
    @old_watermark bigint = NULL OUTPUT,
    @new_watermark bigint = NULL OUTPUT,
    @result_set bit = 1
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$old bigint, @q$new bigint, @q$searched datetime2(3);
    BEGIN TRY
        BEGIN TRANSACTION;
        -- The watermark row first and kept, so that the scan below starts after whatever held it
        -- committed; but never waiting for it (READPAST): workers run this (after an empty dequeue,
        -- and through maintain), and another transaction may hold the row for as long as it stays
        -- open (a caller's transaction whose dequeue moved the watermark or rescanned, another
        -- uncommitted correction or maintain). Then nothing changes, corrected_at included: the
        -- call returns the watermark it reads, as old and new. UPDLOCK: a locking read of the
        -- current row, also under READ_COMMITTED_SNAPSHOT.
        SELECT @q$old = [id] FROM [ghosts].[testq_watermark] WITH (ROWLOCK, READPAST, UPDLOCK);
        IF @q$old IS NULL AND EXISTS (SELECT 1 FROM [ghosts].[testq_watermark] WITH (NOLOCK))
        BEGIN
            COMMIT TRANSACTION;
            SET @q$old = (SELECT [id] FROM [ghosts].[testq_watermark] WITH (NOLOCK));
            SELECT @old_watermark = @q$old, @new_watermark = @q$old;
            IF @result_set = 1
                SELECT @q$old AS [old_watermark], @q$old AS [new_watermark];
            RETURN;
        END;
        -- No row (deleted by hand): lock the empty range (HOLDLOCK) so that one session puts it back.
        IF @q$old IS NULL
            SET @q$old = (SELECT [id] FROM [ghosts].[testq_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- corrected_at gets the time before the search (it counts as a dequeue's rescan): a job that
        -- becomes claimable below the watermark after this moment may be missed here, and the next
        -- rescan is due watermark.rescan seconds after this moment, so within the bound.
        SET @q$searched = SYSUTCDATETIME();
        -- The scans never wait on a job row (NOLOCK). NOLOCK also sees a job whose insert is not yet
        -- committed, so the watermark does not pass it. Deferred jobs (the [deferred] bit) do not hold
        -- it back: the due index hands them to claims.
        SET @q$new = (SELECT MIN([job].[id]) FROM [ghosts].[testq] AS [job] WITH (NOLOCK) WHERE 1 = 1);
        -- A row an open delete-mode claim holds is invisible to NOLOCK and skipped by READPAST (only
        -- a locking read, which would wait for the claimer, could see it): the correction can pass
        -- it, as the mover can; if that claim rolls back, the rescan finds the job (docs/api.md).
        SET @q$new = @q$new - 50;
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
        IF @q$old IS NULL
            INSERT INTO [ghosts].[testq_watermark] ([id], [corrected_at]) VALUES (@q$new, @q$searched);
        ELSE
            UPDATE [ghosts].[testq_watermark] SET [id] = @q$new, [version] = [version] + 1, [corrected_at] = @q$searched;
        COMMIT TRANSACTION;
        SELECT @old_watermark = @q$old, @new_watermark = @q$new;
        IF @result_set = 1
            SELECT @q$old AS [old_watermark], @q$new AS [new_watermark];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: control_table ghosts.testq_control, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which login). Every
-- claim reads it first, WITH (READPAST, READCOMMITTEDLOCK): a pause or resume counts from its
-- commit, and no claim waits on one left open. A missing row (deleted by hand) reads as running.
IF OBJECT_ID(N'ghosts.testq_control', N'U') IS NULL
BEGIN
    CREATE TABLE [ghosts].[testq_control]
    (
        [one_row] bit NOT NULL CONSTRAINT [testq_control_one_row_df] DEFAULT (1),
        [paused] bit NOT NULL CONSTRAINT [testq_control_paused_df] DEFAULT (0),
        [changed_at] datetime2(3) NULL,
        [changed_by] nvarchar(128) NULL,
        CONSTRAINT [testq_control_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [testq_control_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [ghosts].[testq_control])
    INSERT INTO [ghosts].[testq_control] ([paused]) VALUES (0);
GO

-- qgen 0.1.0: dequeue ghosts.testq_dequeue, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs by deleting them, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction the claim would commit at once (at-most-once delivery): refused unless
-- the caller says so with @at_most_once = 1. A caller with IMPLICIT_TRANSACTIONS ON is inside one:
-- the claim opens it, and the caller's COMMIT or ROLLBACK ends it.
-- @owner is accepted and unused here (the claim deletes the row: nothing records it), as on
-- PostgreSQL, so one call works in either claim mode.
CREATE OR ALTER PROCEDURE [ghosts].[testq_dequeue]
    @owner nvarchar(129) = NULL,
    @batch_size int = 1,
    @at_most_once bit = 0,
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
            N' is out of range for ghosts.testq_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in ghosts.testq_dequeue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF NOT (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2) AND ISNULL(@at_most_once, 0) = 0
        THROW 50005, N'qgen: refused on ghosts.testq: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass @at_most_once = 1', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on ghosts.testq: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0, or claim with @at_most_once = 1', 1;
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
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [ghosts].[testq_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
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
        -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
        -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
        -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
        DECLARE @q$highest bigint;
        SELECT @q$highest = MAX([id]) FROM @q$claimed;
        IF @q$highest - @q$from >= 150
            EXEC [ghosts].[testq_watermark_move] @claimed_from = @q$highest;
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
                SET @q$now = SYSUTCDATETIME();
                GOTO q$attempt;
            END;
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
-- One row describing the queue now, for dashboards and alerts. Each count reads the one index that
-- holds its rows (claim, due, lease, processed index; the dead-letter and archive tables), never the
-- whole queue table (finished rows included), and does not wait on a row: WITH (READPAST,
-- READCOMMITTEDLOCK) skips a row another transaction holds (a job being claimed, completed or enqueued right now),
-- the watermark's one row is read WITH (NOLOCK). So under concurrency the numbers are approximate:
-- a job changing at that moment is counted in neither state, and the counts are not one snapshot.
-- READPAST skips row and page locks only: a table lock (an escalated lock of a large transaction,
-- uninstall's TABLOCKX, an offline index build) still makes it wait.
CREATE OR ALTER PROCEDURE [ghosts].[testq_metrics]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$ready bigint, @q$scheduled bigint, @q$in_flight bigint = 0, @q$expired bigint = 0,
        @q$processed bigint = 0, @q$dead bigint = 0, @q$archived bigint = 0, @q$recent bigint,
        @q$oldest_id bigint, @q$lowest bigint, @q$watermark bigint, @q$highest bigint,
        @q$due_ready bigint = 0, @q$due_scheduled bigint = 0, @q$due_oldest bigint, @q$due_lowest bigint;
    -- Unclaimed jobs: the claim index.
    SELECT @q$ready = COUNT_BIG(CASE WHEN 1 = 1 THEN 1 END),
        @q$scheduled = COUNT_BIG(CASE WHEN 1 = 0 THEN 1 END),
        @q$oldest_id = MIN(CASE WHEN 1 = 1 THEN [id] END),
        @q$lowest = MIN([id])
    FROM [ghosts].[testq] WITH (READPAST, READCOMMITTEDLOCK);
    -- One row, a value: read without waiting on a transaction that holds it (a dirty value at worst).
    SELECT @q$watermark = [id] FROM [ghosts].[testq_watermark] WITH (NOLOCK);
    -- The highest id: the last key of the clustered index (one row, skipped if locked).
    SELECT @q$highest = MAX([id]) FROM [ghosts].[testq] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$ready AS [ready], @q$scheduled AS [scheduled], @q$in_flight AS [in_flight], @q$expired AS [expired],
        @q$processed AS [processed], @q$dead AS [dead], @q$archived AS [archived],
        -- The age of the oldest ready job: the one with the lowest id (ids grow with enqueued_at).
        COALESCE(DATEDIFF_BIG(second, (SELECT [enqueued_at] FROM [ghosts].[testq] WITH (READPAST, READCOMMITTEDLOCK) WHERE [id] = @q$oldest_id), @q$now), 0)
            AS [oldest_ready_age_seconds],
        @q$watermark AS [watermark],
        @q$lowest AS [lowest_pending_id],
        -- on_complete: delete leaves no trace of a completion to count.
        CAST(NULL AS bigint) AS [completed_last_minute],
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        COALESCE(@q$lowest, @q$highest + 1) - @q$watermark AS [watermark_lag],
        CAST(CASE WHEN NOT EXISTS (SELECT 1 FROM [ghosts].[testq_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0) THEN 1 ELSE 0 END AS bit) AS [paused];
END;
GO

-- qgen 0.1.0: peek ghosts.testq_peek, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them.
CREATE OR ALTER PROCEDURE [ghosts].[testq_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    -- NULL or negative is refused with the other argument checks' code (TOP would raise 1014).
    IF @limit IS NULL OR @limit < 0
        THROW 50003, N'qgen: @limit is out of range for ghosts.testq_peek; accepted: 0 or more rows.', 1;
    SELECT TOP (@limit) [id], [filler], [enqueued_at]
    FROM [ghosts].[testq_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge_batch ghosts.testq_purge_batch, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds: at most @batch_size rows (1000 by default, refused above 3599) over all those
-- tables together, in one transaction (the caller's, when there is one). purge loops over batches;
-- maintain runs one.
CREATE OR ALTER PROCEDURE [ghosts].[testq_purge_batch]
    @older_than_seconds int = 604800,
    @batch_size int = 1000,
    -- maintain reads the counts here (OUTPUT) and asks for no result set (see reap).
    @archived int = NULL OUTPUT,
    @processed int = NULL OUTPUT,
    @dead int = NULL OUTPUT,
    @result_set bit = 1
AS
BEGIN
    -- READPAST needs READ COMMITTED (or REPEATABLE READ): pinned here, whatever the caller runs at.
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 3599
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 3599 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$left int = @batch_size, @q$archived int = 0, @q$processed int = 0, @q$dead int = 0;
    BEGIN TRY
        BEGIN TRANSACTION;
        COMMIT TRANSACTION;
        SELECT @archived = @q$archived, @processed = @q$processed, @dead = @q$dead;
        IF @result_set = 1
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
-- @older_than_seconds, in batches of at most @batch_size rows (1000 by default, refused above 3599),
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
    -- READPAST needs READ COMMITTED (or REPEATABLE READ): pinned here, whatever the caller runs at.
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 3599
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 3599 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    IF (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50004, N'qgen: purge commits after every batch, which it cannot do inside the caller''s transaction (or with IMPLICIT_TRANSACTIONS ON, where its first statement would open one); call it outside a transaction in autocommit mode, or call testq_purge_batch (one batch) there.', 1;
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
-- until then. It reads the steps' results through OUTPUT parameters, not INSERT ... EXEC: inside
-- one, a step's ROLLBACK fails with error 3915, which is all the caller would see of the step's own
-- error. Granted to the consumer role, so any worker can run it. It runs as the owner of qgen's
-- objects (EXECUTE AS OWNER) so that it can take its lock as that owner, not as public: see below.
CREATE OR ALTER PROCEDURE [ghosts].[testq_maintain]
    @batch_size int = 1000,
    -- The Agent job (schedule.sql) reads more here and asks for no result set, to call again at once.
    @more bit = NULL OUTPUT,
    @result_set bit = 1
WITH EXECUTE AS OWNER
AS
BEGIN
    -- reap and purge READPAST, which needs READ COMMITTED: pinned here, whatever the caller runs at.
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 3599
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 3599 (a batch stays well under lock escalation).', 1;
    DECLARE @q$lock int, @q$skipped bit = 0, @q$more bit = 0;
    DECLARE @q$archived int = 0, @q$processed int = 0, @q$dead int = 0;
    DECLARE @q$released int = 0, @q$dead_lettered int = 0;
    DECLARE @q$old_watermark bigint, @q$new_watermark bigint;
    -- reap takes at most the queue's max_batch_size: a larger batch would be refused (50003).
    DECLARE @q$reap_batch int = CASE WHEN @batch_size > 1000 THEN 1000 ELSE @batch_size END;
    -- An application lock belongs to the principal named in @DbPrincipal (with the resource and the
    -- database), and only a member of that principal, dbo or db_owner may take it. The default,
    -- public, would let any user of the database take this lock first and stop maintenance for as
    -- long as it held it. It is taken as the owner of qgen's objects (this procedure runs as that
    -- owner): no other login can take it, except dbo and members of db_owner.
    DECLARE @q$principal sysname = USER_NAME();
    BEGIN TRY
        BEGIN TRANSACTION;
        EXEC @q$lock = sys.sp_getapplock
            @Resource = N'qgen.maintain:[ghosts].[testq]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0, @DbPrincipal = @q$principal;
        -- -1: not granted at once, another maintain holds it. -2 (cancelled), -3 (deadlock victim)
        -- and -999 (a call error) are not "someone else is maintaining": refused with the code.
        IF @q$lock = -1
            SET @q$skipped = 1;
        ELSE IF @q$lock < 0
        BEGIN
            DECLARE @q$why nvarchar(2048) = CONCAT(N'qgen: refused on ghosts.testq: maintain could not take its application lock (sp_getapplock returned ',
                @q$lock, N' for principal ', @q$principal, N').');
            THROW 50005, @q$why, 1;
        END
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            EXEC [ghosts].[testq_purge_batch] @older_than_seconds = 604800, @batch_size = @batch_size,
                @archived = @q$archived OUTPUT, @processed = @q$processed OUTPUT, @dead = @q$dead OUTPUT, @result_set = 0;
            EXEC [ghosts].[testq_watermark_correct]
                @old_watermark = @q$old_watermark OUTPUT, @new_watermark = @q$new_watermark OUTPUT, @result_set = 0;
        END;
        COMMIT TRANSACTION;
        IF @q$archived + @q$processed + @q$dead >= @batch_size OR @q$released + @q$dead_lettered >= @q$reap_batch
            SET @q$more = 1;
        SET @more = @q$more;
        IF @result_set = 1
            SELECT
                @q$skipped AS [skipped],
                @q$released AS [released],
                @q$dead_lettered AS [dead_lettered],
                @q$old_watermark AS [old_watermark],
                @q$new_watermark AS [new_watermark],
                @q$archived AS [archived],
                @q$processed AS [processed],
                @q$dead AS [dead],
                @q$more AS [more];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: job ghosts.testq_job, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One job's state by id, wherever it is: queued, scheduled (delayed, or backing off after a failure),
-- in_flight (leased: lease_expires_at, lease_owner), processed (on_complete: mark), archived, dead (with
-- last_error), or not_found. Reads only, one row always. It looks where a job goes in the order it
-- goes there (the queue table, then the dead letters, then the archive), one statement each, so a
-- job that moves meanwhile is found where it arrived, never missed.
-- The queue table and the dead letters are read by key at plain READ COMMITTED: each shared lock is
-- held only while its one row is read, so no worker ever waits on this procedure; under
-- READ_COMMITTED_SNAPSHOT it reads the last committed version and waits for nothing. Without it, the
-- read waits while another transaction holds this very job (a claim, complete or fail: milliseconds;
-- a delete-mode claim: until the caller's transaction ends), as peek does, and then tells where the
-- job went. Not READPAST: a held job would be reported not_found; not NOLOCK: a claim or a fail
-- rolled back would be reported as done.
-- The archive has no index on id (every completion would pay for one): it is scanned from its
-- newest entry back WITH (READPAST, READCOMMITTEDLOCK), so the scan waits on no other job's row.
CREATE OR ALTER PROCEDURE [ghosts].[testq_job]
    @job_id bigint
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @job_id IS NULL OR @job_id < 1
    BEGIN
        DECLARE @q$error nvarchar(2048) = CONCAT(N'qgen: job_id ', COALESCE(CAST(@job_id AS nvarchar(20)), N'NULL'),
            N' is out of range for ghosts.testq_job; accepted: a job id, 1 or more.');
        THROW 50003, @q$error, 1;
    END;
    DECLARE @q$found TABLE
    (
        [id] bigint NOT NULL,
        [state] nvarchar(16) NOT NULL,
        [enqueued_at] datetime2(3) NULL,
        [attempts] int NULL,
        [last_error] nvarchar(4000) NULL,
        [finished_at] datetime2(3) NULL
    );
    INSERT INTO @q$found ([id], [state], [enqueued_at], [attempts], [last_error], [finished_at])
    SELECT [j].[id], N'queued',
        [j].[enqueued_at],
        NULL,
        NULL, NULL
    FROM [ghosts].[testq] AS [j]
    WHERE [j].[id] = @job_id;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state]) VALUES (@job_id, N'not_found');
    SELECT [id], [state], [enqueued_at], [attempts], [last_error], [finished_at] FROM @q$found;
END;
GO

-- qgen 0.1.0: pause ghosts.testq_pause, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job, and a dequeue waiting with @wait_ms keeps waiting. Enqueues go on, and leases already
-- granted run to their end (complete, fail, extend_lease, release and reap work as before).
-- Returns 1 when this call paused the queue, 0 when it was paused already.
CREATE OR ALTER PROCEDURE [ghosts].[testq_pause]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    SET LOCK_TIMEOUT 5000;
    DECLARE @q$was bit, @q$changed int = 0;
    BEGIN TRY
        BEGIN TRANSACTION;
        SELECT @q$was = [paused] FROM [ghosts].[testq_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [ghosts].[testq_control] ([paused], [changed_at], [changed_by]) VALUES (1, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 0;
        END
        ELSE IF @q$was = 0
        BEGIN
            UPDATE [ghosts].[testq_control]
            SET [paused] = 1, [changed_at] = SYSUTCDATETIME(), [changed_by] = ORIGINAL_LOGIN()
            WHERE [one_row] = 1;
            SET @q$changed = 1;
        END;
        COMMIT TRANSACTION;
        RETURN @q$changed;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on ghosts.testq: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: resume ghosts.testq_resume, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again (a dequeue waiting with
-- @wait_ms takes one at its next attempt). Returns 1 when this call resumed the queue, 0 when it
-- was not paused.
CREATE OR ALTER PROCEDURE [ghosts].[testq_resume]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    SET LOCK_TIMEOUT 5000;
    DECLARE @q$was bit, @q$changed int = 0;
    BEGIN TRY
        BEGIN TRANSACTION;
        SELECT @q$was = [paused] FROM [ghosts].[testq_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [ghosts].[testq_control] ([paused], [changed_at], [changed_by]) VALUES (0, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 1;
        END
        ELSE IF @q$was = 1
        BEGIN
            UPDATE [ghosts].[testq_control]
            SET [paused] = 0, [changed_at] = SYSUTCDATETIME(), [changed_by] = ORIGINAL_LOGIN()
            WHERE [one_row] = 1;
            SET @q$changed = 1;
        END;
        COMMIT TRANSACTION;
        RETURN @q$changed;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on ghosts.testq: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: cancel ghosts.testq_cancel, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (@ids: a JSON array of whole numbers from 1, e.g. N'[3, 7]'; at most 3599): each job still
-- in the queue leaves it at once, in this one transaction, deleted (this queue keeps no dead letters), and
-- never runs. One row per distinct id, in id order, [outcome]:
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   held: another open transaction holds it (a claim, or another cancel): READPAST never waits for
--     it, nothing is done. If that transaction rolls back the job is queued again, and can be
--     cancelled then;
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order (the clustered key, FORCESEEK from the ordered list of ids), as
-- every other statement that locks several jobs does, so cancel deadlocks with none of them, at most 5 s (then refused, 50005: nothing done).
CREATE OR ALTER PROCEDURE [ghosts].[testq_cancel]
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
    IF (SELECT COUNT(*) FROM OPENJSON(@ids)) > 3599
        THROW 50003, N'qgen: @ids lists more than 3599 jobs; accepted: 1 to 3599 per call (a bigger one could escalate to a table lock).', 1;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$asked TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$found TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$held TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$probe bigint;
    -- What the DELETE took out (its OUTPUT): the outcome is what happened, not what was found.
    DECLARE @q$dead TABLE ([id] bigint NOT NULL PRIMARY KEY);
    INSERT INTO @q$asked ([id])
    SELECT DISTINCT CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j];
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO @q$found ([id])
        SELECT [job].[id]
        FROM [ghosts].[testq] AS [job] WITH (UPDLOCK, ROWLOCK, READPAST, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]);
        DELETE FROM [ghosts].[testq]
        OUTPUT deleted.[id]
        INTO @q$dead ([id])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on ghosts.testq: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
        THROW;
    END CATCH;
    -- Each id READPAST skipped (or that is gone): held by an open transaction, or not in the queue?
    -- NOLOCK cannot tell (a claim's uncommitted delete hides the row): a read that waits for nothing
    -- (LOCK_TIMEOUT 0) and raises 1222 where a lock is held, as a statement's error only (XACT_ABORT
    -- OFF for it, so no transaction is doomed).
    SET LOCK_TIMEOUT 0;
    SET XACT_ABORT OFF;
    SELECT @q$probe = MIN([a].[id]) FROM @q$asked AS [a] WHERE NOT EXISTS (SELECT 1 FROM @q$dead AS [g] WHERE [g].[id] = [a].[id]);
    WHILE @q$probe IS NOT NULL
    BEGIN
        BEGIN TRY
            IF EXISTS (SELECT 1 FROM [ghosts].[testq] WITH (READCOMMITTEDLOCK) WHERE [id] = @q$probe)
                INSERT INTO @q$held ([id]) VALUES (@q$probe);
        END TRY
        BEGIN CATCH
            IF ERROR_NUMBER() <> 1222
                THROW;
            INSERT INTO @q$held ([id]) VALUES (@q$probe);
        END CATCH;
        SELECT @q$probe = MIN([a].[id]) FROM @q$asked AS [a]
        WHERE [a].[id] > @q$probe AND NOT EXISTS (SELECT 1 FROM @q$dead AS [g] WHERE [g].[id] = [a].[id]);
    END;
    SET XACT_ABORT ON;
    SELECT [a].[id],
        CASE
             WHEN [g].[id] IS NOT NULL THEN N'cancelled'
             WHEN EXISTS (SELECT 1 FROM @q$held AS [h] WHERE [h].[id] = [a].[id]) THEN N'held'
             ELSE N'not_queued' END AS [outcome]
    FROM @q$asked AS [a]
    LEFT JOIN @q$dead AS [g] ON [g].[id] = [a].[id]
    ORDER BY [a].[id];
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
-- The admin role runs every procedure qgen created, and nothing else: each by name, never EXECUTE
-- ON SCHEMA, which in a shared schema (or dbo) would reach every application procedure, present
-- and future (upgrade.sql takes back a schema-wide grant a former version made).
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue_batch] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue_json] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_watermark_move] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_watermark_correct] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_dequeue] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_metrics] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_peek] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_purge_batch] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_purge] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_maintain] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_job] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_pause] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_resume] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_cancel] TO [ghosts_admin];
GRANT EXECUTE ON TYPE::[ghosts].[testq_batch] TO [ghosts_admin];
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
      N'testq_control',
      N'testq_dequeue',
      N'testq_metrics',
      N'testq_peek',
      N'testq_purge_batch',
      N'testq_purge',
      N'testq_maintain',
      N'testq_job',
      N'testq_pause',
      N'testq_resume',
      N'testq_cancel'
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
IF OBJECT_ID(N'ghosts.testq_control') IS NULL
    SET @q$missing += N' ghosts.testq_control';
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
IF OBJECT_ID(N'ghosts.testq_job') IS NULL
    SET @q$missing += N' ghosts.testq_job';
IF OBJECT_ID(N'ghosts.testq_pause') IS NULL
    SET @q$missing += N' ghosts.testq_pause';
IF OBJECT_ID(N'ghosts.testq_resume') IS NULL
    SET @q$missing += N' ghosts.testq_resume';
IF OBJECT_ID(N'ghosts.testq_cancel') IS NULL
    SET @q$missing += N' ghosts.testq_cancel';
IF @q$missing <> N''
BEGIN
    DECLARE @q$absent nvarchar(2048) = LEFT(N'qgen: install did not create:' + @q$missing
        + N'. An earlier batch failed: read its error above, fix it and run install.sql again (sqlcmd -b stops at the first error).', 2048);
    THROW 50020, @q$absent, 1;
END;
-- And maintain can run: it runs WITH EXECUTE AS OWNER, as its owner (its schema's, unless it was given
-- one of its own), and only a user can be impersonated. A schema given to a role after install (or
-- installed into by a qgen that did not refuse one, see the schema's batch) fails every call of
-- maintain (error 15517) while every other procedure works.
DECLARE @q$owners nvarchar(max) = N'';
SELECT @q$owners = @q$owners + N' ' + QUOTENAME([s].[name]) + N'.' + QUOTENAME([o].[name]) + N' (owned by '
    + QUOTENAME([p].[name]) + N', ' + [p].[type_desc] + N')'
FROM sys.objects AS [o]
INNER JOIN sys.schemas AS [s] ON [s].[schema_id] = [o].[schema_id]
INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = COALESCE([o].[principal_id], [s].[principal_id])
WHERE [s].[name] = N'ghosts'
  AND [o].[name] IN
  (
      N'testq_maintain'
  )
  AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$owners <> N''
BEGIN
    DECLARE @q$impersonate nvarchar(2048) = LEFT(N'qgen: maintain runs WITH EXECUTE AS OWNER, which cannot impersonate its owner, '
        + N'so every call of it fails:' + @q$owners + N'. Give schema [ghosts] to a user, ALTER AUTHORIZATION ON SCHEMA::'
        + N'[ghosts] TO [dbo]; (a procedure given an owner of its own: ALTER AUTHORIZATION ON OBJECT::... TO SCHEMA OWNER;), '
        + N'then run install.sql again.', 2048);
    THROW 50020, @q$impersonate, 1;
END;
-- And each is what this install rendered, not an older version left in place: a CREATE OR ALTER
-- that failed (sqlcmd without -b goes on) keeps the old procedure, and IF NOT EXISTS ... CREATE
-- INDEX keeps any index already under that name. A procedure or view: a SHA2_256 of its text from
-- its name on, without spaces, tabs or line breaks (qgen.dialects.mssql.module_fingerprints), against
-- the one rendered. An index: its uniqueness, key columns (in order, with DESC), included columns
-- and whether it has a filter, against the rendered CREATE INDEX (the filter's text is not
-- compared: SQL Server stores it rewritten).
DECLARE @q$stale nvarchar(max) = N'';
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'ghosts.' + [r].[name]), N' '))
FROM
(
    VALUES
        (N'testq_cancel', 0x2B169B9C137C59D7F97CE833220FE5899116C05A9CF9B8C780BF0D4F9F962688),
        (N'testq_dequeue', 0x0DD074F2519C363F45E9D169668A56E673E8CF6BE8AE7D848AC28289A38600A0),
        (N'testq_enqueue', 0x2BD195AB033AEE4B7100EFD1394D12ED932AD3D3C463846CDD85540B8A2A1B3C),
        (N'testq_enqueue_batch', 0x742B9936B3149FB7070360E160C8B18D20A736D5F0EA72AC71E198C2AD5EAFBD),
        (N'testq_enqueue_json', 0xECD6308E33FD703428EA010A994E211260097CADE8FA7182AAF94D2F50C92010),
        (N'testq_job', 0xEDEA7704E493F200902751D29730D7082E37341C0B5919AC959DFA76B0FB88FE),
        (N'testq_maintain', 0xBBC793CDD035691620B9B729E04D862EA1F0C703104C2A6E07F21ECF9280DF86),
        (N'testq_metrics', 0xB0396D78493DCF4817B84191EDEB820363484B4A2BA3FAAE80175618F4E598FC),
        (N'testq_pause', 0x0C2FDBAC96605A1FD41406BE52DC03455CA4D6FDBEF0960D8F01FC2DA4196AE6),
        (N'testq_peek', 0x8DDECD9D2E3BA612F074D4BF658649249113792B7ECE410A3D19498C1AACD7B8),
        (N'testq_pending', 0x391E7FAD831E24CA1CBE89AB1E4666E1DE0D7ADF80A03EB7D3E92BB7917CCEE4),
        (N'testq_purge', 0xDFC495F7023C12884C725F6AA08BB18C8E54E530A9A014D4718852427AE4A23C),
        (N'testq_purge_batch', 0xF58C8090A17B368F66F71160CE8F53B45A7E037E123FFEA9CC460130F8AAA1EE),
        (N'testq_resume', 0xC7C717E516808B92FC5EF8148DC5092C60DEBB796B4FBA6B41BEFEE82724B41E),
        (N'testq_watermark_correct', 0x36B4801DE45561D04F7554C50BE3ECABC381A908D5EE0E301490BDA99396FC4C),
        (N'testq_watermark_move', 0x2602A2672D1D9F968C47993477498E39E71B1C85DF0C1B8BE674ACE7CC0C0986)
) AS [r]([name], [fingerprint])
INNER JOIN sys.sql_modules AS [sm] ON [sm].[object_id] = OBJECT_ID(N'ghosts.' + [r].[name])
CROSS APPLY (SELECT [sm].[definition] COLLATE Latin1_General_BIN2 AS [text]) AS [d]
WHERE HASHBYTES('SHA2_256', REPLACE(REPLACE(REPLACE(REPLACE(
          SUBSTRING([d].[text], CHARINDEX(N'[ghosts].[' + [r].[name] + N']' COLLATE Latin1_General_BIN2, [d].[text]), LEN([d].[text])),
          NCHAR(32), N''), NCHAR(9), N''), NCHAR(10), N''), NCHAR(13), N'')) <> [r].[fingerprint];
IF @q$stale <> N''
BEGIN
    DECLARE @q$older nvarchar(2048) = LEFT(N'qgen: installed, but not as this install rendered it:' + @q$stale
        + N'. An earlier batch failed and left an older version (read its error above, fix it and run install.sql again), '
        + N'or an index of that name was already there: drop it and run install.sql again.', 2048);
    THROW 50020, @q$older, 1;
END;
GO

-- An install the schema's batch refused set NOEXEC ON, so that sqlcmd and SSMS, which go on to the
-- next batch after an error, ran nothing more: give the session back as it was.
SET NOEXEC OFF;
GO
