-- qgen 0.1.0: every object of spec.yaml, for SQL Server (T-SQL), in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- qgen 0.1.0: schema pgs_del, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Refused before anything is created: a schema that exists and is owned by a database role (or an
-- application role, a group, a user mapped to a certificate or key). Its procedures are owned by
-- that owner, and maintain runs WITH EXECUTE AS OWNER, which can impersonate only a user: every
-- call of maintain would fail (error 15517) long after install succeeded. sqlcmd and SSMS go on to
-- the next batch after an error: the batch after the refusal sets NOEXEC ON, so no later batch runs
-- (verify, install's last batch, sets it OFF again).
DECLARE @q$refused nvarchar(2048);
SELECT @q$refused = CONCAT(N'qgen: install refused: schema [pgs_del] is owned by ', QUOTENAME([p].[name]), N' (',
    [p].[type_desc], N'), which EXECUTE AS OWNER cannot impersonate: qgen''s maintain procedures run as the schema''s owner, ',
    N'so every call of maintain would fail. Give the schema to a user, ALTER AUTHORIZATION ON SCHEMA::[pgs_del] TO [dbo]; ',
    N'(or to another user), then run install.sql again.')
FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'pgs_del' AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$refused IS NOT NULL
    THROW 50022, @q$refused, 1;
GO

IF EXISTS (SELECT 1 FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'pgs_del' AND [p].[type] NOT IN ('S', 'U', 'E'))
    SET NOEXEC ON;
GO

-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
-- A schema install creates is marked (extended property qgen.created): uninstall drops only such a one.
IF SCHEMA_ID(N'pgs_del') IS NULL
BEGIN
    EXEC(N'CREATE SCHEMA [pgs_del] AUTHORIZATION [dbo];');
    EXEC sys.sp_addextendedproperty @name = N'qgen.created', @value = N'created by the install of qgen''s queues',
        @level0type = N'SCHEMA', @level0name = N'pgs_del';
END;
GO

-- qgen 0.1.0: roles pgs_del_producer, pgs_del_consumer, pgs_del_admin (database roles), rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
-- A role install creates is recorded on the schema (extended property qgen.created_role.<role>):
-- uninstall drops only such a one, never a role that was there before and that the spec only names.
IF DATABASE_PRINCIPAL_ID(N'pgs_del_producer') IS NULL
BEGIN
    CREATE ROLE [pgs_del_producer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'pgs_del') AND [name] = N'qgen.created_role.pgs_del_producer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.pgs_del_producer', @value = N'pgs_del_producer',
            @level0type = N'SCHEMA', @level0name = N'pgs_del';
END;
IF DATABASE_PRINCIPAL_ID(N'pgs_del_consumer') IS NULL
BEGIN
    CREATE ROLE [pgs_del_consumer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'pgs_del') AND [name] = N'qgen.created_role.pgs_del_consumer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.pgs_del_consumer', @value = N'pgs_del_consumer',
            @level0type = N'SCHEMA', @level0name = N'pgs_del';
END;
IF DATABASE_PRINCIPAL_ID(N'pgs_del_admin') IS NULL
BEGIN
    CREATE ROLE [pgs_del_admin];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'pgs_del') AND [name] = N'qgen.created_role.pgs_del_admin')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.pgs_del_admin', @value = N'pgs_del_admin',
            @level0type = N'SCHEMA', @level0name = N'pgs_del';
END;
GO

