-- qgen 0.1.0: every object of spec.yaml, for SQL Server (T-SQL), in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- qgen 0.1.0: schema pgs_full, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Refused before anything is created: a schema that exists and is owned by a database role (or an
-- application role, a group, a user mapped to a certificate or key). Its procedures are owned by
-- that owner, and maintain runs WITH EXECUTE AS OWNER, which can impersonate only a user: every
-- call of maintain would fail (error 15517) long after install succeeded. sqlcmd and SSMS go on to
-- the next batch after an error: the batch after the refusal sets NOEXEC ON, so no later batch runs
-- (verify, install's last batch, sets it OFF again).
DECLARE @q$refused nvarchar(2048);
SELECT @q$refused = CONCAT(N'qgen: install refused: schema [pgs_full] is owned by ', QUOTENAME([p].[name]), N' (',
    [p].[type_desc], N'), which EXECUTE AS OWNER cannot impersonate: qgen''s maintain procedures run as the schema''s owner, ',
    N'so every call of maintain would fail. Give the schema to a user, ALTER AUTHORIZATION ON SCHEMA::[pgs_full] TO [dbo]; ',
    N'(or to another user), then run install.sql again.')
FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'pgs_full' AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$refused IS NOT NULL
    THROW 50022, @q$refused, 1;
GO

IF EXISTS (SELECT 1 FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'pgs_full' AND [p].[type] NOT IN ('S', 'U', 'E'))
    SET NOEXEC ON;
GO

-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
-- A schema install creates is marked (extended property qgen.created): uninstall drops only such a one.
IF SCHEMA_ID(N'pgs_full') IS NULL
BEGIN
    EXEC(N'CREATE SCHEMA [pgs_full] AUTHORIZATION [dbo];');
    EXEC sys.sp_addextendedproperty @name = N'qgen.created', @value = N'created by the install of qgen''s queues',
        @level0type = N'SCHEMA', @level0name = N'pgs_full';
END;
GO

-- qgen 0.1.0: roles pgs_full_producer, pgs_full_consumer, pgs_full_admin (database roles), rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
-- A role install creates is recorded on the schema (extended property qgen.created_role.<role>):
-- uninstall drops only such a one, never a role that was there before and that the spec only names.
IF DATABASE_PRINCIPAL_ID(N'pgs_full_producer') IS NULL
BEGIN
    CREATE ROLE [pgs_full_producer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'pgs_full') AND [name] = N'qgen.created_role.pgs_full_producer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.pgs_full_producer', @value = N'pgs_full_producer',
            @level0type = N'SCHEMA', @level0name = N'pgs_full';
END;
IF DATABASE_PRINCIPAL_ID(N'pgs_full_consumer') IS NULL
BEGIN
    CREATE ROLE [pgs_full_consumer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'pgs_full') AND [name] = N'qgen.created_role.pgs_full_consumer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.pgs_full_consumer', @value = N'pgs_full_consumer',
            @level0type = N'SCHEMA', @level0name = N'pgs_full';
END;
IF DATABASE_PRINCIPAL_ID(N'pgs_full_admin') IS NULL
BEGIN
    CREATE ROLE [pgs_full_admin];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'pgs_full') AND [name] = N'qgen.created_role.pgs_full_admin')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.pgs_full_admin', @value = N'pgs_full_admin',
            @level0type = N'SCHEMA', @level0name = N'pgs_full';
END;
GO

-- qgen 0.1.0: table pgs_full.tasks, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'pgs_full.tasks', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_full].[tasks]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [job_type] nvarchar(50) NOT NULL,
        [tenant] int NOT NULL,
        [item] nvarchar(100) NOT NULL,
        [note] nvarchar(max) NULL,
        [body] nvarchar(max) NULL,
        [amount] decimal(10, 2) NULL,
        [available_at] datetime2(3) NOT NULL CONSTRAINT [tasks_available_at_df] DEFAULT (SYSUTCDATETIME()),
        -- 1 while the job waits for its time (delayed by run_at, or released by fail or reap) and no
        -- claim holds it: such a job is in the due index, not the claim index (a filtered index
        -- cannot compare available_at with enqueued_at, so enqueue, fail, reap and dequeue keep it).
        [deferred] bit NOT NULL CONSTRAINT [tasks_deferred_df] DEFAULT (0),
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [tasks_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        [enqueued_by] nvarchar(128) NULL,
        [attempts] int NOT NULL CONSTRAINT [tasks_attempts_df] DEFAULT (0),
        [lease_token] uniqueidentifier NULL,
        [lease_owner] nvarchar(128) NULL,
        [lease_expires_at] datetime2(3) NULL,
        [claimed_at] datetime2(3) NULL,
        [claimed_by] nvarchar(128) NULL,
        [last_error] nvarchar(4000) NULL,
        [processed] bit NOT NULL CONSTRAINT [tasks_processed_df] DEFAULT (0),
        [processed_at] datetime2(3) NULL,
        CONSTRAINT [tasks_body_is_json] CHECK ([body] IS NULL OR ISJSON([body]) = 1),
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [tasks_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: claim_index pgs_full.tasks_claim_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
-- Deferred jobs (delayed, or released with a backoff: [deferred] = 1) are left out of it: see the due index below.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'tasks_claim_ix' AND object_id = OBJECT_ID(N'pgs_full.tasks'))
    CREATE NONCLUSTERED INDEX [tasks_claim_ix]
    ON [pgs_full].[tasks] ([job_type], [id])
    INCLUDE ([available_at], [lease_token], [processed], [deferred])
    WHERE [lease_token] IS NULL AND [processed] = 0 AND [deferred] = 0;
-- The due index: deferred jobs, by the time they become available ([deferred] = 1 only while no
-- claim holds the job: a claim clears it). A claim takes the due ones from here first, so however
-- many wait for their time, no claim and no watermark steps over them.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'tasks_claim_ix_due' AND object_id = OBJECT_ID(N'pgs_full.tasks'))
    CREATE NONCLUSTERED INDEX [tasks_claim_ix_due]
    ON [pgs_full].[tasks] ([available_at], [id])
    INCLUDE ([deferred], [job_type])
    WHERE [deferred] = 1;
GO

-- qgen 0.1.0: claim_order_index pgs_full.tasks_claim_order_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A dequeue without a job type claims from every sub-queue, in queue order: tasks_claim_ix is keyed
-- by job type first and cannot give that order, so this one does.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'tasks_claim_order_ix' AND object_id = OBJECT_ID(N'pgs_full.tasks'))
    CREATE NONCLUSTERED INDEX [tasks_claim_order_ix]
    ON [pgs_full].[tasks] ([id])
    INCLUDE ([available_at], [lease_token], [processed], [deferred])
    WHERE [lease_token] IS NULL AND [processed] = 0 AND [deferred] = 0;
GO

-- qgen 0.1.0: dead_letter_table pgs_full.tasks_dead, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: [id] is the job's id, which repeats once the queue's identity is reseeded.
IF OBJECT_ID(N'pgs_full.tasks_dead', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_full].[tasks_dead]
    (
        [entry_id] bigint IDENTITY(1, 1) NOT NULL,
        [id] bigint NOT NULL,
        [job_type] nvarchar(50) NOT NULL,
        [tenant] int NOT NULL,
        [item] nvarchar(100) NOT NULL,
        [note] nvarchar(max) NULL,
        [body] nvarchar(max) NULL,
        [amount] decimal(10, 2) NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [enqueued_by] nvarchar(128) NULL,
        [claimed_at] datetime2(3) NULL,
        [claimed_by] nvarchar(128) NULL,
        [attempts] int NOT NULL,
        [last_error] nvarchar(4000) NULL,
        [dead_at] datetime2(3) NOT NULL CONSTRAINT [tasks_dead_dead_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [tasks_dead_pk] PRIMARY KEY CLUSTERED ([entry_id])
    );
END;
GO

-- qgen 0.1.0: dedupe_index pgs_full.tasks_dedupe_ux, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key among the jobs not yet processed (dedupe.scope: queued): enqueueing the same
-- item twice finds the row already there; once processed, the key can be queued again.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'tasks_dedupe_ux' AND object_id = OBJECT_ID(N'pgs_full.tasks'))
    CREATE UNIQUE NONCLUSTERED INDEX [tasks_dedupe_ux]
    ON [pgs_full].[tasks] ([tenant], [item])
    WHERE [processed] = 0;
GO

-- qgen 0.1.0: lease_index pgs_full.tasks_lease_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'tasks_lease_ix' AND object_id = OBJECT_ID(N'pgs_full.tasks'))
    CREATE NONCLUSTERED INDEX [tasks_lease_ix]
    ON [pgs_full].[tasks] ([lease_token]) INCLUDE ([lease_expires_at], [attempts])
    WHERE [lease_token] IS NOT NULL;
GO

-- qgen 0.1.0: processed_index pgs_full.tasks_processed_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes processed jobs by age: only processed rows are indexed, by when they were processed
-- (INCLUDE [processed]: a filtered index carries the columns its filter names).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'tasks_processed_ix' AND object_id = OBJECT_ID(N'pgs_full.tasks'))
    CREATE NONCLUSTERED INDEX [tasks_processed_ix]
    ON [pgs_full].[tasks] ([processed_at])
    INCLUDE ([processed])
    WHERE [processed] = 1;
GO

-- qgen 0.1.0: watermark_table pgs_full.tasks_watermark, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their range seek here instead of
-- walking the ghost records that deleted or claimed rows leave at the low end of the index.
IF OBJECT_ID(N'pgs_full.tasks_watermark', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_full].[tasks_watermark]
    (
        [id] bigint NOT NULL,
        -- Bumped by every change, so watermark_correct can tell a release happened while it scanned.
        [version] bigint NOT NULL CONSTRAINT [tasks_watermark_version_df] DEFAULT (0),
        [one_row] bit NOT NULL CONSTRAINT [tasks_watermark_one_row_df] DEFAULT (1),
        -- When the table was last searched below the watermark (by a dequeue's rescan or
        -- watermark_correct): a dequeue rescans when this is watermark.rescan old.
        [corrected_at] datetime2(3) NOT NULL
            CONSTRAINT [tasks_watermark_corrected_at_df] DEFAULT ('0001-01-01'),
        CONSTRAINT [tasks_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [tasks_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [pgs_full].[tasks_watermark])
    INSERT INTO [pgs_full].[tasks_watermark] ([id]) VALUES (0);
GO

-- qgen 0.1.0: dead_letter_index pgs_full.tasks_dead_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'tasks_dead_ix' AND object_id = OBJECT_ID(N'pgs_full.tasks_dead'))
    CREATE NONCLUSTERED INDEX [tasks_dead_ix]
    ON [pgs_full].[tasks_dead] ([dead_at]);
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'tasks_dead_id_ix' AND object_id = OBJECT_ID(N'pgs_full.tasks_dead'))
    CREATE NONCLUSTERED INDEX [tasks_dead_id_ix]
    ON [pgs_full].[tasks_dead] ([id]);
GO

