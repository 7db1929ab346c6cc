-- qgen 0.1.0: every object of spec.yaml, for SQL Server (T-SQL), in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- qgen 0.1.0: schema pgs_obq, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Refused before anything is created: a schema that exists and is owned by a database role (or an
-- application role, a group, a user mapped to a certificate or key). Its procedures are owned by
-- that owner, and maintain runs WITH EXECUTE AS OWNER, which can impersonate only a user: every
-- call of maintain would fail (error 15517) long after install succeeded. sqlcmd and SSMS go on to
-- the next batch after an error: the batch after the refusal sets NOEXEC ON, so no later batch runs
-- (verify, install's last batch, sets it OFF again).
DECLARE @q$refused nvarchar(2048);
SELECT @q$refused = CONCAT(N'qgen: install refused: schema [pgs_obq] is owned by ', QUOTENAME([p].[name]), N' (',
    [p].[type_desc], N'), which EXECUTE AS OWNER cannot impersonate: qgen''s maintain procedures run as the schema''s owner, ',
    N'so every call of maintain would fail. Give the schema to a user, ALTER AUTHORIZATION ON SCHEMA::[pgs_obq] TO [dbo]; ',
    N'(or to another user), then run install.sql again.')
FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'pgs_obq' AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$refused IS NOT NULL
    THROW 50022, @q$refused, 1;
GO

IF EXISTS (SELECT 1 FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'pgs_obq' AND [p].[type] NOT IN ('S', 'U', 'E'))
    SET NOEXEC ON;
GO

-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
-- A schema install creates is marked (extended property qgen.created): uninstall drops only such a one.
IF SCHEMA_ID(N'pgs_obq') IS NULL
BEGIN
    EXEC(N'CREATE SCHEMA [pgs_obq] AUTHORIZATION [dbo];');
    EXEC sys.sp_addextendedproperty @name = N'qgen.created', @value = N'created by the install of qgen''s queues',
        @level0type = N'SCHEMA', @level0name = N'pgs_obq';
END;
GO

-- qgen 0.1.0: roles pgs_obq_producer, pgs_obq_consumer, pgs_obq_admin (database roles), rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
-- A role install creates is recorded on the schema (extended property qgen.created_role.<role>):
-- uninstall drops only such a one, never a role that was there before and that the spec only names.
IF DATABASE_PRINCIPAL_ID(N'pgs_obq_producer') IS NULL
BEGIN
    CREATE ROLE [pgs_obq_producer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'pgs_obq') AND [name] = N'qgen.created_role.pgs_obq_producer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.pgs_obq_producer', @value = N'pgs_obq_producer',
            @level0type = N'SCHEMA', @level0name = N'pgs_obq';
END;
IF DATABASE_PRINCIPAL_ID(N'pgs_obq_consumer') IS NULL
BEGIN
    CREATE ROLE [pgs_obq_consumer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'pgs_obq') AND [name] = N'qgen.created_role.pgs_obq_consumer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.pgs_obq_consumer', @value = N'pgs_obq_consumer',
            @level0type = N'SCHEMA', @level0name = N'pgs_obq';
END;
IF DATABASE_PRINCIPAL_ID(N'pgs_obq_admin') IS NULL
BEGIN
    CREATE ROLE [pgs_obq_admin];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'pgs_obq') AND [name] = N'qgen.created_role.pgs_obq_admin')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.pgs_obq_admin', @value = N'pgs_obq_admin',
            @level0type = N'SCHEMA', @level0name = N'pgs_obq';
END;
GO

-- qgen 0.1.0: table pgs_obq.orders, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'pgs_obq.orders', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_obq].[orders]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [order_no] nvarchar(30) NOT NULL,
        [available_at] datetime2(3) NOT NULL CONSTRAINT [orders_available_at_df] DEFAULT (SYSUTCDATETIME()),
        -- 1 while the job waits for its time (delayed by run_at, or released by fail or reap) and no
        -- claim holds it: such a job is in the due index, not the claim index (a filtered index
        -- cannot compare available_at with enqueued_at, so enqueue, fail, reap and dequeue keep it).
        [deferred] bit NOT NULL CONSTRAINT [orders_deferred_df] DEFAULT (0),
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [orders_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        [attempts] int NOT NULL CONSTRAINT [orders_attempts_df] DEFAULT (0),
        [lease_token] uniqueidentifier NULL,
        [lease_owner] nvarchar(128) NULL,
        [lease_expires_at] datetime2(3) NULL,
        [last_error] nvarchar(4000) NULL,
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [orders_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: claim_index pgs_obq.orders_claim_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
-- Deferred jobs (delayed, or released with a backoff: [deferred] = 1) are left out of it: see the due index below.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'orders_claim_ix' AND object_id = OBJECT_ID(N'pgs_obq.orders'))
    CREATE NONCLUSTERED INDEX [orders_claim_ix]
    ON [pgs_obq].[orders] ([id])
    INCLUDE ([available_at], [lease_token], [deferred])
    WHERE [lease_token] IS NULL AND [deferred] = 0;
-- The due index: deferred jobs, by the time they become available ([deferred] = 1 only while no
-- claim holds the job: a claim clears it). A claim takes the due ones from here first, so however
-- many wait for their time, no claim and no watermark steps over them.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'orders_claim_ix_due' AND object_id = OBJECT_ID(N'pgs_obq.orders'))
    CREATE NONCLUSTERED INDEX [orders_claim_ix_due]
    ON [pgs_obq].[orders] ([available_at], [id])
    INCLUDE ([deferred])
    WHERE [deferred] = 1;
GO

-- qgen 0.1.0: lease_index pgs_obq.orders_lease_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'orders_lease_ix' AND object_id = OBJECT_ID(N'pgs_obq.orders'))
    CREATE NONCLUSTERED INDEX [orders_lease_ix]
    ON [pgs_obq].[orders] ([lease_token]) INCLUDE ([lease_expires_at], [attempts])
    WHERE [lease_token] IS NOT NULL;
GO

-- qgen 0.1.0: watermark_table pgs_obq.orders_watermark, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their range seek here instead of
-- walking the ghost records that deleted or claimed rows leave at the low end of the index.
IF OBJECT_ID(N'pgs_obq.orders_watermark', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_obq].[orders_watermark]
    (
        [id] bigint NOT NULL,
        -- Bumped by every change, so watermark_correct can tell a release happened while it scanned.
        [version] bigint NOT NULL CONSTRAINT [orders_watermark_version_df] DEFAULT (0),
        [one_row] bit NOT NULL CONSTRAINT [orders_watermark_one_row_df] DEFAULT (1),
        -- When the table was last searched below the watermark (by a dequeue's rescan or
        -- watermark_correct): a dequeue rescans when this is watermark.rescan old.
        [corrected_at] datetime2(3) NOT NULL
            CONSTRAINT [orders_watermark_corrected_at_df] DEFAULT ('0001-01-01'),
        CONSTRAINT [orders_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [orders_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [pgs_obq].[orders_watermark])
    INSERT INTO [pgs_obq].[orders_watermark] ([id]) VALUES (0);
GO

-- qgen 0.1.0: dead_letter_table pgs_obq.orders_dead, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: [id] is the job's id, which repeats once the queue's identity is reseeded.
IF OBJECT_ID(N'pgs_obq.orders_dead', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_obq].[orders_dead]
    (
        [entry_id] bigint IDENTITY(1, 1) NOT NULL,
        [id] bigint NOT NULL,
        [order_no] nvarchar(30) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL,
        [last_error] nvarchar(4000) NULL,
        [dead_at] datetime2(3) NOT NULL CONSTRAINT [orders_dead_dead_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [orders_dead_pk] PRIMARY KEY CLUSTERED ([entry_id])
    );
END;
GO

-- qgen 0.1.0: dead_letter_index pgs_obq.orders_dead_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'orders_dead_ix' AND object_id = OBJECT_ID(N'pgs_obq.orders_dead'))
    CREATE NONCLUSTERED INDEX [orders_dead_ix]
    ON [pgs_obq].[orders_dead] ([dead_at]);
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'orders_dead_id_ix' AND object_id = OBJECT_ID(N'pgs_obq.orders_dead'))
    CREATE NONCLUSTERED INDEX [orders_dead_id_ix]
    ON [pgs_obq].[orders_dead] ([id]);
GO

-- qgen 0.1.0: archive_table pgs_obq.orders_archive, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Completed jobs, moved here by complete and removed by purge after the retention period.
-- Keyed by an identity of its own: [id] is the job's id, which repeats once the queue's identity is
-- reseeded (or when a job reaches the archive twice).
IF OBJECT_ID(N'pgs_obq.orders_archive', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_obq].[orders_archive]
    (
        [entry_id] bigint IDENTITY(1, 1) NOT NULL,
        [id] bigint NOT NULL,
        [order_no] nvarchar(30) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL,
        [completed_at] datetime2(3) NOT NULL CONSTRAINT [orders_archive_completed_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [orders_archive_pk] PRIMARY KEY CLUSTERED ([entry_id])
    );
END;
GO

-- qgen 0.1.0: archive_index pgs_obq.orders_archive_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes archived jobs by age: it finds the old ones here instead of scanning the archive.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'orders_archive_ix' AND object_id = OBJECT_ID(N'pgs_obq.orders_archive'))
    CREATE NONCLUSTERED INDEX [orders_archive_ix]
    ON [pgs_obq].[orders_archive] ([completed_at]);
GO

-- qgen 0.1.0: pending_view pgs_obq.orders_pending, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [pgs_obq].[orders_pending]
AS
SELECT [id], [order_no], [available_at], [enqueued_at], [attempts], [last_error]
FROM [pgs_obq].[orders]
WHERE [lease_token] IS NULL;
GO

-- qgen 0.1.0: batch_type pgs_obq.orders_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it. Its columns are one wider than the
-- table's (m.param_type): a caller's insert into a variable of this type cannot cut or round a value
-- past its column unseen; enqueue_batch refuses it with error 50010.
IF TYPE_ID(N'pgs_obq.orders_batch') IS NULL
    CREATE TYPE [pgs_obq].[orders_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [order_no] nvarchar(31) NOT NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue pgs_obq.orders_enqueue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0). A value past its column's
-- limit is refused with error 50010, never cut or rounded: its parameter is one wider (m.param_type).
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_enqueue]
    @order_no nvarchar(31)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF DATALENGTH(@order_no) > 60
        THROW 50010, N'qgen: @order_no is past its column''s limit in pgs_obq.orders_enqueue; accepted: string(30), at most 30 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL);
    BEGIN TRY
        INSERT INTO [pgs_obq].[orders] ([order_no])
        -- OUTPUT INTO a table variable: a bare OUTPUT fails once someone adds a trigger to the table (error 334).
        OUTPUT inserted.[id] INTO @q$new ([id])
        VALUES (@order_no);
        SELECT [id], CAST(1 AS bit) AS [enqueued] FROM @q$new;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch pgs_obq.orders_enqueue_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement (at most 1999: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_enqueue_batch]
    @jobs [pgs_obq].[orders_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 1999
        THROW 50003, N'qgen: a batch of more than 1999 jobs is out of range for pgs_obq.orders: one statement writing more could escalate to a table lock; accepted: 1 to 1999 jobs per call (split the batch; the client does).', 1;
    DECLARE @q$over int, @q$over_column nvarchar(2048);
    SELECT TOP (1) @q$over = [j].[ordinal],
           @q$over_column = CASE WHEN DATALENGTH([j].[order_no]) > 60 THEN N'order_no; accepted: string(30), at most 30 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
    FROM @jobs AS [j]
    WHERE DATALENGTH([j].[order_no]) > 60
    ORDER BY [j].[ordinal];
    IF @q$over IS NOT NULL
    BEGIN
        DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in pgs_obq.orders_enqueue_batch: column ', @q$over_column, N'.');
        THROW 50010, @q$over_message, 1;
    END;
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [pgs_obq].[orders] ([order_no])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[order_no]
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

-- qgen 0.1.0: enqueue_json pgs_obq.orders_enqueue_json, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- enqueue_batch for callers that cannot send a table-valued parameter (pyodbc through FreeTDS):
-- the same jobs as one JSON array of objects, one per job, keyed by the batch type's column names.
-- Every job-type and payload column's key must be there (strict paths: a missing or misspelt key is
-- an error, never a silent NULL; give null for no value); "ordinal" (the job's position in the
-- array, from 1), "priority" and "run_at" are optional. A datetime is ISO 8601, UTC when
-- it has no offset; a json column is the JSON text as a string. Needs SQL Server 2016 or later and
-- database compatibility level 130 or higher (OPENJSON). Returns what enqueue_batch returns.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_enqueue_json]
    @jobs nvarchar(max)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$batch [pgs_obq].[orders_batch];
    BEGIN TRY
        INSERT INTO @q$batch ([ordinal], [order_no])
        SELECT COALESCE([j].[ordinal], CAST([a].[key] AS int) + 1),
               [j].[order_no]
        FROM OPENJSON(@jobs) AS [a]
        CROSS APPLY OPENJSON([a].[value])
        WITH
        (
            [ordinal] int '$.ordinal',
            [order_no] nvarchar(31) 'strict $.order_no'
        ) AS [j];
        IF (SELECT COUNT(*) FROM @q$batch) > 1999
            THROW 50003, N'qgen: a batch of more than 1999 jobs is out of range for pgs_obq.orders: one statement writing more could escalate to a table lock; accepted: 1 to 1999 jobs per call (split the batch; the client does).', 1;
        DECLARE @q$over int, @q$over_column nvarchar(2048);
        SELECT TOP (1) @q$over = [j].[ordinal],
               @q$over_column = CASE WHEN DATALENGTH([j].[order_no]) > 60 THEN N'order_no; accepted: string(30), at most 30 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
        FROM @q$batch AS [j]
        WHERE DATALENGTH([j].[order_no]) > 60
        ORDER BY [j].[ordinal];
        IF @q$over IS NOT NULL
        BEGIN
            DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in pgs_obq.orders_enqueue_json: column ', @q$over_column, N'.');
            THROW 50010, @q$over_message, 1;
        END;
        BEGIN TRANSACTION;
        INSERT INTO [pgs_obq].[orders] ([order_no])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[order_no]
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

-- qgen 0.1.0: watermark_move pgs_obq.orders_watermark_move, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
-- Deferred jobs ([deferred] = 1) do not stop it: claims find them through the due index, whatever their id.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_watermark_move]
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
    -- It also stops at a row another open transaction has locked (present under NOLOCK, skipped by
    -- READPAST): a lease claim inside a caller's transaction that may still roll back, or a
    -- completion in flight. Rows this transaction claimed itself are not skipped by READPAST.
    -- First without a lock: while a row it may not pass sits at the watermark (a claim held open
    -- in a caller's transaction, an insert not yet committed), nothing can move, and dequeue calls
    -- this after every such claim; writing the watermark row then would hold it through the
    -- caller's transaction, and the rescan and the other movers would skip it while claims go on.
    DECLARE @q$current bigint = (SELECT [id] FROM [pgs_obq].[orders_watermark] WITH (NOLOCK));
    IF @q$current IS NULL OR @q$current >= @q$target
        RETURN;
    IF EXISTS (SELECT 1 FROM [pgs_obq].[orders] AS [job] WITH (NOLOCK)
               WHERE [job].[id] = @q$current
                 AND ([job].[lease_token] IS NULL AND [job].[deferred] = 0
                      OR NOT EXISTS (SELECT 1 FROM [pgs_obq].[orders] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                     WHERE [settled].[id] = [job].[id]))
              )
        RETURN;
    UPDATE [w]
    SET [id] = COALESCE(
            (
                SELECT MIN([job].[id])
                FROM [pgs_obq].[orders] AS [job] WITH (NOLOCK)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @q$target
                  AND ([job].[lease_token] IS NULL AND [job].[deferred] = 0
                       OR NOT EXISTS (SELECT 1 FROM [pgs_obq].[orders] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                      WHERE [settled].[id] = [job].[id]))
            ), @q$target),
        [version] = [w].[version] + 1
    FROM [pgs_obq].[orders_watermark] AS [w] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK)
    WHERE [w].[id] < @q$target;
END;
GO