-- qgen 0.1.0: table pgs_del.events, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'pgs_del.events', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_del].[events]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [name] nvarchar(50) NOT NULL,
        [data] nvarchar(max) NULL,
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [events_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        [enqueued_by] nvarchar(128) NULL,
        CONSTRAINT [events_data_is_json] CHECK ([data] IS NULL OR ISJSON([data]) = 1),
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [events_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: watermark_table pgs_del.events_watermark, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their range seek here instead of
-- walking the ghost records that deleted or claimed rows leave at the low end of the index.
IF OBJECT_ID(N'pgs_del.events_watermark', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_del].[events_watermark]
    (
        [id] bigint NOT NULL,
        -- Bumped by every change, so watermark_correct can tell a release happened while it scanned.
        [version] bigint NOT NULL CONSTRAINT [events_watermark_version_df] DEFAULT (0),
        [one_row] bit NOT NULL CONSTRAINT [events_watermark_one_row_df] DEFAULT (1),
        -- When the table was last searched below the watermark (by a dequeue's rescan or
        -- watermark_correct): a dequeue rescans when this is watermark.rescan old.
        [corrected_at] datetime2(3) NOT NULL
            CONSTRAINT [events_watermark_corrected_at_df] DEFAULT ('0001-01-01'),
        CONSTRAINT [events_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [events_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [pgs_del].[events_watermark])
    INSERT INTO [pgs_del].[events_watermark] ([id]) VALUES (0);
GO

-- qgen 0.1.0: archive_table pgs_del.events_archive, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Completed jobs, moved here by dequeue and removed by purge after the retention period.
-- Keyed by an identity of its own: [id] is the job's id, which repeats once the queue's identity is
-- reseeded (or when a job reaches the archive twice).
IF OBJECT_ID(N'pgs_del.events_archive', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_del].[events_archive]
    (
        [entry_id] bigint IDENTITY(1, 1) NOT NULL,
        [id] bigint NOT NULL,
        [name] nvarchar(50) NOT NULL,
        [data] nvarchar(max) NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [enqueued_by] nvarchar(128) NULL,
        [completed_at] datetime2(3) NOT NULL CONSTRAINT [events_archive_completed_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [events_archive_pk] PRIMARY KEY CLUSTERED ([entry_id])
    );
END;
GO

-- qgen 0.1.0: archive_index pgs_del.events_archive_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes archived jobs by age: it finds the old ones here instead of scanning the archive.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'events_archive_ix' AND object_id = OBJECT_ID(N'pgs_del.events_archive'))
    CREATE NONCLUSTERED INDEX [events_archive_ix]
    ON [pgs_del].[events_archive] ([completed_at]);
GO

-- qgen 0.1.0: pending_view pgs_del.events_pending, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [pgs_del].[events_pending]
AS
SELECT [id], [name], [data], [enqueued_at], [enqueued_by]
FROM [pgs_del].[events]
WHERE 1 = 1;
GO

-- qgen 0.1.0: batch_type pgs_del.events_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it. Its columns are one wider than the
-- table's (m.param_type): a caller's insert into a variable of this type cannot cut or round a value
-- past its column unseen; enqueue_batch refuses it with error 50010.
IF TYPE_ID(N'pgs_del.events_batch') IS NULL
    CREATE TYPE [pgs_del].[events_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [name] nvarchar(51) NOT NULL,
        [data] nvarchar(max) NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue pgs_del.events_enqueue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0). A value past its column's
-- limit is refused with error 50010, never cut or rounded: its parameter is one wider (m.param_type).
CREATE OR ALTER PROCEDURE [pgs_del].[events_enqueue]
    @name nvarchar(51),
    @data nvarchar(max) = NULL,
    @enqueued_by nvarchar(129) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF DATALENGTH(@name) > 100
        THROW 50010, N'qgen: @name is past its column''s limit in pgs_del.events_enqueue; accepted: string(50), at most 50 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF DATALENGTH(@enqueued_by) > 256
        THROW 50010, N'qgen: @enqueued_by is past its column''s limit in pgs_del.events_enqueue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL);
    BEGIN TRY
        INSERT INTO [pgs_del].[events] ([name], [data], [enqueued_by])
        -- OUTPUT INTO a table variable: a bare OUTPUT fails once someone adds a trigger to the table (error 334).
        OUTPUT inserted.[id] INTO @q$new ([id])
        VALUES (@name, @data, COALESCE(@enqueued_by, ORIGINAL_LOGIN()));
        SELECT [id], CAST(1 AS bit) AS [enqueued] FROM @q$new;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch pgs_del.events_enqueue_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement (at most 1999: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row.
CREATE OR ALTER PROCEDURE [pgs_del].[events_enqueue_batch]
    @jobs [pgs_del].[events_batch] READONLY,
    @enqueued_by nvarchar(129) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;

    IF DATALENGTH(@enqueued_by) > 256
        THROW 50010, N'qgen: @enqueued_by is past its column''s limit in pgs_del.events_enqueue_batch; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 1999
        THROW 50003, N'qgen: a batch of more than 1999 jobs is out of range for pgs_del.events: one statement writing more could escalate to a table lock; accepted: 1 to 1999 jobs per call (split the batch; the client does).', 1;
    DECLARE @q$over int, @q$over_column nvarchar(2048);
    SELECT TOP (1) @q$over = [j].[ordinal],
           @q$over_column = CASE WHEN DATALENGTH([j].[name]) > 100 THEN N'name; accepted: string(50), at most 50 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
    FROM @jobs AS [j]
    WHERE DATALENGTH([j].[name]) > 100
    ORDER BY [j].[ordinal];
    IF @q$over IS NOT NULL
    BEGIN
        DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in pgs_del.events_enqueue_batch: column ', @q$over_column, N'.');
        THROW 50010, @q$over_message, 1;
    END;
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [pgs_del].[events] ([name], [data], [enqueued_by])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[name], [j].[data], COALESCE(@enqueued_by, ORIGINAL_LOGIN())
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

-- qgen 0.1.0: enqueue_json pgs_del.events_enqueue_json, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- enqueue_batch for callers that cannot send a table-valued parameter (pyodbc through FreeTDS):
-- the same jobs as one JSON array of objects, one per job, keyed by the batch type's column names.
-- Every job-type and payload column's key must be there (strict paths: a missing or misspelt key is
-- an error, never a silent NULL; give null for no value); "ordinal" (the job's position in the
-- array, from 1), "priority" and "run_at" are optional. A datetime is ISO 8601, UTC when
-- it has no offset; a json column is the JSON text as a string. Needs SQL Server 2016 or later and
-- database compatibility level 130 or higher (OPENJSON). Returns what enqueue_batch returns.
CREATE OR ALTER PROCEDURE [pgs_del].[events_enqueue_json]
    @jobs nvarchar(max),
    @enqueued_by nvarchar(129) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;

    IF DATALENGTH(@enqueued_by) > 256
        THROW 50010, N'qgen: @enqueued_by is past its column''s limit in pgs_del.events_enqueue_json; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$batch [pgs_del].[events_batch];
    BEGIN TRY
        INSERT INTO @q$batch ([ordinal], [name], [data])
        SELECT COALESCE([j].[ordinal], CAST([a].[key] AS int) + 1),
               [j].[name],
               [j].[data]
        FROM OPENJSON(@jobs) AS [a]
        CROSS APPLY OPENJSON([a].[value])
        WITH
        (
            [ordinal] int '$.ordinal',
            [name] nvarchar(51) 'strict $.name',
            [data] nvarchar(max) 'strict $.data'
        ) AS [j];
        IF (SELECT COUNT(*) FROM @q$batch) > 1999
            THROW 50003, N'qgen: a batch of more than 1999 jobs is out of range for pgs_del.events: one statement writing more could escalate to a table lock; accepted: 1 to 1999 jobs per call (split the batch; the client does).', 1;
        DECLARE @q$over int, @q$over_column nvarchar(2048);
        SELECT TOP (1) @q$over = [j].[ordinal],
               @q$over_column = CASE WHEN DATALENGTH([j].[name]) > 100 THEN N'name; accepted: string(50), at most 50 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
        FROM @q$batch AS [j]
        WHERE DATALENGTH([j].[name]) > 100
        ORDER BY [j].[ordinal];
        IF @q$over IS NOT NULL
        BEGIN
            DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in pgs_del.events_enqueue_json: column ', @q$over_column, N'.');
            THROW 50010, @q$over_message, 1;
        END;
        BEGIN TRANSACTION;
        INSERT INTO [pgs_del].[events] ([name], [data], [enqueued_by])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[name], [j].[data], COALESCE(@enqueued_by, ORIGINAL_LOGIN())
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

-- qgen 0.1.0: watermark_move pgs_del.events_watermark_move, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 2 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR ALTER PROCEDURE [pgs_del].[events_watermark_move]
    @claimed_from bigint
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$target bigint = @claimed_from - 2;
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
    DECLARE @q$current bigint = (SELECT [id] FROM [pgs_del].[events_watermark] WITH (NOLOCK));
    IF @q$current IS NULL OR @q$current >= @q$target
        RETURN;
    IF EXISTS (SELECT 1 FROM [pgs_del].[events] AS [job] WITH (NOLOCK)
               WHERE [job].[id] = @q$current
              )
        RETURN;
    UPDATE [w]
    SET [id] = COALESCE(
            (
                SELECT MIN([job].[id])
                FROM [pgs_del].[events] AS [job] WITH (NOLOCK)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @q$target
            ), @q$target),
        [version] = [w].[version] + 1
    FROM [pgs_del].[events_watermark] AS [w] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK)
    WHERE [w].[id] < @q$target;
END;
GO

-- qgen 0.1.0: watermark_correct pgs_del.events_watermark_correct, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 2 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty;
-- unchanged only when no id was ever generated), never below 0. It repairs a watermark that is wrong
-- either way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it
-- after a drain (run it after a dequeue that found nothing) and for a watermark set by hand. It
-- never waits on the watermark row.
CREATE OR ALTER PROCEDURE [pgs_del].[events_watermark_correct]
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
        SELECT @q$old = [id] FROM [pgs_del].[events_watermark] WITH (ROWLOCK, READPAST, UPDLOCK);
        IF @q$old IS NULL AND EXISTS (SELECT 1 FROM [pgs_del].[events_watermark] WITH (NOLOCK))
        BEGIN
            COMMIT TRANSACTION;
            SET @q$old = (SELECT [id] FROM [pgs_del].[events_watermark] WITH (NOLOCK));
            SELECT @old_watermark = @q$old, @new_watermark = @q$old;
            IF @result_set = 1
                SELECT @q$old AS [old_watermark], @q$old AS [new_watermark];
            RETURN;
        END;
        -- No row (deleted by hand): lock the empty range (HOLDLOCK) so that one session puts it back.
        IF @q$old IS NULL
            SET @q$old = (SELECT [id] FROM [pgs_del].[events_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- corrected_at gets the time before the search (it counts as a dequeue's rescan): a job that
        -- becomes claimable below the watermark after this moment may be missed here, and the next
        -- rescan is due watermark.rescan seconds after this moment, so within the bound.
        SET @q$searched = SYSUTCDATETIME();
        -- The scans never wait on a job row (NOLOCK). NOLOCK also sees a job whose insert is not yet
        -- committed, so the watermark does not pass it. Deferred jobs (the [deferred] bit) do not hold
        -- it back: the due index hands them to claims.
        SET @q$new = (SELECT MIN([job].[id]) FROM [pgs_del].[events] AS [job] WITH (NOLOCK) WHERE 1 = 1);
        -- A row an open delete-mode claim holds is invisible to NOLOCK and skipped by READPAST (only
        -- a locking read, which would wait for the claimer, could see it): the correction can pass
        -- it, as the mover can; if that claim rolls back, the rescan finds the job (docs/api.md).
        SET @q$new = @q$new - 2;
        IF @q$new IS NULL
            SET @q$new = (SELECT MAX([id]) + 1 FROM [pgs_del].[events] WITH (NOLOCK)) - 2;
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
                        WHERE [object_id] = OBJECT_ID(N'[pgs_del].[events]') AND [name] = N'id') - 2;
        IF @q$new IS NULL
            SET @q$new = COALESCE(@q$old, 0);
        IF @q$new < 0
            SET @q$new = 0;
        IF @q$old IS NULL
            INSERT INTO [pgs_del].[events_watermark] ([id], [corrected_at]) VALUES (@q$new, @q$searched);
        ELSE
            UPDATE [pgs_del].[events_watermark] SET [id] = @q$new, [version] = [version] + 1, [corrected_at] = @q$searched;
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

-- qgen 0.1.0: control_table pgs_del.events_control, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which login). Every
-- claim reads it first, WITH (READPAST, READCOMMITTEDLOCK): a pause or resume counts from its
-- commit, and no claim waits on one left open. A missing row (deleted by hand) reads as running.
IF OBJECT_ID(N'pgs_del.events_control', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_del].[events_control]
    (
        [one_row] bit NOT NULL CONSTRAINT [events_control_one_row_df] DEFAULT (1),
        [paused] bit NOT NULL CONSTRAINT [events_control_paused_df] DEFAULT (0),
        [changed_at] datetime2(3) NULL,
        [changed_by] nvarchar(128) NULL,
        CONSTRAINT [events_control_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [events_control_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [pgs_del].[events_control])
    INSERT INTO [pgs_del].[events_control] ([paused]) VALUES (0);
GO

-- qgen 0.1.0: dequeue pgs_del.events_dequeue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs by deleting them into the archive, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction the claim would commit at once (at-most-once delivery): refused unless
-- the caller says so with @at_most_once = 1. A caller with IMPLICIT_TRANSACTIONS ON is inside one:
-- the claim opens it, and the caller's COMMIT or ROLLBACK ends it.
-- @owner is accepted and unused here (the claim deletes the row: nothing records it), as on
-- PostgreSQL, so one call works in either claim mode.
CREATE OR ALTER PROCEDURE [pgs_del].[events_dequeue]
    @owner nvarchar(129) = NULL,
    @batch_size int = 10,
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
            N' is out of range for pgs_del.events_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in pgs_del.events_dequeue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF NOT (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2) AND ISNULL(@at_most_once, 0) = 0
        THROW 50005, N'qgen: refused on pgs_del.events: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass @at_most_once = 1', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on pgs_del.events: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0, or claim with @at_most_once = 1', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [name] nvarchar(50) NOT NULL,
        [data] nvarchar(max) NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [enqueued_by] nvarchar(128) NULL
    );
    DECLARE @q$from bigint;
    BEGIN TRY
        -- @wait_ms: each attempt to claim starts here, in a transaction of its own (see the wait block below).
    q$attempt:
        BEGIN TRANSACTION;
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [pgs_del].[events_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
        -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
        IF EXISTS (SELECT 1 FROM [pgs_del].[events_watermark] WITH (NOLOCK) WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME()))
        BEGIN
            DECLARE @q$mark bigint, @q$stranded bigint;
            UPDATE [pgs_del].[events_watermark] WITH (ROWLOCK, READPAST, UPDLOCK)
            SET @q$mark = [id], [corrected_at] = SYSUTCDATETIME(), [version] = [version] + 1
            WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME());
            IF @@ROWCOUNT = 1
            BEGIN
                SELECT @q$stranded = MIN([job].[id])
                FROM [pgs_del].[events] AS [job] WITH (NOLOCK)
                WHERE [job].[id] < @q$mark AND 1 = 1;
                IF @q$stranded IS NOT NULL
                    UPDATE [pgs_del].[events_watermark]
                    SET [id] = CASE WHEN @q$stranded > 2 THEN @q$stranded - 2 ELSE 0 END,
                        [version] = [version] + 1
                    WHERE [id] > CASE WHEN @q$stranded > 2 THEN @q$stranded - 2 ELSE 0 END;
            END;
        END
        ELSE IF NOT EXISTS (SELECT 1 FROM [pgs_del].[events_watermark] WITH (NOLOCK))
            INSERT INTO [pgs_del].[events_watermark] ([id])
            SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM [pgs_del].[events_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
        -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
        -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
        -- A missing row reads as 0.
        SET @q$from = COALESCE((SELECT [id] FROM [pgs_del].[events_watermark] WITH (NOLOCK)), 0);
        ;WITH [next_job] AS
        (
            SELECT TOP (@batch_size) [id], [name], [data], [enqueued_at], [enqueued_by]
            -- The one reference to the table: these hints hold for every row the claim reads.
            FROM [pgs_del].[events] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE 1 = 1
              AND [id] >= @q$from
            ORDER BY [id]
        )
        DELETE FROM [next_job]
        OUTPUT deleted.[id], deleted.[name], deleted.[data], deleted.[enqueued_at], deleted.[enqueued_by]
        INTO @q$claimed ([id], [name], [data], [enqueued_at], [enqueued_by])
        -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        INSERT INTO [pgs_del].[events_archive] ([id], [name], [data], [enqueued_at], [enqueued_by], [completed_at])
        SELECT [id], [name], [data], [enqueued_at], [enqueued_by], @q$now FROM @q$claimed;
        -- Move the watermark once this claim reached 10 + 2 ids above it, to 2 below the claim's highest
        -- id: about once per 10 claimed ids, however the ids run (a gap at every multiple of
        -- 10, from dedupe hits or rolled-back enqueues, or one claim of many ids).
        DECLARE @q$highest bigint;
        SELECT @q$highest = MAX([id]) FROM @q$claimed;
        IF @q$highest - @q$from >= 12
            EXEC [pgs_del].[events_watermark_move] @claimed_from = @q$highest;
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
        SELECT [id], [name], [data], [enqueued_at]
        FROM @q$claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: metrics pgs_del.events_metrics, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now, for dashboards and alerts. Each count reads the one index that
-- holds its rows (claim, due, lease, processed index; the dead-letter and archive tables), never the
-- whole queue table (finished rows included), and does not wait on a row: WITH (READPAST,
-- READCOMMITTEDLOCK) skips a row another transaction holds (a job being claimed, completed or enqueued right now),
-- the watermark's one row is read WITH (NOLOCK). So under concurrency the numbers are approximate:
-- a job changing at that moment is counted in neither state, and the counts are not one snapshot.
-- READPAST skips row and page locks only: a table lock (an escalated lock of a large transaction,
-- uninstall's TABLOCKX, an offline index build) still makes it wait.
CREATE OR ALTER PROCEDURE [pgs_del].[events_metrics]
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
    FROM [pgs_del].[events] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$archived = COUNT_BIG(*), @q$recent = COUNT_BIG(CASE WHEN [completed_at] >= DATEADD(minute, -1, @q$now) THEN 1 END)
    FROM [pgs_del].[events_archive] WITH (READPAST, READCOMMITTEDLOCK);
    -- One row, a value: read without waiting on a transaction that holds it (a dirty value at worst).
    SELECT @q$watermark = [id] FROM [pgs_del].[events_watermark] WITH (NOLOCK);
    -- The highest id: the last key of the clustered index (one row, skipped if locked).
    SELECT @q$highest = MAX([id]) FROM [pgs_del].[events] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$ready AS [ready], @q$scheduled AS [scheduled], @q$in_flight AS [in_flight], @q$expired AS [expired],
        @q$processed AS [processed], @q$dead AS [dead], @q$archived AS [archived],
        -- The age of the oldest ready job: the one with the lowest id (ids grow with enqueued_at).
        COALESCE(DATEDIFF_BIG(second, (SELECT [enqueued_at] FROM [pgs_del].[events] WITH (READPAST, READCOMMITTEDLOCK) WHERE [id] = @q$oldest_id), @q$now), 0)
            AS [oldest_ready_age_seconds],
        @q$watermark AS [watermark],
        @q$lowest AS [lowest_pending_id],
        @q$recent AS [completed_last_minute],
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        COALESCE(@q$lowest, @q$highest + 1) - @q$watermark AS [watermark_lag],
        CAST(CASE WHEN NOT EXISTS (SELECT 1 FROM [pgs_del].[events_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0) THEN 1 ELSE 0 END AS bit) AS [paused];
END;
GO

-- qgen 0.1.0: peek pgs_del.events_peek, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them.
CREATE OR ALTER PROCEDURE [pgs_del].[events_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    -- NULL or negative is refused with the other argument checks' code (TOP would raise 1014).
    IF @limit IS NULL OR @limit < 0
        THROW 50003, N'qgen: @limit is out of range for pgs_del.events_peek; accepted: 0 or more rows.', 1;
    SELECT TOP (@limit) [id], [name], [data], [enqueued_at], [enqueued_by]
    FROM [pgs_del].[events_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge_batch pgs_del.events_purge_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds: at most @batch_size rows (1000 by default, refused above 1999) over all those
-- tables together, in one transaction (the caller's, when there is one). purge loops over batches;
-- maintain runs one.
CREATE OR ALTER PROCEDURE [pgs_del].[events_purge_batch]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1999
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1999 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$left int = @batch_size, @q$archived int = 0, @q$processed int = 0, @q$dead int = 0;
    BEGIN TRY
        BEGIN TRANSACTION;
        IF @q$left > 0
        BEGIN
            DELETE TOP (@q$left) FROM [pgs_del].[events_archive] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [completed_at] < @q$cutoff
            OPTION (OPTIMIZE FOR (@q$left = 1));
            SET @q$archived = @@ROWCOUNT;
            SET @q$left -= @q$archived;
        END;

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

-- qgen 0.1.0: purge pgs_del.events_purge, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds, in batches of at most @batch_size rows (1000 by default, refused above 1999),
-- each committed on its own, so no statement takes enough locks to escalate to a table lock and
-- no transaction holds more than one batch. The cutoff is fixed when the call begins, so rows that
-- finish while it runs are left for the next purge and the loop ends. It must commit per batch,
-- so it refuses to run inside the caller's transaction (error 50004: there, call
-- events_purge_batch, which deletes one batch in that transaction).
CREATE OR ALTER PROCEDURE [pgs_del].[events_purge]
    @older_than_seconds int = 604800,
    @batch_size int = 1000
AS
BEGIN
    -- READPAST needs READ COMMITTED (or REPEATABLE READ): pinned here, whatever the caller runs at.
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1999
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1999 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    IF (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50004, N'qgen: purge commits after every batch, which it cannot do inside the caller''s transaction (or with IMPLICIT_TRANSACTIONS ON, where its first statement would open one); call it outside a transaction in autocommit mode, or call events_purge_batch (one batch) there.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$archived bigint = 0, @q$processed bigint = 0, @q$dead bigint = 0, @q$deleted int;
    SET @q$deleted = @batch_size;
    WHILE @q$deleted = @batch_size
    BEGIN
        -- No transaction is open: each DELETE commits by itself, one batch at a time.
        DELETE TOP (@batch_size) FROM [pgs_del].[events_archive] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [completed_at] < @q$cutoff
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$deleted = @@ROWCOUNT;
        SET @q$archived += @q$deleted;
    END;

    SELECT @q$archived AS [archived], @q$processed AS [processed], @q$dead AS [dead];
END;
GO

-- qgen 0.1.0: maintain pgs_del.events_maintain, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [pgs_del].[events_maintain]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1999
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1999 (a batch stays well under lock escalation).', 1;
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
            @Resource = N'qgen.maintain:[pgs_del].[events]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0, @DbPrincipal = @q$principal;
        -- -1: not granted at once, another maintain holds it. -2 (cancelled), -3 (deadlock victim)
        -- and -999 (a call error) are not "someone else is maintaining": refused with the code.
        IF @q$lock = -1
            SET @q$skipped = 1;
        ELSE IF @q$lock < 0
        BEGIN
            DECLARE @q$why nvarchar(2048) = CONCAT(N'qgen: refused on pgs_del.events: maintain could not take its application lock (sp_getapplock returned ',
                @q$lock, N' for principal ', @q$principal, N').');
            THROW 50005, @q$why, 1;
        END
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            EXEC [pgs_del].[events_purge_batch] @older_than_seconds = 604800, @batch_size = @batch_size,
                @archived = @q$archived OUTPUT, @processed = @q$processed OUTPUT, @dead = @q$dead OUTPUT, @result_set = 0;
            EXEC [pgs_del].[events_watermark_correct]
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

-- qgen 0.1.0: job pgs_del.events_job, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [pgs_del].[events_job]
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
            N' is out of range for pgs_del.events_job; accepted: a job id, 1 or more.');
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
    FROM [pgs_del].[events] AS [j]
    WHERE [j].[id] = @job_id;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state], [enqueued_at], [attempts], [last_error], [finished_at])
        SELECT TOP (1) [a].[id], N'archived', [a].[enqueued_at], NULL,
            NULL, [a].[completed_at]
        FROM [pgs_del].[events_archive] AS [a] WITH (READPAST, READCOMMITTEDLOCK)
        WHERE [a].[id] = @job_id
        ORDER BY [a].[entry_id] DESC;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state]) VALUES (@job_id, N'not_found');
    SELECT [id], [state], [enqueued_at], [attempts], [last_error], [finished_at] FROM @q$found;
END;
GO

-- qgen 0.1.0: pause pgs_del.events_pause, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job, and a dequeue waiting with @wait_ms keeps waiting. Enqueues go on, and leases already
-- granted run to their end (complete, fail, extend_lease, release and reap work as before).
-- Returns 1 when this call paused the queue, 0 when it was paused already.
CREATE OR ALTER PROCEDURE [pgs_del].[events_pause]
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
        SELECT @q$was = [paused] FROM [pgs_del].[events_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [pgs_del].[events_control] ([paused], [changed_at], [changed_by]) VALUES (1, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 0;
        END
        ELSE IF @q$was = 0
        BEGIN
            UPDATE [pgs_del].[events_control]
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
            THROW 50005, N'qgen: refused on pgs_del.events: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: resume pgs_del.events_resume, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again (a dequeue waiting with
-- @wait_ms takes one at its next attempt). Returns 1 when this call resumed the queue, 0 when it
-- was not paused.
CREATE OR ALTER PROCEDURE [pgs_del].[events_resume]
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
        SELECT @q$was = [paused] FROM [pgs_del].[events_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [pgs_del].[events_control] ([paused], [changed_at], [changed_by]) VALUES (0, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 1;
        END
        ELSE IF @q$was = 1
        BEGIN
            UPDATE [pgs_del].[events_control]
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
            THROW 50005, N'qgen: refused on pgs_del.events: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: cancel pgs_del.events_cancel, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (@ids: a JSON array of whole numbers from 1, e.g. N'[3, 7]'; at most 1999): each job still
-- in the queue leaves it at once, in this one transaction, deleted (this queue keeps no dead letters), and
-- never runs. One row per distinct id, in id order, [outcome]:
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   held: another open transaction holds it (a claim, or another cancel): READPAST never waits for
--     it, nothing is done. If that transaction rolls back the job is queued again, and can be
--     cancelled then;
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order (the clustered key, FORCESEEK from the ordered list of ids), as
-- every other statement that locks several jobs does, so cancel deadlocks with none of them, at most 5 s (then refused, 50005: nothing done).
CREATE OR ALTER PROCEDURE [pgs_del].[events_cancel]
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
        FROM [pgs_del].[events] AS [job] WITH (UPDLOCK, ROWLOCK, READPAST, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]);
        DELETE FROM [pgs_del].[events]
        OUTPUT deleted.[id]
        INTO @q$dead ([id])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on pgs_del.events: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
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
            IF EXISTS (SELECT 1 FROM [pgs_del].[events] WITH (READCOMMITTEDLOCK) WHERE [id] = @q$probe)
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

-- qgen 0.1.0: table pgs_del.typed, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'pgs_del.typed', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_del].[typed]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [kind] nvarchar(20) NOT NULL,
        [v] int NOT NULL,
        [available_at] datetime2(3) NOT NULL CONSTRAINT [typed_available_at_df] DEFAULT (SYSUTCDATETIME()),
        -- 1 while the job waits for its time (delayed by run_at, or released by fail or reap) and no
        -- claim holds it: such a job is in the due index, not the claim index (a filtered index
        -- cannot compare available_at with enqueued_at, so enqueue, fail, reap and dequeue keep it).
        [deferred] bit NOT NULL CONSTRAINT [typed_deferred_df] DEFAULT (0),
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [typed_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [typed_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: claim_index pgs_del.typed_claim_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A delete queue holds only unclaimed rows, so the clustered id already is claim order; this index
-- serves the job-type filter and priority order.
-- Deferred jobs (delayed, or released with a backoff: [deferred] = 1) are left out of it: see the due index below.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'typed_claim_ix' AND object_id = OBJECT_ID(N'pgs_del.typed'))
    CREATE NONCLUSTERED INDEX [typed_claim_ix]
    ON [pgs_del].[typed] ([kind], [id])
    INCLUDE ([available_at], [deferred])
    WHERE [deferred] = 0;
-- The due index: deferred jobs, by the time they become available ([deferred] = 1 only while no
-- claim holds the job: a claim clears it). A claim takes the due ones from here first, so however
-- many wait for their time, no claim and no watermark steps over them.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'typed_claim_ix_due' AND object_id = OBJECT_ID(N'pgs_del.typed'))
    CREATE NONCLUSTERED INDEX [typed_claim_ix_due]
    ON [pgs_del].[typed] ([available_at], [id])
    INCLUDE ([deferred], [kind])
    WHERE [deferred] = 1;
GO

-- qgen 0.1.0: claim_order_index pgs_del.typed_claim_order_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A dequeue without a job type claims from every sub-queue, in queue order: typed_claim_ix is keyed
-- by job type first and cannot give that order, so this one does.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'typed_claim_order_ix' AND object_id = OBJECT_ID(N'pgs_del.typed'))
    CREATE NONCLUSTERED INDEX [typed_claim_order_ix]
    ON [pgs_del].[typed] ([id])
    INCLUDE ([available_at], [deferred])
    WHERE [deferred] = 0;
GO

-- qgen 0.1.0: watermark_table pgs_del.typed_watermark, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their range seek here instead of
-- walking the ghost records that deleted or claimed rows leave at the low end of the index.
IF OBJECT_ID(N'pgs_del.typed_watermark', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_del].[typed_watermark]
    (
        [id] bigint NOT NULL,
        -- Bumped by every change, so watermark_correct can tell a release happened while it scanned.
        [version] bigint NOT NULL CONSTRAINT [typed_watermark_version_df] DEFAULT (0),
        [one_row] bit NOT NULL CONSTRAINT [typed_watermark_one_row_df] DEFAULT (1),
        -- When the table was last searched below the watermark (by a dequeue's rescan or
        -- watermark_correct): a dequeue rescans when this is watermark.rescan old.
        [corrected_at] datetime2(3) NOT NULL
            CONSTRAINT [typed_watermark_corrected_at_df] DEFAULT ('0001-01-01'),
        CONSTRAINT [typed_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [typed_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [pgs_del].[typed_watermark])
    INSERT INTO [pgs_del].[typed_watermark] ([id]) VALUES (0);
GO

-- qgen 0.1.0: pending_view pgs_del.typed_pending, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [pgs_del].[typed_pending]
AS
SELECT [id], [kind], [v], [available_at], [enqueued_at]
FROM [pgs_del].[typed]
WHERE 1 = 1;
GO

-- qgen 0.1.0: batch_type pgs_del.typed_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it. Its columns are one wider than the
-- table's (m.param_type): a caller's insert into a variable of this type cannot cut or round a value
-- past its column unseen; enqueue_batch refuses it with error 50010.
IF TYPE_ID(N'pgs_del.typed_batch') IS NULL
    CREATE TYPE [pgs_del].[typed_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [kind] nvarchar(21) NOT NULL,
        [v] int NOT NULL,
        [run_at] datetime2(3) NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue pgs_del.typed_enqueue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0). A value past its column's
-- limit is refused with error 50010, never cut or rounded: its parameter is one wider (m.param_type).
CREATE OR ALTER PROCEDURE [pgs_del].[typed_enqueue]
    @kind nvarchar(21),
    @v int,
    @run_at datetime2(3) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF DATALENGTH(@kind) > 40
        THROW 50010, N'qgen: @kind is past its column''s limit in pgs_del.typed_enqueue; accepted: string(20), at most 20 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL);
    BEGIN TRY
        INSERT INTO [pgs_del].[typed] ([kind], [v], [available_at], [deferred])
        -- OUTPUT INTO a table variable: a bare OUTPUT fails once someone adds a trigger to the table (error 334).
        OUTPUT inserted.[id] INTO @q$new ([id])
        VALUES (@kind, @v, COALESCE(@run_at, SYSUTCDATETIME()), CASE WHEN @run_at > SYSUTCDATETIME() THEN 1 ELSE 0 END);
        SELECT [id], CAST(1 AS bit) AS [enqueued] FROM @q$new;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch pgs_del.typed_enqueue_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement (at most 3948: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row.
CREATE OR ALTER PROCEDURE [pgs_del].[typed_enqueue_batch]
    @jobs [pgs_del].[typed_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 3948
        THROW 50003, N'qgen: a batch of more than 3948 jobs is out of range for pgs_del.typed: one statement writing more could escalate to a table lock; accepted: 1 to 3948 jobs per call (split the batch; the client does).', 1;
    DECLARE @q$over int, @q$over_column nvarchar(2048);
    SELECT TOP (1) @q$over = [j].[ordinal],
           @q$over_column = CASE WHEN DATALENGTH([j].[kind]) > 40 THEN N'kind; accepted: string(20), at most 20 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
    FROM @jobs AS [j]
    WHERE DATALENGTH([j].[kind]) > 40
    ORDER BY [j].[ordinal];
    IF @q$over IS NOT NULL
    BEGIN
        DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in pgs_del.typed_enqueue_batch: column ', @q$over_column, N'.');
        THROW 50010, @q$over_message, 1;
    END;
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [pgs_del].[typed] ([kind], [v], [available_at], [deferred])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[kind], [j].[v], COALESCE([j].[run_at], SYSUTCDATETIME()), CASE WHEN [j].[run_at] > SYSUTCDATETIME() THEN 1 ELSE 0 END
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

-- qgen 0.1.0: enqueue_json pgs_del.typed_enqueue_json, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- enqueue_batch for callers that cannot send a table-valued parameter (pyodbc through FreeTDS):
-- the same jobs as one JSON array of objects, one per job, keyed by the batch type's column names.
-- Every job-type and payload column's key must be there (strict paths: a missing or misspelt key is
-- an error, never a silent NULL; give null for no value); "ordinal" (the job's position in the
-- array, from 1), "priority" and "run_at" are optional. A datetime is ISO 8601, UTC when
-- it has no offset; a json column is the JSON text as a string. Needs SQL Server 2016 or later and
-- database compatibility level 130 or higher (OPENJSON). Returns what enqueue_batch returns.
CREATE OR ALTER PROCEDURE [pgs_del].[typed_enqueue_json]
    @jobs nvarchar(max)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$batch [pgs_del].[typed_batch];
    BEGIN TRY
        INSERT INTO @q$batch ([ordinal], [kind], [v], [run_at])
        SELECT COALESCE([j].[ordinal], CAST([a].[key] AS int) + 1),
               [j].[kind],
               [j].[v],
               CONVERT(datetime2(3), SWITCHOFFSET([j].[run_at], '+00:00'))
        FROM OPENJSON(@jobs) AS [a]
        CROSS APPLY OPENJSON([a].[value])
        WITH
        (
            [ordinal] int '$.ordinal',
            [kind] nvarchar(21) 'strict $.kind',
            [v] int 'strict $.v',
            [run_at] datetimeoffset(3) '$.run_at'
        ) AS [j];
        IF (SELECT COUNT(*) FROM @q$batch) > 3948
            THROW 50003, N'qgen: a batch of more than 3948 jobs is out of range for pgs_del.typed: one statement writing more could escalate to a table lock; accepted: 1 to 3948 jobs per call (split the batch; the client does).', 1;
        DECLARE @q$over int, @q$over_column nvarchar(2048);
        SELECT TOP (1) @q$over = [j].[ordinal],
               @q$over_column = CASE WHEN DATALENGTH([j].[kind]) > 40 THEN N'kind; accepted: string(20), at most 20 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
        FROM @q$batch AS [j]
        WHERE DATALENGTH([j].[kind]) > 40
        ORDER BY [j].[ordinal];
        IF @q$over IS NOT NULL
        BEGIN
            DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in pgs_del.typed_enqueue_json: column ', @q$over_column, N'.');
            THROW 50010, @q$over_message, 1;
        END;
        BEGIN TRANSACTION;
        INSERT INTO [pgs_del].[typed] ([kind], [v], [available_at], [deferred])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[kind], [j].[v], COALESCE([j].[run_at], SYSUTCDATETIME()), CASE WHEN [j].[run_at] > SYSUTCDATETIME() THEN 1 ELSE 0 END
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

-- qgen 0.1.0: watermark_move pgs_del.typed_watermark_move, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
-- Deferred jobs ([deferred] = 1) do not stop it: claims find them through the due index, whatever their id.
CREATE OR ALTER PROCEDURE [pgs_del].[typed_watermark_move]
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
    DECLARE @q$current bigint = (SELECT [id] FROM [pgs_del].[typed_watermark] WITH (NOLOCK));
    IF @q$current IS NULL OR @q$current >= @q$target
        RETURN;
    IF EXISTS (SELECT 1 FROM [pgs_del].[typed] AS [job] WITH (NOLOCK)
               WHERE [job].[id] = @q$current
                 AND 1 = 1 AND [job].[deferred] = 0
              )
        RETURN;
    UPDATE [w]
    SET [id] = COALESCE(
            (
                SELECT MIN([job].[id])
                FROM [pgs_del].[typed] AS [job] WITH (NOLOCK)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @q$target
                  AND 1 = 1 AND [job].[deferred] = 0
            ), @q$target),
        [version] = [w].[version] + 1
    FROM [pgs_del].[typed_watermark] AS [w] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK)
    WHERE [w].[id] < @q$target;
END;
GO

-- qgen 0.1.0: watermark_correct pgs_del.typed_watermark_correct, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty;
-- unchanged only when no id was ever generated), never below 0. It repairs a watermark that is wrong
-- either way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it
-- after a drain (run it after a dequeue that found nothing) and for a watermark set by hand. It
-- never waits on the watermark row.
CREATE OR ALTER PROCEDURE [pgs_del].[typed_watermark_correct]
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
        SELECT @q$old = [id] FROM [pgs_del].[typed_watermark] WITH (ROWLOCK, READPAST, UPDLOCK);
        IF @q$old IS NULL AND EXISTS (SELECT 1 FROM [pgs_del].[typed_watermark] WITH (NOLOCK))
        BEGIN
            COMMIT TRANSACTION;
            SET @q$old = (SELECT [id] FROM [pgs_del].[typed_watermark] WITH (NOLOCK));
            SELECT @old_watermark = @q$old, @new_watermark = @q$old;
            IF @result_set = 1
                SELECT @q$old AS [old_watermark], @q$old AS [new_watermark];
            RETURN;
        END;
        -- No row (deleted by hand): lock the empty range (HOLDLOCK) so that one session puts it back.
        IF @q$old IS NULL
            SET @q$old = (SELECT [id] FROM [pgs_del].[typed_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- corrected_at gets the time before the search (it counts as a dequeue's rescan): a job that
        -- becomes claimable below the watermark after this moment may be missed here, and the next
        -- rescan is due watermark.rescan seconds after this moment, so within the bound.
        SET @q$searched = SYSUTCDATETIME();
        -- The scans never wait on a job row (NOLOCK). NOLOCK also sees a job whose insert is not yet
        -- committed, so the watermark does not pass it. Deferred jobs (the [deferred] bit) do not hold
        -- it back: the due index hands them to claims.
        SET @q$new = (SELECT MIN([job].[id]) FROM [pgs_del].[typed] AS [job] WITH (NOLOCK) WHERE 1 = 1 AND [job].[deferred] = 0);
        -- A row an open delete-mode claim holds is invisible to NOLOCK and skipped by READPAST (only
        -- a locking read, which would wait for the claimer, could see it): the correction can pass
        -- it, as the mover can; if that claim rolls back, the rescan finds the job (docs/api.md).
        SET @q$new = @q$new - 50;
        IF @q$new IS NULL
            SET @q$new = (SELECT MAX([id]) + 1 FROM [pgs_del].[typed] WITH (NOLOCK)) - 50;
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
                        WHERE [object_id] = OBJECT_ID(N'[pgs_del].[typed]') AND [name] = N'id') - 50;
        IF @q$new IS NULL
            SET @q$new = COALESCE(@q$old, 0);
        IF @q$new < 0
            SET @q$new = 0;
        IF @q$old IS NULL
            INSERT INTO [pgs_del].[typed_watermark] ([id], [corrected_at]) VALUES (@q$new, @q$searched);
        ELSE
            UPDATE [pgs_del].[typed_watermark] SET [id] = @q$new, [version] = [version] + 1, [corrected_at] = @q$searched;
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

-- qgen 0.1.0: control_table pgs_del.typed_control, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which login). Every
-- claim reads it first, WITH (READPAST, READCOMMITTEDLOCK): a pause or resume counts from its
-- commit, and no claim waits on one left open. A missing row (deleted by hand) reads as running.
IF OBJECT_ID(N'pgs_del.typed_control', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_del].[typed_control]
    (
        [one_row] bit NOT NULL CONSTRAINT [typed_control_one_row_df] DEFAULT (1),
        [paused] bit NOT NULL CONSTRAINT [typed_control_paused_df] DEFAULT (0),
        [changed_at] datetime2(3) NULL,
        [changed_by] nvarchar(128) NULL,
        CONSTRAINT [typed_control_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [typed_control_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [pgs_del].[typed_control])
    INSERT INTO [pgs_del].[typed_control] ([paused]) VALUES (0);
GO

-- qgen 0.1.0: dequeue pgs_del.typed_dequeue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs by deleting them, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction the claim would commit at once (at-most-once delivery): refused unless
-- the caller says so with @at_most_once = 1. A caller with IMPLICIT_TRANSACTIONS ON is inside one:
-- the claim opens it, and the caller's COMMIT or ROLLBACK ends it.
-- @owner is accepted and unused here (the claim deletes the row: nothing records it), as on
-- PostgreSQL, so one call works in either claim mode.
CREATE OR ALTER PROCEDURE [pgs_del].[typed_dequeue]
    @owner nvarchar(129) = NULL,
    @batch_size int = 10,
    @job_type nvarchar(21) = NULL,
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
            N' is out of range for pgs_del.typed_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in pgs_del.typed_dequeue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF NOT (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2) AND ISNULL(@at_most_once, 0) = 0
        THROW 50005, N'qgen: refused on pgs_del.typed: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass @at_most_once = 1', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on pgs_del.typed: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0, or claim with @at_most_once = 1', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [kind] nvarchar(20) NOT NULL,
        [v] int NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL
    );
    DECLARE @q$from bigint;
    -- What the claim index is left to fill once the due deferred jobs are claimed.
    DECLARE @q$rest int;
    BEGIN TRY
        -- @wait_ms: each attempt to claim starts here, in a transaction of its own (see the wait block below).
    q$attempt:
        BEGIN TRANSACTION;
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [pgs_del].[typed_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
        -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
        IF EXISTS (SELECT 1 FROM [pgs_del].[typed_watermark] WITH (NOLOCK) WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME()))
        BEGIN
            DECLARE @q$mark bigint, @q$stranded bigint;
            UPDATE [pgs_del].[typed_watermark] WITH (ROWLOCK, READPAST, UPDLOCK)
            SET @q$mark = [id], [corrected_at] = SYSUTCDATETIME(), [version] = [version] + 1
            WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME());
            IF @@ROWCOUNT = 1
            BEGIN
                SELECT @q$stranded = MIN([job].[id])
                FROM [pgs_del].[typed] AS [job] WITH (NOLOCK)
                WHERE [job].[id] < @q$mark AND 1 = 1 AND [job].[deferred] = 0;
                IF @q$stranded IS NOT NULL
                    UPDATE [pgs_del].[typed_watermark]
                    SET [id] = CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END,
                        [version] = [version] + 1
                    WHERE [id] > CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END;
            END;
        END
        ELSE IF NOT EXISTS (SELECT 1 FROM [pgs_del].[typed_watermark] WITH (NOLOCK))
            INSERT INTO [pgs_del].[typed_watermark] ([id])
            SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM [pgs_del].[typed_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
        -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
        -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
        -- A missing row reads as 0.
        SET @q$from = COALESCE((SELECT [id] FROM [pgs_del].[typed_watermark] WITH (NOLOCK)), 0);
        IF @job_type IS NULL
        BEGIN
            ;WITH [due_job] AS
            (
                SELECT TOP (@batch_size) [id], [kind], [v], [enqueued_at]
                -- The one reference to the table (see the claim below); it seeks the due index.
                FROM [pgs_del].[typed] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE [deferred] = 1 AND [available_at] <= @q$now
                ORDER BY [available_at], [id]
            )
            DELETE FROM [due_job]
            OUTPUT deleted.[id], deleted.[kind], deleted.[v], deleted.[enqueued_at]
            INTO @q$claimed ([id], [kind], [v], [enqueued_at])
            -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
            OPTION (OPTIMIZE FOR (@batch_size = 1));
            -- Then the rest of the batch from the claim index, which holds only claimable jobs.
            SET @q$rest = @batch_size - @@ROWCOUNT;
            IF @q$rest > 0
            BEGIN
                ;WITH [next_job] AS
                (
                    SELECT TOP (@q$rest) [id], [kind], [v], [enqueued_at]
                    -- The one reference to the table: these hints hold for every row the claim reads.
                    FROM [pgs_del].[typed] WITH (ROWLOCK, READPAST, UPDLOCK)
                    WHERE [available_at] <= @q$now AND [deferred] = 0
                      AND [id] >= @q$from
                    ORDER BY [id]
                )
                DELETE FROM [next_job]
                OUTPUT deleted.[id], deleted.[kind], deleted.[v], deleted.[enqueued_at]
                INTO @q$claimed ([id], [kind], [v], [enqueued_at])
                -- Planned for one row, whatever @q$rest the first call sniffed: a seek in queue order.
                OPTION (OPTIMIZE FOR (@q$rest = 1));
            END;
        END
        ELSE
        BEGIN
            ;WITH [due_job] AS
            (
                SELECT TOP (@batch_size) [id], [kind], [v], [enqueued_at]
                -- The one reference to the table (see the claim below); it seeks the due index.
                FROM [pgs_del].[typed] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE [deferred] = 1 AND [available_at] <= @q$now
                  AND [kind] = @job_type
                ORDER BY [available_at], [id]
            )
            DELETE FROM [due_job]
            OUTPUT deleted.[id], deleted.[kind], deleted.[v], deleted.[enqueued_at]
            INTO @q$claimed ([id], [kind], [v], [enqueued_at])
            -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
            OPTION (OPTIMIZE FOR (@batch_size = 1));
            -- Then the rest of the batch from the claim index, which holds only claimable jobs.
            SET @q$rest = @batch_size - @@ROWCOUNT;
            IF @q$rest > 0
            BEGIN
                ;WITH [next_job] AS
                (
                    SELECT TOP (@q$rest) [id], [kind], [v], [enqueued_at]
                    -- The one reference to the table: these hints hold for every row the claim reads.
                    FROM [pgs_del].[typed] WITH (ROWLOCK, READPAST, UPDLOCK)
                    WHERE [available_at] <= @q$now AND [deferred] = 0
                      AND [id] >= @q$from
                      AND [kind] = @job_type
                    ORDER BY [id]
                )
                DELETE FROM [next_job]
                OUTPUT deleted.[id], deleted.[kind], deleted.[v], deleted.[enqueued_at]
                INTO @q$claimed ([id], [kind], [v], [enqueued_at])
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
            EXEC [pgs_del].[typed_watermark_move] @claimed_from = @q$highest;
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
        SELECT [id], [kind], [v], [enqueued_at]
        FROM @q$claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: metrics pgs_del.typed_metrics, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now, for dashboards and alerts. Each count reads the one index that
-- holds its rows (claim, due, lease, processed index; the dead-letter and archive tables), never the
-- whole queue table (finished rows included), and does not wait on a row: WITH (READPAST,
-- READCOMMITTEDLOCK) skips a row another transaction holds (a job being claimed, completed or enqueued right now),
-- the watermark's one row is read WITH (NOLOCK). So under concurrency the numbers are approximate:
-- a job changing at that moment is counted in neither state, and the counts are not one snapshot.
-- READPAST skips row and page locks only: a table lock (an escalated lock of a large transaction,
-- uninstall's TABLOCKX, an offline index build) still makes it wait.
CREATE OR ALTER PROCEDURE [pgs_del].[typed_metrics]
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
    -- Unclaimed jobs not deferred: the claim index.
    SELECT @q$ready = COUNT_BIG(CASE WHEN [available_at] <= @q$now THEN 1 END),
        @q$scheduled = COUNT_BIG(CASE WHEN [available_at] > @q$now THEN 1 END),
        @q$oldest_id = MIN(CASE WHEN [available_at] <= @q$now THEN [id] END),
        @q$lowest = MIN([id])
    FROM [pgs_del].[typed] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [deferred] = 0;
    -- Deferred jobs (delayed, backed off, released): the due index.
    SELECT @q$due_ready = COUNT_BIG(CASE WHEN [available_at] <= @q$now THEN 1 END),
        @q$due_scheduled = COUNT_BIG(CASE WHEN [available_at] > @q$now THEN 1 END),
        @q$due_oldest = MIN(CASE WHEN [available_at] <= @q$now THEN [id] END),
        @q$due_lowest = MIN([id])
    FROM [pgs_del].[typed] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [deferred] = 1;
    SELECT @q$ready += @q$due_ready, @q$scheduled += @q$due_scheduled,
        @q$oldest_id = CASE WHEN @q$due_oldest < @q$oldest_id OR @q$oldest_id IS NULL THEN @q$due_oldest ELSE @q$oldest_id END,
        @q$lowest = CASE WHEN @q$due_lowest < @q$lowest OR @q$lowest IS NULL THEN @q$due_lowest ELSE @q$lowest END;
    -- One row, a value: read without waiting on a transaction that holds it (a dirty value at worst).
    SELECT @q$watermark = [id] FROM [pgs_del].[typed_watermark] WITH (NOLOCK);
    -- The highest id: the last key of the clustered index (one row, skipped if locked).
    SELECT @q$highest = MAX([id]) FROM [pgs_del].[typed] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$ready AS [ready], @q$scheduled AS [scheduled], @q$in_flight AS [in_flight], @q$expired AS [expired],
        @q$processed AS [processed], @q$dead AS [dead], @q$archived AS [archived],
        -- The age of the oldest ready job: the one with the lowest id (ids grow with enqueued_at).
        COALESCE(DATEDIFF_BIG(second, (SELECT [enqueued_at] FROM [pgs_del].[typed] WITH (READPAST, READCOMMITTEDLOCK) WHERE [id] = @q$oldest_id), @q$now), 0)
            AS [oldest_ready_age_seconds],
        @q$watermark AS [watermark],
        @q$lowest AS [lowest_pending_id],
        -- on_complete: delete leaves no trace of a completion to count.
        CAST(NULL AS bigint) AS [completed_last_minute],
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        COALESCE(@q$lowest, @q$highest + 1) - @q$watermark AS [watermark_lag],
        CAST(CASE WHEN NOT EXISTS (SELECT 1 FROM [pgs_del].[typed_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0) THEN 1 ELSE 0 END AS bit) AS [paused];
END;
GO

-- qgen 0.1.0: peek pgs_del.typed_peek, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them.
CREATE OR ALTER PROCEDURE [pgs_del].[typed_peek]
    @job_type nvarchar(21) = NULL,
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    -- NULL or negative is refused with the other argument checks' code (TOP would raise 1014).
    IF @limit IS NULL OR @limit < 0
        THROW 50003, N'qgen: @limit is out of range for pgs_del.typed_peek; accepted: 0 or more rows.', 1;
    SELECT TOP (@limit) [id], [kind], [v], [available_at], [enqueued_at]
    FROM [pgs_del].[typed_pending]
    WHERE @job_type IS NULL OR [kind] = @job_type
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge_batch pgs_del.typed_purge_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds: at most @batch_size rows (1000 by default, refused above 3948) over all those
-- tables together, in one transaction (the caller's, when there is one). purge loops over batches;
-- maintain runs one.
CREATE OR ALTER PROCEDURE [pgs_del].[typed_purge_batch]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 3948
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 3948 (a batch stays well under lock escalation).', 1;
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

-- qgen 0.1.0: purge pgs_del.typed_purge, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds, in batches of at most @batch_size rows (1000 by default, refused above 3948),
-- each committed on its own, so no statement takes enough locks to escalate to a table lock and
-- no transaction holds more than one batch. The cutoff is fixed when the call begins, so rows that
-- finish while it runs are left for the next purge and the loop ends. It must commit per batch,
-- so it refuses to run inside the caller's transaction (error 50004: there, call
-- typed_purge_batch, which deletes one batch in that transaction).
CREATE OR ALTER PROCEDURE [pgs_del].[typed_purge]
    @older_than_seconds int = 604800,
    @batch_size int = 1000
AS
BEGIN
    -- READPAST needs READ COMMITTED (or REPEATABLE READ): pinned here, whatever the caller runs at.
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 3948
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 3948 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    IF (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50004, N'qgen: purge commits after every batch, which it cannot do inside the caller''s transaction (or with IMPLICIT_TRANSACTIONS ON, where its first statement would open one); call it outside a transaction in autocommit mode, or call typed_purge_batch (one batch) there.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$archived bigint = 0, @q$processed bigint = 0, @q$dead bigint = 0, @q$deleted int;
    SELECT @q$archived AS [archived], @q$processed AS [processed], @q$dead AS [dead];
END;
GO

-- qgen 0.1.0: maintain pgs_del.typed_maintain, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [pgs_del].[typed_maintain]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 3948
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 3948 (a batch stays well under lock escalation).', 1;
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
            @Resource = N'qgen.maintain:[pgs_del].[typed]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0, @DbPrincipal = @q$principal;
        -- -1: not granted at once, another maintain holds it. -2 (cancelled), -3 (deadlock victim)
        -- and -999 (a call error) are not "someone else is maintaining": refused with the code.
        IF @q$lock = -1
            SET @q$skipped = 1;
        ELSE IF @q$lock < 0
        BEGIN
            DECLARE @q$why nvarchar(2048) = CONCAT(N'qgen: refused on pgs_del.typed: maintain could not take its application lock (sp_getapplock returned ',
                @q$lock, N' for principal ', @q$principal, N').');
            THROW 50005, @q$why, 1;
        END
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            EXEC [pgs_del].[typed_purge_batch] @older_than_seconds = 604800, @batch_size = @batch_size,
                @archived = @q$archived OUTPUT, @processed = @q$processed OUTPUT, @dead = @q$dead OUTPUT, @result_set = 0;
            EXEC [pgs_del].[typed_watermark_correct]
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

-- qgen 0.1.0: job pgs_del.typed_job, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [pgs_del].[typed_job]
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
            N' is out of range for pgs_del.typed_job; accepted: a job id, 1 or more.');
        THROW 50003, @q$error, 1;
    END;
    DECLARE @q$found TABLE
    (
        [id] bigint NOT NULL,
        [state] nvarchar(16) NOT NULL,
        [enqueued_at] datetime2(3) NULL,
        [available_at] datetime2(3) NULL,
        [attempts] int NULL,
        [last_error] nvarchar(4000) NULL,
        [finished_at] datetime2(3) NULL
    );
    INSERT INTO @q$found ([id], [state], [enqueued_at], [available_at], [attempts], [last_error], [finished_at])
    SELECT [j].[id], CASE WHEN [j].[available_at] > SYSUTCDATETIME() THEN N'scheduled' ELSE N'queued' END,
        [j].[enqueued_at], [j].[available_at],
        NULL,
        NULL, NULL
    FROM [pgs_del].[typed] AS [j]
    WHERE [j].[id] = @job_id;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state]) VALUES (@job_id, N'not_found');
    SELECT [id], [state], [enqueued_at], [available_at], [attempts], [last_error], [finished_at] FROM @q$found;
END;
GO

-- qgen 0.1.0: pause pgs_del.typed_pause, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job, and a dequeue waiting with @wait_ms keeps waiting. Enqueues go on, and leases already
-- granted run to their end (complete, fail, extend_lease, release and reap work as before).
-- Returns 1 when this call paused the queue, 0 when it was paused already.
CREATE OR ALTER PROCEDURE [pgs_del].[typed_pause]
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
        SELECT @q$was = [paused] FROM [pgs_del].[typed_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [pgs_del].[typed_control] ([paused], [changed_at], [changed_by]) VALUES (1, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 0;
        END
        ELSE IF @q$was = 0
        BEGIN
            UPDATE [pgs_del].[typed_control]
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
            THROW 50005, N'qgen: refused on pgs_del.typed: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: resume pgs_del.typed_resume, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again (a dequeue waiting with
-- @wait_ms takes one at its next attempt). Returns 1 when this call resumed the queue, 0 when it
-- was not paused.
CREATE OR ALTER PROCEDURE [pgs_del].[typed_resume]
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
        SELECT @q$was = [paused] FROM [pgs_del].[typed_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [pgs_del].[typed_control] ([paused], [changed_at], [changed_by]) VALUES (0, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 1;
        END
        ELSE IF @q$was = 1
        BEGIN
            UPDATE [pgs_del].[typed_control]
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
            THROW 50005, N'qgen: refused on pgs_del.typed: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: cancel pgs_del.typed_cancel, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (@ids: a JSON array of whole numbers from 1, e.g. N'[3, 7]'; at most 3948): each job still
-- in the queue leaves it at once, in this one transaction, deleted (this queue keeps no dead letters), and
-- never runs. One row per distinct id, in id order, [outcome]:
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   held: another open transaction holds it (a claim, or another cancel): READPAST never waits for
--     it, nothing is done. If that transaction rolls back the job is queued again, and can be
--     cancelled then;
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order (the clustered key, FORCESEEK from the ordered list of ids), as
-- every other statement that locks several jobs does, so cancel deadlocks with none of them, at most 5 s (then refused, 50005: nothing done).
CREATE OR ALTER PROCEDURE [pgs_del].[typed_cancel]
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
    IF (SELECT COUNT(*) FROM OPENJSON(@ids)) > 3948
        THROW 50003, N'qgen: @ids lists more than 3948 jobs; accepted: 1 to 3948 per call (a bigger one could escalate to a table lock).', 1;
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
        FROM [pgs_del].[typed] AS [job] WITH (UPDLOCK, ROWLOCK, READPAST, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]);
        DELETE FROM [pgs_del].[typed]
        OUTPUT deleted.[id]
        INTO @q$dead ([id])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on pgs_del.typed: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
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
            IF EXISTS (SELECT 1 FROM [pgs_del].[typed] WITH (READCOMMITTEDLOCK) WHERE [id] = @q$probe)
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

-- qgen 0.1.0: grants to roles pgs_del_producer, pgs_del_consumer, pgs_del_admin, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[pgs_del].[events_enqueue] TO [pgs_del_producer];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_enqueue_batch] TO [pgs_del_producer];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_enqueue_json] TO [pgs_del_producer];
GRANT EXECUTE ON TYPE::[pgs_del].[events_batch] TO [pgs_del_producer];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_dequeue] TO [pgs_del_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[pgs_del].[events_watermark_correct] TO [pgs_del_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[pgs_del].[events] TO [pgs_del_consumer];
GRANT VIEW DEFINITION ON OBJECT::[pgs_del].[events] TO [pgs_del_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[pgs_del].[events_maintain] TO [pgs_del_consumer];
GRANT SELECT ON OBJECT::[pgs_del].[events_pending] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_enqueue] TO [pgs_del_producer];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_enqueue_batch] TO [pgs_del_producer];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_enqueue_json] TO [pgs_del_producer];
GRANT EXECUTE ON TYPE::[pgs_del].[typed_batch] TO [pgs_del_producer];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_dequeue] TO [pgs_del_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_watermark_correct] TO [pgs_del_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[pgs_del].[typed] TO [pgs_del_consumer];
GRANT VIEW DEFINITION ON OBJECT::[pgs_del].[typed] TO [pgs_del_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_maintain] TO [pgs_del_consumer];
GRANT SELECT ON OBJECT::[pgs_del].[typed_pending] TO [pgs_del_admin];
-- The admin role runs every procedure qgen created, and nothing else: each by name, never EXECUTE
-- ON SCHEMA, which in a shared schema (or dbo) would reach every application procedure, present
-- and future (upgrade.sql takes back a schema-wide grant a former version made).
GRANT EXECUTE ON OBJECT::[pgs_del].[events_enqueue] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_enqueue_batch] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_enqueue_json] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_watermark_move] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_watermark_correct] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_dequeue] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_metrics] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_peek] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_purge_batch] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_purge] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_maintain] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_job] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_pause] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_resume] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[events_cancel] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_enqueue] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_enqueue_batch] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_enqueue_json] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_watermark_move] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_watermark_correct] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_dequeue] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_metrics] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_peek] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_purge_batch] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_purge] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_maintain] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_job] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_pause] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_resume] TO [pgs_del_admin];
GRANT EXECUTE ON OBJECT::[pgs_del].[typed_cancel] TO [pgs_del_admin];
GRANT EXECUTE ON TYPE::[pgs_del].[events_batch] TO [pgs_del_admin];
GRANT EXECUTE ON TYPE::[pgs_del].[typed_batch] TO [pgs_del_admin];
GO