-- qgen 0.1.0: outbox_table pgs_full.tasks_outbox, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Results handed on by complete in the same transaction, for a separate transfer to pick up.
IF OBJECT_ID(N'pgs_full.tasks_outbox', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_full].[tasks_outbox]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [source_id] bigint NOT NULL,
        [summary] nvarchar(200) NOT NULL,
        [score] int NULL,
        [created_at] datetime2(3) NOT NULL CONSTRAINT [tasks_outbox_created_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [tasks_outbox_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: pending_view pgs_full.tasks_pending, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [pgs_full].[tasks_pending]
AS
SELECT [id], [job_type], [tenant], [item], [note], [body], [amount], [available_at], [enqueued_at], [enqueued_by], [attempts], [last_error]
FROM [pgs_full].[tasks]
WHERE [lease_token] IS NULL AND [processed] = 0;
GO

-- qgen 0.1.0: batch_type pgs_full.tasks_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it. Its columns are one wider than the
-- table's (m.param_type): a caller's insert into a variable of this type cannot cut or round a value
-- past its column unseen; enqueue_batch refuses it with error 50010.
IF TYPE_ID(N'pgs_full.tasks_batch') IS NULL
    CREATE TYPE [pgs_full].[tasks_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [job_type] nvarchar(51) NOT NULL,
        [tenant] int NOT NULL,
        [item] nvarchar(101) NOT NULL,
        [note] nvarchar(max) NULL,
        [body] nvarchar(max) NULL,
        [amount] decimal(38, 29) NULL,
        [run_at] datetime2(3) NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue pgs_full.tasks_enqueue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0). A value past its column's
-- limit is refused with error 50010, never cut or rounded: its parameter is one wider (m.param_type).
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_enqueue]
    @job_type nvarchar(51),
    @tenant int,
    @item nvarchar(101),
    @note nvarchar(max) = NULL,
    @body nvarchar(max) = NULL,
    @amount decimal(38, 29) = NULL,
    @run_at datetime2(3) = NULL,
    @enqueued_by nvarchar(129) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF DATALENGTH(@job_type) > 100
        THROW 50010, N'qgen: @job_type is past its column''s limit in pgs_full.tasks_enqueue; accepted: string(50), at most 50 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF DATALENGTH(@item) > 200
        THROW 50010, N'qgen: @item is past its column''s limit in pgs_full.tasks_enqueue; accepted: string(100), at most 100 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF (ABS(@amount) >= 100000000 OR @amount <> ROUND(@amount, 2, 1))
        THROW 50010, N'qgen: @amount is past its column''s limit in pgs_full.tasks_enqueue; accepted: decimal(10,2), at most 8 digits before the point and 2 after, never rounded.', 1;
    IF DATALENGTH(@enqueued_by) > 256
        THROW 50010, N'qgen: @enqueued_by is past its column''s limit in pgs_full.tasks_enqueue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL);
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK + HOLDLOCK keep the key range locked until the insert, so two sessions enqueueing
        -- the same key cannot both find it missing; a locking read, so it sees current rows also
        -- under READ_COMMITTED_SNAPSHOT.
        DECLARE @q$existing bigint =
        (
            SELECT [id] FROM [pgs_full].[tasks] WITH (UPDLOCK, HOLDLOCK)
            WHERE [tenant] = @tenant AND [item] = @item AND [processed] = 0

        );
        IF @q$existing IS NOT NULL
        BEGIN
            COMMIT TRANSACTION;
            SELECT @q$existing AS [id], CAST(0 AS bit) AS [enqueued];
            RETURN;
        END;
        INSERT INTO [pgs_full].[tasks] ([job_type], [tenant], [item], [note], [body], [amount], [available_at], [deferred], [enqueued_by])
        -- OUTPUT INTO a table variable: a bare OUTPUT fails once someone adds a trigger to the table (error 334).
        OUTPUT inserted.[id] INTO @q$new ([id])
        VALUES (@job_type, @tenant, @item, @note, @body, @amount, COALESCE(@run_at, SYSUTCDATETIME()), CASE WHEN @run_at > SYSUTCDATETIME() THEN 1 ELSE 0 END, COALESCE(@enqueued_by, ORIGINAL_LOGIN()));
        COMMIT TRANSACTION;
        SELECT [id], CAST(1 AS bit) AS [enqueued] FROM @q$new;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch pgs_full.tasks_enqueue_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement (at most 1970: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row: a job already queued, or repeated earlier in the batch, returns that id with enqueued = 0.
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_enqueue_batch]
    @jobs [pgs_full].[tasks_batch] READONLY,
    @enqueued_by nvarchar(129) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;

    IF DATALENGTH(@enqueued_by) > 256
        THROW 50010, N'qgen: @enqueued_by is past its column''s limit in pgs_full.tasks_enqueue_batch; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 1970
        THROW 50003, N'qgen: a batch of more than 1970 jobs is out of range for pgs_full.tasks: one statement writing more could escalate to a table lock; accepted: 1 to 1970 jobs per call (split the batch; the client does).', 1;
    DECLARE @q$over int, @q$over_column nvarchar(2048);
    SELECT TOP (1) @q$over = [j].[ordinal],
           @q$over_column = CASE WHEN DATALENGTH([j].[job_type]) > 100 THEN N'job_type; accepted: string(50), at most 50 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' WHEN DATALENGTH([j].[item]) > 200 THEN N'item; accepted: string(100), at most 100 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' WHEN (ABS([j].[amount]) >= 100000000 OR [j].[amount] <> ROUND([j].[amount], 2, 1)) THEN N'amount; accepted: decimal(10,2), at most 8 digits before the point and 2 after, never rounded' END
    FROM @jobs AS [j]
    WHERE DATALENGTH([j].[job_type]) > 100 OR DATALENGTH([j].[item]) > 200 OR (ABS([j].[amount]) >= 100000000 OR [j].[amount] <> ROUND([j].[amount], 2, 1))
    ORDER BY [j].[ordinal];
    IF @q$over IS NOT NULL
    BEGIN
        DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in pgs_full.tasks_enqueue_batch: column ', @q$over_column, N'.');
        THROW 50010, @q$over_message, 1;
    END;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- The dedupe checks of the queue table read WITH (UPDLOCK, HOLDLOCK): locking reads of current
        -- rows (also under READ_COMMITTED_SNAPSHOT) that keep the key ranges locked until commit. Those
        -- of the finished tables are plain locking reads by key (READCOMMITTEDLOCK): the queue table's
        -- range lock keeps every move of the key there out, and a range lock there would stall claims.
        INSERT INTO [pgs_full].[tasks] ([job_type], [tenant], [item], [note], [body], [amount], [available_at], [deferred], [enqueued_by])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[job_type], [j].[tenant], [j].[item], [j].[note], [j].[body], [j].[amount], COALESCE([j].[run_at], SYSUTCDATETIME()), CASE WHEN [j].[run_at] > SYSUTCDATETIME() THEN 1 ELSE 0 END, COALESCE(@enqueued_by, ORIGINAL_LOGIN())
        FROM @jobs AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [pgs_full].[tasks] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[tenant] = [j].[tenant] AND [e].[item] = [j].[item] AND [e].[processed] = 0)
          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[tenant] = [j].[tenant] AND [d].[item] = [j].[item] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], [e].[id] AS [id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[tenant] = [j].[tenant] AND [d].[item] = [j].[item] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @jobs AS [j]
        INNER JOIN [pgs_full].[tasks] AS [e] ON [e].[tenant] = [j].[tenant] AND [e].[item] = [j].[item] AND [e].[processed] = 0
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

-- qgen 0.1.0: enqueue_json pgs_full.tasks_enqueue_json, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- enqueue_batch for callers that cannot send a table-valued parameter (pyodbc through FreeTDS):
-- the same jobs as one JSON array of objects, one per job, keyed by the batch type's column names.
-- Every job-type and payload column's key must be there (strict paths: a missing or misspelt key is
-- an error, never a silent NULL; give null for no value); "ordinal" (the job's position in the
-- array, from 1), "priority" and "run_at" are optional. A datetime is ISO 8601, UTC when
-- it has no offset; a json column is the JSON text as a string. Needs SQL Server 2016 or later and
-- database compatibility level 130 or higher (OPENJSON). Returns what enqueue_batch returns.
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_enqueue_json]
    @jobs nvarchar(max),
    @enqueued_by nvarchar(129) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;

    IF DATALENGTH(@enqueued_by) > 256
        THROW 50010, N'qgen: @enqueued_by is past its column''s limit in pgs_full.tasks_enqueue_json; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$batch [pgs_full].[tasks_batch];
    BEGIN TRY
        INSERT INTO @q$batch ([ordinal], [job_type], [tenant], [item], [note], [body], [amount], [run_at])
        SELECT COALESCE([j].[ordinal], CAST([a].[key] AS int) + 1),
               [j].[job_type],
               [j].[tenant],
               [j].[item],
               [j].[note],
               [j].[body],
               [j].[amount],
               CONVERT(datetime2(3), SWITCHOFFSET([j].[run_at], '+00:00'))
        FROM OPENJSON(@jobs) AS [a]
        CROSS APPLY OPENJSON([a].[value])
        WITH
        (
            [ordinal] int '$.ordinal',
            [job_type] nvarchar(51) 'strict $.job_type',
            [tenant] int 'strict $.tenant',
            [item] nvarchar(101) 'strict $.item',
            [note] nvarchar(max) 'strict $.note',
            [body] nvarchar(max) 'strict $.body',
            [amount] decimal(38, 29) 'strict $.amount',
            [run_at] datetimeoffset(3) '$.run_at'
        ) AS [j];
        IF (SELECT COUNT(*) FROM @q$batch) > 1970
            THROW 50003, N'qgen: a batch of more than 1970 jobs is out of range for pgs_full.tasks: one statement writing more could escalate to a table lock; accepted: 1 to 1970 jobs per call (split the batch; the client does).', 1;
        DECLARE @q$over int, @q$over_column nvarchar(2048);
        SELECT TOP (1) @q$over = [j].[ordinal],
               @q$over_column = CASE WHEN DATALENGTH([j].[job_type]) > 100 THEN N'job_type; accepted: string(50), at most 50 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' WHEN DATALENGTH([j].[item]) > 200 THEN N'item; accepted: string(100), at most 100 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' WHEN (ABS([j].[amount]) >= 100000000 OR [j].[amount] <> ROUND([j].[amount], 2, 1)) THEN N'amount; accepted: decimal(10,2), at most 8 digits before the point and 2 after, never rounded' END
        FROM @q$batch AS [j]
        WHERE DATALENGTH([j].[job_type]) > 100 OR DATALENGTH([j].[item]) > 200 OR (ABS([j].[amount]) >= 100000000 OR [j].[amount] <> ROUND([j].[amount], 2, 1))
        ORDER BY [j].[ordinal];
        IF @q$over IS NOT NULL
        BEGIN
            DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in pgs_full.tasks_enqueue_json: column ', @q$over_column, N'.');
            THROW 50010, @q$over_message, 1;
        END;
        BEGIN TRANSACTION;
        -- The dedupe checks of the queue table read WITH (UPDLOCK, HOLDLOCK): locking reads of current
        -- rows (also under READ_COMMITTED_SNAPSHOT) that keep the key ranges locked until commit. Those
        -- of the finished tables are plain locking reads by key (READCOMMITTEDLOCK): the queue table's
        -- range lock keeps every move of the key there out, and a range lock there would stall claims.
        INSERT INTO [pgs_full].[tasks] ([job_type], [tenant], [item], [note], [body], [amount], [available_at], [deferred], [enqueued_by])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[job_type], [j].[tenant], [j].[item], [j].[note], [j].[body], [j].[amount], COALESCE([j].[run_at], SYSUTCDATETIME()), CASE WHEN [j].[run_at] > SYSUTCDATETIME() THEN 1 ELSE 0 END, COALESCE(@enqueued_by, ORIGINAL_LOGIN())
        FROM @q$batch AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [pgs_full].[tasks] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[tenant] = [j].[tenant] AND [e].[item] = [j].[item] AND [e].[processed] = 0)
          AND NOT EXISTS (SELECT 1 FROM @q$batch AS [d] WHERE [d].[tenant] = [j].[tenant] AND [d].[item] = [j].[item] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], [e].[id] AS [id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @q$batch AS [d] WHERE [d].[tenant] = [j].[tenant] AND [d].[item] = [j].[item] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @q$batch AS [j]
        INNER JOIN [pgs_full].[tasks] AS [e] ON [e].[tenant] = [j].[tenant] AND [e].[item] = [j].[item] AND [e].[processed] = 0
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

-- qgen 0.1.0: watermark_move pgs_full.tasks_watermark_move, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
-- Deferred jobs ([deferred] = 1) do not stop it: claims find them through the due index, whatever their id.
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_watermark_move]
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
    DECLARE @q$current bigint = (SELECT [id] FROM [pgs_full].[tasks_watermark] WITH (NOLOCK));
    IF @q$current IS NULL OR @q$current >= @q$target
        RETURN;
    IF EXISTS (SELECT 1 FROM [pgs_full].[tasks] AS [job] WITH (NOLOCK)
               WHERE [job].[id] = @q$current
                 AND ([job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0
                      OR NOT EXISTS (SELECT 1 FROM [pgs_full].[tasks] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                     WHERE [settled].[id] = [job].[id]))
              )
        RETURN;
    UPDATE [w]
    SET [id] = COALESCE(
            (
                SELECT MIN([job].[id])
                FROM [pgs_full].[tasks] AS [job] WITH (NOLOCK)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @q$target
                  AND ([job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0
                       OR NOT EXISTS (SELECT 1 FROM [pgs_full].[tasks] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                      WHERE [settled].[id] = [job].[id]))
            ), @q$target),
        [version] = [w].[version] + 1
    FROM [pgs_full].[tasks_watermark] AS [w] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK)
    WHERE [w].[id] < @q$target;
END;
GO

-- qgen 0.1.0: watermark_correct pgs_full.tasks_watermark_correct, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty;
-- unchanged only when no id was ever generated), never below 0. It repairs a watermark that is wrong
-- either way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it
-- after a drain (run it after a dequeue that found nothing) and for a watermark set by hand. It
-- never waits on the watermark row, and never passes a job another transaction holds.
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_watermark_correct]
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
        SELECT @q$old = [id] FROM [pgs_full].[tasks_watermark] WITH (ROWLOCK, READPAST, UPDLOCK);
        IF @q$old IS NULL AND EXISTS (SELECT 1 FROM [pgs_full].[tasks_watermark] WITH (NOLOCK))
        BEGIN
            COMMIT TRANSACTION;
            SET @q$old = (SELECT [id] FROM [pgs_full].[tasks_watermark] WITH (NOLOCK));
            SELECT @old_watermark = @q$old, @new_watermark = @q$old;
            IF @result_set = 1
                SELECT @q$old AS [old_watermark], @q$old AS [new_watermark];
            RETURN;
        END;
        -- No row (deleted by hand): lock the empty range (HOLDLOCK) so that one session puts it back.
        IF @q$old IS NULL
            SET @q$old = (SELECT [id] FROM [pgs_full].[tasks_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- corrected_at gets the time before the search (it counts as a dequeue's rescan): a job that
        -- becomes claimable below the watermark after this moment may be missed here, and the next
        -- rescan is due watermark.rescan seconds after this moment, so within the bound.
        SET @q$searched = SYSUTCDATETIME();
        -- The scans never wait on a job row (NOLOCK). NOLOCK also sees a job whose insert is not yet
        -- committed, so the watermark does not pass it. Deferred jobs (the [deferred] bit) do not hold
        -- it back: the due index hands them to claims.
        SET @q$new = (SELECT MIN([job].[id]) FROM [pgs_full].[tasks] AS [job] WITH (NOLOCK) WHERE [job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0);
        -- A row NOLOCK shows leased but another transaction holds (READPAST skips it) counts as
        -- unclaimed, as in the mover: a lease claim inside a caller's transaction that may still roll
        -- back (the job is then unclaimed again, below a watermark passed on the strength of a claim
        -- that never was), or a release in flight. Only leased rows can be such a row (the lease
        -- index holds them). Rows this transaction holds itself are not skipped: a rollback of those
        -- rolls this correction back too.
        SET @q$held = (SELECT MIN([job].[id]) FROM [pgs_full].[tasks] AS [job] WITH (NOLOCK)
                       WHERE [job].[lease_token] IS NOT NULL
                         AND NOT EXISTS (SELECT 1 FROM [pgs_full].[tasks] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                         WHERE [settled].[id] = [job].[id]));
        IF @q$held < @q$new OR (@q$new IS NULL AND @q$held IS NOT NULL)
            SET @q$new = @q$held;
        SET @q$new = @q$new - 50;
        IF @q$new IS NULL
            SET @q$new = (SELECT MAX([id]) + 1 FROM [pgs_full].[tasks] WITH (NOLOCK)) - 50;
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
                        WHERE [object_id] = OBJECT_ID(N'[pgs_full].[tasks]') AND [name] = N'id') - 50;
        IF @q$new IS NULL
            SET @q$new = COALESCE(@q$old, 0);
        IF @q$new < 0
            SET @q$new = 0;
        IF @q$old IS NULL
            INSERT INTO [pgs_full].[tasks_watermark] ([id], [corrected_at]) VALUES (@q$new, @q$searched);
        ELSE
            UPDATE [pgs_full].[tasks_watermark] SET [id] = @q$new, [version] = [version] + 1, [corrected_at] = @q$searched;
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

-- qgen 0.1.0: control_table pgs_full.tasks_control, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which login). Every
-- claim reads it first, WITH (READPAST, READCOMMITTEDLOCK): a pause or resume counts from its
-- commit, and no claim waits on one left open. A missing row (deleted by hand) reads as running.
IF OBJECT_ID(N'pgs_full.tasks_control', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_full].[tasks_control]
    (
        [one_row] bit NOT NULL CONSTRAINT [tasks_control_one_row_df] DEFAULT (1),
        [paused] bit NOT NULL CONSTRAINT [tasks_control_paused_df] DEFAULT (0),
        [changed_at] datetime2(3) NULL,
        [changed_by] nvarchar(128) NULL,
        CONSTRAINT [tasks_control_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [tasks_control_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [pgs_full].[tasks_control])
    INSERT INTO [pgs_full].[tasks_control] ([paused]) VALUES (0);
GO

-- qgen 0.1.0: dequeue pgs_full.tasks_dequeue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With @complete_lease_token it first completes that lease's jobs as complete(@lease_token) does,
-- in the same transaction: one commit per batch instead of two. A token that holds no job raises
-- 50001 and nothing is claimed.
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_dequeue]
    @owner nvarchar(129) = NULL,
    @batch_size int = 5,
    @job_type nvarchar(51) = NULL,
    @lease_seconds int = 30,
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
            N' is out of range for pgs_full.tasks_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in pgs_full.tasks_dequeue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF @lease_seconds IS NULL OR @lease_seconds < 1
        THROW 50003, N'qgen: @lease_seconds is out of range; accepted: 1 or more seconds.', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on pgs_full.tasks: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$token uniqueidentifier = NEWID();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [job_type] nvarchar(50) NOT NULL,
        [tenant] int NOT NULL,
        [item] nvarchar(100) NOT NULL,
        [note] nvarchar(max) NULL,
        [body] nvarchar(max) NULL,
        [amount] decimal(10, 2) NULL,
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
            THROW 50005, N'qgen: refused on pgs_full.tasks: this queue has an outbox: complete each job with its @id and its outbox values, then dequeue', 1;
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [pgs_full].[tasks_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
        -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
        IF EXISTS (SELECT 1 FROM [pgs_full].[tasks_watermark] WITH (NOLOCK) WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME()))
        BEGIN
            DECLARE @q$mark bigint, @q$stranded bigint;
            UPDATE [pgs_full].[tasks_watermark] WITH (ROWLOCK, READPAST, UPDLOCK)
            SET @q$mark = [id], [corrected_at] = SYSUTCDATETIME(), [version] = [version] + 1
            WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME());
            IF @@ROWCOUNT = 1
            BEGIN
                SELECT @q$stranded = MIN([job].[id])
                FROM [pgs_full].[tasks] AS [job] WITH (NOLOCK)
                WHERE [job].[id] < @q$mark AND [job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0;
                IF @q$stranded IS NOT NULL
                    UPDATE [pgs_full].[tasks_watermark]
                    SET [id] = CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END,
                        [version] = [version] + 1
                    WHERE [id] > CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END;
            END;
        END
        ELSE IF NOT EXISTS (SELECT 1 FROM [pgs_full].[tasks_watermark] WITH (NOLOCK))
            INSERT INTO [pgs_full].[tasks_watermark] ([id])
            SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM [pgs_full].[tasks_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
        -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
        -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
        -- A missing row reads as 0.
        SET @q$from = COALESCE((SELECT [id] FROM [pgs_full].[tasks_watermark] WITH (NOLOCK)), 0);
        IF @job_type IS NULL
        BEGIN
            ;WITH [due_job] AS
            (
                SELECT TOP (@batch_size) [id], [job_type], [tenant], [item], [note], [body], [amount], [attempts], [lease_token], [lease_owner], [lease_expires_at], [claimed_at], [claimed_by], [deferred]
                -- The one reference to the table (see the claim below); it seeks the due index.
                FROM [pgs_full].[tasks] WITH (ROWLOCK, READPAST, UPDLOCK)
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
            OUTPUT inserted.[id], inserted.[job_type], inserted.[tenant], inserted.[item], inserted.[note], inserted.[body], inserted.[amount], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
            INTO @q$claimed ([id], [job_type], [tenant], [item], [note], [body], [amount], [attempts], [lease_token], [lease_expires_at])
            -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
            OPTION (OPTIMIZE FOR (@batch_size = 1));
            -- Then the rest of the batch from the claim index, which holds only claimable jobs.
            SET @q$rest = @batch_size - @@ROWCOUNT;
            IF @q$rest > 0
            BEGIN
                ;WITH [next_job] AS
                (
                    SELECT TOP (@q$rest) [id], [job_type], [tenant], [item], [note], [body], [amount], [attempts], [lease_token], [lease_owner], [lease_expires_at], [claimed_at], [claimed_by]
                    -- The one reference to the table: these hints hold for every row the claim reads.
                    FROM [pgs_full].[tasks] WITH (ROWLOCK, READPAST, UPDLOCK)
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
                OUTPUT inserted.[id], inserted.[job_type], inserted.[tenant], inserted.[item], inserted.[note], inserted.[body], inserted.[amount], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
                INTO @q$claimed ([id], [job_type], [tenant], [item], [note], [body], [amount], [attempts], [lease_token], [lease_expires_at])
                -- Planned for one row, whatever @q$rest the first call sniffed: a seek in queue order.
                OPTION (OPTIMIZE FOR (@q$rest = 1));
            END;
        END
        ELSE
        BEGIN
            ;WITH [due_job] AS
            (
                SELECT TOP (@batch_size) [id], [job_type], [tenant], [item], [note], [body], [amount], [attempts], [lease_token], [lease_owner], [lease_expires_at], [claimed_at], [claimed_by], [deferred]
                -- The one reference to the table (see the claim below); it seeks the due index.
                FROM [pgs_full].[tasks] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE [deferred] = 1 AND [available_at] <= @q$now
                  AND [job_type] = @job_type
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
            OUTPUT inserted.[id], inserted.[job_type], inserted.[tenant], inserted.[item], inserted.[note], inserted.[body], inserted.[amount], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
            INTO @q$claimed ([id], [job_type], [tenant], [item], [note], [body], [amount], [attempts], [lease_token], [lease_expires_at])
            -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
            OPTION (OPTIMIZE FOR (@batch_size = 1));
            -- Then the rest of the batch from the claim index, which holds only claimable jobs.
            SET @q$rest = @batch_size - @@ROWCOUNT;
            IF @q$rest > 0
            BEGIN
                ;WITH [next_job] AS
                (
                    SELECT TOP (@q$rest) [id], [job_type], [tenant], [item], [note], [body], [amount], [attempts], [lease_token], [lease_owner], [lease_expires_at], [claimed_at], [claimed_by]
                    -- The one reference to the table: these hints hold for every row the claim reads.
                    FROM [pgs_full].[tasks] WITH (ROWLOCK, READPAST, UPDLOCK)
                    WHERE [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @q$now AND [deferred] = 0
                      AND [id] >= @q$from
                      AND [job_type] = @job_type
                    ORDER BY [id]
                )
                UPDATE [next_job]
                SET [lease_token] = @q$token,
                    [lease_owner] = @owner,
                    [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
                    [claimed_at] = @q$now,
                    [claimed_by] = COALESCE(@owner, ORIGINAL_LOGIN()),
                    [attempts] = [attempts] + 1
                OUTPUT inserted.[id], inserted.[job_type], inserted.[tenant], inserted.[item], inserted.[note], inserted.[body], inserted.[amount], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
                INTO @q$claimed ([id], [job_type], [tenant], [item], [note], [body], [amount], [attempts], [lease_token], [lease_expires_at])
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
            EXEC [pgs_full].[tasks_watermark_move] @claimed_from = @q$highest;
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
        SELECT [id], [job_type], [tenant], [item], [note], [body], [amount], [attempts], [lease_token], [lease_expires_at]
        FROM @q$claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: complete pgs_full.tasks_complete, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: marks them processed. With @id, only that job; without, every job of
-- the lease (refused here with 50005: this queue has an outbox, whose values belong to one job). The token is the fence: a worker whose lease was released or taken over gets error 50001.
-- A job hands its outbox values on, or the caller says it has none with @no_result = 1: a job
-- completed with neither is refused (50005), never finished with nothing handed on.
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_complete]
    @lease_token uniqueidentifier,
    @id bigint = NULL,
    @summary nvarchar(201) = NULL,
    @score int = NULL,
    @no_result bit = 0
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF DATALENGTH(@summary) > 400
        THROW 50010, N'qgen: @summary is past its column''s limit in pgs_full.tasks_complete; accepted: string(200), at most 200 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$completed int;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- Outbox values belong to one job: a whole lease completed at once would skip them silently.
        IF @id IS NULL
            THROW 50005, N'qgen: refused on pgs_full.tasks: this queue has an outbox: complete each job with its @id and its outbox values, not a whole lease by its token', 1;
        IF @no_result IS NULL
            THROW 50003, N'qgen: @no_result NULL is out of range; accepted: 0 (the outbox values are given) or 1 (this job hands nothing on).', 1;
        IF @no_result = 1 AND (@summary IS NOT NULL OR @score IS NOT NULL)
            THROW 50003, N'qgen: complete on pgs_full.tasks: @no_result = 1 says this job hands nothing on, yet outbox values were given; pass the values or @no_result = 1, not both.', 1;
        IF @no_result = 0 AND NOT (@summary IS NOT NULL OR @score IS NOT NULL)
            THROW 50005, N'qgen: refused on pgs_full.tasks: this queue has an outbox: complete each job with its outbox values (summary, score), or with @no_result = 1 when the job hands nothing on', 1;
        IF @no_result = 0 AND @summary IS NULL
            THROW 50003, N'qgen: complete on pgs_full.tasks: outbox value @summary is missing (NULL); it is NOT NULL in the outbox; accepted: every NOT NULL outbox value, or @no_result = 1.', 1;

        BEGIN
            UPDATE [pgs_full].[tasks]
            SET [processed] = 1, [processed_at] = @q$now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [id] = @id AND [lease_token] = @lease_token;

            SET @q$completed = @@ROWCOUNT;
        END;
        IF @q$completed = 0
            THROW 50001, N'qgen: lease lost on pgs_full.tasks: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        -- The result goes on in the same transaction as the completion (seed 004's local queue table).
        IF @no_result = 0
            INSERT INTO [pgs_full].[tasks_outbox] ([source_id], [summary], [score])
            VALUES (@id, @summary, @score);
        COMMIT TRANSACTION;
        RETURN @q$completed;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: fail pgs_full.tasks_fail, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 3) and @retry = 1 it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_fail]
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
        [job_type] nvarchar(50) NOT NULL,
        [tenant] int NOT NULL,
        [item] nvarchar(100) NOT NULL,
        [note] nvarchar(max) NULL,
        [body] nvarchar(max) NULL,
        [amount] decimal(10, 2) NULL,
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
        FROM [pgs_full].[tasks] WITH (UPDLOCK, ROWLOCK)
        WHERE [id] = @id AND [lease_token] = @lease_token;
        IF @q$attempts IS NULL
            THROW 50001, N'qgen: lease lost on pgs_full.tasks: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        IF @retry = 1 AND @q$attempts < 3
        BEGIN
            UPDATE [pgs_full].[tasks]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [last_error] = @q$error,
                [available_at] = DATEADD(second, CAST(CASE WHEN 2 * POWER(CAST(3 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) > 10 THEN 10 ELSE 2 * POWER(CAST(3 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) END AS int), @q$now),
                -- Into the due index for its backoff, off the claim index and the watermark's way.
                [deferred] = 1
            WHERE [id] = @id;
            -- The job is claimable again: the watermark must not stay above it (unless another
            -- transaction holds the watermark row: then the rescan finds the job; never a wait).
            UPDATE [w]
            SET [id] = @id, [version] = [w].[version] + 1
            FROM [pgs_full].[tasks_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [w].[id] > @id;
            COMMIT TRANSACTION;
            RETURN 0;
        END;
        DELETE FROM [pgs_full].[tasks]
        OUTPUT deleted.[id], deleted.[job_type], deleted.[tenant], deleted.[item], deleted.[note], deleted.[body], deleted.[amount], deleted.[enqueued_at], deleted.[enqueued_by], deleted.[claimed_at], deleted.[claimed_by], deleted.[attempts]
        INTO @q$dead ([id], [job_type], [tenant], [item], [note], [body], [amount], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts])
        WHERE [id] = @id;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [pgs_full].[tasks_dead] ([id], [job_type], [tenant], [item], [note], [body], [amount], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], [last_error], [dead_at])
        SELECT [id], [job_type], [tenant], [item], [note], [body], [amount], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], @q$error, @q$now FROM @q$dead;
        COMMIT TRANSACTION;
        RETURN 1;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: extend_lease pgs_full.tasks_extend_lease, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire @lease_seconds from now.
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_extend_lease]
    @lease_token uniqueidentifier,
    @lease_seconds int = 30,
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
            SELECT [id] FROM [pgs_full].[tasks] WHERE [lease_token] = @lease_token;
            UPDATE [pgs_full].[tasks] SET [lease_expires_at] = @q$until WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [pgs_full].[tasks] SET [lease_expires_at] = @q$until WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$extended = @@ROWCOUNT;
        IF @q$extended = 0
        BEGIN
            IF @id IS NOT NULL AND EXISTS (SELECT 1 FROM [pgs_full].[tasks_dead] AS [d]
                                           WHERE [d].[id] = @id AND [d].[last_error] = N'cancelled')
                THROW 50006, N'qgen: job cancelled on pgs_full.tasks: cancel took it out of the queue while its lease ran; stop working on it (its complete and fail are refused).', 1;
            THROW 50001, N'qgen: lease lost on pgs_full.tasks: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        RETURN @q$extended;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: reap pgs_full.tasks_reap, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- @batch_size per call so it never holds many locks: those with attempts left become claimable
-- again, with their old token cleared so the late worker is fenced off; the rest are dead-lettered.
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_reap]
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
            N' is out of range for pgs_full.tasks_reap; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$expired TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$freed TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [job_type] nvarchar(50) NOT NULL,
        [tenant] int NOT NULL,
        [item] nvarchar(100) NOT NULL,
        [note] nvarchar(max) NULL,
        [body] nvarchar(max) NULL,
        [amount] decimal(10, 2) NULL,
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
        FROM [pgs_full].[tasks] WITH (READPAST, READCOMMITTEDLOCK)
        WHERE [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        -- Each statement reads the table once, through its CTE (as dequeue's claim does). UPDLOCK
        -- (and the statement's own update locks) make these locking reads of current rows.
        ;WITH [expired] AS
        (
            SELECT TOP (@batch_size) [id], [lease_token], [lease_owner], [lease_expires_at], [available_at], [last_error], [deferred]            FROM [pgs_full].[tasks] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)
            WHERE [id] IN (SELECT [id] FROM @q$expired)
              AND [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now AND [attempts] < 3
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
            SELECT TOP (@batch_size - @q$released) [id], [job_type], [tenant], [item], [note], [body], [amount], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts]
            FROM [pgs_full].[tasks] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)
            WHERE [id] IN (SELECT [id] FROM @q$expired)
              AND [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now AND [attempts] >= 3
        )
        DELETE FROM [expired]
        OUTPUT deleted.[id], deleted.[job_type], deleted.[tenant], deleted.[item], deleted.[note], deleted.[body], deleted.[amount], deleted.[enqueued_at], deleted.[enqueued_by], deleted.[claimed_at], deleted.[claimed_by], deleted.[attempts]
        INTO @q$dead ([id], [job_type], [tenant], [item], [note], [body], [amount], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts])
        OPTION (OPTIMIZE FOR (@batch_size = 1, @q$released = 0));
        SET @q$dead_lettered = @@ROWCOUNT;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [pgs_full].[tasks_dead] ([id], [job_type], [tenant], [item], [note], [body], [amount], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], [last_error], [dead_at])
        SELECT [id], [job_type], [tenant], [item], [note], [body], [amount], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], N'qgen: lease expired on the last attempt', @q$now FROM @q$dead;

        -- Released jobs are claimable again: the watermark must not stay above them (unless another
        -- transaction holds the watermark row: then the rescan finds them; never a wait).
        SELECT @q$lowest = MIN([id]) FROM @q$freed;
        IF @q$lowest IS NOT NULL
            UPDATE [w]
            SET [id] = @q$lowest, [version] = [w].[version] + 1
            FROM [pgs_full].[tasks_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
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

-- qgen 0.1.0: metrics pgs_full.tasks_metrics, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now, for dashboards and alerts. Each count reads the one index that
-- holds its rows (claim, due, lease, processed index; the dead-letter and archive tables), never the
-- whole queue table (finished rows included), and does not wait on a row: WITH (READPAST,
-- READCOMMITTEDLOCK) skips a row another transaction holds (a job being claimed, completed or enqueued right now),
-- the watermark's one row is read WITH (NOLOCK). So under concurrency the numbers are approximate:
-- a job changing at that moment is counted in neither state, and the counts are not one snapshot.
-- READPAST skips row and page locks only: a table lock (an escalated lock of a large transaction,
-- uninstall's TABLOCKX, an offline index build) still makes it wait.
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_metrics]
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
    FROM [pgs_full].[tasks] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [lease_token] IS NULL AND [processed] = 0 AND [deferred] = 0;
    -- Deferred jobs (delayed, backed off, released): the due index.
    SELECT @q$due_ready = COUNT_BIG(CASE WHEN [available_at] <= @q$now THEN 1 END),
        @q$due_scheduled = COUNT_BIG(CASE WHEN [available_at] > @q$now THEN 1 END),
        @q$due_oldest = MIN(CASE WHEN [available_at] <= @q$now THEN [id] END),
        @q$due_lowest = MIN([id])
    FROM [pgs_full].[tasks] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [deferred] = 1;
    SELECT @q$ready += @q$due_ready, @q$scheduled += @q$due_scheduled,
        @q$oldest_id = CASE WHEN @q$due_oldest < @q$oldest_id OR @q$oldest_id IS NULL THEN @q$due_oldest ELSE @q$oldest_id END,
        @q$lowest = CASE WHEN @q$due_lowest < @q$lowest OR @q$lowest IS NULL THEN @q$due_lowest ELSE @q$lowest END;
    -- Jobs in flight: the lease index.
    SELECT @q$in_flight = COUNT_BIG(*), @q$expired = COUNT_BIG(CASE WHEN [lease_expires_at] < @q$now THEN 1 END)
    FROM [pgs_full].[tasks] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [lease_token] IS NOT NULL;
    -- Finished jobs kept by mark: the processed index.
    SELECT @q$processed = COUNT_BIG(*), @q$recent = COUNT_BIG(CASE WHEN [processed_at] >= DATEADD(minute, -1, @q$now) THEN 1 END)
    FROM [pgs_full].[tasks] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [processed] = 1;
    SELECT @q$dead = COUNT_BIG(*) FROM [pgs_full].[tasks_dead] WITH (READPAST, READCOMMITTEDLOCK);
    -- One row, a value: read without waiting on a transaction that holds it (a dirty value at worst).
    SELECT @q$watermark = [id] FROM [pgs_full].[tasks_watermark] WITH (NOLOCK);
    -- The highest id: the last key of the clustered index (one row, skipped if locked).
    SELECT @q$highest = MAX([id]) FROM [pgs_full].[tasks] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$ready AS [ready], @q$scheduled AS [scheduled], @q$in_flight AS [in_flight], @q$expired AS [expired],
        @q$processed AS [processed], @q$dead AS [dead], @q$archived AS [archived],
        -- The age of the oldest ready job: the one with the lowest id (ids grow with enqueued_at).
        COALESCE(DATEDIFF_BIG(second, (SELECT [enqueued_at] FROM [pgs_full].[tasks] WITH (READPAST, READCOMMITTEDLOCK) WHERE [id] = @q$oldest_id), @q$now), 0)
            AS [oldest_ready_age_seconds],
        @q$watermark AS [watermark],
        @q$lowest AS [lowest_pending_id],
        @q$recent AS [completed_last_minute],
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        COALESCE(@q$lowest, @q$highest + 1) - @q$watermark AS [watermark_lag],
        CAST(CASE WHEN NOT EXISTS (SELECT 1 FROM [pgs_full].[tasks_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0) THEN 1 ELSE 0 END AS bit) AS [paused];
END;
GO

-- qgen 0.1.0: peek pgs_full.tasks_peek, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them.
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_peek]
    @job_type nvarchar(51) = NULL,
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    -- NULL or negative is refused with the other argument checks' code (TOP would raise 1014).
    IF @limit IS NULL OR @limit < 0
        THROW 50003, N'qgen: @limit is out of range for pgs_full.tasks_peek; accepted: 0 or more rows.', 1;
    SELECT TOP (@limit) [id], [job_type], [tenant], [item], [note], [body], [amount], [available_at], [enqueued_at], [enqueued_by], [attempts], [last_error]
    FROM [pgs_full].[tasks_pending]
    WHERE @job_type IS NULL OR [job_type] = @job_type
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge_batch pgs_full.tasks_purge_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds: at most @batch_size rows (1000 by default, refused above 1970) over all those
-- tables together, in one transaction (the caller's, when there is one). purge loops over batches;
-- maintain runs one.
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_purge_batch]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1970
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1970 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$left int = @batch_size, @q$archived int = 0, @q$processed int = 0, @q$dead int = 0;
    BEGIN TRY
        BEGIN TRANSACTION;
        IF @q$left > 0
        BEGIN
            DELETE TOP (@q$left) FROM [pgs_full].[tasks] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [processed] = 1 AND [processed_at] < @q$cutoff
            OPTION (OPTIMIZE FOR (@q$left = 1));
            SET @q$processed = @@ROWCOUNT;
            SET @q$left -= @q$processed;
        END;

        IF @q$left > 0
        BEGIN
            DELETE TOP (@q$left) FROM [pgs_full].[tasks_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
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

-- qgen 0.1.0: purge pgs_full.tasks_purge, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds, in batches of at most @batch_size rows (1000 by default, refused above 1970),
-- each committed on its own, so no statement takes enough locks to escalate to a table lock and
-- no transaction holds more than one batch. The cutoff is fixed when the call begins, so rows that
-- finish while it runs are left for the next purge and the loop ends. It must commit per batch,
-- so it refuses to run inside the caller's transaction (error 50004: there, call
-- tasks_purge_batch, which deletes one batch in that transaction).
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_purge]
    @older_than_seconds int = 604800,
    @batch_size int = 1000
AS
BEGIN
    -- READPAST needs READ COMMITTED (or REPEATABLE READ): pinned here, whatever the caller runs at.
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1970
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1970 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    IF (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50004, N'qgen: purge commits after every batch, which it cannot do inside the caller''s transaction (or with IMPLICIT_TRANSACTIONS ON, where its first statement would open one); call it outside a transaction in autocommit mode, or call tasks_purge_batch (one batch) there.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$archived bigint = 0, @q$processed bigint = 0, @q$dead bigint = 0, @q$deleted int;
    SET @q$deleted = @batch_size;
    WHILE @q$deleted = @batch_size
    BEGIN
        -- No transaction is open: each DELETE commits by itself, one batch at a time.
        DELETE TOP (@batch_size) FROM [pgs_full].[tasks] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [processed] = 1 AND [processed_at] < @q$cutoff
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$deleted = @@ROWCOUNT;
        SET @q$processed += @q$deleted;
    END;

    SET @q$deleted = @batch_size;
    WHILE @q$deleted = @batch_size
    BEGIN
        -- No transaction is open: each DELETE commits by itself, one batch at a time.
        DELETE TOP (@batch_size) FROM [pgs_full].[tasks_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [dead_at] < @q$cutoff
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$deleted = @@ROWCOUNT;
        SET @q$dead += @q$deleted;
    END;

    SELECT @q$archived AS [archived], @q$processed AS [processed], @q$dead AS [dead];
END;
GO

-- qgen 0.1.0: maintain pgs_full.tasks_maintain, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_maintain]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1970
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1970 (a batch stays well under lock escalation).', 1;
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
            @Resource = N'qgen.maintain:[pgs_full].[tasks]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0, @DbPrincipal = @q$principal;
        -- -1: not granted at once, another maintain holds it. -2 (cancelled), -3 (deadlock victim)
        -- and -999 (a call error) are not "someone else is maintaining": refused with the code.
        IF @q$lock = -1
            SET @q$skipped = 1;
        ELSE IF @q$lock < 0
        BEGIN
            DECLARE @q$why nvarchar(2048) = CONCAT(N'qgen: refused on pgs_full.tasks: maintain could not take its application lock (sp_getapplock returned ',
                @q$lock, N' for principal ', @q$principal, N').');
            THROW 50005, @q$why, 1;
        END
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            EXEC [pgs_full].[tasks_purge_batch] @older_than_seconds = 604800, @batch_size = @batch_size,
                @archived = @q$archived OUTPUT, @processed = @q$processed OUTPUT, @dead = @q$dead OUTPUT, @result_set = 0;
            EXEC [pgs_full].[tasks_reap] @batch_size = @q$reap_batch,
                @released = @q$released OUTPUT, @dead_lettered = @q$dead_lettered OUTPUT, @result_set = 0;
            EXEC [pgs_full].[tasks_watermark_correct]
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

-- qgen 0.1.0: redrive pgs_full.tasks_redrive, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_redrive]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1970
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1970 (a batch stays well under lock escalation).', 1;
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
            FROM [pgs_full].[tasks_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[entry_id] > ISNULL(@after_id, 0)
            ORDER BY [x].[entry_id];
        ELSE
            INSERT INTO @q$picked ([entry_id])
            SELECT TOP (@batch_size) [x].[entry_id]
            FROM [pgs_full].[tasks_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[id] IN (SELECT TRY_CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j])
            ORDER BY [x].[entry_id];
        SET @q$last_id = (SELECT MAX([entry_id]) FROM @q$picked);
        -- UPDLOCK + HOLDLOCK: no enqueue of the same key slips in between this check and the insert.
        UPDATE [p]
        SET [keep] = 1
        FROM @q$picked AS [p]
        INNER JOIN [pgs_full].[tasks_dead] AS [x] ON [x].[entry_id] = [p].[entry_id]
        WHERE EXISTS (SELECT 1 FROM [pgs_full].[tasks] AS [job] WITH (UPDLOCK, HOLDLOCK)
                      WHERE [job].[tenant] = [x].[tenant] AND [job].[item] = [x].[item])
           OR EXISTS (SELECT 1 FROM @q$picked AS [first] INNER JOIN [pgs_full].[tasks_dead] AS [y] ON [y].[entry_id] = [first].[entry_id]
                      WHERE [first].[entry_id] < [p].[entry_id] AND [y].[tenant] = [x].[tenant] AND [y].[item] = [x].[item]);
        INSERT INTO [pgs_full].[tasks] ([job_type], [tenant], [item], [note], [body], [amount], [enqueued_by], [attempts], [available_at], [last_error])
        SELECT [x].[job_type], [x].[tenant], [x].[item], [x].[note], [x].[body], [x].[amount], [x].[enqueued_by], 0, SYSUTCDATETIME(), [x].[last_error]
        FROM [pgs_full].[tasks_dead] AS [x]
        INNER JOIN @q$picked AS [p] ON [p].[entry_id] = [x].[entry_id] AND [p].[keep] = 0
        ORDER BY [x].[entry_id];
        SET @q$redriven = @@ROWCOUNT;
        DELETE [x]
        FROM [pgs_full].[tasks_dead] AS [x]
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

-- qgen 0.1.0: dead_letters pgs_full.tasks_dead_letters, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first, with the error each died of: at most @limit rows (1 to
-- 1000). Reads only. WITH (READPAST, READCOMMITTEDLOCK), as metrics reads: a locking
-- read at READ COMMITTED (also under READ_COMMITTED_SNAPSHOT) that never waits on a row another
-- transaction holds and skips it instead (a dead letter fail or reap is writing, or redrive or
-- purge is taking away, right now: it is on its way in or out), and holds each shared lock only
-- while it reads that row, so fail, reap, redrive and purge never wait on it. Not NOLOCK: a
-- fail rolled back with its caller's transaction would be listed as dead. READPAST skips row and
-- page locks only: a table lock (escalated, uninstall's TABLOCKX) still makes it wait.
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_dead_letters]
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
            N' is out of range for pgs_full.tasks_dead_letters; accepted: 1 to 1000 rows.');
        THROW 50003, @q$error, 1;
    END;
    -- Newest first, in the order they arrived: the clustered key backwards, which stops after @limit rows.
    SELECT TOP (@limit) [x].[id], [x].[job_type], [x].[tenant], [x].[item], [x].[note], [x].[body], [x].[amount], [x].[enqueued_at], [x].[attempts],
        [x].[dead_at], [x].[last_error]
    FROM [pgs_full].[tasks_dead] AS [x] WITH (READPAST, READCOMMITTEDLOCK)
    ORDER BY [x].[entry_id] DESC
    OPTION (RECOMPILE);
END;
GO

-- qgen 0.1.0: job pgs_full.tasks_job, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_job]
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
            N' is out of range for pgs_full.tasks_job; accepted: a job id, 1 or more.');
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
    SELECT [j].[id], CASE WHEN [j].[processed] = 1 THEN N'processed' WHEN [j].[lease_token] IS NOT NULL THEN N'in_flight' WHEN [j].[available_at] > SYSUTCDATETIME() THEN N'scheduled' ELSE N'queued' END,
        [j].[enqueued_at], [j].[available_at],
        [j].[attempts], [j].[lease_owner], [j].[lease_expires_at],
        [j].[last_error], [j].[processed_at]
    FROM [pgs_full].[tasks] AS [j]
    WHERE [j].[id] = @job_id;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is reseeded.
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at])
        SELECT TOP (1) [x].[id], N'dead', [x].[enqueued_at], NULL, [x].[attempts], NULL, NULL,
            [x].[last_error], [x].[dead_at]
        FROM [pgs_full].[tasks_dead] AS [x]
        WHERE [x].[id] = @job_id
        ORDER BY [x].[entry_id] DESC;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state]) VALUES (@job_id, N'not_found');
    SELECT [id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at] FROM @q$found;