-- qgen 0.1.0: watermark_correct pgs_obq.orders_watermark_correct, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty;
-- unchanged only when no id was ever generated), never below 0. It repairs a watermark that is wrong
-- either way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it
-- after a drain (run it after a dequeue that found nothing) and for a watermark set by hand. It
-- never waits on the watermark row, and never passes a job another transaction holds.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_watermark_correct]
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
    DECLARE @q$held bigint;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- The watermark row first and kept, so that the scan below starts after whatever held it
        -- committed; but never waiting for it (READPAST): workers run this (after an empty dequeue,
        -- and through maintain), and another transaction may hold the row for as long as it stays
        -- open (a caller's transaction whose dequeue moved the watermark or rescanned, another
        -- uncommitted correction or maintain). Then nothing changes, corrected_at included: the
        -- call returns the watermark it reads, as old and new. UPDLOCK: a locking read of the
        -- current row, also under READ_COMMITTED_SNAPSHOT.
        SELECT @q$old = [id] FROM [pgs_obq].[orders_watermark] WITH (ROWLOCK, READPAST, UPDLOCK);
        IF @q$old IS NULL AND EXISTS (SELECT 1 FROM [pgs_obq].[orders_watermark] WITH (NOLOCK))
        BEGIN
            COMMIT TRANSACTION;
            SET @q$old = (SELECT [id] FROM [pgs_obq].[orders_watermark] WITH (NOLOCK));
            SELECT @old_watermark = @q$old, @new_watermark = @q$old;
            IF @result_set = 1
                SELECT @q$old AS [old_watermark], @q$old AS [new_watermark];
            RETURN;
        END;
        -- No row (deleted by hand): lock the empty range (HOLDLOCK) so that one session puts it back.
        IF @q$old IS NULL
            SET @q$old = (SELECT [id] FROM [pgs_obq].[orders_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- corrected_at gets the time before the search (it counts as a dequeue's rescan): a job that
        -- becomes claimable below the watermark after this moment may be missed here, and the next
        -- rescan is due watermark.rescan seconds after this moment, so within the bound.
        SET @q$searched = SYSUTCDATETIME();
        -- The scans never wait on a job row (NOLOCK). NOLOCK also sees a job whose insert is not yet
        -- committed, so the watermark does not pass it. Deferred jobs (the [deferred] bit) do not hold
        -- it back: the due index hands them to claims.
        SET @q$new = (SELECT MIN([job].[id]) FROM [pgs_obq].[orders] AS [job] WITH (NOLOCK) WHERE [job].[lease_token] IS NULL AND [job].[deferred] = 0);
        -- A row NOLOCK shows leased but another transaction holds (READPAST skips it) counts as
        -- unclaimed, as in the mover: a lease claim inside a caller's transaction that may still roll
        -- back (the job is then unclaimed again, below a watermark passed on the strength of a claim
        -- that never was), or a release in flight. Only leased rows can be such a row (the lease
        -- index holds them). Rows this transaction holds itself are not skipped: a rollback of those
        -- rolls this correction back too.
        SET @q$held = (SELECT MIN([job].[id]) FROM [pgs_obq].[orders] AS [job] WITH (NOLOCK)
                       WHERE [job].[lease_token] IS NOT NULL
                         AND NOT EXISTS (SELECT 1 FROM [pgs_obq].[orders] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                         WHERE [settled].[id] = [job].[id]));
        IF @q$held < @q$new OR (@q$new IS NULL AND @q$held IS NOT NULL)
            SET @q$new = @q$held;
        SET @q$new = @q$new - 50;
        IF @q$new IS NULL
            SET @q$new = (SELECT MAX([id]) + 1 FROM [pgs_obq].[orders] WITH (NOLOCK)) - 50;
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
                        WHERE [object_id] = OBJECT_ID(N'[pgs_obq].[orders]') AND [name] = N'id') - 50;
        IF @q$new IS NULL
            SET @q$new = COALESCE(@q$old, 0);
        IF @q$new < 0
            SET @q$new = 0;
        IF @q$old IS NULL
            INSERT INTO [pgs_obq].[orders_watermark] ([id], [corrected_at]) VALUES (@q$new, @q$searched);
        ELSE
            UPDATE [pgs_obq].[orders_watermark] SET [id] = @q$new, [version] = [version] + 1, [corrected_at] = @q$searched;
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

-- qgen 0.1.0: control_table pgs_obq.orders_control, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which login). Every
-- claim reads it first, WITH (READPAST, READCOMMITTEDLOCK): a pause or resume counts from its
-- commit, and no claim waits on one left open. A missing row (deleted by hand) reads as running.
IF OBJECT_ID(N'pgs_obq.orders_control', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_obq].[orders_control]
    (
        [one_row] bit NOT NULL CONSTRAINT [orders_control_one_row_df] DEFAULT (1),
        [paused] bit NOT NULL CONSTRAINT [orders_control_paused_df] DEFAULT (0),
        [changed_at] datetime2(3) NULL,
        [changed_by] nvarchar(128) NULL,
        CONSTRAINT [orders_control_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [orders_control_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [pgs_obq].[orders_control])
    INSERT INTO [pgs_obq].[orders_control] ([paused]) VALUES (0);
GO

-- qgen 0.1.0: dequeue pgs_obq.orders_dequeue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With @complete_lease_token it first completes that lease's jobs as complete(@lease_token) does,
-- in the same transaction: one commit per batch instead of two. A token that holds no job raises
-- 50001 and nothing is claimed.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_dequeue]
    @owner nvarchar(129) = NULL,
    @batch_size int = 10,
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
            N' is out of range for pgs_obq.orders_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in pgs_obq.orders_dequeue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF @lease_seconds IS NULL OR @lease_seconds < 1
        THROW 50003, N'qgen: @lease_seconds is out of range; accepted: 1 or more seconds.', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on pgs_obq.orders: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$token uniqueidentifier = NEWID();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [order_no] nvarchar(30) NOT NULL,
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
        -- Outbox values belong to one job: completing a whole lease here would skip them silently.
        IF @complete_lease_token IS NOT NULL
            THROW 50005, N'qgen: refused on pgs_obq.orders: this queue has an outbox: complete each job with its @id and its outbox values, then dequeue', 1;
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [pgs_obq].[orders_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
        -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
        IF EXISTS (SELECT 1 FROM [pgs_obq].[orders_watermark] WITH (NOLOCK) WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME()))
        BEGIN
            DECLARE @q$mark bigint, @q$stranded bigint;
            UPDATE [pgs_obq].[orders_watermark] WITH (ROWLOCK, READPAST, UPDLOCK)
            SET @q$mark = [id], [corrected_at] = SYSUTCDATETIME(), [version] = [version] + 1
            WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME());
            IF @@ROWCOUNT = 1
            BEGIN
                SELECT @q$stranded = MIN([job].[id])
                FROM [pgs_obq].[orders] AS [job] WITH (NOLOCK)
                WHERE [job].[id] < @q$mark AND [job].[lease_token] IS NULL AND [job].[deferred] = 0;
                IF @q$stranded IS NOT NULL
                    UPDATE [pgs_obq].[orders_watermark]
                    SET [id] = CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END,
                        [version] = [version] + 1
                    WHERE [id] > CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END;
            END;
        END
        ELSE IF NOT EXISTS (SELECT 1 FROM [pgs_obq].[orders_watermark] WITH (NOLOCK))
            INSERT INTO [pgs_obq].[orders_watermark] ([id])
            SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM [pgs_obq].[orders_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
        -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
        -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
        -- A missing row reads as 0.
        SET @q$from = COALESCE((SELECT [id] FROM [pgs_obq].[orders_watermark] WITH (NOLOCK)), 0);
        ;WITH [due_job] AS
        (
            SELECT TOP (@batch_size) [id], [order_no], [attempts], [lease_token], [lease_owner], [lease_expires_at], [deferred]
            -- The one reference to the table (see the claim below); it seeks the due index.
            FROM [pgs_obq].[orders] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [deferred] = 1 AND [available_at] <= @q$now
            ORDER BY [available_at], [id]
        )
        UPDATE [due_job]
        SET [lease_token] = @q$token,
            [lease_owner] = @owner,
            [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
            [deferred] = 0,
            [attempts] = [attempts] + 1
        OUTPUT inserted.[id], inserted.[order_no], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
        INTO @q$claimed ([id], [order_no], [attempts], [lease_token], [lease_expires_at])
        -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        -- Then the rest of the batch from the claim index, which holds only claimable jobs.
        SET @q$rest = @batch_size - @@ROWCOUNT;
        IF @q$rest > 0
        BEGIN
            ;WITH [next_job] AS
            (
                SELECT TOP (@q$rest) [id], [order_no], [attempts], [lease_token], [lease_owner], [lease_expires_at]
                -- The one reference to the table: these hints hold for every row the claim reads.
                FROM [pgs_obq].[orders] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE [lease_token] IS NULL AND [available_at] <= @q$now AND [deferred] = 0
                  AND [id] >= @q$from
                ORDER BY [id]
            )
            UPDATE [next_job]
            SET [lease_token] = @q$token,
                [lease_owner] = @owner,
                [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
                [attempts] = [attempts] + 1
            OUTPUT inserted.[id], inserted.[order_no], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
            INTO @q$claimed ([id], [order_no], [attempts], [lease_token], [lease_expires_at])
            -- Planned for one row, whatever @q$rest the first call sniffed: a seek in queue order.
            OPTION (OPTIMIZE FOR (@q$rest = 1));
        END;
        -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
        -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
        -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
        DECLARE @q$highest bigint;
        SELECT @q$highest = MAX([id]) FROM @q$claimed;
        IF @q$highest - @q$from >= 150
            EXEC [pgs_obq].[orders_watermark_move] @claimed_from = @q$highest;
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
        SELECT [id], [order_no], [attempts], [lease_token], [lease_expires_at]
        FROM @q$claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: table pgs_obq.invoices, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'pgs_obq.invoices', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_obq].[invoices]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [order_no] nvarchar(30) NOT NULL,
        [total] decimal(12, 2) NOT NULL,
        [available_at] datetime2(3) NOT NULL CONSTRAINT [invoices_available_at_df] DEFAULT (SYSUTCDATETIME()),
        -- 1 while the job waits for its time (delayed by run_at, or released by fail or reap) and no
        -- claim holds it: such a job is in the due index, not the claim index (a filtered index
        -- cannot compare available_at with enqueued_at, so enqueue, fail, reap and dequeue keep it).
        [deferred] bit NOT NULL CONSTRAINT [invoices_deferred_df] DEFAULT (0),
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [invoices_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        [enqueued_by] nvarchar(128) NULL,
        [attempts] int NOT NULL CONSTRAINT [invoices_attempts_df] DEFAULT (0),
        [lease_token] uniqueidentifier NULL,
        [lease_owner] nvarchar(128) NULL,
        [lease_expires_at] datetime2(3) NULL,
        [claimed_at] datetime2(3) NULL,
        [claimed_by] nvarchar(128) NULL,
        [last_error] nvarchar(4000) NULL,
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [invoices_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: complete pgs_obq.orders_complete, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: moves them to the archive. With @id, only that job; without, every job of
-- the lease (refused here with 50005: this queue has an outbox, whose values belong to one job). The token is the fence: a worker whose lease was released or taken over gets error 50001.
-- A job hands its outbox values on, or the caller says it has none with @no_result = 1: a job
-- completed with neither is refused (50005), never finished with nothing handed on.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_complete]
    @lease_token uniqueidentifier,
    @id bigint = NULL,
    @order_no nvarchar(31) = NULL,
    @total decimal(38, 27) = NULL,
    @no_result bit = 0
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF DATALENGTH(@order_no) > 60
        THROW 50010, N'qgen: @order_no is past its column''s limit in pgs_obq.orders_complete; accepted: string(30), at most 30 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF (ABS(@total) >= 10000000000 OR @total <> ROUND(@total, 2, 1))
        THROW 50010, N'qgen: @total is past its column''s limit in pgs_obq.orders_complete; accepted: decimal(12,2), at most 10 digits before the point and 2 after, never rounded.', 1;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$completed int;
    DECLARE @q$done TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [order_no] nvarchar(30) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL
    );
    BEGIN TRY
        BEGIN TRANSACTION;
        -- Outbox values belong to one job: a whole lease completed at once would skip them silently.
        IF @id IS NULL
            THROW 50005, N'qgen: refused on pgs_obq.orders: this queue has an outbox: complete each job with its @id and its outbox values, not a whole lease by its token', 1;
        IF @no_result IS NULL
            THROW 50003, N'qgen: @no_result NULL is out of range; accepted: 0 (the outbox values are given) or 1 (this job hands nothing on).', 1;
        IF @no_result = 1 AND (@order_no IS NOT NULL OR @total IS NOT NULL)
            THROW 50003, N'qgen: complete on pgs_obq.orders: @no_result = 1 says this job hands nothing on, yet outbox values were given; pass the values or @no_result = 1, not both.', 1;
        IF @no_result = 0 AND NOT (@order_no IS NOT NULL OR @total IS NOT NULL)
            THROW 50005, N'qgen: refused on pgs_obq.orders: this queue has an outbox: complete each job with its outbox values (order_no, total), or with @no_result = 1 when the job hands nothing on', 1;
        IF @no_result = 0 AND @order_no IS NULL
            THROW 50003, N'qgen: complete on pgs_obq.orders: outbox value @order_no is missing (NULL); it is NOT NULL in the outbox; accepted: every NOT NULL outbox value, or @no_result = 1.', 1;
        IF @no_result = 0 AND @total IS NULL
            THROW 50003, N'qgen: complete on pgs_obq.orders: outbox value @total is missing (NULL); it is NOT NULL in the outbox; accepted: every NOT NULL outbox value, or @no_result = 1.', 1;

        BEGIN
            DELETE FROM [pgs_obq].[orders]
            OUTPUT deleted.[id], deleted.[order_no], deleted.[enqueued_at], deleted.[attempts]
            INTO @q$done ([id], [order_no], [enqueued_at], [attempts])
            WHERE [id] = @id AND [lease_token] = @lease_token;
            -- Through a table variable (see the macro kept_table); as many rows as the DELETE, for @@ROWCOUNT.
            INSERT INTO [pgs_obq].[orders_archive] ([id], [order_no], [enqueued_at], [attempts], [completed_at])
            SELECT [id], [order_no], [enqueued_at], [attempts], @q$now FROM @q$done;

            SET @q$completed = @@ROWCOUNT;
        END;
        IF @q$completed = 0
            THROW 50001, N'qgen: lease lost on pgs_obq.orders: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        -- The result goes on in the same transaction as the completion (seed 004's local queue table).
        IF @no_result = 0
        BEGIN
            INSERT INTO [pgs_obq].[invoices] ([order_no], [total], [enqueued_by])
            SELECT @order_no, @total, ORIGINAL_LOGIN()
            -- The downstream queue already holds this key: the hand-off is skipped, not an error.
            WHERE NOT EXISTS (SELECT 1 FROM [pgs_obq].[invoices] WITH (UPDLOCK, HOLDLOCK) WHERE [order_no] = @order_no)
;
        END;
        COMMIT TRANSACTION;
        RETURN @q$completed;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: fail pgs_obq.orders_fail, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 5) and @retry = 1 it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_fail]
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
        [order_no] nvarchar(30) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL
    );
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK: a locking read of the current row (also under READ_COMMITTED_SNAPSHOT), held
        -- until commit, so a reaper cannot release the job between this read and the change below.
        SELECT @q$attempts = [attempts]
        FROM [pgs_obq].[orders] WITH (UPDLOCK, ROWLOCK)
        WHERE [id] = @id AND [lease_token] = @lease_token;
        IF @q$attempts IS NULL
            THROW 50001, N'qgen: lease lost on pgs_obq.orders: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        IF @retry = 1 AND @q$attempts < 5
        BEGIN
            UPDATE [pgs_obq].[orders]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [last_error] = @q$error,
                [available_at] = DATEADD(second, CAST(CASE WHEN 10 * POWER(CAST(2 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) > 3600 THEN 3600 ELSE 10 * POWER(CAST(2 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) END AS int), @q$now),
                -- Into the due index for its backoff, off the claim index and the watermark's way.
                [deferred] = 1
            WHERE [id] = @id;
            -- The job is claimable again: the watermark must not stay above it (unless another
            -- transaction holds the watermark row: then the rescan finds the job; never a wait).
            UPDATE [w]
            SET [id] = @id, [version] = [w].[version] + 1
            FROM [pgs_obq].[orders_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [w].[id] > @id;
            COMMIT TRANSACTION;
            RETURN 0;
        END;
        DELETE FROM [pgs_obq].[orders]
        OUTPUT deleted.[id], deleted.[order_no], deleted.[enqueued_at], deleted.[attempts]
        INTO @q$dead ([id], [order_no], [enqueued_at], [attempts])
        WHERE [id] = @id;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [pgs_obq].[orders_dead] ([id], [order_no], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [order_no], [enqueued_at], [attempts], @q$error, @q$now FROM @q$dead;
        COMMIT TRANSACTION;
        RETURN 1;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: extend_lease pgs_obq.orders_extend_lease, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire @lease_seconds from now.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_extend_lease]
    @lease_token uniqueidentifier,
    @lease_seconds int = 300,
    @id bigint = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @lease_seconds IS NULL OR @lease_seconds < 1
        THROW 50003, N'qgen: @lease_seconds is out of range; accepted: 1 or more seconds.', 1;
    DECLARE @q$until datetime2(3) = DATEADD(second, @lease_seconds, SYSUTCDATETIME());
    DECLARE @q$extended int;
    BEGIN TRY
        IF @id IS NULL
        BEGIN
            -- The row by its id, then the lease index's key (see the macro held_ids).
            DECLARE @q$held TABLE ([id] bigint NOT NULL PRIMARY KEY);
            INSERT INTO @q$held ([id])
            SELECT [id] FROM [pgs_obq].[orders] WHERE [lease_token] = @lease_token;
            UPDATE [pgs_obq].[orders] SET [lease_expires_at] = @q$until WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [pgs_obq].[orders] SET [lease_expires_at] = @q$until WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$extended = @@ROWCOUNT;
        IF @q$extended = 0
        BEGIN
            IF @id IS NOT NULL AND EXISTS (SELECT 1 FROM [pgs_obq].[orders_dead] AS [d]
                                           WHERE [d].[id] = @id AND [d].[last_error] = N'cancelled')
                THROW 50006, N'qgen: job cancelled on pgs_obq.orders: cancel took it out of the queue while its lease ran; stop working on it (its complete and fail are refused).', 1;
            THROW 50001, N'qgen: lease lost on pgs_obq.orders: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        RETURN @q$extended;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: reap pgs_obq.orders_reap, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- @batch_size per call so it never holds many locks: those with attempts left become claimable
-- again, with their old token cleared so the late worker is fenced off; the rest are dead-lettered.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_reap]
    @batch_size int = 1000,
    -- maintain reads the counts here (OUTPUT) and asks for no result set: no INSERT ... EXEC, inside
    -- which this procedure's ROLLBACK would fail with error 3915 and hide its own error.
    @released int = NULL OUTPUT,
    @dead_lettered int = NULL OUTPUT,
    @result_set bit = 1
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1000
    BEGIN
        DECLARE @q$error nvarchar(2048) = CONCAT(N'qgen: batch_size ', COALESCE(CAST(@batch_size AS nvarchar(11)), N'NULL'),
            N' is out of range for pgs_obq.orders_reap; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$expired TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$freed TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [order_no] nvarchar(30) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL
    );
    DECLARE @q$released int = 0, @q$dead_lettered int = 0, @q$lowest bigint;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- Lock order (see the macro held_ids): complete, fail and extend take a job's row by its
        -- clustered key, then the lease index's key. A reap that sought the lease index and looked
        -- the rows up took them the other way round and deadlocked (1205) with a worker finishing
        -- the job at its expiry. So: the expired ids first, from the lease index, keeping no lock
        -- (READCOMMITTEDLOCK: shared locks that go as the rows are read; READPAST: a job being
        -- completed right now is locked by its worker, leave it to finish); then each row by its
        -- id (INDEX(1), FORCESEEK: the clustered key), with the expiry checked again under its lock.
        INSERT INTO @q$expired ([id])
        SELECT TOP (@batch_size) [id]
        FROM [pgs_obq].[orders] WITH (READPAST, READCOMMITTEDLOCK)
        WHERE [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        -- Each statement reads the table once, through its CTE (as dequeue's claim does). UPDLOCK
        -- (and the statement's own update locks) make these locking reads of current rows.
        ;WITH [expired] AS
        (
            SELECT TOP (@batch_size) [id], [lease_token], [lease_owner], [lease_expires_at], [available_at], [last_error], [deferred]            FROM [pgs_obq].[orders] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)
            WHERE [id] IN (SELECT [id] FROM @q$expired)
              AND [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now AND [attempts] < 5
        )
        UPDATE [expired]
        SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now,
            -- Released into the due index: the next claim takes it first, whatever its id.
            [deferred] = 1,
            [last_error] = N'qgen: lease expired before the job was completed'
        OUTPUT inserted.[id] INTO @q$freed ([id])
        -- Planned for one row, whatever @batch_size the first call sniffed.
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$released = @@ROWCOUNT;

        -- Out of attempts: what is left of the batch.
        ;WITH [expired] AS
        (
            SELECT TOP (@batch_size - @q$released) [id], [order_no], [enqueued_at], [attempts]
            FROM [pgs_obq].[orders] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)
            WHERE [id] IN (SELECT [id] FROM @q$expired)
              AND [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now AND [attempts] >= 5
        )
        DELETE FROM [expired]
        OUTPUT deleted.[id], deleted.[order_no], deleted.[enqueued_at], deleted.[attempts]
        INTO @q$dead ([id], [order_no], [enqueued_at], [attempts])
        OPTION (OPTIMIZE FOR (@batch_size = 1, @q$released = 0));
        SET @q$dead_lettered = @@ROWCOUNT;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [pgs_obq].[orders_dead] ([id], [order_no], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [order_no], [enqueued_at], [attempts], N'qgen: lease expired on the last attempt', @q$now FROM @q$dead;

        -- Released jobs are claimable again: the watermark must not stay above them (unless another
        -- transaction holds the watermark row: then the rescan finds them; never a wait).
        SELECT @q$lowest = MIN([id]) FROM @q$freed;
        IF @q$lowest IS NOT NULL
            UPDATE [w]
            SET [id] = @q$lowest, [version] = [w].[version] + 1
            FROM [pgs_obq].[orders_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [w].[id] > @q$lowest;
        COMMIT TRANSACTION;
        SELECT @released = @q$released, @dead_lettered = @q$dead_lettered;
        IF @result_set = 1
            SELECT @q$released AS [released], @q$dead_lettered AS [dead_lettered];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: metrics pgs_obq.orders_metrics, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now, for dashboards and alerts. Each count reads the one index that
-- holds its rows (claim, due, lease, processed index; the dead-letter and archive tables), never the
-- whole queue table (finished rows included), and does not wait on a row: WITH (READPAST,
-- READCOMMITTEDLOCK) skips a row another transaction holds (a job being claimed, completed or enqueued right now),
-- the watermark's one row is read WITH (NOLOCK). So under concurrency the numbers are approximate:
-- a job changing at that moment is counted in neither state, and the counts are not one snapshot.
-- READPAST skips row and page locks only: a table lock (an escalated lock of a large transaction,
-- uninstall's TABLOCKX, an offline index build) still makes it wait.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_metrics]
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
    FROM [pgs_obq].[orders] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [lease_token] IS NULL AND [deferred] = 0;
    -- Deferred jobs (delayed, backed off, released): the due index.
    SELECT @q$due_ready = COUNT_BIG(CASE WHEN [available_at] <= @q$now THEN 1 END),
        @q$due_scheduled = COUNT_BIG(CASE WHEN [available_at] > @q$now THEN 1 END),
        @q$due_oldest = MIN(CASE WHEN [available_at] <= @q$now THEN [id] END),
        @q$due_lowest = MIN([id])
    FROM [pgs_obq].[orders] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [deferred] = 1;
    SELECT @q$ready += @q$due_ready, @q$scheduled += @q$due_scheduled,
        @q$oldest_id = CASE WHEN @q$due_oldest < @q$oldest_id OR @q$oldest_id IS NULL THEN @q$due_oldest ELSE @q$oldest_id END,
        @q$lowest = CASE WHEN @q$due_lowest < @q$lowest OR @q$lowest IS NULL THEN @q$due_lowest ELSE @q$lowest END;
    -- Jobs in flight: the lease index.
    SELECT @q$in_flight = COUNT_BIG(*), @q$expired = COUNT_BIG(CASE WHEN [lease_expires_at] < @q$now THEN 1 END)
    FROM [pgs_obq].[orders] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [lease_token] IS NOT NULL;
    SELECT @q$dead = COUNT_BIG(*) FROM [pgs_obq].[orders_dead] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$archived = COUNT_BIG(*), @q$recent = COUNT_BIG(CASE WHEN [completed_at] >= DATEADD(minute, -1, @q$now) THEN 1 END)
    FROM [pgs_obq].[orders_archive] WITH (READPAST, READCOMMITTEDLOCK);
    -- One row, a value: read without waiting on a transaction that holds it (a dirty value at worst).
    SELECT @q$watermark = [id] FROM [pgs_obq].[orders_watermark] WITH (NOLOCK);
    -- The highest id: the last key of the clustered index (one row, skipped if locked).
    SELECT @q$highest = MAX([id]) FROM [pgs_obq].[orders] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$ready AS [ready], @q$scheduled AS [scheduled], @q$in_flight AS [in_flight], @q$expired AS [expired],
        @q$processed AS [processed], @q$dead AS [dead], @q$archived AS [archived],
        -- The age of the oldest ready job: the one with the lowest id (ids grow with enqueued_at).
        COALESCE(DATEDIFF_BIG(second, (SELECT [enqueued_at] FROM [pgs_obq].[orders] WITH (READPAST, READCOMMITTEDLOCK) WHERE [id] = @q$oldest_id), @q$now), 0)
            AS [oldest_ready_age_seconds],
        @q$watermark AS [watermark],
        @q$lowest AS [lowest_pending_id],
        @q$recent AS [completed_last_minute],
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        COALESCE(@q$lowest, @q$highest + 1) - @q$watermark AS [watermark_lag],
        CAST(CASE WHEN NOT EXISTS (SELECT 1 FROM [pgs_obq].[orders_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0) THEN 1 ELSE 0 END AS bit) AS [paused];
END;
GO

-- qgen 0.1.0: peek pgs_obq.orders_peek, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    -- NULL or negative is refused with the other argument checks' code (TOP would raise 1014).
    IF @limit IS NULL OR @limit < 0
        THROW 50003, N'qgen: @limit is out of range for pgs_obq.orders_peek; accepted: 0 or more rows.', 1;
    SELECT TOP (@limit) [id], [order_no], [available_at], [enqueued_at], [attempts], [last_error]
    FROM [pgs_obq].[orders_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge_batch pgs_obq.orders_purge_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds: at most @batch_size rows (1000 by default, refused above 1999) over all those
-- tables together, in one transaction (the caller's, when there is one). purge loops over batches;
-- maintain runs one.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_purge_batch]
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
            DELETE TOP (@q$left) FROM [pgs_obq].[orders_archive] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [completed_at] < @q$cutoff
            OPTION (OPTIMIZE FOR (@q$left = 1));
            SET @q$archived = @@ROWCOUNT;
            SET @q$left -= @q$archived;
        END;

        IF @q$left > 0
        BEGIN
            DELETE TOP (@q$left) FROM [pgs_obq].[orders_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [dead_at] < @q$cutoff
            OPTION (OPTIMIZE FOR (@q$left = 1));
            SET @q$dead = @@ROWCOUNT;
            SET @q$left -= @q$dead;
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

-- qgen 0.1.0: purge pgs_obq.orders_purge, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds, in batches of at most @batch_size rows (1000 by default, refused above 1999),
-- each committed on its own, so no statement takes enough locks to escalate to a table lock and
-- no transaction holds more than one batch. The cutoff is fixed when the call begins, so rows that
-- finish while it runs are left for the next purge and the loop ends. It must commit per batch,
-- so it refuses to run inside the caller's transaction (error 50004: there, call
-- orders_purge_batch, which deletes one batch in that transaction).
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_purge]
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
        THROW 50004, N'qgen: purge commits after every batch, which it cannot do inside the caller''s transaction (or with IMPLICIT_TRANSACTIONS ON, where its first statement would open one); call it outside a transaction in autocommit mode, or call orders_purge_batch (one batch) there.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$archived bigint = 0, @q$processed bigint = 0, @q$dead bigint = 0, @q$deleted int;
    SET @q$deleted = @batch_size;
    WHILE @q$deleted = @batch_size
    BEGIN
        -- No transaction is open: each DELETE commits by itself, one batch at a time.
        DELETE TOP (@batch_size) FROM [pgs_obq].[orders_archive] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [completed_at] < @q$cutoff
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$deleted = @@ROWCOUNT;
        SET @q$archived += @q$deleted;
    END;

    SET @q$deleted = @batch_size;
    WHILE @q$deleted = @batch_size
    BEGIN
        -- No transaction is open: each DELETE commits by itself, one batch at a time.
        DELETE TOP (@batch_size) FROM [pgs_obq].[orders_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [dead_at] < @q$cutoff
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$deleted = @@ROWCOUNT;
        SET @q$dead += @q$deleted;
    END;

    SELECT @q$archived AS [archived], @q$processed AS [processed], @q$dead AS [dead];
END;
GO

-- qgen 0.1.0: maintain pgs_obq.orders_maintain, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- @batch_size finished jobs older than the retention (604800 s), releases up to @batch_size expired
-- leases (reap), and corrects the watermark, in that order, in one transaction. Only one runs at a
-- time per queue (an application lock owned by the transaction, so it goes with the commit or the
-- rollback, a client timeout included): a caller that finds another one running returns at once
-- with skipped = 1. more = 1 when a step filled its batch: call again to do the rest.
-- Inside a caller's transaction its work commits with that transaction, and the lock is held
-- until then. It reads the steps' results through OUTPUT parameters, not INSERT ... EXEC: inside
-- one, a step's ROLLBACK fails with error 3915, which is all the caller would see of the step's own
-- error. Granted to the consumer role, so any worker can run it. It runs as the owner of qgen's
-- objects (EXECUTE AS OWNER) so that it can take its lock as that owner, not as public: see below.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_maintain]
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
            @Resource = N'qgen.maintain:[pgs_obq].[orders]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0, @DbPrincipal = @q$principal;
        -- -1: not granted at once, another maintain holds it. -2 (cancelled), -3 (deadlock victim)
        -- and -999 (a call error) are not "someone else is maintaining": refused with the code.
        IF @q$lock = -1
            SET @q$skipped = 1;
        ELSE IF @q$lock < 0
        BEGIN
            DECLARE @q$why nvarchar(2048) = CONCAT(N'qgen: refused on pgs_obq.orders: maintain could not take its application lock (sp_getapplock returned ',
                @q$lock, N' for principal ', @q$principal, N').');
            THROW 50005, @q$why, 1;
        END
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            EXEC [pgs_obq].[orders_purge_batch] @older_than_seconds = 604800, @batch_size = @batch_size,
                @archived = @q$archived OUTPUT, @processed = @q$processed OUTPUT, @dead = @q$dead OUTPUT, @result_set = 0;
            EXEC [pgs_obq].[orders_reap] @batch_size = @q$reap_batch,
                @released = @q$released OUTPUT, @dead_lettered = @q$dead_lettered OUTPUT, @result_set = 0;
            EXEC [pgs_obq].[orders_watermark_correct]
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

-- qgen 0.1.0: redrive pgs_obq.orders_redrive, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Puts dead-lettered jobs back into the queue as new jobs: a new id, attempts 0, available now,
-- their last error kept. Either the dead jobs whose ids @ids lists (a JSON array, e.g. N'[3, 7]';
-- OPENJSON needs database compatibility level 130 or later), or (@redrive_all = 1) every dead job
-- after @after_id, in the order they died; at most @batch_size per call: [last_id] is the last
-- dead-letter entry looked at (its entry_id: a job id can repeat there), to pass as @after_id to
-- the next call. Each job is inserted and removed from the
-- dead-letter table in this one transaction, so it is redriven once: a second call finds
-- nothing, and a concurrent one waits (UPDLOCK) and then finds it gone.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_redrive]
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
            FROM [pgs_obq].[orders_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[entry_id] > ISNULL(@after_id, 0)
            ORDER BY [x].[entry_id];
        ELSE
            INSERT INTO @q$picked ([entry_id])
            SELECT TOP (@batch_size) [x].[entry_id]
            FROM [pgs_obq].[orders_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[id] IN (SELECT TRY_CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j])
            ORDER BY [x].[entry_id];
        SET @q$last_id = (SELECT MAX([entry_id]) FROM @q$picked);
        INSERT INTO [pgs_obq].[orders] ([order_no], [attempts], [available_at], [last_error])
        SELECT [x].[order_no], 0, SYSUTCDATETIME(), [x].[last_error]
        FROM [pgs_obq].[orders_dead] AS [x]
        INNER JOIN @q$picked AS [p] ON [p].[entry_id] = [x].[entry_id] AND [p].[keep] = 0
        ORDER BY [x].[entry_id];
        SET @q$redriven = @@ROWCOUNT;
        DELETE [x]
        FROM [pgs_obq].[orders_dead] AS [x]
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

-- qgen 0.1.0: dead_letters pgs_obq.orders_dead_letters, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first, with the error each died of: at most @limit rows (1 to
-- 1000). Reads only. WITH (READPAST, READCOMMITTEDLOCK), as metrics reads: a locking
-- read at READ COMMITTED (also under READ_COMMITTED_SNAPSHOT) that never waits on a row another
-- transaction holds and skips it instead (a dead letter fail or reap is writing, or redrive or
-- purge is taking away, right now: it is on its way in or out), and holds each shared lock only
-- while it reads that row, so fail, reap, redrive and purge never wait on it. Not NOLOCK: a
-- fail rolled back with its caller's transaction would be listed as dead. READPAST skips row and
-- page locks only: a table lock (escalated, uninstall's TABLOCKX) still makes it wait.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_dead_letters]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @limit IS NULL OR @limit < 1 OR @limit > 1000
    BEGIN
        DECLARE @q$error nvarchar(2048) = CONCAT(N'qgen: limit ', COALESCE(CAST(@limit AS nvarchar(11)), N'NULL'),
            N' is out of range for pgs_obq.orders_dead_letters; accepted: 1 to 1000 rows.');
        THROW 50003, @q$error, 1;
    END;
    -- Newest first, in the order they arrived: the clustered key backwards, which stops after @limit rows.
    SELECT TOP (@limit) [x].[id], [x].[order_no], [x].[enqueued_at], [x].[attempts],
        [x].[dead_at], [x].[last_error]
    FROM [pgs_obq].[orders_dead] AS [x] WITH (READPAST, READCOMMITTEDLOCK)
    ORDER BY [x].[entry_id] DESC
    OPTION (RECOMPILE);
END;
GO

-- qgen 0.1.0: job pgs_obq.orders_job, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_job]
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
            N' is out of range for pgs_obq.orders_job; accepted: a job id, 1 or more.');
        THROW 50003, @q$error, 1;
    END;
    DECLARE @q$found TABLE
    (
        [id] bigint NOT NULL,
        [state] nvarchar(16) NOT NULL,
        [enqueued_at] datetime2(3) NULL,
        [available_at] datetime2(3) NULL,
        [attempts] int NULL,
        [lease_owner] nvarchar(128) NULL,
        [lease_expires_at] datetime2(3) NULL,
        [last_error] nvarchar(4000) NULL,
        [finished_at] datetime2(3) NULL
    );
    INSERT INTO @q$found ([id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at])
    SELECT [j].[id], CASE WHEN [j].[lease_token] IS NOT NULL THEN N'in_flight' WHEN [j].[available_at] > SYSUTCDATETIME() THEN N'scheduled' ELSE N'queued' END,
        [j].[enqueued_at], [j].[available_at],
        [j].[attempts], [j].[lease_owner], [j].[lease_expires_at],
        [j].[last_error], NULL
    FROM [pgs_obq].[orders] AS [j]
    WHERE [j].[id] = @job_id;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is reseeded.
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at])
        SELECT TOP (1) [x].[id], N'dead', [x].[enqueued_at], NULL, [x].[attempts], NULL, NULL,
            [x].[last_error], [x].[dead_at]
        FROM [pgs_obq].[orders_dead] AS [x]
        WHERE [x].[id] = @job_id
        ORDER BY [x].[entry_id] DESC;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at])
        SELECT TOP (1) [a].[id], N'archived', [a].[enqueued_at], NULL, [a].[attempts], NULL, NULL,
            NULL, [a].[completed_at]
        FROM [pgs_obq].[orders_archive] AS [a] WITH (READPAST, READCOMMITTEDLOCK)
        WHERE [a].[id] = @job_id
        ORDER BY [a].[entry_id] DESC;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state]) VALUES (@job_id, N'not_found');
    SELECT [id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at] FROM @q$found;
END;
GO

-- qgen 0.1.0: release pgs_obq.orders_release, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With @id, that
-- job; without, every job of the lease. The token is the fence: a job whose lease was released,
-- taken over or finished gets error 50001. last_error is kept (no failure happened).
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_release]
    @lease_token uniqueidentifier,
    @id bigint = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$freed TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$released int, @q$lowest bigint;
    BEGIN TRY
        BEGIN TRANSACTION;
        IF @id IS NULL
        BEGIN
            -- The rows by their id, then the lease index's key (see the macro held_ids).
            DECLARE @q$held TABLE ([id] bigint NOT NULL PRIMARY KEY);
            INSERT INTO @q$held ([id])
            SELECT [id] FROM [pgs_obq].[orders] WHERE [lease_token] = @lease_token;
            UPDATE [pgs_obq].[orders]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now, [deferred] = 1,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [pgs_obq].[orders]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now, [deferred] = 1,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$released = @@ROWCOUNT;
        IF @q$released = 0
            THROW 50001, N'qgen: lease lost on pgs_obq.orders: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        -- Released jobs are claimable again: the watermark must not stay above them (unless another
        -- transaction holds the watermark row: then the rescan finds them; never a wait).
        SELECT @q$lowest = MIN([id]) FROM @q$freed;
        UPDATE [w]
            SET [id] = @q$lowest, [version] = [w].[version] + 1
            FROM [pgs_obq].[orders_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [w].[id] > @q$lowest;
        COMMIT TRANSACTION;
        RETURN @q$released;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: pause pgs_obq.orders_pause, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job, and a dequeue waiting with @wait_ms keeps waiting. Enqueues go on, and leases already
-- granted run to their end (complete, fail, extend_lease, release and reap work as before).
-- Returns 1 when this call paused the queue, 0 when it was paused already.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_pause]
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
        SELECT @q$was = [paused] FROM [pgs_obq].[orders_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [pgs_obq].[orders_control] ([paused], [changed_at], [changed_by]) VALUES (1, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 0;
        END
        ELSE IF @q$was = 0
        BEGIN
            UPDATE [pgs_obq].[orders_control]
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
            THROW 50005, N'qgen: refused on pgs_obq.orders: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: resume pgs_obq.orders_resume, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again (a dequeue waiting with
-- @wait_ms takes one at its next attempt). Returns 1 when this call resumed the queue, 0 when it
-- was not paused.
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_resume]
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
        SELECT @q$was = [paused] FROM [pgs_obq].[orders_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [pgs_obq].[orders_control] ([paused], [changed_at], [changed_by]) VALUES (0, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 1;
        END
        ELSE IF @q$was = 1
        BEGIN
            UPDATE [pgs_obq].[orders_control]
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
            THROW 50005, N'qgen: refused on pgs_obq.orders: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: cancel pgs_obq.orders_cancel, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (@ids: a JSON array of whole numbers from 1, e.g. N'[3, 7]'; at most 1999): each job still
-- in the queue leaves it at once, in this one transaction, into the dead-letter table with last_error N'cancelled', and
-- never runs. One row per distinct id, in id order, [outcome]:
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   cancelled_in_flight: it held a lease: its worker's complete, fail and extend_lease get 50001 (the
--     token fences them off, so nothing it does commits with the job);
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order (the clustered key, FORCESEEK from the ordered list of ids), as
-- every other statement that locks several jobs does, so cancel deadlocks with none of them; a row a
-- completion or a claim holds is waited for, at most 5 s (then refused, 50005: nothing done).
CREATE OR ALTER PROCEDURE [pgs_obq].[orders_cancel]
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
    -- What the DELETE took out (its OUTPUT): the outcome is what happened, not what was found.
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [order_no] nvarchar(30) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL,
        -- The lease the row held when it left, if any (cancel's outcome).
        [lease_token] uniqueidentifier NULL
    );
    INSERT INTO @q$asked ([id])
    SELECT DISTINCT CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j];
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO @q$found ([id])
        SELECT [job].[id]
        FROM [pgs_obq].[orders] AS [job] WITH (UPDLOCK, ROWLOCK, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]);
        DELETE FROM [pgs_obq].[orders]
        OUTPUT deleted.[id], deleted.[order_no], deleted.[enqueued_at], deleted.[attempts], deleted.[lease_token]
        INTO @q$dead ([id], [order_no], [enqueued_at], [attempts], [lease_token])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [pgs_obq].[orders_dead] ([id], [order_no], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [order_no], [enqueued_at], [attempts], N'cancelled', @q$now FROM @q$dead;
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on pgs_obq.orders: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
        THROW;
    END CATCH;
    SELECT [a].[id],
        CASE
             WHEN [g].[lease_token] IS NOT NULL THEN N'cancelled_in_flight'
             WHEN [g].[id] IS NOT NULL THEN N'cancelled'
             ELSE N'not_queued' END AS [outcome]
    FROM @q$asked AS [a]
    LEFT JOIN @q$dead AS [g] ON [g].[id] = [a].[id]
    ORDER BY [a].[id];
END;
GO

-- qgen 0.1.0: claim_index pgs_obq.invoices_claim_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
-- Deferred jobs (delayed, or released with a backoff: [deferred] = 1) are left out of it: see the due index below.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'invoices_claim_ix' AND object_id = OBJECT_ID(N'pgs_obq.invoices'))
    CREATE NONCLUSTERED INDEX [invoices_claim_ix]
    ON [pgs_obq].[invoices] ([id])
    INCLUDE ([available_at], [lease_token], [deferred])
    WHERE [lease_token] IS NULL AND [deferred] = 0;