-- qgen 0.1.0: verify pgs_del, rendered for SQL Server (T-SQL) from spec.yaml.
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
WHERE [s].[name] = N'pgs_del'
  AND [o].[name] IN
  (
      N'events',
      N'events_watermark',
      N'events_archive',
      N'events_archive_ix',
      N'events_pending',
      N'events_batch',
      N'events_enqueue',
      N'events_enqueue_batch',
      N'events_enqueue_json',
      N'events_watermark_move',
      N'events_watermark_correct',
      N'events_control',
      N'events_dequeue',
      N'events_metrics',
      N'events_peek',
      N'events_purge_batch',
      N'events_purge',
      N'events_maintain',
      N'events_job',
      N'events_pause',
      N'events_resume',
      N'events_cancel',
      N'typed',
      N'typed_claim_ix',
      N'typed_claim_order_ix',
      N'typed_watermark',
      N'typed_pending',
      N'typed_batch',
      N'typed_enqueue',
      N'typed_enqueue_batch',
      N'typed_enqueue_json',
      N'typed_watermark_move',
      N'typed_watermark_correct',
      N'typed_control',
      N'typed_dequeue',
      N'typed_metrics',
      N'typed_peek',
      N'typed_purge_batch',
      N'typed_purge',
      N'typed_maintain',
      N'typed_job',
      N'typed_pause',
      N'typed_resume',
      N'typed_cancel'
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
IF OBJECT_ID(N'pgs_del.events') IS NULL
    SET @q$missing += N' pgs_del.events';
IF OBJECT_ID(N'pgs_del.events_watermark') IS NULL
    SET @q$missing += N' pgs_del.events_watermark';
IF OBJECT_ID(N'pgs_del.events_archive') IS NULL
    SET @q$missing += N' pgs_del.events_archive';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'events_archive_ix' AND [object_id] = OBJECT_ID(N'pgs_del.events_archive'))
    SET @q$missing += N' pgs_del.events_archive_ix';