END;
GO

-- qgen 0.1.0: release pgs_full.tasks_release, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With @id, that
-- job; without, every job of the lease. The token is the fence: a job whose lease was released,
-- taken over or finished gets error 50001. last_error is kept (no failure happened).
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_release]
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
            SELECT [id] FROM [pgs_full].[tasks] WHERE [lease_token] = @lease_token;
            UPDATE [pgs_full].[tasks]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now, [deferred] = 1,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [pgs_full].[tasks]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now, [deferred] = 1,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$released = @@ROWCOUNT;
        IF @q$released = 0
            THROW 50001, N'qgen: lease lost on pgs_full.tasks: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        -- Released jobs are claimable again: the watermark must not stay above them (unless another
        -- transaction holds the watermark row: then the rescan finds them; never a wait).
        SELECT @q$lowest = MIN([id]) FROM @q$freed;
        UPDATE [w]
            SET [id] = @q$lowest, [version] = [w].[version] + 1
            FROM [pgs_full].[tasks_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
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

-- qgen 0.1.0: pause pgs_full.tasks_pause, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job, and a dequeue waiting with @wait_ms keeps waiting. Enqueues go on, and leases already
-- granted run to their end (complete, fail, extend_lease, release and reap work as before).
-- Returns 1 when this call paused the queue, 0 when it was paused already.
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_pause]
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
        SELECT @q$was = [paused] FROM [pgs_full].[tasks_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [pgs_full].[tasks_control] ([paused], [changed_at], [changed_by]) VALUES (1, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 0;
        END
        ELSE IF @q$was = 0
        BEGIN
            UPDATE [pgs_full].[tasks_control]
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
            THROW 50005, N'qgen: refused on pgs_full.tasks: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: resume pgs_full.tasks_resume, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again (a dequeue waiting with
-- @wait_ms takes one at its next attempt). Returns 1 when this call resumed the queue, 0 when it
-- was not paused.
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_resume]
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
        SELECT @q$was = [paused] FROM [pgs_full].[tasks_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [pgs_full].[tasks_control] ([paused], [changed_at], [changed_by]) VALUES (0, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 1;
        END
        ELSE IF @q$was = 1
        BEGIN
            UPDATE [pgs_full].[tasks_control]
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
            THROW 50005, N'qgen: refused on pgs_full.tasks: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: cancel pgs_full.tasks_cancel, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (@ids: a JSON array of whole numbers from 1, e.g. N'[3, 7]'; at most 1970): each job still
-- in the queue leaves it at once, in this one transaction, into the dead-letter table with last_error N'cancelled', and
-- never runs. One row per distinct id, in id order, [outcome]:
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   cancelled_in_flight: it held a lease: its worker's complete, fail and extend_lease get 50001 (the
--     token fences them off, so nothing it does commits with the job);
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order (the clustered key, FORCESEEK from the ordered list of ids), as
-- every other statement that locks several jobs does, so cancel deadlocks with none of them; a row a
-- completion or a claim holds is waited for, at most 5 s (then refused, 50005: nothing done).
CREATE OR ALTER PROCEDURE [pgs_full].[tasks_cancel]
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
    IF (SELECT COUNT(*) FROM OPENJSON(@ids)) > 1970
        THROW 50003, N'qgen: @ids lists more than 1970 jobs; accepted: 1 to 1970 per call (a bigger one could escalate to a table lock).', 1;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$asked TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$found TABLE ([id] bigint NOT NULL PRIMARY KEY);
    -- What the DELETE took out (its OUTPUT): the outcome is what happened, not what was found.
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [job_type] nvarchar(50) NOT NULL,
        [tenant] int NOT NULL,
        [item] nvarchar(100) NOT NULL,
        [note] nvarchar(max) NULL,
        [body] nvarchar(max) NULL,
        [amount] decimal(10, 2) NULL,
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
        FROM [pgs_full].[tasks] AS [job] WITH (UPDLOCK, ROWLOCK, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]) AND [job].[processed] = 0;
        DELETE FROM [pgs_full].[tasks]
        OUTPUT deleted.[id], deleted.[job_type], deleted.[tenant], deleted.[item], deleted.[note], deleted.[body], deleted.[amount], deleted.[enqueued_at], deleted.[enqueued_by], deleted.[claimed_at], deleted.[claimed_by], deleted.[attempts], deleted.[lease_token]
        INTO @q$dead ([id], [job_type], [tenant], [item], [note], [body], [amount], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], [lease_token])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [pgs_full].[tasks_dead] ([id], [job_type], [tenant], [item], [note], [body], [amount], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], [last_error], [dead_at])
        SELECT [id], [job_type], [tenant], [item], [note], [body], [amount], [enqueued_at], [enqueued_by], [claimed_at], [claimed_by], [attempts], N'cancelled', @q$now FROM @q$dead;
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on pgs_full.tasks: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
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