-- The due index: deferred jobs, by the time they become available ([deferred] = 1 only while no
-- claim holds the job: a claim clears it). A claim takes the due ones from here first, so however
-- many wait for their time, no claim and no watermark steps over them.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'invoices_claim_ix_due' AND object_id = OBJECT_ID(N'pgs_obq.invoices'))
    CREATE NONCLUSTERED INDEX [invoices_claim_ix_due]
    ON [pgs_obq].[invoices] ([available_at], [id])
    INCLUDE ([deferred])
    WHERE [deferred] = 1;
GO

-- qgen 0.1.0: dead_letter_table pgs_obq.invoices_dead, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: [id] is the job's id, which repeats once the queue's identity is reseeded.
IF OBJECT_ID(N'pgs_obq.invoices_dead', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_obq].[invoices_dead]
    (
        [entry_id] bigint IDENTITY(1, 1) NOT NULL,
        [id] bigint NOT NULL,
        [order_no] nvarchar(30) NOT NULL,
        [total] decimal(12, 2) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [enqueued_by] nvarchar(128) NULL,
        [claimed_at] datetime2(3) NULL,
        [claimed_by] nvarchar(128) NULL,
        [attempts] int NOT NULL,
        [last_error] nvarchar(4000) NULL,
        [dead_at] datetime2(3) NOT NULL CONSTRAINT [invoices_dead_dead_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [invoices_dead_pk] PRIMARY KEY CLUSTERED ([entry_id])
    );
END;
GO

-- qgen 0.1.0: dedupe_index pgs_obq.invoices_dedupe_ux, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'invoices_dedupe_ux' AND object_id = OBJECT_ID(N'pgs_obq.invoices'))
    CREATE UNIQUE NONCLUSTERED INDEX [invoices_dedupe_ux]
    ON [pgs_obq].[invoices] ([order_no]);