IF OBJECT_ID(N'pgs_del.events_pending') IS NULL
    SET @q$missing += N' pgs_del.events_pending';
IF TYPE_ID(N'pgs_del.events_batch') IS NULL
    SET @q$missing += N' pgs_del.events_batch';
IF OBJECT_ID(N'pgs_del.events_enqueue') IS NULL
    SET @q$missing += N' pgs_del.events_enqueue';
IF OBJECT_ID(N'pgs_del.events_enqueue_batch') IS NULL
    SET @q$missing += N' pgs_del.events_enqueue_batch';
IF OBJECT_ID(N'pgs_del.events_enqueue_json') IS NULL
    SET @q$missing += N' pgs_del.events_enqueue_json';
IF OBJECT_ID(N'pgs_del.events_watermark_move') IS NULL
    SET @q$missing += N' pgs_del.events_watermark_move';
IF OBJECT_ID(N'pgs_del.events_watermark_correct') IS NULL
    SET @q$missing += N' pgs_del.events_watermark_correct';
IF OBJECT_ID(N'pgs_del.events_control') IS NULL
    SET @q$missing += N' pgs_del.events_control';
IF OBJECT_ID(N'pgs_del.events_dequeue') IS NULL
    SET @q$missing += N' pgs_del.events_dequeue';