-- qgen 0.1.0: table pgs_full.strict, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'pgs_full.strict', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_full].[strict]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [key] nvarchar(50) NOT NULL,
        [available_at] datetime2(3) NOT NULL CONSTRAINT [strict_available_at_df] DEFAULT (SYSUTCDATETIME()),
        -- 1 while the job waits for its time (delayed by run_at, or released by fail or reap) and no
        -- claim holds it: such a job is in the due index, not the claim index (a filtered index
        -- cannot compare available_at with enqueued_at, so enqueue, fail, reap and dequeue keep it).
        [deferred] bit NOT NULL CONSTRAINT [strict_deferred_df] DEFAULT (0),
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [strict_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        [attempts] int NOT NULL CONSTRAINT [strict_attempts_df] DEFAULT (0),
        [lease_token] uniqueidentifier NULL,
        [lease_owner] nvarchar(128) NULL,
        [lease_expires_at] datetime2(3) NULL,
        [last_error] nvarchar(4000) NULL,
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [strict_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: claim_index pgs_full.strict_claim_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
-- Deferred jobs (delayed, or released with a backoff: [deferred] = 1) are left out of it: see the due index below.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'strict_claim_ix' AND object_id = OBJECT_ID(N'pgs_full.strict'))
    CREATE NONCLUSTERED INDEX [strict_claim_ix]
    ON [pgs_full].[strict] ([id])
    INCLUDE ([available_at], [lease_token], [deferred])
    WHERE [lease_token] IS NULL AND [deferred] = 0;
-- The due index: deferred jobs, by the time they become available ([deferred] = 1 only while no
-- claim holds the job: a claim clears it). A claim takes the due ones from here first, so however
-- many wait for their time, no claim and no watermark steps over them.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'strict_claim_ix_due' AND object_id = OBJECT_ID(N'pgs_full.strict'))
    CREATE NONCLUSTERED INDEX [strict_claim_ix_due]
    ON [pgs_full].[strict] ([available_at], [id])
    INCLUDE ([deferred])
    WHERE [deferred] = 1;
GO

-- qgen 0.1.0: dead_letter_table pgs_full.strict_dead, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: [id] is the job's id, which repeats once the queue's identity is reseeded.
IF OBJECT_ID(N'pgs_full.strict_dead', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_full].[strict_dead]
    (
        [entry_id] bigint IDENTITY(1, 1) NOT NULL,
        [id] bigint NOT NULL,
        [key] nvarchar(50) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL,
        [last_error] nvarchar(4000) NULL,
        [dead_at] datetime2(3) NOT NULL CONSTRAINT [strict_dead_dead_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [strict_dead_pk] PRIMARY KEY CLUSTERED ([entry_id])
    );
END;
GO

-- qgen 0.1.0: dedupe_index pgs_full.strict_dedupe_ux, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'strict_dedupe_ux' AND object_id = OBJECT_ID(N'pgs_full.strict'))
    CREATE UNIQUE NONCLUSTERED INDEX [strict_dedupe_ux]
    ON [pgs_full].[strict] ([key]);
GO

-- qgen 0.1.0: lease_index pgs_full.strict_lease_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'strict_lease_ix' AND object_id = OBJECT_ID(N'pgs_full.strict'))
    CREATE NONCLUSTERED INDEX [strict_lease_ix]
    ON [pgs_full].[strict] ([lease_token]) INCLUDE ([lease_expires_at], [attempts])
    WHERE [lease_token] IS NOT NULL;
GO