GO

-- qgen 0.1.0: lease_index pgs_obq.invoices_lease_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'invoices_lease_ix' AND object_id = OBJECT_ID(N'pgs_obq.invoices'))
    CREATE NONCLUSTERED INDEX [invoices_lease_ix]
    ON [pgs_obq].[invoices] ([lease_token]) INCLUDE ([lease_expires_at], [attempts])
    WHERE [lease_token] IS NOT NULL;
GO

-- qgen 0.1.0: watermark_table pgs_obq.invoices_watermark, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their range seek here instead of
-- walking the ghost records that deleted or claimed rows leave at the low end of the index.
IF OBJECT_ID(N'pgs_obq.invoices_watermark', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_obq].[invoices_watermark]
    (
        [id] bigint NOT NULL,
        -- Bumped by every change, so watermark_correct can tell a release happened while it scanned.
        [version] bigint NOT NULL CONSTRAINT [invoices_watermark_version_df] DEFAULT (0),
        [one_row] bit NOT NULL CONSTRAINT [invoices_watermark_one_row_df] DEFAULT (1),
        -- When the table was last searched below the watermark (by a dequeue's rescan or
        -- watermark_correct): a dequeue rescans when this is watermark.rescan old.
        [corrected_at] datetime2(3) NOT NULL
            CONSTRAINT [invoices_watermark_corrected_at_df] DEFAULT ('0001-01-01'),
        CONSTRAINT [invoices_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [invoices_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [pgs_obq].[invoices_watermark])
    INSERT INTO [pgs_obq].[invoices_watermark] ([id]) VALUES (0);
GO

-- qgen 0.1.0: dead_letter_index pgs_obq.invoices_dead_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'invoices_dead_ix' AND object_id = OBJECT_ID(N'pgs_obq.invoices_dead'))
    CREATE NONCLUSTERED INDEX [invoices_dead_ix]
    ON [pgs_obq].[invoices_dead] ([dead_at]);
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'invoices_dead_id_ix' AND object_id = OBJECT_ID(N'pgs_obq.invoices_dead'))
    CREATE NONCLUSTERED INDEX [invoices_dead_id_ix]
    ON [pgs_obq].[invoices_dead] ([id]);
GO

-- qgen 0.1.0: pending_view pgs_obq.invoices_pending, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [pgs_obq].[invoices_pending]
AS
SELECT [id], [order_no], [total], [available_at], [enqueued_at], [enqueued_by], [attempts], [last_error]
FROM [pgs_obq].[invoices]
WHERE [lease_token] IS NULL;
GO

-- qgen 0.1.0: batch_type pgs_obq.invoices_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it. Its columns are one wider than the
-- table's (m.param_type): a caller's insert into a variable of this type cannot cut or round a value
-- past its column unseen; enqueue_batch refuses it with error 50010.
IF TYPE_ID(N'pgs_obq.invoices_batch') IS NULL
    CREATE TYPE [pgs_obq].[invoices_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [order_no] nvarchar(31) NOT NULL,
        [total] decimal(38, 27) NOT NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue pgs_obq.invoices_enqueue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0). A value past its column's
-- limit is refused with error 50010, never cut or rounded: its parameter is one wider (m.param_type).
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_enqueue]
    @order_no nvarchar(31),
    @total decimal(38, 27),
    @enqueued_by nvarchar(129) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF DATALENGTH(@order_no) > 60
        THROW 50010, N'qgen: @order_no is past its column''s limit in pgs_obq.invoices_enqueue; accepted: string(30), at most 30 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF (ABS(@total) >= 10000000000 OR @total <> ROUND(@total, 2, 1))
        THROW 50010, N'qgen: @total is past its column''s limit in pgs_obq.invoices_enqueue; accepted: decimal(12,2), at most 10 digits before the point and 2 after, never rounded.', 1;
    IF DATALENGTH(@enqueued_by) > 256
        THROW 50010, N'qgen: @enqueued_by is past its column''s limit in pgs_obq.invoices_enqueue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL);
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK + HOLDLOCK keep the key range locked until the insert, so two sessions enqueueing
        -- the same key cannot both find it missing; a locking read, so it sees current rows also
        -- under READ_COMMITTED_SNAPSHOT.
        DECLARE @q$existing bigint =
        (
            SELECT [id] FROM [pgs_obq].[invoices] WITH (UPDLOCK, HOLDLOCK)
            WHERE [order_no] = @order_no

        );
        IF @q$existing IS NOT NULL
        BEGIN
            COMMIT TRANSACTION;
            SELECT @q$existing AS [id], CAST(0 AS bit) AS [enqueued];
            RETURN;
        END;
        INSERT INTO [pgs_obq].[invoices] ([order_no], [total], [enqueued_by])
        -- OUTPUT INTO a table variable: a bare OUTPUT fails once someone adds a trigger to the table (error 334).
        OUTPUT inserted.[id] INTO @q$new ([id])
        VALUES (@order_no, @total, COALESCE(@enqueued_by, ORIGINAL_LOGIN()));
        COMMIT TRANSACTION;
        SELECT [id], CAST(1 AS bit) AS [enqueued] FROM @q$new;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch pgs_obq.invoices_enqueue_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement (at most 1988: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row: a job already queued, or repeated earlier in the batch, returns that id with enqueued = 0.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_enqueue_batch]
    @jobs [pgs_obq].[invoices_batch] READONLY,
    @enqueued_by nvarchar(129) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;

    IF DATALENGTH(@enqueued_by) > 256
        THROW 50010, N'qgen: @enqueued_by is past its column''s limit in pgs_obq.invoices_enqueue_batch; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 1988
        THROW 50003, N'qgen: a batch of more than 1988 jobs is out of range for pgs_obq.invoices: one statement writing more could escalate to a table lock; accepted: 1 to 1988 jobs per call (split the batch; the client does).', 1;
    DECLARE @q$over int, @q$over_column nvarchar(2048);
    SELECT TOP (1) @q$over = [j].[ordinal],
           @q$over_column = CASE WHEN DATALENGTH([j].[order_no]) > 60 THEN N'order_no; accepted: string(30), at most 30 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' WHEN (ABS([j].[total]) >= 10000000000 OR [j].[total] <> ROUND([j].[total], 2, 1)) THEN N'total; accepted: decimal(12,2), at most 10 digits before the point and 2 after, never rounded' END
    FROM @jobs AS [j]
    WHERE DATALENGTH([j].[order_no]) > 60 OR (ABS([j].[total]) >= 10000000000 OR [j].[total] <> ROUND([j].[total], 2, 1))
    ORDER BY [j].[ordinal];
    IF @q$over IS NOT NULL
    BEGIN
        DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in pgs_obq.invoices_enqueue_batch: column ', @q$over_column, N'.');
        THROW 50010, @q$over_message, 1;
    END;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- The dedupe checks of the queue table read WITH (UPDLOCK, HOLDLOCK): locking reads of current
        -- rows (also under READ_COMMITTED_SNAPSHOT) that keep the key ranges locked until commit. Those
        -- of the finished tables are plain locking reads by key (READCOMMITTEDLOCK): the queue table's
        -- range lock keeps every move of the key there out, and a range lock there would stall claims.
        INSERT INTO [pgs_obq].[invoices] ([order_no], [total], [enqueued_by])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[order_no], [j].[total], COALESCE(@enqueued_by, ORIGINAL_LOGIN())
        FROM @jobs AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [pgs_obq].[invoices] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[order_no] = [j].[order_no])
          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[order_no] = [j].[order_no] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], [e].[id] AS [id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[order_no] = [j].[order_no] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @jobs AS [j]
        INNER JOIN [pgs_obq].[invoices] AS [e] ON [e].[order_no] = [j].[order_no]
        LEFT JOIN @q$new AS [n] ON [n].[id] = [e].[id]
        ORDER BY [j].[ordinal];

        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_json pgs_obq.invoices_enqueue_json, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- enqueue_batch for callers that cannot send a table-valued parameter (pyodbc through FreeTDS):
-- the same jobs as one JSON array of objects, one per job, keyed by the batch type's column names.
-- Every job-type and payload column's key must be there (strict paths: a missing or misspelt key is
-- an error, never a silent NULL; give null for no value); "ordinal" (the job's position in the
-- array, from 1), "priority" and "run_at" are optional. A datetime is ISO 8601, UTC when
-- it has no offset; a json column is the JSON text as a string. Needs SQL Server 2016 or later and
-- database compatibility level 130 or higher (OPENJSON). Returns what enqueue_batch returns.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_enqueue_json]
    @jobs nvarchar(max),
    @enqueued_by nvarchar(129) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;

    IF DATALENGTH(@enqueued_by) > 256
        THROW 50010, N'qgen: @enqueued_by is past its column''s limit in pgs_obq.invoices_enqueue_json; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$batch [pgs_obq].[invoices_batch];
    BEGIN TRY
        INSERT INTO @q$batch ([ordinal], [order_no], [total])
        SELECT COALESCE([j].[ordinal], CAST([a].[key] AS int) + 1),
               [j].[order_no],
               [j].[total]
        FROM OPENJSON(@jobs) AS [a]
        CROSS APPLY OPENJSON([a].[value])
        WITH
        (
            [ordinal] int '$.ordinal',
            [order_no] nvarchar(31) 'strict $.order_no',
            [total] decimal(38, 27) 'strict $.total'
        ) AS [j];
        IF (SELECT COUNT(*) FROM @q$batch) > 1988
            THROW 50003, N'qgen: a batch of more than 1988 jobs is out of range for pgs_obq.invoices: one statement writing more could escalate to a table lock; accepted: 1 to 1988 jobs per call (split the batch; the client does).', 1;
        DECLARE @q$over int, @q$over_column nvarchar(2048);
        SELECT TOP (1) @q$over = [j].[ordinal],
               @q$over_column = CASE WHEN DATALENGTH([j].[order_no]) > 60 THEN N'order_no; accepted: string(30), at most 30 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' WHEN (ABS([j].[total]) >= 10000000000 OR [j].[total] <> ROUND([j].[total], 2, 1)) THEN N'total; accepted: decimal(12,2), at most 10 digits before the point and 2 after, never rounded' END
        FROM @q$batch AS [j]
        WHERE DATALENGTH([j].[order_no]) > 60 OR (ABS([j].[total]) >= 10000000000 OR [j].[total] <> ROUND([j].[total], 2, 1))
        ORDER BY [j].[ordinal];
        IF @q$over IS NOT NULL
        BEGIN
            DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in pgs_obq.invoices_enqueue_json: column ', @q$over_column, N'.');
            THROW 50010, @q$over_message, 1;
        END;
        BEGIN TRANSACTION;
        -- The dedupe checks of the queue table read WITH (UPDLOCK, HOLDLOCK): locking reads of current
        -- rows (also under READ_COMMITTED_SNAPSHOT) that keep the key ranges locked until commit. Those
        -- of the finished tables are plain locking reads by key (READCOMMITTEDLOCK): the queue table's
        -- range lock keeps every move of the key there out, and a range lock there would stall claims.
        INSERT INTO [pgs_obq].[invoices] ([order_no], [total], [enqueued_by])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[order_no], [j].[total], COALESCE(@enqueued_by, ORIGINAL_LOGIN())
        FROM @q$batch AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [pgs_obq].[invoices] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[order_no] = [j].[order_no])
          AND NOT EXISTS (SELECT 1 FROM @q$batch AS [d] WHERE [d].[order_no] = [j].[order_no] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], [e].[id] AS [id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @q$batch AS [d] WHERE [d].[order_no] = [j].[order_no] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @q$batch AS [j]
        INNER JOIN [pgs_obq].[invoices] AS [e] ON [e].[order_no] = [j].[order_no]
        LEFT JOIN @q$new AS [n] ON [n].[id] = [e].[id]
        ORDER BY [j].[ordinal];

        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: watermark_move pgs_obq.invoices_watermark_move, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
-- Deferred jobs ([deferred] = 1) do not stop it: claims find them through the due index, whatever their id.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_watermark_move]
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
    -- It also stops at a row another open transaction has locked (present under NOLOCK, skipped by
    -- READPAST): a lease claim inside a caller's transaction that may still roll back, or a
    -- completion in flight. Rows this transaction claimed itself are not skipped by READPAST.
    -- First without a lock: while a row it may not pass sits at the watermark (a claim held open
    -- in a caller's transaction, an insert not yet committed), nothing can move, and dequeue calls
    -- this after every such claim; writing the watermark row then would hold it through the
    -- caller's transaction, and the rescan and the other movers would skip it while claims go on.
    DECLARE @q$current bigint = (SELECT [id] FROM [pgs_obq].[invoices_watermark] WITH (NOLOCK));
    IF @q$current IS NULL OR @q$current >= @q$target
        RETURN;
    IF EXISTS (SELECT 1 FROM [pgs_obq].[invoices] AS [job] WITH (NOLOCK)
               WHERE [job].[id] = @q$current
                 AND ([job].[lease_token] IS NULL AND [job].[deferred] = 0
                      OR NOT EXISTS (SELECT 1 FROM [pgs_obq].[invoices] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                     WHERE [settled].[id] = [job].[id]))
              )
        RETURN;
    UPDATE [w]
    SET [id] = COALESCE(
            (
                SELECT MIN([job].[id])
                FROM [pgs_obq].[invoices] AS [job] WITH (NOLOCK)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @q$target
                  AND ([job].[lease_token] IS NULL AND [job].[deferred] = 0
                       OR NOT EXISTS (SELECT 1 FROM [pgs_obq].[invoices] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                      WHERE [settled].[id] = [job].[id]))
            ), @q$target),
        [version] = [w].[version] + 1
    FROM [pgs_obq].[invoices_watermark] AS [w] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK)
    WHERE [w].[id] < @q$target;