IF OBJECT_ID(N'pgs_del.events_metrics') IS NULL
    SET @q$missing += N' pgs_del.events_metrics';
IF OBJECT_ID(N'pgs_del.events_peek') IS NULL
    SET @q$missing += N' pgs_del.events_peek';
IF OBJECT_ID(N'pgs_del.events_purge_batch') IS NULL
    SET @q$missing += N' pgs_del.events_purge_batch';
IF OBJECT_ID(N'pgs_del.events_purge') IS NULL
    SET @q$missing += N' pgs_del.events_purge';
IF OBJECT_ID(N'pgs_del.events_maintain') IS NULL
    SET @q$missing += N' pgs_del.events_maintain';
IF OBJECT_ID(N'pgs_del.events_job') IS NULL
    SET @q$missing += N' pgs_del.events_job';
IF OBJECT_ID(N'pgs_del.events_pause') IS NULL
    SET @q$missing += N' pgs_del.events_pause';
IF OBJECT_ID(N'pgs_del.events_resume') IS NULL
    SET @q$missing += N' pgs_del.events_resume';
IF OBJECT_ID(N'pgs_del.events_cancel') IS NULL
    SET @q$missing += N' pgs_del.events_cancel';
IF OBJECT_ID(N'pgs_del.typed') IS NULL
    SET @q$missing += N' pgs_del.typed';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'typed_claim_ix' AND [object_id] = OBJECT_ID(N'pgs_del.typed'))
    SET @q$missing += N' pgs_del.typed_claim_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'typed_claim_order_ix' AND [object_id] = OBJECT_ID(N'pgs_del.typed'))
    SET @q$missing += N' pgs_del.typed_claim_order_ix';