-- qgen 0.1.0: watermark_table pgs_full.strict_watermark, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their range seek here instead of
-- walking the ghost records that deleted or claimed rows leave at the low end of the index.
IF OBJECT_ID(N'pgs_full.strict_watermark', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_full].[strict_watermark]
    (
        [id] bigint NOT NULL,
        -- Bumped by every change, so watermark_correct can tell a release happened while it scanned.
        [version] bigint NOT NULL CONSTRAINT [strict_watermark_version_df] DEFAULT (0),
        [one_row] bit NOT NULL CONSTRAINT [strict_watermark_one_row_df] DEFAULT (1),
        -- When the table was last searched below the watermark (by a dequeue's rescan or
        -- watermark_correct): a dequeue rescans when this is watermark.rescan old.
        [corrected_at] datetime2(3) NOT NULL
            CONSTRAINT [strict_watermark_corrected_at_df] DEFAULT ('0001-01-01'),
        CONSTRAINT [strict_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [strict_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [pgs_full].[strict_watermark])
    INSERT INTO [pgs_full].[strict_watermark] ([id]) VALUES (0);
GO

-- qgen 0.1.0: dead_letter_index pgs_full.strict_dead_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'strict_dead_ix' AND object_id = OBJECT_ID(N'pgs_full.strict_dead'))
    CREATE NONCLUSTERED INDEX [strict_dead_ix]
    ON [pgs_full].[strict_dead] ([dead_at]);
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'strict_dead_id_ix' AND object_id = OBJECT_ID(N'pgs_full.strict_dead'))
    CREATE NONCLUSTERED INDEX [strict_dead_id_ix]
    ON [pgs_full].[strict_dead] ([id]);
GO

-- qgen 0.1.0: pending_view pgs_full.strict_pending, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [pgs_full].[strict_pending]
AS
SELECT [id], [key], [available_at], [enqueued_at], [attempts], [last_error]
FROM [pgs_full].[strict]
WHERE [lease_token] IS NULL;
GO

-- qgen 0.1.0: batch_type pgs_full.strict_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it. Its columns are one wider than the
-- table's (m.param_type): a caller's insert into a variable of this type cannot cut or round a value
-- past its column unseen; enqueue_batch refuses it with error 50010.
IF TYPE_ID(N'pgs_full.strict_batch') IS NULL
    CREATE TYPE [pgs_full].[strict_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [key] nvarchar(51) NOT NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue pgs_full.strict_enqueue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0), or here raises error 50002. A value past its column's
-- limit is refused with error 50010, never cut or rounded: its parameter is one wider (m.param_type).
CREATE OR ALTER PROCEDURE [pgs_full].[strict_enqueue]
    @key nvarchar(51)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF DATALENGTH(@key) > 100
        THROW 50010, N'qgen: @key is past its column''s limit in pgs_full.strict_enqueue; accepted: string(50), at most 50 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL);
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK + HOLDLOCK keep the key range locked until the insert, so two sessions enqueueing
        -- the same key cannot both find it missing; a locking read, so it sees current rows also
        -- under READ_COMMITTED_SNAPSHOT.
        DECLARE @q$existing bigint =
        (
            SELECT [id] FROM [pgs_full].[strict] WITH (UPDLOCK, HOLDLOCK)
            WHERE [key] = @key

        );
        -- A bare THROW, not inside BEGIN ... END: T-SQL would read "BEGIN THROW" as BEGIN TRANSACTION.
        IF @q$existing IS NOT NULL
            THROW 50002, N'qgen: duplicate job on pgs_full.strict: a job with this dedupe key (key) is already queued.', 1;
        INSERT INTO [pgs_full].[strict] ([key])
        -- OUTPUT INTO a table variable: a bare OUTPUT fails once someone adds a trigger to the table (error 334).
        OUTPUT inserted.[id] INTO @q$new ([id])
        VALUES (@key);
        COMMIT TRANSACTION;
        SELECT [id], CAST(1 AS bit) AS [enqueued] FROM @q$new;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch pgs_full.strict_enqueue_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement (at most 1983: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row: a job already queued, or repeated earlier in the batch, returns that id with enqueued = 0.
CREATE OR ALTER PROCEDURE [pgs_full].[strict_enqueue_batch]
    @jobs [pgs_full].[strict_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 1983
        THROW 50003, N'qgen: a batch of more than 1983 jobs is out of range for pgs_full.strict: one statement writing more could escalate to a table lock; accepted: 1 to 1983 jobs per call (split the batch; the client does).', 1;
    DECLARE @q$over int, @q$over_column nvarchar(2048);
    SELECT TOP (1) @q$over = [j].[ordinal],
           @q$over_column = CASE WHEN DATALENGTH([j].[key]) > 100 THEN N'key; accepted: string(50), at most 50 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
    FROM @jobs AS [j]
    WHERE DATALENGTH([j].[key]) > 100
    ORDER BY [j].[ordinal];
    IF @q$over IS NOT NULL
    BEGIN
        DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in pgs_full.strict_enqueue_batch: column ', @q$over_column, N'.');
        THROW 50010, @q$over_message, 1;
    END;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- The dedupe checks of the queue table read WITH (UPDLOCK, HOLDLOCK): locking reads of current
        -- rows (also under READ_COMMITTED_SNAPSHOT) that keep the key ranges locked until commit. Those
        -- of the finished tables are plain locking reads by key (READCOMMITTEDLOCK): the queue table's
        -- range lock keeps every move of the key there out, and a range lock there would stall claims.
        IF EXISTS
        (
            SELECT 1 FROM @jobs AS [j]
            WHERE EXISTS (SELECT 1 FROM [pgs_full].[strict] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[key] = [j].[key])
               OR EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[key] = [j].[key] AND [d].[ordinal] < [j].[ordinal])
        )
            THROW 50002, N'qgen: duplicate job on pgs_full.strict: a job in the batch has a dedupe key (key) that is already queued or repeated.', 1;
        INSERT INTO [pgs_full].[strict] ([key])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[key]
        FROM @jobs AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [pgs_full].[strict] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[key] = [j].[key])
          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[key] = [j].[key] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], [e].[id] AS [id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[key] = [j].[key] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @jobs AS [j]
        INNER JOIN [pgs_full].[strict] AS [e] ON [e].[key] = [j].[key]
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

-- qgen 0.1.0: enqueue_json pgs_full.strict_enqueue_json, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- enqueue_batch for callers that cannot send a table-valued parameter (pyodbc through FreeTDS):
-- the same jobs as one JSON array of objects, one per job, keyed by the batch type's column names.
-- Every job-type and payload column's key must be there (strict paths: a missing or misspelt key is
-- an error, never a silent NULL; give null for no value); "ordinal" (the job's position in the
-- array, from 1), "priority" and "run_at" are optional. A datetime is ISO 8601, UTC when
-- it has no offset; a json column is the JSON text as a string. Needs SQL Server 2016 or later and
-- database compatibility level 130 or higher (OPENJSON). Returns what enqueue_batch returns.
CREATE OR ALTER PROCEDURE [pgs_full].[strict_enqueue_json]
    @jobs nvarchar(max)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$batch [pgs_full].[strict_batch];
    BEGIN TRY
        INSERT INTO @q$batch ([ordinal], [key])
        SELECT COALESCE([j].[ordinal], CAST([a].[key] AS int) + 1),
               [j].[key]
        FROM OPENJSON(@jobs) AS [a]
        CROSS APPLY OPENJSON([a].[value])
        WITH
        (
            [ordinal] int '$.ordinal',
            [key] nvarchar(51) 'strict $.key'
        ) AS [j];
        IF (SELECT COUNT(*) FROM @q$batch) > 1983
            THROW 50003, N'qgen: a batch of more than 1983 jobs is out of range for pgs_full.strict: one statement writing more could escalate to a table lock; accepted: 1 to 1983 jobs per call (split the batch; the client does).', 1;
        DECLARE @q$over int, @q$over_column nvarchar(2048);
        SELECT TOP (1) @q$over = [j].[ordinal],
               @q$over_column = CASE WHEN DATALENGTH([j].[key]) > 100 THEN N'key; accepted: string(50), at most 50 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
        FROM @q$batch AS [j]
        WHERE DATALENGTH([j].[key]) > 100
        ORDER BY [j].[ordinal];
        IF @q$over IS NOT NULL
        BEGIN
            DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in pgs_full.strict_enqueue_json: column ', @q$over_column, N'.');
            THROW 50010, @q$over_message, 1;
        END;
        BEGIN TRANSACTION;
        -- The dedupe checks of the queue table read WITH (UPDLOCK, HOLDLOCK): locking reads of current
        -- rows (also under READ_COMMITTED_SNAPSHOT) that keep the key ranges locked until commit. Those
        -- of the finished tables are plain locking reads by key (READCOMMITTEDLOCK): the queue table's
        -- range lock keeps every move of the key there out, and a range lock there would stall claims.
        IF EXISTS
        (
            SELECT 1 FROM @q$batch AS [j]
            WHERE EXISTS (SELECT 1 FROM [pgs_full].[strict] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[key] = [j].[key])
               OR EXISTS (SELECT 1 FROM @q$batch AS [d] WHERE [d].[key] = [j].[key] AND [d].[ordinal] < [j].[ordinal])
        )
            THROW 50002, N'qgen: duplicate job on pgs_full.strict: a job in the batch has a dedupe key (key) that is already queued or repeated.', 1;
        INSERT INTO [pgs_full].[strict] ([key])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[key]
        FROM @q$batch AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [pgs_full].[strict] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[key] = [j].[key])
          AND NOT EXISTS (SELECT 1 FROM @q$batch AS [d] WHERE [d].[key] = [j].[key] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], [e].[id] AS [id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @q$batch AS [d] WHERE [d].[key] = [j].[key] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @q$batch AS [j]
        INNER JOIN [pgs_full].[strict] AS [e] ON [e].[key] = [j].[key]
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

-- qgen 0.1.0: watermark_move pgs_full.strict_watermark_move, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
-- Deferred jobs ([deferred] = 1) do not stop it: claims find them through the due index, whatever their id.
CREATE OR ALTER PROCEDURE [pgs_full].[strict_watermark_move]
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
    DECLARE @q$current bigint = (SELECT [id] FROM [pgs_full].[strict_watermark] WITH (NOLOCK));
    IF @q$current IS NULL OR @q$current >= @q$target
        RETURN;
    IF EXISTS (SELECT 1 FROM [pgs_full].[strict] AS [job] WITH (NOLOCK)
               WHERE [job].[id] = @q$current
                 AND ([job].[lease_token] IS NULL AND [job].[deferred] = 0
                      OR NOT EXISTS (SELECT 1 FROM [pgs_full].[strict] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                     WHERE [settled].[id] = [job].[id]))
              )
        RETURN;
    UPDATE [w]
    SET [id] = COALESCE(
            (
                SELECT MIN([job].[id])
                FROM [pgs_full].[strict] AS [job] WITH (NOLOCK)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @q$target
                  AND ([job].[lease_token] IS NULL AND [job].[deferred] = 0
                       OR NOT EXISTS (SELECT 1 FROM [pgs_full].[strict] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                      WHERE [settled].[id] = [job].[id]))
            ), @q$target),
        [version] = [w].[version] + 1
    FROM [pgs_full].[strict_watermark] AS [w] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK)
    WHERE [w].[id] < @q$target;
END;
GO