END;
GO

-- qgen 0.1.0: watermark_correct pgs_obq.invoices_watermark_correct, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty;
-- unchanged only when no id was ever generated), never below 0. It repairs a watermark that is wrong
-- either way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it
-- after a drain (run it after a dequeue that found nothing) and for a watermark set by hand. It
-- never waits on the watermark row, and never passes a job another transaction holds.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_watermark_correct]
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
    DECLARE @q$held bigint;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- The watermark row first and kept, so that the scan below starts after whatever held it
        -- committed; but never waiting for it (READPAST): workers run this (after an empty dequeue,
        -- and through maintain), and another transaction may hold the row for as long as it stays
        -- open (a caller's transaction whose dequeue moved the watermark or rescanned, another
        -- uncommitted correction or maintain). Then nothing changes, corrected_at included: the
        -- call returns the watermark it reads, as old and new. UPDLOCK: a locking read of the
        -- current row, also under READ_COMMITTED_SNAPSHOT.
        SELECT @q$old = [id] FROM [pgs_obq].[invoices_watermark] WITH (ROWLOCK, READPAST, UPDLOCK);
        IF @q$old IS NULL AND EXISTS (SELECT 1 FROM [pgs_obq].[invoices_watermark] WITH (NOLOCK))
        BEGIN
            COMMIT TRANSACTION;
            SET @q$old = (SELECT [id] FROM [pgs_obq].[invoices_watermark] WITH (NOLOCK));
            SELECT @old_watermark = @q$old, @new_watermark = @q$old;
            IF @result_set = 1
                SELECT @q$old AS [old_watermark], @q$old AS [new_watermark];
            RETURN;
        END;
        -- No row (deleted by hand): lock the empty range (HOLDLOCK) so that one session puts it back.
        IF @q$old IS NULL
            SET @q$old = (SELECT [id] FROM [pgs_obq].[invoices_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- corrected_at gets the time before the search (it counts as a dequeue's rescan): a job that
        -- becomes claimable below the watermark after this moment may be missed here, and the next
        -- rescan is due watermark.rescan seconds after this moment, so within the bound.
        SET @q$searched = SYSUTCDATETIME();
        -- The scans never wait on a job row (NOLOCK). NOLOCK also sees a job whose insert is not yet
        -- committed, so the watermark does not pass it. Deferred jobs (the [deferred] bit) do not hold
        -- it back: the due index hands them to claims.
        SET @q$new = (SELECT MIN([job].[id]) FROM [pgs_obq].[invoices] AS [job] WITH (NOLOCK) WHERE [job].[lease_token] IS NULL AND [job].[deferred] = 0);
        -- A row NOLOCK shows leased but another transaction holds (READPAST skips it) counts as
        -- unclaimed, as in the mover: a lease claim inside a caller's transaction that may still roll
        -- back (the job is then unclaimed again, below a watermark passed on the strength of a claim
        -- that never was), or a release in flight. Only leased rows can be such a row (the lease
        -- index holds them). Rows this transaction holds itself are not skipped: a rollback of those
        -- rolls this correction back too.
        SET @q$held = (SELECT MIN([job].[id]) FROM [pgs_obq].[invoices] AS [job] WITH (NOLOCK)
                       WHERE [job].[lease_token] IS NOT NULL
                         AND NOT EXISTS (SELECT 1 FROM [pgs_obq].[invoices] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                         WHERE [settled].[id] = [job].[id]));
        IF @q$held < @q$new OR (@q$new IS NULL AND @q$held IS NOT NULL)
            SET @q$new = @q$held;
        SET @q$new = @q$new - 50;
        IF @q$new IS NULL
            SET @q$new = (SELECT MAX([id]) + 1 FROM [pgs_obq].[invoices] WITH (NOLOCK)) - 50;
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
                        WHERE [object_id] = OBJECT_ID(N'[pgs_obq].[invoices]') AND [name] = N'id') - 50;
        IF @q$new IS NULL
            SET @q$new = COALESCE(@q$old, 0);
        IF @q$new < 0
            SET @q$new = 0;
        IF @q$old IS NULL
            INSERT INTO [pgs_obq].[invoices_watermark] ([id], [corrected_at]) VALUES (@q$new, @q$searched);
        ELSE
            UPDATE [pgs_obq].[invoices_watermark] SET [id] = @q$new, [version] = [version] + 1, [corrected_at] = @q$searched;
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

-- qgen 0.1.0: control_table pgs_obq.invoices_control, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which login). Every
-- claim reads it first, WITH (READPAST, READCOMMITTEDLOCK): a pause or resume counts from its
-- commit, and no claim waits on one left open. A missing row (deleted by hand) reads as running.
IF OBJECT_ID(N'pgs_obq.invoices_control', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_obq].[invoices_control]
    (
        [one_row] bit NOT NULL CONSTRAINT [invoices_control_one_row_df] DEFAULT (1),
        [paused] bit NOT NULL CONSTRAINT [invoices_control_paused_df] DEFAULT (0),
        [changed_at] datetime2(3) NULL,
        [changed_by] nvarchar(128) NULL,
        CONSTRAINT [invoices_control_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [invoices_control_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [pgs_obq].[invoices_control])
    INSERT INTO [pgs_obq].[invoices_control] ([paused]) VALUES (0);
GO

-- qgen 0.1.0: dequeue pgs_obq.invoices_dequeue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With @complete_lease_token it first completes that lease's jobs as complete(@lease_token) does,
-- in the same transaction: one commit per batch instead of two. A token that holds no job raises
-- 50001 and nothing is claimed.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_dequeue]
    @owner nvarchar(129) = NULL,
    @batch_size int = 10,
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
            N' is out of range for pgs_obq.invoices_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in pgs_obq.invoices_dequeue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF @lease_seconds IS NULL OR @lease_seconds < 1
        THROW 50003, N'qgen: @lease_seconds is out of range; accepted: 1 or more seconds.', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on pgs_obq.invoices: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$token uniqueidentifier = NEWID();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [order_no] nvarchar(30) NOT NULL,
        [total] decimal(12, 2) NOT NULL,
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
            SELECT [id] FROM [pgs_obq].[invoices] WHERE [lease_token] = @complete_lease_token;
            DELETE FROM [pgs_obq].[invoices]
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @complete_lease_token;

            IF @@ROWCOUNT = 0
                THROW 50001, N'qgen: lease lost on pgs_obq.invoices: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [pgs_obq].[invoices_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
        -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
        IF EXISTS (SELECT 1 FROM [pgs_obq].[invoices_watermark] WITH (NOLOCK) WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME()))
        BEGIN
            DECLARE @q$mark bigint, @q$stranded bigint;
            UPDATE [pgs_obq].[invoices_watermark] WITH (ROWLOCK, READPAST, UPDLOCK)
            SET @q$mark = [id], [corrected_at] = SYSUTCDATETIME(), [version] = [version] + 1
            WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME());
            IF @@ROWCOUNT = 1
            BEGIN
                SELECT @q$stranded = MIN([job].[id])
                FROM [pgs_obq].[invoices] AS [job] WITH (NOLOCK)
                WHERE [job].[id] < @q$mark AND [job].[lease_token] IS NULL AND [job].[deferred] = 0;
                IF @q$stranded IS NOT NULL
                    UPDATE [pgs_obq].[invoices_watermark]
                    SET [id] = CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END,
                        [version] = [version] + 1
                    WHERE [id] > CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END;
            END;
        END
        ELSE IF NOT EXISTS (SELECT 1 FROM [pgs_obq].[invoices_watermark] WITH (NOLOCK))
            INSERT INTO [pgs_obq].[invoices_watermark] ([id])
            SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM [pgs_obq].[invoices_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
        -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
        -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
        -- A missing row reads as 0.
        SET @q$from = COALESCE((SELECT [id] FROM [pgs_obq].[invoices_watermark] WITH (NOLOCK)), 0);
        ;WITH [due_job] AS
        (
            SELECT TOP (@batch_size) [id], [order_no], [total], [attempts], [lease_token], [lease_owner], [lease_expires_at], [claimed_at], [claimed_by], [deferred]
            -- The one reference to the table (see the claim below); it seeks the due index.
            FROM [pgs_obq].[invoices] WITH (ROWLOCK, READPAST, UPDLOCK)
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
        OUTPUT inserted.[id], inserted.[order_no], inserted.[total], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
        INTO @q$claimed ([id], [order_no], [total], [attempts], [lease_token], [lease_expires_at])
        -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        -- Then the rest of the batch from the claim index, which holds only claimable jobs.
        SET @q$rest = @batch_size - @@ROWCOUNT;
        IF @q$rest > 0
        BEGIN
            ;WITH [next_job] AS
            (
                SELECT TOP (@q$rest) [id], [order_no], [total], [attempts], [lease_token], [lease_owner], [lease_expires_at], [claimed_at], [claimed_by]
                -- The one reference to the table: these hints hold for every row the claim reads.
                FROM [pgs_obq].[invoices] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE [lease_token] IS NULL AND [available_at] <= @q$now AND [deferred] = 0
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
            OUTPUT inserted.[id], inserted.[order_no], inserted.[total], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
            INTO @q$claimed ([id], [order_no], [total], [attempts], [lease_token], [lease_expires_at])
            -- Planned for one row, whatever @q$rest the first call sniffed: a seek in queue order.
            OPTION (OPTIMIZE FOR (@q$rest = 1));
        END;
        -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
        -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
        -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
        DECLARE @q$highest bigint;
        SELECT @q$highest = MAX([id]) FROM @q$claimed;
        IF @q$highest - @q$from >= 150
            EXEC [pgs_obq].[invoices_watermark_move] @claimed_from = @q$highest;
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
        SELECT [id], [order_no], [total], [attempts], [lease_token], [lease_expires_at]
        FROM @q$claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: complete pgs_obq.invoices_complete, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: deletes them. With @id, only that job; without, every job of
-- the lease. The token is the fence: a worker whose lease was released or taken over gets error 50001.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_complete]
    @lease_token uniqueidentifier,
    @id bigint = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$completed int;
    BEGIN TRY
        BEGIN TRANSACTION;
        IF @id IS NULL
        BEGIN
            DECLARE @q$held TABLE ([id] bigint NOT NULL PRIMARY KEY);
            INSERT INTO @q$held ([id])
            SELECT [id] FROM [pgs_obq].[invoices] WHERE [lease_token] = @lease_token;
            DELETE FROM [pgs_obq].[invoices]
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;

            SET @q$completed = @@ROWCOUNT;
        END
        ELSE
        BEGIN
            DELETE FROM [pgs_obq].[invoices]
            WHERE [id] = @id AND [lease_token] = @lease_token;

            SET @q$completed = @@ROWCOUNT;
        END;
        IF @q$completed = 0
            THROW 50001, N'qgen: lease lost on pgs_obq.invoices: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        COMMIT TRANSACTION;
        RETURN @q$completed;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: fail pgs_obq.invoices_fail, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 5) and @retry = 1 it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_fail]
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
        [order_no] nvarchar(30) NOT NULL,
        [total] decimal(12, 2) NOT NULL,
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
        FROM [pgs_obq].[invoices] WITH (UPDLOCK, ROWLOCK)
        WHERE [id] = @id AND [lease_token] = @lease_token;
        IF @q$attempts IS NULL
            THROW 50001, N'qgen: lease lost on pgs_obq.invoices: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        IF @retry = 1 AND @q$attempts < 5
        BEGIN
            UPDATE [pgs_obq].[invoices]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [last_error] = @q$error,
                [available_at] = DATEADD(second, CAST(CASE WHEN 10 * POWER(CAST(2 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) > 3600 THEN 3600 ELSE 10 * POWER(CAST(2 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) END AS int), @q$now),
                -- Into the due index for its backoff, off the claim index and the watermark's way.
                [deferred] = 1
            WHERE [id] = @id;
            -- The job is claimable again: the watermark must not stay above it (unless another
            -- transaction holds the watermark row: then the rescan finds the job; never a wait).
            UPDATE [w]
            SET [id] = @id, [version] = [w].[version] + 1
            FROM [pgs_obq].[invoices_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [w].[id] > @id;
            COMMIT TRANSACTION;
            RETURN 0;
        END;
        DELETE FROM [pgs_obq].[invoices]
        OUTPUT deleted.[id], deleted.[order_no], deleted.[total], deleted.[enqueued_at], deleted.[enqueued_by], deleted.[claimed_at], deleted.[claimed_by], deleted.[attempts]
        INTO @q$dead ([id], [order_no], [total], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts])
        WHERE [id] = @id;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [pgs_obq].[invoices_dead] ([id], [order_no], [total], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], [last_error], [dead_at])
        SELECT [id], [order_no], [total], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], @q$error, @q$now FROM @q$dead;
        COMMIT TRANSACTION;
        RETURN 1;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: extend_lease pgs_obq.invoices_extend_lease, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire @lease_seconds from now.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_extend_lease]
    @lease_token uniqueidentifier,
    @lease_seconds int = 300,
    @id bigint = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @lease_seconds IS NULL OR @lease_seconds < 1
        THROW 50003, N'qgen: @lease_seconds is out of range; accepted: 1 or more seconds.', 1;
    DECLARE @q$until datetime2(3) = DATEADD(second, @lease_seconds, SYSUTCDATETIME());
    DECLARE @q$extended int;
    BEGIN TRY
        IF @id IS NULL
        BEGIN
            -- The row by its id, then the lease index's key (see the macro held_ids).
            DECLARE @q$held TABLE ([id] bigint NOT NULL PRIMARY KEY);
            INSERT INTO @q$held ([id])
            SELECT [id] FROM [pgs_obq].[invoices] WHERE [lease_token] = @lease_token;
            UPDATE [pgs_obq].[invoices] SET [lease_expires_at] = @q$until WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [pgs_obq].[invoices] SET [lease_expires_at] = @q$until WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$extended = @@ROWCOUNT;
        IF @q$extended = 0
        BEGIN
            IF @id IS NOT NULL AND EXISTS (SELECT 1 FROM [pgs_obq].[invoices_dead] AS [d]
                                           WHERE [d].[id] = @id AND [d].[last_error] = N'cancelled')
                THROW 50006, N'qgen: job cancelled on pgs_obq.invoices: cancel took it out of the queue while its lease ran; stop working on it (its complete and fail are refused).', 1;
            THROW 50001, N'qgen: lease lost on pgs_obq.invoices: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        RETURN @q$extended;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: reap pgs_obq.invoices_reap, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- @batch_size per call so it never holds many locks: those with attempts left become claimable