IF OBJECT_ID(N'pgs_del.typed_watermark') IS NULL
    SET @q$missing += N' pgs_del.typed_watermark';
IF OBJECT_ID(N'pgs_del.typed_pending') IS NULL
    SET @q$missing += N' pgs_del.typed_pending';
IF TYPE_ID(N'pgs_del.typed_batch') IS NULL
    SET @q$missing += N' pgs_del.typed_batch';
IF OBJECT_ID(N'pgs_del.typed_enqueue') IS NULL
    SET @q$missing += N' pgs_del.typed_enqueue';
IF OBJECT_ID(N'pgs_del.typed_enqueue_batch') IS NULL
    SET @q$missing += N' pgs_del.typed_enqueue_batch';
IF OBJECT_ID(N'pgs_del.typed_enqueue_json') IS NULL
    SET @q$missing += N' pgs_del.typed_enqueue_json';
IF OBJECT_ID(N'pgs_del.typed_watermark_move') IS NULL
    SET @q$missing += N' pgs_del.typed_watermark_move';
IF OBJECT_ID(N'pgs_del.typed_watermark_correct') IS NULL
    SET @q$missing += N' pgs_del.typed_watermark_correct';
IF OBJECT_ID(N'pgs_del.typed_control') IS NULL
    SET @q$missing += N' pgs_del.typed_control';