-- qgen 0.1.0: watermark_correct pgs_full.strict_watermark_correct, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty;
-- unchanged only when no id was ever generated), never below 0. It repairs a watermark that is wrong
-- either way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it
-- after a drain (run it after a dequeue that found nothing) and for a watermark set by hand. It
-- never waits on the watermark row, and never passes a job another transaction holds.
CREATE OR ALTER PROCEDURE [pgs_full].[strict_watermark_correct]
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
        SELECT @q$old = [id] FROM [pgs_full].[strict_watermark] WITH (ROWLOCK, READPAST, UPDLOCK);
        IF @q$old IS NULL AND EXISTS (SELECT 1 FROM [pgs_full].[strict_watermark] WITH (NOLOCK))
        BEGIN
            COMMIT TRANSACTION;
            SET @q$old = (SELECT [id] FROM [pgs_full].[strict_watermark] WITH (NOLOCK));
            SELECT @old_watermark = @q$old, @new_watermark = @q$old;
            IF @result_set = 1
                SELECT @q$old AS [old_watermark], @q$old AS [new_watermark];
            RETURN;
        END;
        -- No row (deleted by hand): lock the empty range (HOLDLOCK) so that one session puts it back.
        IF @q$old IS NULL
            SET @q$old = (SELECT [id] FROM [pgs_full].[strict_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- corrected_at gets the time before the search (it counts as a dequeue's rescan): a job that
        -- becomes claimable below the watermark after this moment may be missed here, and the next
        -- rescan is due watermark.rescan seconds after this moment, so within the bound.
        SET @q$searched = SYSUTCDATETIME();
        -- The scans never wait on a job row (NOLOCK). NOLOCK also sees a job whose insert is not yet
        -- committed, so the watermark does not pass it. Deferred jobs (the [deferred] bit) do not hold
        -- it back: the due index hands them to claims.
        SET @q$new = (SELECT MIN([job].[id]) FROM [pgs_full].[strict] AS [job] WITH (NOLOCK) WHERE [job].[lease_token] IS NULL AND [job].[deferred] = 0);
        -- A row NOLOCK shows leased but another transaction holds (READPAST skips it) counts as
        -- unclaimed, as in the mover: a lease claim inside a caller's transaction that may still roll
        -- back (the job is then unclaimed again, below a watermark passed on the strength of a claim
        -- that never was), or a release in flight. Only leased rows can be such a row (the lease
        -- index holds them). Rows this transaction holds itself are not skipped: a rollback of those
        -- rolls this correction back too.
        SET @q$held = (SELECT MIN([job].[id]) FROM [pgs_full].[strict] AS [job] WITH (NOLOCK)
                       WHERE [job].[lease_token] IS NOT NULL
                         AND NOT EXISTS (SELECT 1 FROM [pgs_full].[strict] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                         WHERE [settled].[id] = [job].[id]));
        IF @q$held < @q$new OR (@q$new IS NULL AND @q$held IS NOT NULL)
            SET @q$new = @q$held;
        SET @q$new = @q$new - 50;
        IF @q$new IS NULL
            SET @q$new = (SELECT MAX([id]) + 1 FROM [pgs_full].[strict] WITH (NOLOCK)) - 50;
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
                        WHERE [object_id] = OBJECT_ID(N'[pgs_full].[strict]') AND [name] = N'id') - 50;
        IF @q$new IS NULL
            SET @q$new = COALESCE(@q$old, 0);
        IF @q$new < 0
            SET @q$new = 0;
        IF @q$old IS NULL
            INSERT INTO [pgs_full].[strict_watermark] ([id], [corrected_at]) VALUES (@q$new, @q$searched);
        ELSE
            UPDATE [pgs_full].[strict_watermark] SET [id] = @q$new, [version] = [version] + 1, [corrected_at] = @q$searched;
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

-- qgen 0.1.0: control_table pgs_full.strict_control, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which login). Every
-- claim reads it first, WITH (READPAST, READCOMMITTEDLOCK): a pause or resume counts from its
-- commit, and no claim waits on one left open. A missing row (deleted by hand) reads as running.
IF OBJECT_ID(N'pgs_full.strict_control', N'U') IS NULL
BEGIN
    CREATE TABLE [pgs_full].[strict_control]
    (
        [one_row] bit NOT NULL CONSTRAINT [strict_control_one_row_df] DEFAULT (1),
        [paused] bit NOT NULL CONSTRAINT [strict_control_paused_df] DEFAULT (0),
        [changed_at] datetime2(3) NULL,
        [changed_by] nvarchar(128) NULL,
        CONSTRAINT [strict_control_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [strict_control_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [pgs_full].[strict_control])
    INSERT INTO [pgs_full].[strict_control] ([paused]) VALUES (0);
GO

-- qgen 0.1.0: dequeue pgs_full.strict_dequeue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With @complete_lease_token it first completes that lease's jobs as complete(@lease_token) does,
-- in the same transaction: one commit per batch instead of two. A token that holds no job raises
-- 50001 and nothing is claimed.
CREATE OR ALTER PROCEDURE [pgs_full].[strict_dequeue]
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
            N' is out of range for pgs_full.strict_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in pgs_full.strict_dequeue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF @lease_seconds IS NULL OR @lease_seconds < 1
        THROW 50003, N'qgen: @lease_seconds is out of range; accepted: 1 or more seconds.', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on pgs_full.strict: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$token uniqueidentifier = NEWID();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [key] nvarchar(50) NOT NULL,
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
            SELECT [id] FROM [pgs_full].[strict] WHERE [lease_token] = @complete_lease_token;
            DELETE FROM [pgs_full].[strict]
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @complete_lease_token;

            IF @@ROWCOUNT = 0
                THROW 50001, N'qgen: lease lost on pgs_full.strict: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [pgs_full].[strict_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
        -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
        IF EXISTS (SELECT 1 FROM [pgs_full].[strict_watermark] WITH (NOLOCK) WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME()))
        BEGIN
            DECLARE @q$mark bigint, @q$stranded bigint;
            UPDATE [pgs_full].[strict_watermark] WITH (ROWLOCK, READPAST, UPDLOCK)
            SET @q$mark = [id], [corrected_at] = SYSUTCDATETIME(), [version] = [version] + 1
            WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME());
            IF @@ROWCOUNT = 1
            BEGIN
                SELECT @q$stranded = MIN([job].[id])
                FROM [pgs_full].[strict] AS [job] WITH (NOLOCK)
                WHERE [job].[id] < @q$mark AND [job].[lease_token] IS NULL AND [job].[deferred] = 0;
                IF @q$stranded IS NOT NULL
                    UPDATE [pgs_full].[strict_watermark]
                    SET [id] = CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END,
                        [version] = [version] + 1
                    WHERE [id] > CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END;
            END;
        END
        ELSE IF NOT EXISTS (SELECT 1 FROM [pgs_full].[strict_watermark] WITH (NOLOCK))
            INSERT INTO [pgs_full].[strict_watermark] ([id])
            SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM [pgs_full].[strict_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
        -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
        -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
        -- A missing row reads as 0.
        SET @q$from = COALESCE((SELECT [id] FROM [pgs_full].[strict_watermark] WITH (NOLOCK)), 0);
        ;WITH [due_job] AS
        (
            SELECT TOP (@batch_size) [id], [key], [attempts], [lease_token], [lease_owner], [lease_expires_at], [deferred]
            -- The one reference to the table (see the claim below); it seeks the due index.
            FROM [pgs_full].[strict] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [deferred] = 1 AND [available_at] <= @q$now
            ORDER BY [available_at], [id]
        )
        UPDATE [due_job]
        SET [lease_token] = @q$token,
            [lease_owner] = @owner,
            [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
            [deferred] = 0,
            [attempts] = [attempts] + 1
        OUTPUT inserted.[id], inserted.[key], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
        INTO @q$claimed ([id], [key], [attempts], [lease_token], [lease_expires_at])
        -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        -- Then the rest of the batch from the claim index, which holds only claimable jobs.
        SET @q$rest = @batch_size - @@ROWCOUNT;
        IF @q$rest > 0
        BEGIN
            ;WITH [next_job] AS
            (
                SELECT TOP (@q$rest) [id], [key], [attempts], [lease_token], [lease_owner], [lease_expires_at]
                -- The one reference to the table: these hints hold for every row the claim reads.
                FROM [pgs_full].[strict] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE [lease_token] IS NULL AND [available_at] <= @q$now AND [deferred] = 0
                  AND [id] >= @q$from
                ORDER BY [id]
            )
            UPDATE [next_job]
            SET [lease_token] = @q$token,
                [lease_owner] = @owner,
                [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
                [attempts] = [attempts] + 1
            OUTPUT inserted.[id], inserted.[key], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
            INTO @q$claimed ([id], [key], [attempts], [lease_token], [lease_expires_at])
            -- Planned for one row, whatever @q$rest the first call sniffed: a seek in queue order.
            OPTION (OPTIMIZE FOR (@q$rest = 1));
        END;
        -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
        -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
        -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
        DECLARE @q$highest bigint;
        SELECT @q$highest = MAX([id]) FROM @q$claimed;
        IF @q$highest - @q$from >= 150
            EXEC [pgs_full].[strict_watermark_move] @claimed_from = @q$highest;
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
        SELECT [id], [key], [attempts], [lease_token], [lease_expires_at]
        FROM @q$claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: complete pgs_full.strict_complete, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: deletes them. With @id, only that job; without, every job of
-- the lease. The token is the fence: a worker whose lease was released or taken over gets error 50001.
CREATE OR ALTER PROCEDURE [pgs_full].[strict_complete]
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
            SELECT [id] FROM [pgs_full].[strict] WHERE [lease_token] = @lease_token;
            DELETE FROM [pgs_full].[strict]
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;

            SET @q$completed = @@ROWCOUNT;
        END
        ELSE
        BEGIN
            DELETE FROM [pgs_full].[strict]
            WHERE [id] = @id AND [lease_token] = @lease_token;

            SET @q$completed = @@ROWCOUNT;
        END;
        IF @q$completed = 0
            THROW 50001, N'qgen: lease lost on pgs_full.strict: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        COMMIT TRANSACTION;
        RETURN @q$completed;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: fail pgs_full.strict_fail, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 5) and @retry = 1 it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR ALTER PROCEDURE [pgs_full].[strict_fail]
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
        [key] nvarchar(50) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL
    );
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK: a locking read of the current row (also under READ_COMMITTED_SNAPSHOT), held
        -- until commit, so a reaper cannot release the job between this read and the change below.
        SELECT @q$attempts = [attempts]
        FROM [pgs_full].[strict] WITH (UPDLOCK, ROWLOCK)
        WHERE [id] = @id AND [lease_token] = @lease_token;
        IF @q$attempts IS NULL
            THROW 50001, N'qgen: lease lost on pgs_full.strict: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        IF @retry = 1 AND @q$attempts < 5
        BEGIN
            UPDATE [pgs_full].[strict]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [last_error] = @q$error,
                [available_at] = DATEADD(second, CAST(CASE WHEN 10 * POWER(CAST(2 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) > 3600 THEN 3600 ELSE 10 * POWER(CAST(2 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) END AS int), @q$now),
                -- Into the due index for its backoff, off the claim index and the watermark's way.
                [deferred] = 1
            WHERE [id] = @id;
            -- The job is claimable again: the watermark must not stay above it (unless another
            -- transaction holds the watermark row: then the rescan finds the job; never a wait).
            UPDATE [w]
            SET [id] = @id, [version] = [w].[version] + 1
            FROM [pgs_full].[strict_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [w].[id] > @id;
            COMMIT TRANSACTION;
            RETURN 0;
        END;
        DELETE FROM [pgs_full].[strict]
        OUTPUT deleted.[id], deleted.[key], deleted.[enqueued_at], deleted.[attempts]
        INTO @q$dead ([id], [key], [enqueued_at], [attempts])
        WHERE [id] = @id;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [pgs_full].[strict_dead] ([id], [key], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [key], [enqueued_at], [attempts], @q$error, @q$now FROM @q$dead;
        COMMIT TRANSACTION;
        RETURN 1;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: extend_lease pgs_full.strict_extend_lease, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire @lease_seconds from now.
CREATE OR ALTER PROCEDURE [pgs_full].[strict_extend_lease]
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
            SELECT [id] FROM [pgs_full].[strict] WHERE [lease_token] = @lease_token;
            UPDATE [pgs_full].[strict] SET [lease_expires_at] = @q$until WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [pgs_full].[strict] SET [lease_expires_at] = @q$until WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$extended = @@ROWCOUNT;
        IF @q$extended = 0
        BEGIN
            IF @id IS NOT NULL AND EXISTS (SELECT 1 FROM [pgs_full].[strict_dead] AS [d]
                                           WHERE [d].[id] = @id AND [d].[last_error] = N'cancelled')
                THROW 50006, N'qgen: job cancelled on pgs_full.strict: cancel took it out of the queue while its lease ran; stop working on it (its complete and fail are refused).', 1;
            THROW 50001, N'qgen: lease lost on pgs_full.strict: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        RETURN @q$extended;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: reap pgs_full.strict_reap, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- @batch_size per call so it never holds many locks: those with attempts left become claimable
-- again, with their old token cleared so the late worker is fenced off; the rest are dead-lettered.
CREATE OR ALTER PROCEDURE [pgs_full].[strict_reap]
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
            N' is out of range for pgs_full.strict_reap; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$expired TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$freed TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [key] nvarchar(50) NOT NULL,
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
        FROM [pgs_full].[strict] WITH (READPAST, READCOMMITTEDLOCK)
        WHERE [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        -- Each statement reads the table once, through its CTE (as dequeue's claim does). UPDLOCK
        -- (and the statement's own update locks) make these locking reads of current rows.
        ;WITH [expired] AS
        (
            SELECT TOP (@batch_size) [id], [lease_token], [lease_owner], [lease_expires_at], [available_at], [last_error], [deferred]            FROM [pgs_full].[strict] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)
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
            SELECT TOP (@batch_size - @q$released) [id], [key], [enqueued_at], [attempts]
            FROM [pgs_full].[strict] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)
            WHERE [id] IN (SELECT [id] FROM @q$expired)
              AND [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now AND [attempts] >= 5
        )
        DELETE FROM [expired]
        OUTPUT deleted.[id], deleted.[key], deleted.[enqueued_at], deleted.[attempts]
        INTO @q$dead ([id], [key], [enqueued_at], [attempts])
        OPTION (OPTIMIZE FOR (@batch_size = 1, @q$released = 0));
        SET @q$dead_lettered = @@ROWCOUNT;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [pgs_full].[strict_dead] ([id], [key], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [key], [enqueued_at], [attempts], N'qgen: lease expired on the last attempt', @q$now FROM @q$dead;

        -- Released jobs are claimable again: the watermark must not stay above them (unless another
        -- transaction holds the watermark row: then the rescan finds them; never a wait).
        SELECT @q$lowest = MIN([id]) FROM @q$freed;
        IF @q$lowest IS NOT NULL
            UPDATE [w]
            SET [id] = @q$lowest, [version] = [w].[version] + 1
            FROM [pgs_full].[strict_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
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

-- qgen 0.1.0: metrics pgs_full.strict_metrics, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now, for dashboards and alerts. Each count reads the one index that
-- holds its rows (claim, due, lease, processed index; the dead-letter and archive tables), never the
-- whole queue table (finished rows included), and does not wait on a row: WITH (READPAST,
-- READCOMMITTEDLOCK) skips a row another transaction holds (a job being claimed, completed or enqueued right now),
-- the watermark's one row is read WITH (NOLOCK). So under concurrency the numbers are approximate:
-- a job changing at that moment is counted in neither state, and the counts are not one snapshot.
-- READPAST skips row and page locks only: a table lock (an escalated lock of a large transaction,
-- uninstall's TABLOCKX, an offline index build) still makes it wait.
CREATE OR ALTER PROCEDURE [pgs_full].[strict_metrics]
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
    FROM [pgs_full].[strict] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [lease_token] IS NULL AND [deferred] = 0;
    -- Deferred jobs (delayed, backed off, released): the due index.
    SELECT @q$due_ready = COUNT_BIG(CASE WHEN [available_at] <= @q$now THEN 1 END),
        @q$due_scheduled = COUNT_BIG(CASE WHEN [available_at] > @q$now THEN 1 END),
        @q$due_oldest = MIN(CASE WHEN [available_at] <= @q$now THEN [id] END),
        @q$due_lowest = MIN([id])
    FROM [pgs_full].[strict] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [deferred] = 1;
    SELECT @q$ready += @q$due_ready, @q$scheduled += @q$due_scheduled,
        @q$oldest_id = CASE WHEN @q$due_oldest < @q$oldest_id OR @q$oldest_id IS NULL THEN @q$due_oldest ELSE @q$oldest_id END,
        @q$lowest = CASE WHEN @q$due_lowest < @q$lowest OR @q$lowest IS NULL THEN @q$due_lowest ELSE @q$lowest END;
    -- Jobs in flight: the lease index.
    SELECT @q$in_flight = COUNT_BIG(*), @q$expired = COUNT_BIG(CASE WHEN [lease_expires_at] < @q$now THEN 1 END)
    FROM [pgs_full].[strict] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [lease_token] IS NOT NULL;
    SELECT @q$dead = COUNT_BIG(*) FROM [pgs_full].[strict_dead] WITH (READPAST, READCOMMITTEDLOCK);
    -- One row, a value: read without waiting on a transaction that holds it (a dirty value at worst).
    SELECT @q$watermark = [id] FROM [pgs_full].[strict_watermark] WITH (NOLOCK);
    -- The highest id: the last key of the clustered index (one row, skipped if locked).
    SELECT @q$highest = MAX([id]) FROM [pgs_full].[strict] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$ready AS [ready], @q$scheduled AS [scheduled], @q$in_flight AS [in_flight], @q$expired AS [expired],
        @q$processed AS [processed], @q$dead AS [dead], @q$archived AS [archived],
        -- The age of the oldest ready job: the one with the lowest id (ids grow with enqueued_at).
        COALESCE(DATEDIFF_BIG(second, (SELECT [enqueued_at] FROM [pgs_full].[strict] WITH (READPAST, READCOMMITTEDLOCK) WHERE [id] = @q$oldest_id), @q$now), 0)
            AS [oldest_ready_age_seconds],
        @q$watermark AS [watermark],
        @q$lowest AS [lowest_pending_id],
        -- on_complete: delete leaves no trace of a completion to count.
        CAST(NULL AS bigint) AS [completed_last_minute],
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        COALESCE(@q$lowest, @q$highest + 1) - @q$watermark AS [watermark_lag],
        CAST(CASE WHEN NOT EXISTS (SELECT 1 FROM [pgs_full].[strict_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0) THEN 1 ELSE 0 END AS bit) AS [paused];
END;
GO

-- qgen 0.1.0: peek pgs_full.strict_peek, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them.
CREATE OR ALTER PROCEDURE [pgs_full].[strict_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    -- NULL or negative is refused with the other argument checks' code (TOP would raise 1014).
    IF @limit IS NULL OR @limit < 0
        THROW 50003, N'qgen: @limit is out of range for pgs_full.strict_peek; accepted: 0 or more rows.', 1;
    SELECT TOP (@limit) [id], [key], [available_at], [enqueued_at], [attempts], [last_error]
    FROM [pgs_full].[strict_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge_batch pgs_full.strict_purge_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds: at most @batch_size rows (1000 by default, refused above 1983) over all those
-- tables together, in one transaction (the caller's, when there is one). purge loops over batches;
-- maintain runs one.
CREATE OR ALTER PROCEDURE [pgs_full].[strict_purge_batch]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1983
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1983 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$left int = @batch_size, @q$archived int = 0, @q$processed int = 0, @q$dead int = 0;
    BEGIN TRY
        BEGIN TRANSACTION;
        IF @q$left > 0
        BEGIN
            DELETE TOP (@q$left) FROM [pgs_full].[strict_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
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

-- qgen 0.1.0: purge pgs_full.strict_purge, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds, in batches of at most @batch_size rows (1000 by default, refused above 1983),
-- each committed on its own, so no statement takes enough locks to escalate to a table lock and
-- no transaction holds more than one batch. The cutoff is fixed when the call begins, so rows that
-- finish while it runs are left for the next purge and the loop ends. It must commit per batch,
-- so it refuses to run inside the caller's transaction (error 50004: there, call
-- strict_purge_batch, which deletes one batch in that transaction).
CREATE OR ALTER PROCEDURE [pgs_full].[strict_purge]
    @older_than_seconds int = 604800,
    @batch_size int = 1000
AS
BEGIN
    -- READPAST needs READ COMMITTED (or REPEATABLE READ): pinned here, whatever the caller runs at.
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1983
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1983 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    IF (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50004, N'qgen: purge commits after every batch, which it cannot do inside the caller''s transaction (or with IMPLICIT_TRANSACTIONS ON, where its first statement would open one); call it outside a transaction in autocommit mode, or call strict_purge_batch (one batch) there.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$archived bigint = 0, @q$processed bigint = 0, @q$dead bigint = 0, @q$deleted int;
    SET @q$deleted = @batch_size;
    WHILE @q$deleted = @batch_size
    BEGIN
        -- No transaction is open: each DELETE commits by itself, one batch at a time.
        DELETE TOP (@batch_size) FROM [pgs_full].[strict_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [dead_at] < @q$cutoff
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$deleted = @@ROWCOUNT;
        SET @q$dead += @q$deleted;
    END;

    SELECT @q$archived AS [archived], @q$processed AS [processed], @q$dead AS [dead];
END;
GO

-- qgen 0.1.0: maintain pgs_full.strict_maintain, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [pgs_full].[strict_maintain]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1983
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1983 (a batch stays well under lock escalation).', 1;
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
            @Resource = N'qgen.maintain:[pgs_full].[strict]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0, @DbPrincipal = @q$principal;
        -- -1: not granted at once, another maintain holds it. -2 (cancelled), -3 (deadlock victim)
        -- and -999 (a call error) are not "someone else is maintaining": refused with the code.
        IF @q$lock = -1
            SET @q$skipped = 1;
        ELSE IF @q$lock < 0
        BEGIN
            DECLARE @q$why nvarchar(2048) = CONCAT(N'qgen: refused on pgs_full.strict: maintain could not take its application lock (sp_getapplock returned ',
                @q$lock, N' for principal ', @q$principal, N').');
            THROW 50005, @q$why, 1;
        END
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            EXEC [pgs_full].[strict_purge_batch] @older_than_seconds = 604800, @batch_size = @batch_size,
                @archived = @q$archived OUTPUT, @processed = @q$processed OUTPUT, @dead = @q$dead OUTPUT, @result_set = 0;
            EXEC [pgs_full].[strict_reap] @batch_size = @q$reap_batch,
                @released = @q$released OUTPUT, @dead_lettered = @q$dead_lettered OUTPUT, @result_set = 0;
            EXEC [pgs_full].[strict_watermark_correct]
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

-- qgen 0.1.0: redrive pgs_full.strict_redrive, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [pgs_full].[strict_redrive]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1983
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1983 (a batch stays well under lock escalation).', 1;
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
            FROM [pgs_full].[strict_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[entry_id] > ISNULL(@after_id, 0)
            ORDER BY [x].[entry_id];
        ELSE
            INSERT INTO @q$picked ([entry_id])
            SELECT TOP (@batch_size) [x].[entry_id]
            FROM [pgs_full].[strict_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[id] IN (SELECT TRY_CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j])
            ORDER BY [x].[entry_id];
        SET @q$last_id = (SELECT MAX([entry_id]) FROM @q$picked);
        -- UPDLOCK + HOLDLOCK: no enqueue of the same key slips in between this check and the insert.
        UPDATE [p]
        SET [keep] = 1
        FROM @q$picked AS [p]
        INNER JOIN [pgs_full].[strict_dead] AS [x] ON [x].[entry_id] = [p].[entry_id]
        WHERE EXISTS (SELECT 1 FROM [pgs_full].[strict] AS [job] WITH (UPDLOCK, HOLDLOCK)
                      WHERE [job].[key] = [x].[key])
           OR EXISTS (SELECT 1 FROM @q$picked AS [first] INNER JOIN [pgs_full].[strict_dead] AS [y] ON [y].[entry_id] = [first].[entry_id]
                      WHERE [first].[entry_id] < [p].[entry_id] AND [y].[key] = [x].[key]);
        INSERT INTO [pgs_full].[strict] ([key], [attempts], [available_at], [last_error])
        SELECT [x].[key], 0, SYSUTCDATETIME(), [x].[last_error]
        FROM [pgs_full].[strict_dead] AS [x]
        INNER JOIN @q$picked AS [p] ON [p].[entry_id] = [x].[entry_id] AND [p].[keep] = 0
        ORDER BY [x].[entry_id];
        SET @q$redriven = @@ROWCOUNT;
        DELETE [x]
        FROM [pgs_full].[strict_dead] AS [x]
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

-- qgen 0.1.0: dead_letters pgs_full.strict_dead_letters, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first, with the error each died of: at most @limit rows (1 to
-- 1000). Reads only. WITH (READPAST, READCOMMITTEDLOCK), as metrics reads: a locking
-- read at READ COMMITTED (also under READ_COMMITTED_SNAPSHOT) that never waits on a row another
-- transaction holds and skips it instead (a dead letter fail or reap is writing, or redrive or
-- purge is taking away, right now: it is on its way in or out), and holds each shared lock only
-- while it reads that row, so fail, reap, redrive and purge never wait on it. Not NOLOCK: a
-- fail rolled back with its caller's transaction would be listed as dead. READPAST skips row and
-- page locks only: a table lock (escalated, uninstall's TABLOCKX) still makes it wait.
CREATE OR ALTER PROCEDURE [pgs_full].[strict_dead_letters]
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
            N' is out of range for pgs_full.strict_dead_letters; accepted: 1 to 1000 rows.');
        THROW 50003, @q$error, 1;
    END;
    -- Newest first, in the order they arrived: the clustered key backwards, which stops after @limit rows.
    SELECT TOP (@limit) [x].[id], [x].[key], [x].[enqueued_at], [x].[attempts],
        [x].[dead_at], [x].[last_error]
    FROM [pgs_full].[strict_dead] AS [x] WITH (READPAST, READCOMMITTEDLOCK)
    ORDER BY [x].[entry_id] DESC
    OPTION (RECOMPILE);
END;
GO

-- qgen 0.1.0: job pgs_full.strict_job, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [pgs_full].[strict_job]
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
            N' is out of range for pgs_full.strict_job; accepted: a job id, 1 or more.');
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
    FROM [pgs_full].[strict] AS [j]
    WHERE [j].[id] = @job_id;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is reseeded.
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at])
        SELECT TOP (1) [x].[id], N'dead', [x].[enqueued_at], NULL, [x].[attempts], NULL, NULL,
            [x].[last_error], [x].[dead_at]
        FROM [pgs_full].[strict_dead] AS [x]
        WHERE [x].[id] = @job_id
        ORDER BY [x].[entry_id] DESC;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state]) VALUES (@job_id, N'not_found');
    SELECT [id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at] FROM @q$found;
END;
GO

-- qgen 0.1.0: release pgs_full.strict_release, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With @id, that
-- job; without, every job of the lease. The token is the fence: a job whose lease was released,
-- taken over or finished gets error 50001. last_error is kept (no failure happened).
CREATE OR ALTER PROCEDURE [pgs_full].[strict_release]
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
            SELECT [id] FROM [pgs_full].[strict] WHERE [lease_token] = @lease_token;
            UPDATE [pgs_full].[strict]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now, [deferred] = 1,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [pgs_full].[strict]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now, [deferred] = 1,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$released = @@ROWCOUNT;
        IF @q$released = 0
            THROW 50001, N'qgen: lease lost on pgs_full.strict: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        -- Released jobs are claimable again: the watermark must not stay above them (unless another
        -- transaction holds the watermark row: then the rescan finds them; never a wait).
        SELECT @q$lowest = MIN([id]) FROM @q$freed;
        UPDATE [w]
            SET [id] = @q$lowest, [version] = [w].[version] + 1
            FROM [pgs_full].[strict_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
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

-- qgen 0.1.0: pause pgs_full.strict_pause, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job, and a dequeue waiting with @wait_ms keeps waiting. Enqueues go on, and leases already
-- granted run to their end (complete, fail, extend_lease, release and reap work as before).
-- Returns 1 when this call paused the queue, 0 when it was paused already.
CREATE OR ALTER PROCEDURE [pgs_full].[strict_pause]
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
        SELECT @q$was = [paused] FROM [pgs_full].[strict_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [pgs_full].[strict_control] ([paused], [changed_at], [changed_by]) VALUES (1, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 0;
        END
        ELSE IF @q$was = 0
        BEGIN
            UPDATE [pgs_full].[strict_control]
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
            THROW 50005, N'qgen: refused on pgs_full.strict: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: resume pgs_full.strict_resume, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again (a dequeue waiting with
-- @wait_ms takes one at its next attempt). Returns 1 when this call resumed the queue, 0 when it
-- was not paused.
CREATE OR ALTER PROCEDURE [pgs_full].[strict_resume]
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
        SELECT @q$was = [paused] FROM [pgs_full].[strict_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [pgs_full].[strict_control] ([paused], [changed_at], [changed_by]) VALUES (0, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 1;
        END
        ELSE IF @q$was = 1
        BEGIN
            UPDATE [pgs_full].[strict_control]
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
            THROW 50005, N'qgen: refused on pgs_full.strict: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: cancel pgs_full.strict_cancel, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (@ids: a JSON array of whole numbers from 1, e.g. N'[3, 7]'; at most 1983): each job still
-- in the queue leaves it at once, in this one transaction, into the dead-letter table with last_error N'cancelled', and
-- never runs. One row per distinct id, in id order, [outcome]:
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   cancelled_in_flight: it held a lease: its worker's complete, fail and extend_lease get 50001 (the
--     token fences them off, so nothing it does commits with the job);
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order (the clustered key, FORCESEEK from the ordered list of ids), as
-- every other statement that locks several jobs does, so cancel deadlocks with none of them; a row a
-- completion or a claim holds is waited for, at most 5 s (then refused, 50005: nothing done).
CREATE OR ALTER PROCEDURE [pgs_full].[strict_cancel]
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
    IF (SELECT COUNT(*) FROM OPENJSON(@ids)) > 1983
        THROW 50003, N'qgen: @ids lists more than 1983 jobs; accepted: 1 to 1983 per call (a bigger one could escalate to a table lock).', 1;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$asked TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$found TABLE ([id] bigint NOT NULL PRIMARY KEY);
    -- What the DELETE took out (its OUTPUT): the outcome is what happened, not what was found.
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [key] nvarchar(50) NOT NULL,
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
        FROM [pgs_full].[strict] AS [job] WITH (UPDLOCK, ROWLOCK, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]);
        DELETE FROM [pgs_full].[strict]
        OUTPUT deleted.[id], deleted.[key], deleted.[enqueued_at], deleted.[attempts], deleted.[lease_token]
        INTO @q$dead ([id], [key], [enqueued_at], [attempts], [lease_token])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [pgs_full].[strict_dead] ([id], [key], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [key], [enqueued_at], [attempts], N'cancelled', @q$now FROM @q$dead;
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on pgs_full.strict: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
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

-- qgen 0.1.0: grants to roles pgs_full_producer, pgs_full_consumer, pgs_full_admin, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_enqueue] TO [pgs_full_producer];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_enqueue_batch] TO [pgs_full_producer];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_enqueue_json] TO [pgs_full_producer];
GRANT EXECUTE ON TYPE::[pgs_full].[tasks_batch] TO [pgs_full_producer];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_dequeue] TO [pgs_full_consumer];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_complete] TO [pgs_full_consumer];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_fail] TO [pgs_full_consumer];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_extend_lease] TO [pgs_full_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_watermark_correct] TO [pgs_full_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[pgs_full].[tasks] TO [pgs_full_consumer];
GRANT VIEW DEFINITION ON OBJECT::[pgs_full].[tasks] TO [pgs_full_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_maintain] TO [pgs_full_consumer];
GRANT SELECT ON OBJECT::[pgs_full].[tasks_pending] TO [pgs_full_admin];
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_release] TO [pgs_full_consumer];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_enqueue] TO [pgs_full_producer];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_enqueue_batch] TO [pgs_full_producer];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_enqueue_json] TO [pgs_full_producer];
GRANT EXECUTE ON TYPE::[pgs_full].[strict_batch] TO [pgs_full_producer];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_dequeue] TO [pgs_full_consumer];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_complete] TO [pgs_full_consumer];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_fail] TO [pgs_full_consumer];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_extend_lease] TO [pgs_full_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_watermark_correct] TO [pgs_full_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[pgs_full].[strict] TO [pgs_full_consumer];
GRANT VIEW DEFINITION ON OBJECT::[pgs_full].[strict] TO [pgs_full_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_maintain] TO [pgs_full_consumer];
GRANT SELECT ON OBJECT::[pgs_full].[strict_pending] TO [pgs_full_admin];
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_release] TO [pgs_full_consumer];
-- The admin role runs every procedure qgen created, and nothing else: each by name, never EXECUTE
-- ON SCHEMA, which in a shared schema (or dbo) would reach every application procedure, present
-- and future (upgrade.sql takes back a schema-wide grant a former version made).
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_enqueue] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_enqueue_batch] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_enqueue_json] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_watermark_move] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_watermark_correct] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_dequeue] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_complete] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_fail] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_extend_lease] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_reap] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_metrics] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_peek] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_purge_batch] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_purge] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_maintain] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_redrive] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_dead_letters] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_job] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_release] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_pause] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_resume] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[tasks_cancel] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_enqueue] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_enqueue_batch] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_enqueue_json] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_watermark_move] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_watermark_correct] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_dequeue] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_complete] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_fail] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_extend_lease] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_reap] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_metrics] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_peek] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_purge_batch] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_purge] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_maintain] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_redrive] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_dead_letters] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_job] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_release] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_pause] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_resume] TO [pgs_full_admin];
GRANT EXECUTE ON OBJECT::[pgs_full].[strict_cancel] TO [pgs_full_admin];
GRANT EXECUTE ON TYPE::[pgs_full].[tasks_batch] TO [pgs_full_admin];
GRANT EXECUTE ON TYPE::[pgs_full].[strict_batch] TO [pgs_full_admin];
GO