-- again, with their old token cleared so the late worker is fenced off; the rest are dead-lettered.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_reap]
    @batch_size int = 1000,
    -- maintain reads the counts here (OUTPUT) and asks for no result set: no INSERT ... EXEC, inside
    -- which this procedure's ROLLBACK would fail with error 3915 and hide its own error.
    @released int = NULL OUTPUT,
    @dead_lettered int = NULL OUTPUT,
    @result_set bit = 1
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1000
    BEGIN
        DECLARE @q$error nvarchar(2048) = CONCAT(N'qgen: batch_size ', COALESCE(CAST(@batch_size AS nvarchar(11)), N'NULL'),
            N' is out of range for pgs_obq.invoices_reap; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$expired TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$freed TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [order_no] nvarchar(30) NOT NULL,
        [total] decimal(12, 2) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [enqueued_by] nvarchar(128) NULL,
        [claimed_at] datetime2(3) NULL,
        [claimed_by] nvarchar(128) NULL,
        [attempts] int NOT NULL
    );
    DECLARE @q$released int = 0, @q$dead_lettered int = 0, @q$lowest bigint;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- Lock order (see the macro held_ids): complete, fail and extend take a job's row by its
        -- clustered key, then the lease index's key. A reap that sought the lease index and looked
        -- the rows up took them the other way round and deadlocked (1205) with a worker finishing
        -- the job at its expiry. So: the expired ids first, from the lease index, keeping no lock
        -- (READCOMMITTEDLOCK: shared locks that go as the rows are read; READPAST: a job being
        -- completed right now is locked by its worker, leave it to finish); then each row by its
        -- id (INDEX(1), FORCESEEK: the clustered key), with the expiry checked again under its lock.
        INSERT INTO @q$expired ([id])
        SELECT TOP (@batch_size) [id]
        FROM [pgs_obq].[invoices] WITH (READPAST, READCOMMITTEDLOCK)
        WHERE [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        -- Each statement reads the table once, through its CTE (as dequeue's claim does). UPDLOCK
        -- (and the statement's own update locks) make these locking reads of current rows.
        ;WITH [expired] AS
        (
            SELECT TOP (@batch_size) [id], [lease_token], [lease_owner], [lease_expires_at], [available_at], [last_error], [deferred]            FROM [pgs_obq].[invoices] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)
            WHERE [id] IN (SELECT [id] FROM @q$expired)
              AND [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now AND [attempts] < 5
        )
        UPDATE [expired]
        SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now,
            -- Released into the due index: the next claim takes it first, whatever its id.
            [deferred] = 1,
            [last_error] = N'qgen: lease expired before the job was completed'
        OUTPUT inserted.[id] INTO @q$freed ([id])
        -- Planned for one row, whatever @batch_size the first call sniffed.
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$released = @@ROWCOUNT;

        -- Out of attempts: what is left of the batch.
        ;WITH [expired] AS
        (
            SELECT TOP (@batch_size - @q$released) [id], [order_no], [total], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts]
            FROM [pgs_obq].[invoices] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)
            WHERE [id] IN (SELECT [id] FROM @q$expired)
              AND [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now AND [attempts] >= 5
        )
        DELETE FROM [expired]
        OUTPUT deleted.[id], deleted.[order_no], deleted.[total], deleted.[enqueued_at], deleted.[enqueued_by], deleted.[claimed_at], deleted.[claimed_by], deleted.[attempts]
        INTO @q$dead ([id], [order_no], [total], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts])
        OPTION (OPTIMIZE FOR (@batch_size = 1, @q$released = 0));
        SET @q$dead_lettered = @@ROWCOUNT;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [pgs_obq].[invoices_dead] ([id], [order_no], [total], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], [last_error], [dead_at])
        SELECT [id], [order_no], [total], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], N'qgen: lease expired on the last attempt', @q$now FROM @q$dead;

        -- Released jobs are claimable again: the watermark must not stay above them (unless another
        -- transaction holds the watermark row: then the rescan finds them; never a wait).
        SELECT @q$lowest = MIN([id]) FROM @q$freed;
        IF @q$lowest IS NOT NULL
            UPDATE [w]
            SET [id] = @q$lowest, [version] = [w].[version] + 1
            FROM [pgs_obq].[invoices_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [w].[id] > @q$lowest;
        COMMIT TRANSACTION;
        SELECT @released = @q$released, @dead_lettered = @q$dead_lettered;
        IF @result_set = 1
            SELECT @q$released AS [released], @q$dead_lettered AS [dead_lettered];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: metrics pgs_obq.invoices_metrics, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now, for dashboards and alerts. Each count reads the one index that
-- holds its rows (claim, due, lease, processed index; the dead-letter and archive tables), never the
-- whole queue table (finished rows included), and does not wait on a row: WITH (READPAST,
-- READCOMMITTEDLOCK) skips a row another transaction holds (a job being claimed, completed or enqueued right now),
-- the watermark's one row is read WITH (NOLOCK). So under concurrency the numbers are approximate:
-- a job changing at that moment is counted in neither state, and the counts are not one snapshot.
-- READPAST skips row and page locks only: a table lock (an escalated lock of a large transaction,
-- uninstall's TABLOCKX, an offline index build) still makes it wait.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_metrics]
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
    FROM [pgs_obq].[invoices] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [lease_token] IS NULL AND [deferred] = 0;
    -- Deferred jobs (delayed, backed off, released): the due index.
    SELECT @q$due_ready = COUNT_BIG(CASE WHEN [available_at] <= @q$now THEN 1 END),
        @q$due_scheduled = COUNT_BIG(CASE WHEN [available_at] > @q$now THEN 1 END),
        @q$due_oldest = MIN(CASE WHEN [available_at] <= @q$now THEN [id] END),
        @q$due_lowest = MIN([id])
    FROM [pgs_obq].[invoices] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [deferred] = 1;
    SELECT @q$ready += @q$due_ready, @q$scheduled += @q$due_scheduled,
        @q$oldest_id = CASE WHEN @q$due_oldest < @q$oldest_id OR @q$oldest_id IS NULL THEN @q$due_oldest ELSE @q$oldest_id END,
        @q$lowest = CASE WHEN @q$due_lowest < @q$lowest OR @q$lowest IS NULL THEN @q$due_lowest ELSE @q$lowest END;
    -- Jobs in flight: the lease index.
    SELECT @q$in_flight = COUNT_BIG(*), @q$expired = COUNT_BIG(CASE WHEN [lease_expires_at] < @q$now THEN 1 END)
    FROM [pgs_obq].[invoices] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [lease_token] IS NOT NULL;
    SELECT @q$dead = COUNT_BIG(*) FROM [pgs_obq].[invoices_dead] WITH (READPAST, READCOMMITTEDLOCK);
    -- One row, a value: read without waiting on a transaction that holds it (a dirty value at worst).
    SELECT @q$watermark = [id] FROM [pgs_obq].[invoices_watermark] WITH (NOLOCK);
    -- The highest id: the last key of the clustered index (one row, skipped if locked).
    SELECT @q$highest = MAX([id]) FROM [pgs_obq].[invoices] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$ready AS [ready], @q$scheduled AS [scheduled], @q$in_flight AS [in_flight], @q$expired AS [expired],
        @q$processed AS [processed], @q$dead AS [dead], @q$archived AS [archived],
        -- The age of the oldest ready job: the one with the lowest id (ids grow with enqueued_at).
        COALESCE(DATEDIFF_BIG(second, (SELECT [enqueued_at] FROM [pgs_obq].[invoices] WITH (READPAST, READCOMMITTEDLOCK) WHERE [id] = @q$oldest_id), @q$now), 0)
            AS [oldest_ready_age_seconds],
        @q$watermark AS [watermark],
        @q$lowest AS [lowest_pending_id],
        -- on_complete: delete leaves no trace of a completion to count.
        CAST(NULL AS bigint) AS [completed_last_minute],
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        COALESCE(@q$lowest, @q$highest + 1) - @q$watermark AS [watermark_lag],
        CAST(CASE WHEN NOT EXISTS (SELECT 1 FROM [pgs_obq].[invoices_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0) THEN 1 ELSE 0 END AS bit) AS [paused];
END;
GO

-- qgen 0.1.0: peek pgs_obq.invoices_peek, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    -- NULL or negative is refused with the other argument checks' code (TOP would raise 1014).
    IF @limit IS NULL OR @limit < 0
        THROW 50003, N'qgen: @limit is out of range for pgs_obq.invoices_peek; accepted: 0 or more rows.', 1;
    SELECT TOP (@limit) [id], [order_no], [total], [available_at], [enqueued_at], [enqueued_by], [attempts], [last_error]
    FROM [pgs_obq].[invoices_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge_batch pgs_obq.invoices_purge_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds: at most @batch_size rows (1000 by default, refused above 1988) over all those
-- tables together, in one transaction (the caller's, when there is one). purge loops over batches;
-- maintain runs one.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_purge_batch]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1988
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1988 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$left int = @batch_size, @q$archived int = 0, @q$processed int = 0, @q$dead int = 0;
    BEGIN TRY
        BEGIN TRANSACTION;
        IF @q$left > 0
        BEGIN
            DELETE TOP (@q$left) FROM [pgs_obq].[invoices_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [dead_at] < @q$cutoff
            OPTION (OPTIMIZE FOR (@q$left = 1));
            SET @q$dead = @@ROWCOUNT;
            SET @q$left -= @q$dead;
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

-- qgen 0.1.0: purge pgs_obq.invoices_purge, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds, in batches of at most @batch_size rows (1000 by default, refused above 1988),
-- each committed on its own, so no statement takes enough locks to escalate to a table lock and
-- no transaction holds more than one batch. The cutoff is fixed when the call begins, so rows that
-- finish while it runs are left for the next purge and the loop ends. It must commit per batch,
-- so it refuses to run inside the caller's transaction (error 50004: there, call
-- invoices_purge_batch, which deletes one batch in that transaction).
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_purge]
    @older_than_seconds int = 604800,
    @batch_size int = 1000
AS
BEGIN
    -- READPAST needs READ COMMITTED (or REPEATABLE READ): pinned here, whatever the caller runs at.
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1988
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1988 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    IF (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50004, N'qgen: purge commits after every batch, which it cannot do inside the caller''s transaction (or with IMPLICIT_TRANSACTIONS ON, where its first statement would open one); call it outside a transaction in autocommit mode, or call invoices_purge_batch (one batch) there.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$archived bigint = 0, @q$processed bigint = 0, @q$dead bigint = 0, @q$deleted int;
    SET @q$deleted = @batch_size;
    WHILE @q$deleted = @batch_size
    BEGIN
        -- No transaction is open: each DELETE commits by itself, one batch at a time.
        DELETE TOP (@batch_size) FROM [pgs_obq].[invoices_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [dead_at] < @q$cutoff
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$deleted = @@ROWCOUNT;
        SET @q$dead += @q$deleted;
    END;

    SELECT @q$archived AS [archived], @q$processed AS [processed], @q$dead AS [dead];
END;
GO

-- qgen 0.1.0: maintain pgs_obq.invoices_maintain, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- @batch_size finished jobs older than the retention (604800 s), releases up to @batch_size expired
-- leases (reap), and corrects the watermark, in that order, in one transaction. Only one runs at a
-- time per queue (an application lock owned by the transaction, so it goes with the commit or the
-- rollback, a client timeout included): a caller that finds another one running returns at once
-- with skipped = 1. more = 1 when a step filled its batch: call again to do the rest.
-- Inside a caller's transaction its work commits with that transaction, and the lock is held
-- until then. It reads the steps' results through OUTPUT parameters, not INSERT ... EXEC: inside
-- one, a step's ROLLBACK fails with error 3915, which is all the caller would see of the step's own
-- error. Granted to the consumer role, so any worker can run it. It runs as the owner of qgen's
-- objects (EXECUTE AS OWNER) so that it can take its lock as that owner, not as public: see below.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_maintain]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1988
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1988 (a batch stays well under lock escalation).', 1;
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
            @Resource = N'qgen.maintain:[pgs_obq].[invoices]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0, @DbPrincipal = @q$principal;
        -- -1: not granted at once, another maintain holds it. -2 (cancelled), -3 (deadlock victim)
        -- and -999 (a call error) are not "someone else is maintaining": refused with the code.
        IF @q$lock = -1
            SET @q$skipped = 1;
        ELSE IF @q$lock < 0
        BEGIN
            DECLARE @q$why nvarchar(2048) = CONCAT(N'qgen: refused on pgs_obq.invoices: maintain could not take its application lock (sp_getapplock returned ',
                @q$lock, N' for principal ', @q$principal, N').');
            THROW 50005, @q$why, 1;
        END
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            EXEC [pgs_obq].[invoices_purge_batch] @older_than_seconds = 604800, @batch_size = @batch_size,
                @archived = @q$archived OUTPUT, @processed = @q$processed OUTPUT, @dead = @q$dead OUTPUT, @result_set = 0;
            EXEC [pgs_obq].[invoices_reap] @batch_size = @q$reap_batch,
                @released = @q$released OUTPUT, @dead_lettered = @q$dead_lettered OUTPUT, @result_set = 0;
            EXEC [pgs_obq].[invoices_watermark_correct]
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

-- qgen 0.1.0: redrive pgs_obq.invoices_redrive, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Puts dead-lettered jobs back into the queue as new jobs: a new id, attempts 0, available now,
-- their last error kept. Either the dead jobs whose ids @ids lists (a JSON array, e.g. N'[3, 7]';
-- OPENJSON needs database compatibility level 130 or later), or (@redrive_all = 1) every dead job
-- after @after_id, in the order they died; at most @batch_size per call: [last_id] is the last
-- dead-letter entry looked at (its entry_id: a job id can repeat there), to pass as @after_id to
-- the next call. Each job is inserted and removed from the
-- dead-letter table in this one transaction, so it is redriven once: a second call finds
-- nothing, and a concurrent one waits (UPDLOCK) and then finds it gone.
-- A job whose dedupe key is already queued again (or repeats one picked before it here) is not
-- redriven: it stays dead and is counted in [skipped_duplicates].
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_redrive]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1988
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1988 (a batch stays well under lock escalation).', 1;
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
            FROM [pgs_obq].[invoices_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[entry_id] > ISNULL(@after_id, 0)
            ORDER BY [x].[entry_id];
        ELSE
            INSERT INTO @q$picked ([entry_id])
            SELECT TOP (@batch_size) [x].[entry_id]
            FROM [pgs_obq].[invoices_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[id] IN (SELECT TRY_CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j])
            ORDER BY [x].[entry_id];
        SET @q$last_id = (SELECT MAX([entry_id]) FROM @q$picked);
        -- UPDLOCK + HOLDLOCK: no enqueue of the same key slips in between this check and the insert.
        UPDATE [p]
        SET [keep] = 1
        FROM @q$picked AS [p]
        INNER JOIN [pgs_obq].[invoices_dead] AS [x] ON [x].[entry_id] = [p].[entry_id]
        WHERE EXISTS (SELECT 1 FROM [pgs_obq].[invoices] AS [job] WITH (UPDLOCK, HOLDLOCK)
                      WHERE [job].[order_no] = [x].[order_no])
           OR EXISTS (SELECT 1 FROM @q$picked AS [first] INNER JOIN [pgs_obq].[invoices_dead] AS [y] ON [y].[entry_id] = [first].[entry_id]
                      WHERE [first].[entry_id] < [p].[entry_id] AND [y].[order_no] = [x].[order_no]);
        INSERT INTO [pgs_obq].[invoices] ([order_no], [total], [enqueued_by], [attempts], [available_at], [last_error])
        SELECT [x].[order_no], [x].[total], [x].[enqueued_by], 0, SYSUTCDATETIME(), [x].[last_error]
        FROM [pgs_obq].[invoices_dead] AS [x]
        INNER JOIN @q$picked AS [p] ON [p].[entry_id] = [x].[entry_id] AND [p].[keep] = 0
        ORDER BY [x].[entry_id];
        SET @q$redriven = @@ROWCOUNT;
        DELETE [x]
        FROM [pgs_obq].[invoices_dead] AS [x]
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

-- qgen 0.1.0: dead_letters pgs_obq.invoices_dead_letters, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first, with the error each died of: at most @limit rows (1 to
-- 1000). Reads only. WITH (READPAST, READCOMMITTEDLOCK), as metrics reads: a locking
-- read at READ COMMITTED (also under READ_COMMITTED_SNAPSHOT) that never waits on a row another
-- transaction holds and skips it instead (a dead letter fail or reap is writing, or redrive or
-- purge is taking away, right now: it is on its way in or out), and holds each shared lock only
-- while it reads that row, so fail, reap, redrive and purge never wait on it. Not NOLOCK: a
-- fail rolled back with its caller's transaction would be listed as dead. READPAST skips row and
-- page locks only: a table lock (escalated, uninstall's TABLOCKX) still makes it wait.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_dead_letters]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @limit IS NULL OR @limit < 1 OR @limit > 1000
    BEGIN
        DECLARE @q$error nvarchar(2048) = CONCAT(N'qgen: limit ', COALESCE(CAST(@limit AS nvarchar(11)), N'NULL'),
            N' is out of range for pgs_obq.invoices_dead_letters; accepted: 1 to 1000 rows.');
        THROW 50003, @q$error, 1;
    END;
    -- Newest first, in the order they arrived: the clustered key backwards, which stops after @limit rows.
    SELECT TOP (@limit) [x].[id], [x].[order_no], [x].[total], [x].[enqueued_at], [x].[attempts],
        [x].[dead_at], [x].[last_error]
    FROM [pgs_obq].[invoices_dead] AS [x] WITH (READPAST, READCOMMITTEDLOCK)
    ORDER BY [x].[entry_id] DESC
    OPTION (RECOMPILE);
END;
GO

-- qgen 0.1.0: job pgs_obq.invoices_job, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_job]
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
            N' is out of range for pgs_obq.invoices_job; accepted: a job id, 1 or more.');
        THROW 50003, @q$error, 1;
    END;
    DECLARE @q$found TABLE
    (
        [id] bigint NOT NULL,
        [state] nvarchar(16) NOT NULL,
        [enqueued_at] datetime2(3) NULL,
        [available_at] datetime2(3) NULL,
        [attempts] int NULL,
        [lease_owner] nvarchar(128) NULL,
        [lease_expires_at] datetime2(3) NULL,
        [last_error] nvarchar(4000) NULL,
        [finished_at] datetime2(3) NULL
    );
    INSERT INTO @q$found ([id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at])
    SELECT [j].[id], CASE WHEN [j].[lease_token] IS NOT NULL THEN N'in_flight' WHEN [j].[available_at] > SYSUTCDATETIME() THEN N'scheduled' ELSE N'queued' END,
        [j].[enqueued_at], [j].[available_at],
        [j].[attempts], [j].[lease_owner], [j].[lease_expires_at],
        [j].[last_error], NULL
    FROM [pgs_obq].[invoices] AS [j]
    WHERE [j].[id] = @job_id;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is reseeded.
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at])
        SELECT TOP (1) [x].[id], N'dead', [x].[enqueued_at], NULL, [x].[attempts], NULL, NULL,
            [x].[last_error], [x].[dead_at]
        FROM [pgs_obq].[invoices_dead] AS [x]
        WHERE [x].[id] = @job_id
        ORDER BY [x].[entry_id] DESC;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state]) VALUES (@job_id, N'not_found');
    SELECT [id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at] FROM @q$found;