IF OBJECT_ID(N'pgs_del.typed_dequeue') IS NULL
    SET @q$missing += N' pgs_del.typed_dequeue';
IF OBJECT_ID(N'pgs_del.typed_metrics') IS NULL
    SET @q$missing += N' pgs_del.typed_metrics';
IF OBJECT_ID(N'pgs_del.typed_peek') IS NULL
    SET @q$missing += N' pgs_del.typed_peek';
IF OBJECT_ID(N'pgs_del.typed_purge_batch') IS NULL
    SET @q$missing += N' pgs_del.typed_purge_batch';
IF OBJECT_ID(N'pgs_del.typed_purge') IS NULL
    SET @q$missing += N' pgs_del.typed_purge';
IF OBJECT_ID(N'pgs_del.typed_maintain') IS NULL
    SET @q$missing += N' pgs_del.typed_maintain';
IF OBJECT_ID(N'pgs_del.typed_job') IS NULL
    SET @q$missing += N' pgs_del.typed_job';
IF OBJECT_ID(N'pgs_del.typed_pause') IS NULL
    SET @q$missing += N' pgs_del.typed_pause';
IF OBJECT_ID(N'pgs_del.typed_resume') IS NULL
    SET @q$missing += N' pgs_del.typed_resume';
IF OBJECT_ID(N'pgs_del.typed_cancel') IS NULL
    SET @q$missing += N' pgs_del.typed_cancel';
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
WHERE [s].[name] = N'pgs_del'
  AND [o].[name] IN
  (
      N'events_maintain',
      N'typed_maintain'
  )
  AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$owners <> N''