-- qgen 0.1.0: verify pgs_full, rendered for SQL Server (T-SQL) from spec.yaml.
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
WHERE [s].[name] = N'pgs_full'
  AND [o].[name] IN
  (
      N'tasks',
      N'tasks_claim_ix',
      N'tasks_claim_order_ix',
      N'tasks_dead',
      N'tasks_dedupe_ux',
      N'tasks_lease_ix',
      N'tasks_processed_ix',
      N'tasks_watermark',
      N'tasks_dead_ix',
      N'tasks_outbox',
      N'tasks_pending',
      N'tasks_batch',
      N'tasks_enqueue',
      N'tasks_enqueue_batch',
      N'tasks_enqueue_json',
      N'tasks_watermark_move',
      N'tasks_watermark_correct',
      N'tasks_control',
      N'tasks_dequeue',
      N'tasks_complete',
      N'tasks_fail',
      N'tasks_extend_lease',
      N'tasks_reap',
      N'tasks_metrics',
      N'tasks_peek',
      N'tasks_purge_batch',
      N'tasks_purge',
      N'tasks_maintain',
      N'tasks_redrive',
      N'tasks_dead_letters',
      N'tasks_job',
      N'tasks_release',
      N'tasks_pause',
      N'tasks_resume',
      N'tasks_cancel',
      N'strict',
      N'strict_claim_ix',
      N'strict_dead',
      N'strict_dedupe_ux',
      N'strict_lease_ix',
      N'strict_watermark',
      N'strict_dead_ix',
      N'strict_pending',
      N'strict_batch',
      N'strict_enqueue',
      N'strict_enqueue_batch',
      N'strict_enqueue_json',
      N'strict_watermark_move',
      N'strict_watermark_correct',
      N'strict_control',
      N'strict_dequeue',
      N'strict_complete',
      N'strict_fail',
      N'strict_extend_lease',
      N'strict_reap',
      N'strict_metrics',
      N'strict_peek',
      N'strict_purge_batch',
      N'strict_purge',
      N'strict_maintain',
      N'strict_redrive',
      N'strict_dead_letters',
      N'strict_job',
      N'strict_release',
      N'strict_pause',
      N'strict_resume',
      N'strict_cancel'
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
IF OBJECT_ID(N'pgs_full.tasks') IS NULL
    SET @q$missing += N' pgs_full.tasks';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'tasks_claim_ix' AND [object_id] = OBJECT_ID(N'pgs_full.tasks'))
    SET @q$missing += N' pgs_full.tasks_claim_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'tasks_claim_order_ix' AND [object_id] = OBJECT_ID(N'pgs_full.tasks'))
    SET @q$missing += N' pgs_full.tasks_claim_order_ix';
IF OBJECT_ID(N'pgs_full.tasks_dead') IS NULL
    SET @q$missing += N' pgs_full.tasks_dead';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'tasks_dedupe_ux' AND [object_id] = OBJECT_ID(N'pgs_full.tasks'))
    SET @q$missing += N' pgs_full.tasks_dedupe_ux';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'tasks_lease_ix' AND [object_id] = OBJECT_ID(N'pgs_full.tasks'))
    SET @q$missing += N' pgs_full.tasks_lease_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'tasks_processed_ix' AND [object_id] = OBJECT_ID(N'pgs_full.tasks'))
    SET @q$missing += N' pgs_full.tasks_processed_ix';
IF OBJECT_ID(N'pgs_full.tasks_watermark') IS NULL
    SET @q$missing += N' pgs_full.tasks_watermark';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'tasks_dead_ix' AND [object_id] = OBJECT_ID(N'pgs_full.tasks_dead'))
    SET @q$missing += N' pgs_full.tasks_dead_ix';
IF OBJECT_ID(N'pgs_full.tasks_outbox') IS NULL
    SET @q$missing += N' pgs_full.tasks_outbox';
IF OBJECT_ID(N'pgs_full.tasks_pending') IS NULL
    SET @q$missing += N' pgs_full.tasks_pending';
IF TYPE_ID(N'pgs_full.tasks_batch') IS NULL
    SET @q$missing += N' pgs_full.tasks_batch';
IF OBJECT_ID(N'pgs_full.tasks_enqueue') IS NULL
    SET @q$missing += N' pgs_full.tasks_enqueue';
IF OBJECT_ID(N'pgs_full.tasks_enqueue_batch') IS NULL
    SET @q$missing += N' pgs_full.tasks_enqueue_batch';
IF OBJECT_ID(N'pgs_full.tasks_enqueue_json') IS NULL
    SET @q$missing += N' pgs_full.tasks_enqueue_json';
IF OBJECT_ID(N'pgs_full.tasks_watermark_move') IS NULL
    SET @q$missing += N' pgs_full.tasks_watermark_move';
IF OBJECT_ID(N'pgs_full.tasks_watermark_correct') IS NULL
    SET @q$missing += N' pgs_full.tasks_watermark_correct';
IF OBJECT_ID(N'pgs_full.tasks_control') IS NULL
    SET @q$missing += N' pgs_full.tasks_control';
IF OBJECT_ID(N'pgs_full.tasks_dequeue') IS NULL
    SET @q$missing += N' pgs_full.tasks_dequeue';
IF OBJECT_ID(N'pgs_full.tasks_complete') IS NULL
    SET @q$missing += N' pgs_full.tasks_complete';
IF OBJECT_ID(N'pgs_full.tasks_fail') IS NULL
    SET @q$missing += N' pgs_full.tasks_fail';