END;
GO

-- qgen 0.1.0: release pgs_obq.invoices_release, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With @id, that
-- job; without, every job of the lease. The token is the fence: a job whose lease was released,
-- taken over or finished gets error 50001. last_error is kept (no failure happened).
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_release]
    @lease_token uniqueidentifier,
    @id bigint = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$freed TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$released int, @q$lowest bigint;
    BEGIN TRY
        BEGIN TRANSACTION;
        IF @id IS NULL
        BEGIN
            -- The rows by their id, then the lease index's key (see the macro held_ids).
            DECLARE @q$held TABLE ([id] bigint NOT NULL PRIMARY KEY);
            INSERT INTO @q$held ([id])
            SELECT [id] FROM [pgs_obq].[invoices] WHERE [lease_token] = @lease_token;
            UPDATE [pgs_obq].[invoices]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now, [deferred] = 1,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [pgs_obq].[invoices]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now, [deferred] = 1,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$released = @@ROWCOUNT;
        IF @q$released = 0
            THROW 50001, N'qgen: lease lost on pgs_obq.invoices: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        -- Released jobs are claimable again: the watermark must not stay above them (unless another
        -- transaction holds the watermark row: then the rescan finds them; never a wait).
        SELECT @q$lowest = MIN([id]) FROM @q$freed;
        UPDATE [w]
            SET [id] = @q$lowest, [version] = [w].[version] + 1
            FROM [pgs_obq].[invoices_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [w].[id] > @q$lowest;
        COMMIT TRANSACTION;
        RETURN @q$released;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: pause pgs_obq.invoices_pause, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job, and a dequeue waiting with @wait_ms keeps waiting. Enqueues go on, and leases already
-- granted run to their end (complete, fail, extend_lease, release and reap work as before).
-- Returns 1 when this call paused the queue, 0 when it was paused already.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_pause]
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
        SELECT @q$was = [paused] FROM [pgs_obq].[invoices_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [pgs_obq].[invoices_control] ([paused], [changed_at], [changed_by]) VALUES (1, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 0;
        END
        ELSE IF @q$was = 0
        BEGIN
            UPDATE [pgs_obq].[invoices_control]
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
            THROW 50005, N'qgen: refused on pgs_obq.invoices: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: resume pgs_obq.invoices_resume, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again (a dequeue waiting with
-- @wait_ms takes one at its next attempt). Returns 1 when this call resumed the queue, 0 when it
-- was not paused.
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_resume]
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
        SELECT @q$was = [paused] FROM [pgs_obq].[invoices_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [pgs_obq].[invoices_control] ([paused], [changed_at], [changed_by]) VALUES (0, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 1;
        END
        ELSE IF @q$was = 1
        BEGIN
            UPDATE [pgs_obq].[invoices_control]
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
            THROW 50005, N'qgen: refused on pgs_obq.invoices: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: cancel pgs_obq.invoices_cancel, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (@ids: a JSON array of whole numbers from 1, e.g. N'[3, 7]'; at most 1988): each job still
-- in the queue leaves it at once, in this one transaction, into the dead-letter table with last_error N'cancelled', and
-- never runs. One row per distinct id, in id order, [outcome]:
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   cancelled_in_flight: it held a lease: its worker's complete, fail and extend_lease get 50001 (the
--     token fences them off, so nothing it does commits with the job);
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order (the clustered key, FORCESEEK from the ordered list of ids), as
-- every other statement that locks several jobs does, so cancel deadlocks with none of them; a row a
-- completion or a claim holds is waited for, at most 5 s (then refused, 50005: nothing done).
CREATE OR ALTER PROCEDURE [pgs_obq].[invoices_cancel]
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
    IF (SELECT COUNT(*) FROM OPENJSON(@ids)) > 1988
        THROW 50003, N'qgen: @ids lists more than 1988 jobs; accepted: 1 to 1988 per call (a bigger one could escalate to a table lock).', 1;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$asked TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$found TABLE ([id] bigint NOT NULL PRIMARY KEY);
    -- What the DELETE took out (its OUTPUT): the outcome is what happened, not what was found.
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [order_no] nvarchar(30) NOT NULL,
        [total] decimal(12, 2) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [enqueued_by] nvarchar(128) NULL,
        [claimed_at] datetime2(3) NULL,
        [claimed_by] nvarchar(128) NULL,
        [attempts] int NOT NULL,
        -- The lease the row held when it left, if any (cancel's outcome).
        [lease_token] uniqueidentifier NULL
    );
    INSERT INTO @q$asked ([id])
    SELECT DISTINCT CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j];
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO @q$found ([id])
        SELECT [job].[id]
        FROM [pgs_obq].[invoices] AS [job] WITH (UPDLOCK, ROWLOCK, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]);
        DELETE FROM [pgs_obq].[invoices]
        OUTPUT deleted.[id], deleted.[order_no], deleted.[total], deleted.[enqueued_at], deleted.[enqueued_by], deleted.[claimed_at], deleted.[claimed_by], deleted.[attempts], deleted.[lease_token]
        INTO @q$dead ([id], [order_no], [total], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], [lease_token])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [pgs_obq].[invoices_dead] ([id], [order_no], [total], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], [last_error], [dead_at])
        SELECT [id], [order_no], [total], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], N'cancelled', @q$now FROM @q$dead;
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on pgs_obq.invoices: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
        THROW;
    END CATCH;
    SELECT [a].[id],
        CASE
             WHEN [g].[lease_token] IS NOT NULL THEN N'cancelled_in_flight'
             WHEN [g].[id] IS NOT NULL THEN N'cancelled'
             ELSE N'not_queued' END AS [outcome]
    FROM @q$asked AS [a]
    LEFT JOIN @q$dead AS [g] ON [g].[id] = [a].[id]
    ORDER BY [a].[id];
END;
GO

-- qgen 0.1.0: grants to roles pgs_obq_producer, pgs_obq_consumer, pgs_obq_admin, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_enqueue] TO [pgs_obq_producer];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_enqueue_batch] TO [pgs_obq_producer];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_enqueue_json] TO [pgs_obq_producer];
GRANT EXECUTE ON TYPE::[pgs_obq].[orders_batch] TO [pgs_obq_producer];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_dequeue] TO [pgs_obq_consumer];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_complete] TO [pgs_obq_consumer];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_fail] TO [pgs_obq_consumer];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_extend_lease] TO [pgs_obq_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_watermark_correct] TO [pgs_obq_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[pgs_obq].[orders] TO [pgs_obq_consumer];
GRANT VIEW DEFINITION ON OBJECT::[pgs_obq].[orders] TO [pgs_obq_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_maintain] TO [pgs_obq_consumer];
GRANT SELECT ON OBJECT::[pgs_obq].[orders_pending] TO [pgs_obq_admin];
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_release] TO [pgs_obq_consumer];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_enqueue] TO [pgs_obq_producer];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_enqueue_batch] TO [pgs_obq_producer];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_enqueue_json] TO [pgs_obq_producer];
GRANT EXECUTE ON TYPE::[pgs_obq].[invoices_batch] TO [pgs_obq_producer];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_dequeue] TO [pgs_obq_consumer];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_complete] TO [pgs_obq_consumer];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_fail] TO [pgs_obq_consumer];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_extend_lease] TO [pgs_obq_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_watermark_correct] TO [pgs_obq_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[pgs_obq].[invoices] TO [pgs_obq_consumer];
GRANT VIEW DEFINITION ON OBJECT::[pgs_obq].[invoices] TO [pgs_obq_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_maintain] TO [pgs_obq_consumer];
GRANT SELECT ON OBJECT::[pgs_obq].[invoices_pending] TO [pgs_obq_admin];
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_release] TO [pgs_obq_consumer];
-- The admin role runs every procedure qgen created, and nothing else: each by name, never EXECUTE
-- ON SCHEMA, which in a shared schema (or dbo) would reach every application procedure, present
-- and future (upgrade.sql takes back a schema-wide grant a former version made).
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_enqueue] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_enqueue_batch] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_enqueue_json] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_watermark_move] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_watermark_correct] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_dequeue] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_complete] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_fail] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_extend_lease] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_reap] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_metrics] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_peek] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_purge_batch] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_purge] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_maintain] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_redrive] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_dead_letters] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_job] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_release] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_pause] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_resume] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[orders_cancel] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_enqueue] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_enqueue_batch] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_enqueue_json] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_watermark_move] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_watermark_correct] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_dequeue] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_complete] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_fail] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_extend_lease] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_reap] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_metrics] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_peek] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_purge_batch] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_purge] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_maintain] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_redrive] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_dead_letters] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_job] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_release] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_pause] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_resume] TO [pgs_obq_admin];
GRANT EXECUTE ON OBJECT::[pgs_obq].[invoices_cancel] TO [pgs_obq_admin];
GRANT EXECUTE ON TYPE::[pgs_obq].[orders_batch] TO [pgs_obq_admin];
GRANT EXECUTE ON TYPE::[pgs_obq].[invoices_batch] TO [pgs_obq_admin];
GO

-- qgen 0.1.0: verify pgs_obq, rendered for SQL Server (T-SQL) from spec.yaml.
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
WHERE [s].[name] = N'pgs_obq'
  AND [o].[name] IN
  (
      N'orders',
      N'orders_claim_ix',
      N'orders_lease_ix',
      N'orders_watermark',
      N'orders_dead',
      N'orders_dead_ix',
      N'orders_archive',
      N'orders_archive_ix',
      N'orders_pending',
      N'orders_batch',
      N'orders_enqueue',
      N'orders_enqueue_batch',
      N'orders_enqueue_json',
      N'orders_watermark_move',
      N'orders_watermark_correct',
      N'orders_control',
      N'orders_dequeue',
      N'invoices',
      N'orders_complete',
      N'orders_fail',
      N'orders_extend_lease',
      N'orders_reap',
      N'orders_metrics',
      N'orders_peek',
      N'orders_purge_batch',
      N'orders_purge',
      N'orders_maintain',
      N'orders_redrive',
      N'orders_dead_letters',
      N'orders_job',
      N'orders_release',
      N'orders_pause',
      N'orders_resume',
      N'orders_cancel',
      N'invoices_claim_ix',
      N'invoices_dead',
      N'invoices_dedupe_ux',
      N'invoices_lease_ix',
      N'invoices_watermark',
      N'invoices_dead_ix',
      N'invoices_pending',
      N'invoices_batch',
      N'invoices_enqueue',
      N'invoices_enqueue_batch',
      N'invoices_enqueue_json',
      N'invoices_watermark_move',
      N'invoices_watermark_correct',
      N'invoices_control',
      N'invoices_dequeue',
      N'invoices_complete',
      N'invoices_fail',
      N'invoices_extend_lease',
      N'invoices_reap',
      N'invoices_metrics',
      N'invoices_peek',
      N'invoices_purge_batch',
      N'invoices_purge',
      N'invoices_maintain',
      N'invoices_redrive',
      N'invoices_dead_letters',
      N'invoices_job',
      N'invoices_release',
      N'invoices_pause',
      N'invoices_resume',
      N'invoices_cancel'
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
IF OBJECT_ID(N'pgs_obq.orders') IS NULL
    SET @q$missing += N' pgs_obq.orders';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'orders_claim_ix' AND [object_id] = OBJECT_ID(N'pgs_obq.orders'))
    SET @q$missing += N' pgs_obq.orders_claim_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'orders_lease_ix' AND [object_id] = OBJECT_ID(N'pgs_obq.orders'))
    SET @q$missing += N' pgs_obq.orders_lease_ix';
IF OBJECT_ID(N'pgs_obq.orders_watermark') IS NULL
    SET @q$missing += N' pgs_obq.orders_watermark';
IF OBJECT_ID(N'pgs_obq.orders_dead') IS NULL
    SET @q$missing += N' pgs_obq.orders_dead';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'orders_dead_ix' AND [object_id] = OBJECT_ID(N'pgs_obq.orders_dead'))
    SET @q$missing += N' pgs_obq.orders_dead_ix';
IF OBJECT_ID(N'pgs_obq.orders_archive') IS NULL
    SET @q$missing += N' pgs_obq.orders_archive';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'orders_archive_ix' AND [object_id] = OBJECT_ID(N'pgs_obq.orders_archive'))
    SET @q$missing += N' pgs_obq.orders_archive_ix';
IF OBJECT_ID(N'pgs_obq.orders_pending') IS NULL
    SET @q$missing += N' pgs_obq.orders_pending';
IF TYPE_ID(N'pgs_obq.orders_batch') IS NULL
    SET @q$missing += N' pgs_obq.orders_batch';
IF OBJECT_ID(N'pgs_obq.orders_enqueue') IS NULL
    SET @q$missing += N' pgs_obq.orders_enqueue';
IF OBJECT_ID(N'pgs_obq.orders_enqueue_batch') IS NULL
    SET @q$missing += N' pgs_obq.orders_enqueue_batch';
IF OBJECT_ID(N'pgs_obq.orders_enqueue_json') IS NULL
    SET @q$missing += N' pgs_obq.orders_enqueue_json';
IF OBJECT_ID(N'pgs_obq.orders_watermark_move') IS NULL
    SET @q$missing += N' pgs_obq.orders_watermark_move';
IF OBJECT_ID(N'pgs_obq.orders_watermark_correct') IS NULL
    SET @q$missing += N' pgs_obq.orders_watermark_correct';