BEGIN
    DECLARE @q$impersonate nvarchar(2048) = LEFT(N'qgen: maintain runs WITH EXECUTE AS OWNER, which cannot impersonate its owner, '
        + N'so every call of it fails:' + @q$owners + N'. Give schema [pgs_del] to a user, ALTER AUTHORIZATION ON SCHEMA::'
        + N'[pgs_del] TO [dbo]; (a procedure given an owner of its own: ALTER AUTHORIZATION ON OBJECT::... TO SCHEMA OWNER;), '
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
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'pgs_del.' + [r].[name]), N' '))
FROM
(
    VALUES
        (N'events_cancel', 0x4CC58415ADECC51C3815BB68461D1AD6AA51D887A096062245A81A337F9E84BB),
        (N'events_dequeue', 0x75E5B875001A1E15C0E44D96A24AF4B8ACC550037E9956E15EDA1870097ABE8C),
        (N'events_enqueue', 0x1B2F682B7B2D7FAB79473276903E6D3B834E58403E98A22C50106B9927F558F0),
        (N'events_enqueue_batch', 0xCB9F1B82CAAD974860E5A114150DEA2EF652038BA0F929BA86BDCD31566B13EE),
        (N'events_enqueue_json', 0x7A4929CE07A4F364865467AEC620AAC1D67B63AEBF0FF7A4A1002EC5F4EE47A1),
        (N'events_job', 0x6D483BAB994BBF48B37016FE497285B5B01C2B16A7AEFD8B192DD8EE600FBF97),
        (N'events_maintain', 0xDC9B1D98C01705254839ABF03690A4A69AB14603B3018FE1C10936667ED1E648),
        (N'events_metrics', 0x2B22C2DC44FF57030CBCB6A505BA82970F6ECC3E52F59D3DD3062EF965571E79),
        (N'events_pause', 0x7946A836B65473A765940C070EAD91A4B62E756C5BE703AE401EF3AB85B96B09),
        (N'events_peek', 0x3C5B881F19DAEE6D6ADEAA5065DCB4D91A6BFC90C19FD0D4E577AEA83694FEE3),
        (N'events_pending', 0x24845741BC927C4DFD1DDDCD48712972243E891AEDE3D7EC50C15C8B471DC704),
        (N'events_purge', 0x245B1CD7519C22F7D683975B1A7DCA3383B15137A4DEC57A13CC6C81DC8E0C9B),
        (N'events_purge_batch', 0xB63C5E5A7A1A6AB20BA16715F8675F11F323EECB5A9FEE06E4DCD023D9047E93),
        (N'events_resume', 0x2D9151BB09FF4C1D6D96FBBC7008CD43F1EF9C5AFE7CEAE3EBFE5015F5332892),
        (N'events_watermark_correct', 0x4CF12B5C548B4F0A0FB552F98568F605C1EC91F385B886389B7769F3209050AA),
        (N'events_watermark_move', 0xE92F6E6D6C33D7DE170A833C0B7B3A28FFD08F00820B496D5308B100C6C3F79E),
        (N'typed_cancel', 0x14614F209C11787BE35F76769DCA8200EE68CA276239424CC385CAA6F58C8145),
        (N'typed_dequeue', 0x1FE0CDCE71610D3716A75C876F89327BFF3B8C923A125049E89242E4FE9ACD02),
        (N'typed_enqueue', 0xE91AD6498D0C21F0E66F21EE9E86DCDE51B61C35169A5AFAD9C9BAEF6A614824),
        (N'typed_enqueue_batch', 0xE74330D454930339CB6E1819F1C1B4A06980560D5D6A8B38CC0FEC50321BAFA8),
        (N'typed_enqueue_json', 0x10476EBFDF03B51D0354108CF6D78DFB2D1D5692C7EE1D2310131A284F73BD54),
        (N'typed_job', 0x6E4C3082F5300AC351892ACC125DACF826B280ED02323E4ABC7D4D5075788F1C),
        (N'typed_maintain', 0x12B8D3BAD12C954B5CA16C012E3DD1ADF092957993D7C946D300CB70F0CD1E03),
        (N'typed_metrics', 0xBC8BF292B2CBC5A72FED653BECE4E4BA85B5577AA35F6ADF8EAEB60D14A4ADAD),
        (N'typed_pause', 0xE687D800BD049A7617DAABBA5D4E5611915F68A8BCBB34816C5CA7B4995AC4E5),
        (N'typed_peek', 0x17ECA675D9451806525674489EF47DD736C9BA939827DBE6E97972C29873C450),
        (N'typed_pending', 0x7773F9587E53674A8BDF49CAFDA6EE81499CECC9CFEB2AA321394798D6F6F627),
        (N'typed_purge', 0x354A23814872F40D33FE8680F76C6D3E94FEDF6F15172ED2B29D599A25D6BDB6),
        (N'typed_purge_batch', 0xF81143C6F10A1264FB385310F88968EA34D981C0A859E55447E36DBB1072616F),
        (N'typed_resume', 0x0E83E6716E8BBE6C6DF1E02451119F9C1B4F4C616D06974CCB54401EBB7CFFF2),
        (N'typed_watermark_correct', 0xDA1588392C52069907EA441B3D818A0EC3B77C4BB0F9482B452933DAF1B273D2),
        (N'typed_watermark_move', 0xB637B60E7FCF00B639E23804B8B5D86A2FC758C240FDFE69785163024C114C8A)
) AS [r]([name], [fingerprint])
INNER JOIN sys.sql_modules AS [sm] ON [sm].[object_id] = OBJECT_ID(N'pgs_del.' + [r].[name])
CROSS APPLY (SELECT [sm].[definition] COLLATE Latin1_General_BIN2 AS [text]) AS [d]
WHERE HASHBYTES('SHA2_256', REPLACE(REPLACE(REPLACE(REPLACE(
          SUBSTRING([d].[text], CHARINDEX(N'[pgs_del].[' + [r].[name] + N']' COLLATE Latin1_General_BIN2, [d].[text]), LEN([d].[text])),
          NCHAR(32), N''), NCHAR(9), N''), NCHAR(10), N''), NCHAR(13), N'')) <> [r].[fingerprint];
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'pgs_del.' + [r].[table] + N'.' + [r].[name]
    + N' (' + COALESCE([shape].[now], N'?') + N', rendered ' + [r].[shape] + N')'), N' '))
FROM
(
    VALUES
        (N'events_archive', N'events_archive_ix', N'(completed_at)'),
        (N'typed', N'typed_claim_ix', N'(kind, id) include (available_at, deferred) where'),
        (N'typed', N'typed_claim_ix_due', N'(available_at, id) include (deferred, kind) where'),
        (N'typed', N'typed_claim_order_ix', N'(id) include (available_at, deferred) where')
) AS [r]([table], [name], [shape])
INNER JOIN sys.indexes AS [i] ON [i].[object_id] = OBJECT_ID(N'pgs_del.' + [r].[table]) AND [i].[name] = [r].[name]
CROSS APPLY
(
    SELECT CONCAT(CASE WHEN [i].[is_unique] = 1 THEN N'unique ' END,
        N'(', (SELECT STRING_AGG(CONCAT([c].[name], CASE WHEN [ic].[is_descending_key] = 1 THEN N' desc' END), N', ')
                      WITHIN GROUP (ORDER BY [ic].[key_ordinal])
               FROM sys.index_columns AS [ic]
               INNER JOIN sys.columns AS [c] ON [c].[object_id] = [ic].[object_id] AND [c].[column_id] = [ic].[column_id]
               WHERE [ic].[object_id] = [i].[object_id] AND [ic].[index_id] = [i].[index_id] AND [ic].[key_ordinal] > 0), N')',
        (SELECT N' include (' + STRING_AGG([c].[name], N', ') WITHIN GROUP (ORDER BY UPPER([c].[name]) COLLATE Latin1_General_BIN2) + N')'
               FROM sys.index_columns AS [ic]
               INNER JOIN sys.columns AS [c] ON [c].[object_id] = [ic].[object_id] AND [c].[column_id] = [ic].[column_id]
               WHERE [ic].[object_id] = [i].[object_id] AND [ic].[index_id] = [i].[index_id] AND [ic].[is_included_column] = 1),
        CASE WHEN [i].[has_filter] = 1 THEN N' where' END) AS [now]
) AS [shape]
WHERE [shape].[now] <> [r].[shape];
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