IF OBJECT_ID(N'pgs_full.tasks_extend_lease') IS NULL
    SET @q$missing += N' pgs_full.tasks_extend_lease';
IF OBJECT_ID(N'pgs_full.tasks_reap') IS NULL
    SET @q$missing += N' pgs_full.tasks_reap';
IF OBJECT_ID(N'pgs_full.tasks_metrics') IS NULL
    SET @q$missing += N' pgs_full.tasks_metrics';
IF OBJECT_ID(N'pgs_full.tasks_peek') IS NULL
    SET @q$missing += N' pgs_full.tasks_peek';
IF OBJECT_ID(N'pgs_full.tasks_purge_batch') IS NULL
    SET @q$missing += N' pgs_full.tasks_purge_batch';
IF OBJECT_ID(N'pgs_full.tasks_purge') IS NULL
    SET @q$missing += N' pgs_full.tasks_purge';
IF OBJECT_ID(N'pgs_full.tasks_maintain') IS NULL
    SET @q$missing += N' pgs_full.tasks_maintain';
IF OBJECT_ID(N'pgs_full.tasks_redrive') IS NULL
    SET @q$missing += N' pgs_full.tasks_redrive';
IF OBJECT_ID(N'pgs_full.tasks_dead_letters') IS NULL
    SET @q$missing += N' pgs_full.tasks_dead_letters';
IF OBJECT_ID(N'pgs_full.tasks_job') IS NULL
    SET @q$missing += N' pgs_full.tasks_job';
IF OBJECT_ID(N'pgs_full.tasks_release') IS NULL
    SET @q$missing += N' pgs_full.tasks_release';
IF OBJECT_ID(N'pgs_full.tasks_pause') IS NULL
    SET @q$missing += N' pgs_full.tasks_pause';
IF OBJECT_ID(N'pgs_full.tasks_resume') IS NULL
    SET @q$missing += N' pgs_full.tasks_resume';
IF OBJECT_ID(N'pgs_full.tasks_cancel') IS NULL
    SET @q$missing += N' pgs_full.tasks_cancel';
IF OBJECT_ID(N'pgs_full.strict') IS NULL
    SET @q$missing += N' pgs_full.strict';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'strict_claim_ix' AND [object_id] = OBJECT_ID(N'pgs_full.strict'))
    SET @q$missing += N' pgs_full.strict_claim_ix';
IF OBJECT_ID(N'pgs_full.strict_dead') IS NULL
    SET @q$missing += N' pgs_full.strict_dead';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'strict_dedupe_ux' AND [object_id] = OBJECT_ID(N'pgs_full.strict'))
    SET @q$missing += N' pgs_full.strict_dedupe_ux';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'strict_lease_ix' AND [object_id] = OBJECT_ID(N'pgs_full.strict'))
    SET @q$missing += N' pgs_full.strict_lease_ix';
IF OBJECT_ID(N'pgs_full.strict_watermark') IS NULL
    SET @q$missing += N' pgs_full.strict_watermark';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'strict_dead_ix' AND [object_id] = OBJECT_ID(N'pgs_full.strict_dead'))
    SET @q$missing += N' pgs_full.strict_dead_ix';
IF OBJECT_ID(N'pgs_full.strict_pending') IS NULL
    SET @q$missing += N' pgs_full.strict_pending';
IF TYPE_ID(N'pgs_full.strict_batch') IS NULL
    SET @q$missing += N' pgs_full.strict_batch';
IF OBJECT_ID(N'pgs_full.strict_enqueue') IS NULL
    SET @q$missing += N' pgs_full.strict_enqueue';
IF OBJECT_ID(N'pgs_full.strict_enqueue_batch') IS NULL
    SET @q$missing += N' pgs_full.strict_enqueue_batch';
IF OBJECT_ID(N'pgs_full.strict_enqueue_json') IS NULL
    SET @q$missing += N' pgs_full.strict_enqueue_json';
IF OBJECT_ID(N'pgs_full.strict_watermark_move') IS NULL
    SET @q$missing += N' pgs_full.strict_watermark_move';
IF OBJECT_ID(N'pgs_full.strict_watermark_correct') IS NULL
    SET @q$missing += N' pgs_full.strict_watermark_correct';
IF OBJECT_ID(N'pgs_full.strict_control') IS NULL
    SET @q$missing += N' pgs_full.strict_control';
IF OBJECT_ID(N'pgs_full.strict_dequeue') IS NULL
    SET @q$missing += N' pgs_full.strict_dequeue';
IF OBJECT_ID(N'pgs_full.strict_complete') IS NULL
    SET @q$missing += N' pgs_full.strict_complete';
IF OBJECT_ID(N'pgs_full.strict_fail') IS NULL
    SET @q$missing += N' pgs_full.strict_fail';
IF OBJECT_ID(N'pgs_full.strict_extend_lease') IS NULL
    SET @q$missing += N' pgs_full.strict_extend_lease';
IF OBJECT_ID(N'pgs_full.strict_reap') IS NULL
    SET @q$missing += N' pgs_full.strict_reap';
IF OBJECT_ID(N'pgs_full.strict_metrics') IS NULL
    SET @q$missing += N' pgs_full.strict_metrics';
IF OBJECT_ID(N'pgs_full.strict_peek') IS NULL
    SET @q$missing += N' pgs_full.strict_peek';
IF OBJECT_ID(N'pgs_full.strict_purge_batch') IS NULL
    SET @q$missing += N' pgs_full.strict_purge_batch';
IF OBJECT_ID(N'pgs_full.strict_purge') IS NULL
    SET @q$missing += N' pgs_full.strict_purge';
IF OBJECT_ID(N'pgs_full.strict_maintain') IS NULL
    SET @q$missing += N' pgs_full.strict_maintain';
IF OBJECT_ID(N'pgs_full.strict_redrive') IS NULL
    SET @q$missing += N' pgs_full.strict_redrive';
IF OBJECT_ID(N'pgs_full.strict_dead_letters') IS NULL
    SET @q$missing += N' pgs_full.strict_dead_letters';
IF OBJECT_ID(N'pgs_full.strict_job') IS NULL
    SET @q$missing += N' pgs_full.strict_job';
IF OBJECT_ID(N'pgs_full.strict_release') IS NULL
    SET @q$missing += N' pgs_full.strict_release';
IF OBJECT_ID(N'pgs_full.strict_pause') IS NULL
    SET @q$missing += N' pgs_full.strict_pause';
IF OBJECT_ID(N'pgs_full.strict_resume') IS NULL
    SET @q$missing += N' pgs_full.strict_resume';
IF OBJECT_ID(N'pgs_full.strict_cancel') IS NULL
    SET @q$missing += N' pgs_full.strict_cancel';
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
WHERE [s].[name] = N'pgs_full'
  AND [o].[name] IN
  (
      N'tasks_maintain',
      N'strict_maintain'
  )
  AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$owners <> N''
BEGIN
    DECLARE @q$impersonate nvarchar(2048) = LEFT(N'qgen: maintain runs WITH EXECUTE AS OWNER, which cannot impersonate its owner, '
        + N'so every call of it fails:' + @q$owners + N'. Give schema [pgs_full] to a user, ALTER AUTHORIZATION ON SCHEMA::'
        + N'[pgs_full] TO [dbo]; (a procedure given an owner of its own: ALTER AUTHORIZATION ON OBJECT::... TO SCHEMA OWNER;), '
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
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'pgs_full.' + [r].[name]), N' '))
FROM
(
    VALUES
        (N'strict_cancel', 0x703495B97F1E71C1DD0B21C61394CACFB084EA7218023508E3CF7AF6500921EA),
        (N'strict_complete', 0xE38E705E60C80DFAB285088C7E1B8DF16CAD53F45CB445C9041B14F57AE7209C),
        (N'strict_dead_letters', 0xFFF5587A0975B3955AA542A43B66278847031E3DF0E1254D2800C69584BE311A),
        (N'strict_dequeue', 0x9D42442FB9D1DA5800EFCF2384493474F809B3DE2C37F41A25ECB167E6713E7F),
        (N'strict_enqueue', 0x1EF301432BC9210B8496C571AD64F359A6553F4A43034B5861C04D22A3F4DB75),
        (N'strict_enqueue_batch', 0x7F8E4AA685451E36C046D3424EA160B326BF2F7DE852AD6326D6D5E9DE641467),
        (N'strict_enqueue_json', 0xC03D5357644A2F141C5A255EBCBF0A2A4B6F5D398BA0CE99B94E9A07295B68D6),
        (N'strict_extend_lease', 0xA6A10A2AFB17A3D24551C5ECE3F842EE3A0EC2882AB83DD82C22143152C93CFB),
        (N'strict_fail', 0x4C53910FC6300530CB47F2F41DBD4FF33341819B4A20033EFECC33D3A2A58FF0),
        (N'strict_job', 0x0FC2828CD11BB1DCA95BFCA4C0965F69280B7E0B8A0A4A5CFF1F5C3E77AD70CB),
        (N'strict_maintain', 0xA4BB83E5CA4A3E78AFB8D61E21C9300D1CC7C57FAD02F13A5F8A37D595E7F718),
        (N'strict_metrics', 0x08A0A15D9A7653D22635631466FCCA0B5F7CE95171925BF06854CE7BDAF64F00),
        (N'strict_pause', 0xF938A5BD600B16604C473FE0C6929854910501C37D62C8AB881115142CAEC152),
        (N'strict_peek', 0xC2081AF3D97F98A4ACFB2C16424DC30287EF6AA9CDF046DAD26778A3E85CFFA7),
        (N'strict_pending', 0x3CA0EC43ECD6B4317F1811F6B30B44AF6703B0DF98B783578F16D2874B141B17),
        (N'strict_purge', 0x7CCCB6A8A4D7D0BD06B28934ADE1B02A1A4246DC957D24856522667581D4A6A1),
        (N'strict_purge_batch', 0xAF3BE28C0F9BACEAC4D980A33F96583ED68F007387A49AD994AD3C7BCC222C65),
        (N'strict_reap', 0x1CE915BD8610BC8231A428B5B707FB5DF00E70AC78455BC019FEA910E726B723),
        (N'strict_redrive', 0x49AEB7F0C87B76B14E36B6178F018F1C5B68C75F3BFCE0E91BDF459EBC494A80),
        (N'strict_release', 0xC8EE68A3A8A9C8D221C778088FDEC73ECE362A8331EA4A02A86D9C94D81B8019),
        (N'strict_resume', 0xFEF2C6808038B327CE63A8C888319269AB9F152641475DF7F3C1B0286A216018),
        (N'strict_watermark_correct', 0x24ABE77D252108A0F734293B1A26CE87B9AF4D782C00A0BD1C1F0403B6B0DE34),
        (N'strict_watermark_move', 0xC07919E65DF5BA4C51BA4680356C52F3BAC56D56371DFF3A0C239FBF943A7026),
        (N'tasks_cancel', 0xB5F8BEC49AFD67EDD0EF55E26DE007389926B658EE965B2B292BF38F68838CD4),
        (N'tasks_complete', 0x02E703DF4AA020C4BAE18D2511F6CA5DE14815225A74EACE5C72C4EFCE566C0A),
        (N'tasks_dead_letters', 0x600ECBB5510AA05B8CC29BEBA1F0442216212EDCD6F3AF9631EE7A2F9141C861),
        (N'tasks_dequeue', 0x46D66A46B9CFF5D549A35AAE3DFADC1D9118CAC24FBFBF60F84BE96CC0595A80),
        (N'tasks_enqueue', 0x3ED9672AB3038AD71B71B438012451EF86D11F2C1E2EFE7879E9E065BBB1ACD8),
        (N'tasks_enqueue_batch', 0x8FE216A3E37BD849A4683759E78DBC4CB407572E2AD7DB4D63C11E19326BA439),
        (N'tasks_enqueue_json', 0x61605625A7C0F8D91D11829683132179EFA08EE3A245E50046D9CD0C1567E306),
        (N'tasks_extend_lease', 0x378DE666485F08E1FFE94BCBBC32825DAAA9F2FAC662E2D83FFA4F3ABFF4371C),
        (N'tasks_fail', 0x919EA63AA390CC175F722713D0F877E6B929BF9EE3B1D2F8E42E7F6818DAD64A),
        (N'tasks_job', 0xE3514F7B4AC79030651C26115AA415479B2206B6F754AEC53BE65EF09A56E8B3),
        (N'tasks_maintain', 0xBDEFAAD896D6A74226EBA2AC76E6F84270C1E5A9AD0F533A4144DDD6EA9D4F74),
        (N'tasks_metrics', 0x62C0F48494DDB761FF0C013ACA6B2554616F6017C15DC9F2925FDD89B179DE2E),
        (N'tasks_pause', 0x2133FC6B8425B96D1714A45F42309A90DE574E8F45A9D9C7413DD105EEFC34A3),
        (N'tasks_peek', 0x1F2E3CADE15B29FED469C9CCCDF77D7B7D6351449BF8AF8CA6FD150117425A4C),
        (N'tasks_pending', 0x0A31FE020E4B650735B4861872E85682F9C942AF9ABB483297EBA515443BDE83),
        (N'tasks_purge', 0x15056FD8E5491D17B0703734B9AD50697EB537580D662AE8158419A338434340),
        (N'tasks_purge_batch', 0xB2CDF8A149401381F19E6846AAA129691E59FCE8A48B84694771AEC86E0242FA),
        (N'tasks_reap', 0xE7CD7C147B5D8BC3C00F2797B1F296E9C536919BB7162BC4520D76930CF550E7),
        (N'tasks_redrive', 0x3ABE0B94FF92C35DCEBD4CFAA4B17B4BA4BCA48568065B315E3C2E6534532D91),
        (N'tasks_release', 0x77F4D8B72A5B9075D2CF3D5FDBF5F505D21D720F010A7E27C33CA188ED3F8909),
        (N'tasks_resume', 0x41EEBD22B3F2A2C48F3249AB06515CDBD37C336BFC988A7DB3E0311E13C9FDD4),
        (N'tasks_watermark_correct', 0xE61A83B4D313BC28CF43AA6121FDB5EE7F65216FD70600A4AAC53516BE6F45AD),
        (N'tasks_watermark_move', 0x377E8631F1EE1689E7014C7D024A077F0FBD970AF372154DBC0FD8548FC5DA2D)
) AS [r]([name], [fingerprint])
INNER JOIN sys.sql_modules AS [sm] ON [sm].[object_id] = OBJECT_ID(N'pgs_full.' + [r].[name])
CROSS APPLY (SELECT [sm].[definition] COLLATE Latin1_General_BIN2 AS [text]) AS [d]
WHERE HASHBYTES('SHA2_256', REPLACE(REPLACE(REPLACE(REPLACE(
          SUBSTRING([d].[text], CHARINDEX(N'[pgs_full].[' + [r].[name] + N']' COLLATE Latin1_General_BIN2, [d].[text]), LEN([d].[text])),
          NCHAR(32), N''), NCHAR(9), N''), NCHAR(10), N''), NCHAR(13), N'')) <> [r].[fingerprint];
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'pgs_full.' + [r].[table] + N'.' + [r].[name]
    + N' (' + COALESCE([shape].[now], N'?') + N', rendered ' + [r].[shape] + N')'), N' '))
FROM
(
    VALUES
        (N'strict', N'strict_claim_ix', N'(id) include (available_at, deferred, lease_token) where'),
        (N'strict', N'strict_claim_ix_due', N'(available_at, id) include (deferred) where'),
        (N'strict', N'strict_dedupe_ux', N'unique (key)'),
        (N'strict', N'strict_lease_ix', N'(lease_token) include (attempts, lease_expires_at) where'),
        (N'strict_dead', N'strict_dead_id_ix', N'(id)'),
        (N'strict_dead', N'strict_dead_ix', N'(dead_at)'),
        (N'tasks', N'tasks_claim_ix', N'(job_type, id) include (available_at, deferred, lease_token, processed) where'),
        (N'tasks', N'tasks_claim_ix_due', N'(available_at, id) include (deferred, job_type) where'),
        (N'tasks', N'tasks_claim_order_ix', N'(id) include (available_at, deferred, lease_token, processed) where'),
        (N'tasks', N'tasks_dedupe_ux', N'unique (tenant, item) where'),
        (N'tasks', N'tasks_lease_ix', N'(lease_token) include (attempts, lease_expires_at) where'),
        (N'tasks', N'tasks_processed_ix', N'(processed_at) include (processed) where'),
        (N'tasks_dead', N'tasks_dead_id_ix', N'(id)'),
        (N'tasks_dead', N'tasks_dead_ix', N'(dead_at)')
) AS [r]([table], [name], [shape])
INNER JOIN sys.indexes AS [i] ON [i].[object_id] = OBJECT_ID(N'pgs_full.' + [r].[table]) AND [i].[name] = [r].[name]
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