IF OBJECT_ID(N'pgs_obq.orders_control') IS NULL
    SET @q$missing += N' pgs_obq.orders_control';
IF OBJECT_ID(N'pgs_obq.orders_dequeue') IS NULL
    SET @q$missing += N' pgs_obq.orders_dequeue';
IF OBJECT_ID(N'pgs_obq.invoices') IS NULL
    SET @q$missing += N' pgs_obq.invoices';
IF OBJECT_ID(N'pgs_obq.orders_complete') IS NULL
    SET @q$missing += N' pgs_obq.orders_complete';
IF OBJECT_ID(N'pgs_obq.orders_fail') IS NULL
    SET @q$missing += N' pgs_obq.orders_fail';
IF OBJECT_ID(N'pgs_obq.orders_extend_lease') IS NULL
    SET @q$missing += N' pgs_obq.orders_extend_lease';
IF OBJECT_ID(N'pgs_obq.orders_reap') IS NULL
    SET @q$missing += N' pgs_obq.orders_reap';
IF OBJECT_ID(N'pgs_obq.orders_metrics') IS NULL
    SET @q$missing += N' pgs_obq.orders_metrics';
IF OBJECT_ID(N'pgs_obq.orders_peek') IS NULL
    SET @q$missing += N' pgs_obq.orders_peek';
IF OBJECT_ID(N'pgs_obq.orders_purge_batch') IS NULL
    SET @q$missing += N' pgs_obq.orders_purge_batch';
IF OBJECT_ID(N'pgs_obq.orders_purge') IS NULL
    SET @q$missing += N' pgs_obq.orders_purge';
IF OBJECT_ID(N'pgs_obq.orders_maintain') IS NULL
    SET @q$missing += N' pgs_obq.orders_maintain';
IF OBJECT_ID(N'pgs_obq.orders_redrive') IS NULL
    SET @q$missing += N' pgs_obq.orders_redrive';
IF OBJECT_ID(N'pgs_obq.orders_dead_letters') IS NULL
    SET @q$missing += N' pgs_obq.orders_dead_letters';
IF OBJECT_ID(N'pgs_obq.orders_job') IS NULL
    SET @q$missing += N' pgs_obq.orders_job';
IF OBJECT_ID(N'pgs_obq.orders_release') IS NULL
    SET @q$missing += N' pgs_obq.orders_release';
IF OBJECT_ID(N'pgs_obq.orders_pause') IS NULL
    SET @q$missing += N' pgs_obq.orders_pause';
IF OBJECT_ID(N'pgs_obq.orders_resume') IS NULL
    SET @q$missing += N' pgs_obq.orders_resume';
IF OBJECT_ID(N'pgs_obq.orders_cancel') IS NULL
    SET @q$missing += N' pgs_obq.orders_cancel';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'invoices_claim_ix' AND [object_id] = OBJECT_ID(N'pgs_obq.invoices'))
    SET @q$missing += N' pgs_obq.invoices_claim_ix';
IF OBJECT_ID(N'pgs_obq.invoices_dead') IS NULL
    SET @q$missing += N' pgs_obq.invoices_dead';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'invoices_dedupe_ux' AND [object_id] = OBJECT_ID(N'pgs_obq.invoices'))
    SET @q$missing += N' pgs_obq.invoices_dedupe_ux';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'invoices_lease_ix' AND [object_id] = OBJECT_ID(N'pgs_obq.invoices'))
    SET @q$missing += N' pgs_obq.invoices_lease_ix';
IF OBJECT_ID(N'pgs_obq.invoices_watermark') IS NULL
    SET @q$missing += N' pgs_obq.invoices_watermark';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'invoices_dead_ix' AND [object_id] = OBJECT_ID(N'pgs_obq.invoices_dead'))
    SET @q$missing += N' pgs_obq.invoices_dead_ix';
IF OBJECT_ID(N'pgs_obq.invoices_pending') IS NULL
    SET @q$missing += N' pgs_obq.invoices_pending';
IF TYPE_ID(N'pgs_obq.invoices_batch') IS NULL
    SET @q$missing += N' pgs_obq.invoices_batch';
IF OBJECT_ID(N'pgs_obq.invoices_enqueue') IS NULL
    SET @q$missing += N' pgs_obq.invoices_enqueue';
IF OBJECT_ID(N'pgs_obq.invoices_enqueue_batch') IS NULL
    SET @q$missing += N' pgs_obq.invoices_enqueue_batch';
IF OBJECT_ID(N'pgs_obq.invoices_enqueue_json') IS NULL
    SET @q$missing += N' pgs_obq.invoices_enqueue_json';
IF OBJECT_ID(N'pgs_obq.invoices_watermark_move') IS NULL
    SET @q$missing += N' pgs_obq.invoices_watermark_move';
IF OBJECT_ID(N'pgs_obq.invoices_watermark_correct') IS NULL
    SET @q$missing += N' pgs_obq.invoices_watermark_correct';
IF OBJECT_ID(N'pgs_obq.invoices_control') IS NULL
    SET @q$missing += N' pgs_obq.invoices_control';
IF OBJECT_ID(N'pgs_obq.invoices_dequeue') IS NULL
    SET @q$missing += N' pgs_obq.invoices_dequeue';
IF OBJECT_ID(N'pgs_obq.invoices_complete') IS NULL
    SET @q$missing += N' pgs_obq.invoices_complete';
IF OBJECT_ID(N'pgs_obq.invoices_fail') IS NULL
    SET @q$missing += N' pgs_obq.invoices_fail';
IF OBJECT_ID(N'pgs_obq.invoices_extend_lease') IS NULL
    SET @q$missing += N' pgs_obq.invoices_extend_lease';
IF OBJECT_ID(N'pgs_obq.invoices_reap') IS NULL
    SET @q$missing += N' pgs_obq.invoices_reap';
IF OBJECT_ID(N'pgs_obq.invoices_metrics') IS NULL
    SET @q$missing += N' pgs_obq.invoices_metrics';
IF OBJECT_ID(N'pgs_obq.invoices_peek') IS NULL
    SET @q$missing += N' pgs_obq.invoices_peek';
IF OBJECT_ID(N'pgs_obq.invoices_purge_batch') IS NULL
    SET @q$missing += N' pgs_obq.invoices_purge_batch';
IF OBJECT_ID(N'pgs_obq.invoices_purge') IS NULL
    SET @q$missing += N' pgs_obq.invoices_purge';
IF OBJECT_ID(N'pgs_obq.invoices_maintain') IS NULL
    SET @q$missing += N' pgs_obq.invoices_maintain';
IF OBJECT_ID(N'pgs_obq.invoices_redrive') IS NULL
    SET @q$missing += N' pgs_obq.invoices_redrive';
IF OBJECT_ID(N'pgs_obq.invoices_dead_letters') IS NULL
    SET @q$missing += N' pgs_obq.invoices_dead_letters';
IF OBJECT_ID(N'pgs_obq.invoices_job') IS NULL
    SET @q$missing += N' pgs_obq.invoices_job';
IF OBJECT_ID(N'pgs_obq.invoices_release') IS NULL
    SET @q$missing += N' pgs_obq.invoices_release';
IF OBJECT_ID(N'pgs_obq.invoices_pause') IS NULL
    SET @q$missing += N' pgs_obq.invoices_pause';
IF OBJECT_ID(N'pgs_obq.invoices_resume') IS NULL
    SET @q$missing += N' pgs_obq.invoices_resume';
IF OBJECT_ID(N'pgs_obq.invoices_cancel') IS NULL
    SET @q$missing += N' pgs_obq.invoices_cancel';
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
WHERE [s].[name] = N'pgs_obq'
  AND [o].[name] IN
  (
      N'orders_maintain',
      N'invoices_maintain'
  )
  AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$owners <> N''
BEGIN
    DECLARE @q$impersonate nvarchar(2048) = LEFT(N'qgen: maintain runs WITH EXECUTE AS OWNER, which cannot impersonate its owner, '
        + N'so every call of it fails:' + @q$owners + N'. Give schema [pgs_obq] to a user, ALTER AUTHORIZATION ON SCHEMA::'
        + N'[pgs_obq] TO [dbo]; (a procedure given an owner of its own: ALTER AUTHORIZATION ON OBJECT::... TO SCHEMA OWNER;), '
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
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'pgs_obq.' + [r].[name]), N' '))
FROM
(
    VALUES
        (N'invoices_cancel', 0xE1B3E549B7682D92A903797E68BE5FD786DAD9B5FE569C3D2EF4066BF82EAA62),
        (N'invoices_complete', 0xC51D7184BAAC68D6634829C177EEE0F12E2580BDE108BF8C0EFDDA4DA2B657C5),
        (N'invoices_dead_letters', 0x2A4E37F2CD43E0F2479C45E1CC81E9E9AF7EF7AB2AD38CF0DD134CC0C46FE7A4),
        (N'invoices_dequeue', 0xA4AF8E87C18150A0988C79525E0BFB58B35B0C43EB9CAF9745C8609C4328A8DB),
        (N'invoices_enqueue', 0x895056B64379CB99C158A9CA91966FE2461CE88FD27EA0D0246C7F2DC052704D),
        (N'invoices_enqueue_batch', 0xE160CFCC3ABB0867183BEA3062F87DADA2EF219F6F8888B811F2CCF5716D5185),
        (N'invoices_enqueue_json', 0xEE86EFB944F3754A44A2FD5BCDF36FC1CF7600998253325E05A5AC9D0E45B0D3),
        (N'invoices_extend_lease', 0x358DF9A721AC423C1D5FFDBD9557A3A578361F600393210DC2DABC7C1E8D1C3C),
        (N'invoices_fail', 0xD2CFBF5496240F3865520298FE057E8D27A2F79069D12C2FBF16F03C6C4EE966),
        (N'invoices_job', 0xD9ACAA10F0AB92E6AE9574034CC2FB060F5D33546632CE53900D9C1045D83F7F),
        (N'invoices_maintain', 0x0F792594E85B6E958A2ED94C30BE40181684890F1B5732C91DE638600F9DF527),
        (N'invoices_metrics', 0xE4CF685358E7A9768A6EA6C1EE64303789280D2C531AD45E9C580A5B5CA2D4D8),
        (N'invoices_pause', 0x46225773243FAA3704DD3E9BAC9E44DA1AB28CE6955328EA751B112E2AD6E711),
        (N'invoices_peek', 0x917C950509AA5C0EDCCFC4A20A4DCBB63932FF68F8C6DB3DE097326F5144895D),
        (N'invoices_pending', 0x7DFAEED0FE0333D93F02F5F7BB73ECF4F0CC077444EE0A6909A3B24775352327),
        (N'invoices_purge', 0x76AD780EE2072FA128071E2AC940921AFFF91CA79D1699D4807AD19C6FA5FB9B),
        (N'invoices_purge_batch', 0x7C8AA298CA6BD18DF9900D3771545FF042C5AB1C9220E43AF9253EDD9205983C),
        (N'invoices_reap', 0xBEBE9BD50637860B492A56E89DBF757836ADA11B18F98B498F467E20961ACF2D),
        (N'invoices_redrive', 0x97908FE91AA3867C600A00F0AA62600791EA12614AE9348D35B20181D649CCED),
        (N'invoices_release', 0x904D524AF28738E27FDF9B6830B7C567C80F2212AEC208D0B89CA81BA980D48D),
        (N'invoices_resume', 0xEF5FF04DE14073D613FE2971769DEF3C6E8D7B49DE6864BCDB0A534E4BC5D95B),
        (N'invoices_watermark_correct', 0x7705F2912FF4745D54574F0BAB9D70421C5CCDBFFBB29E1DA82387F9DD567094),
        (N'invoices_watermark_move', 0xE02A925544C7B80E1ECF5F0EA50E291E6B1CEACB2A787D9E1ADA3C420112B3AF),
        (N'orders_cancel', 0x6ABC703B408C362EC76B7A749CD7357AB322DB348D404242736878DD7BF6D964),
        (N'orders_complete', 0xDAAD4D1E380CF464FC44E985934D94C518D0B295A8D68D633034070DE09FD5DB),
        (N'orders_dead_letters', 0xADE50E2F4A30A3E768E7827B9C8B5FCB31A6371C01B7644FF3E7CC8AEA1B8D6E),
        (N'orders_dequeue', 0x95694E8FE4A67773E8D88E51082D71D67D03B9D5A118A891950F799A70B8D7C2),
        (N'orders_enqueue', 0xDBC3F457EDCCEB07ADD29BB7509095A138BC7301811D51D3AD518CC821AB87D4),
        (N'orders_enqueue_batch', 0x28C330C058EF40A2772C8D042258459940493F53447E1928C4F587586715C12B),
        (N'orders_enqueue_json', 0xBEFF2481A6F6ED79B35BF3C6C85F994CBFB506B5C50C7CCC1FCF32F86AF7B456),
        (N'orders_extend_lease', 0x5D7589B9C9B6764BC505F86B0FB9B99DB6D1CD12BEB53B6CB4AF2897944B221C),
        (N'orders_fail', 0xF65C30A670735D96E9051179849DA495CAACB84D004B9AEB3927BF056BE94187),
        (N'orders_job', 0xF5DA4A10464E6BDE07EBF7190FAE0A5570B8F156B907485BBCFB91F848822C9C),
        (N'orders_maintain', 0xAD5A16288C4CEA440B774473D74D6CB1835A44AF856A5852A340B5290BCD27DD),
        (N'orders_metrics', 0x0D342E3A5B8F1E019BDFCAA7A95E92FF32E262489F2AE095A19304ED55B0473C),
        (N'orders_pause', 0xB5542D40329D08159FDCE96C45143F8FC01343D0CA519DC7DB25AA40D6A48283),
        (N'orders_peek', 0x6F4C33D7C1297EB4FB115D2B07A4AB31925293F4735BDAD46DFE234CAB0519F5),
        (N'orders_pending', 0x2228A598A424D5F3F0D7E4AC79B037082B69AA5A0C148BA334B05DC742BF1D29),
        (N'orders_purge', 0x64B278C6E92D2E5C34119566AFF6E1D2D361B89C45492F203A002AE18A63B962),
        (N'orders_purge_batch', 0xF65731F4A8B2F96E54ADD7EB723D5297ED98EE1D7B1FFB975642B427F64AAC49),
        (N'orders_reap', 0x1211C5632988C3E7479DE948435A5BB9FE57ABFA61E24F4E4529745FE973F194),
        (N'orders_redrive', 0x0CA60CDAEEA3BFFB0EF90CE19246D4B6CCC0A0A9D9747EE9C680BEDA5B6716D3),
        (N'orders_release', 0xB4003F74466648292C3C3353374502313181E573A6346BA41439D0D3A9356191),
        (N'orders_resume', 0x22494D965AB9F65BFA68F72C3D26FD4B7F271AE72BA50D37E01BEF417FFC5636),
        (N'orders_watermark_correct', 0xD6846A63CC3179E1DAF40A997B3F54BC88A18C0059440BDFEE51B8D6D0B941A5),
        (N'orders_watermark_move', 0x3561E94D72347DB870643199D63FF5D5248DD5FE399DA248773997429D8F51F6)
) AS [r]([name], [fingerprint])
INNER JOIN sys.sql_modules AS [sm] ON [sm].[object_id] = OBJECT_ID(N'pgs_obq.' + [r].[name])
CROSS APPLY (SELECT [sm].[definition] COLLATE Latin1_General_BIN2 AS [text]) AS [d]
WHERE HASHBYTES('SHA2_256', REPLACE(REPLACE(REPLACE(REPLACE(
          SUBSTRING([d].[text], CHARINDEX(N'[pgs_obq].[' + [r].[name] + N']' COLLATE Latin1_General_BIN2, [d].[text]), LEN([d].[text])),
          NCHAR(32), N''), NCHAR(9), N''), NCHAR(10), N''), NCHAR(13), N'')) <> [r].[fingerprint];
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'pgs_obq.' + [r].[table] + N'.' + [r].[name]
    + N' (' + COALESCE([shape].[now], N'?') + N', rendered ' + [r].[shape] + N')'), N' '))
FROM
(
    VALUES
        (N'invoices', N'invoices_claim_ix', N'(id) include (available_at, deferred, lease_token) where'),
        (N'invoices', N'invoices_claim_ix_due', N'(available_at, id) include (deferred) where'),
        (N'invoices', N'invoices_dedupe_ux', N'unique (order_no)'),
        (N'invoices', N'invoices_lease_ix', N'(lease_token) include (attempts, lease_expires_at) where'),
        (N'invoices_dead', N'invoices_dead_id_ix', N'(id)'),
        (N'invoices_dead', N'invoices_dead_ix', N'(dead_at)'),
        (N'orders', N'orders_claim_ix', N'(id) include (available_at, deferred, lease_token) where'),
        (N'orders', N'orders_claim_ix_due', N'(available_at, id) include (deferred) where'),
        (N'orders', N'orders_lease_ix', N'(lease_token) include (attempts, lease_expires_at) where'),
        (N'orders_archive', N'orders_archive_ix', N'(completed_at)'),
        (N'orders_dead', N'orders_dead_id_ix', N'(id)'),
        (N'orders_dead', N'orders_dead_ix', N'(dead_at)')
) AS [r]([table], [name], [shape])
INNER JOIN sys.indexes AS [i] ON [i].[object_id] = OBJECT_ID(N'pgs_obq.' + [r].[table]) AND [i].[name] = [r].[name]
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
