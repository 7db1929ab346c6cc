-- qgen 0.1.0: every object of 000_flag_worker.yaml, for SQL Server (T-SQL), in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- qgen 0.1.0: schema four, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Refused before anything is created: a schema that exists and is owned by a database role (or an
-- application role, a group, a user mapped to a certificate or key). Its procedures are owned by
-- that owner, and maintain runs WITH EXECUTE AS OWNER, which can impersonate only a user: every
-- call of maintain would fail (error 15517) long after install succeeded. sqlcmd and SSMS go on to
-- the next batch after an error: the batch after the refusal sets NOEXEC ON, so no later batch runs
-- (verify, install's last batch, sets it OFF again).
DECLARE @q$refused nvarchar(2048);
SELECT @q$refused = CONCAT(N'qgen: install refused: schema [four] is owned by ', QUOTENAME([p].[name]), N' (',
    [p].[type_desc], N'), which EXECUTE AS OWNER cannot impersonate: qgen''s maintain procedures run as the schema''s owner, ',
    N'so every call of maintain would fail. Give the schema to a user, ALTER AUTHORIZATION ON SCHEMA::[four] TO [dbo]; ',
    N'(or to another user), then run install.sql again.')
FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'four' AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$refused IS NOT NULL
    THROW 50022, @q$refused, 1;
GO

IF EXISTS (SELECT 1 FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'four' AND [p].[type] NOT IN ('S', 'U', 'E'))
    SET NOEXEC ON;
GO

-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
-- A schema install creates is marked (extended property qgen.created): uninstall drops only such a one.
IF SCHEMA_ID(N'four') IS NULL
BEGIN
    EXEC(N'CREATE SCHEMA [four] AUTHORIZATION [dbo];');
    EXEC sys.sp_addextendedproperty @name = N'qgen.created', @value = N'created by the install of qgen''s queues',
        @level0type = N'SCHEMA', @level0name = N'four';
END;
GO

-- qgen 0.1.0: roles four_producer, four_consumer, four_admin (database roles), rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
-- A role install creates is recorded on the schema (extended property qgen.created_role.<role>):
-- uninstall drops only such a one, never a role that was there before and that the spec only names.
IF DATABASE_PRINCIPAL_ID(N'four_producer') IS NULL
BEGIN
    CREATE ROLE [four_producer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'four') AND [name] = N'qgen.created_role.four_producer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.four_producer', @value = N'four_producer',
            @level0type = N'SCHEMA', @level0name = N'four';
END;
IF DATABASE_PRINCIPAL_ID(N'four_consumer') IS NULL
BEGIN
    CREATE ROLE [four_consumer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'four') AND [name] = N'qgen.created_role.four_consumer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.four_consumer', @value = N'four_consumer',
            @level0type = N'SCHEMA', @level0name = N'four';
END;
IF DATABASE_PRINCIPAL_ID(N'four_admin') IS NULL
BEGIN
    CREATE ROLE [four_admin];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'four') AND [name] = N'qgen.created_role.four_admin')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.four_admin', @value = N'four_admin',
            @level0type = N'SCHEMA', @level0name = N'four';
END;
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
        -- 1 while the job waits for its time (delayed by run_at, or released by fail or reap) and no
        -- claim holds it: such a job is in the due index, not the claim index (a filtered index
        -- cannot compare available_at with enqueued_at, so enqueue, fail, reap and dequeue keep it).
        [deferred] bit NOT NULL CONSTRAINT [four_queue_deferred_df] DEFAULT (0),
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
-- Deferred jobs (delayed, or released with a backoff: [deferred] = 1) are left out of it: see the due index below.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_claim_ix' AND object_id = OBJECT_ID(N'four.four_queue'))
    CREATE NONCLUSTERED INDEX [four_queue_claim_ix]
    ON [four].[four_queue] ([id])
    INCLUDE ([available_at], [lease_token], [processed], [deferred])
    WHERE [lease_token] IS NULL AND [processed] = 0 AND [deferred] = 0;
-- The due index: deferred jobs, by the time they become available ([deferred] = 1 only while no
-- claim holds the job: a claim clears it). A claim takes the due ones from here first, so however
-- many wait for their time, no claim and no watermark steps over them.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_claim_ix_due' AND object_id = OBJECT_ID(N'four.four_queue'))
    CREATE NONCLUSTERED INDEX [four_queue_claim_ix_due]
    ON [four].[four_queue] ([available_at], [id])
    INCLUDE ([deferred])
    WHERE [deferred] = 1;
GO

-- qgen 0.1.0: dead_letter_table four.four_queue_dead, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: [id] is the job's id, which repeats once the queue's identity is reseeded.
IF OBJECT_ID(N'four.four_queue_dead', N'U') IS NULL
BEGIN
    CREATE TABLE [four].[four_queue_dead]
    (
        [entry_id] bigint IDENTITY(1, 1) NOT NULL,
        [id] bigint NOT NULL,
        [reputation] int NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL,
        [last_error] nvarchar(4000) NULL,
        [dead_at] datetime2(3) NOT NULL CONSTRAINT [four_queue_dead_dead_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [four_queue_dead_pk] PRIMARY KEY CLUSTERED ([entry_id])
    );
END;
GO

-- qgen 0.1.0: dedupe_index four.four_queue_dedupe_ux, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there (processed rows included: dedupe.scope: ever).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_dedupe_ux' AND object_id = OBJECT_ID(N'four.four_queue'))
    CREATE UNIQUE NONCLUSTERED INDEX [four_queue_dedupe_ux]
    ON [four].[four_queue] ([reputation]);
-- dedupe.scope: ever: a finished job keeps its key in four_queue_dead until purge removes it; enqueue looks
-- here, and the index refuses a second job with the key even if something bypassed enqueue.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_dead_dedupe_ux' AND object_id = OBJECT_ID(N'four.four_queue_dead'))
    CREATE UNIQUE NONCLUSTERED INDEX [four_queue_dead_dedupe_ux]
    ON [four].[four_queue_dead] ([reputation]);
GO

-- qgen 0.1.0: lease_index four.four_queue_lease_ix, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_lease_ix' AND object_id = OBJECT_ID(N'four.four_queue'))
    CREATE NONCLUSTERED INDEX [four_queue_lease_ix]
    ON [four].[four_queue] ([lease_token]) INCLUDE ([lease_expires_at], [attempts])
    WHERE [lease_token] IS NOT NULL;
GO

-- qgen 0.1.0: processed_index four.four_queue_processed_ix, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes processed jobs by age: only processed rows are indexed, by when they were processed
-- (INCLUDE [processed]: a filtered index carries the columns its filter names).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_processed_ix' AND object_id = OBJECT_ID(N'four.four_queue'))
    CREATE NONCLUSTERED INDEX [four_queue_processed_ix]
    ON [four].[four_queue] ([processed_at])
    INCLUDE ([processed])
    WHERE [processed] = 1;
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
        -- When the table was last searched below the watermark (by a dequeue's rescan or
        -- watermark_correct): a dequeue rescans when this is watermark.rescan old.
        [corrected_at] datetime2(3) NOT NULL
            CONSTRAINT [four_queue_watermark_corrected_at_df] DEFAULT ('0001-01-01'),
        CONSTRAINT [four_queue_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [four_queue_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [four].[four_queue_watermark])
    INSERT INTO [four].[four_queue_watermark] ([id]) VALUES (0);
GO

-- qgen 0.1.0: dead_letter_index four.four_queue_dead_ix, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_dead_ix' AND object_id = OBJECT_ID(N'four.four_queue_dead'))
    CREATE NONCLUSTERED INDEX [four_queue_dead_ix]
    ON [four].[four_queue_dead] ([dead_at]);
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_dead_id_ix' AND object_id = OBJECT_ID(N'four.four_queue_dead'))
    CREATE NONCLUSTERED INDEX [four_queue_dead_id_ix]
    ON [four].[four_queue_dead] ([id]);
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
-- drops and recreates it with the procedures that use it. Its columns are one wider than the
-- table's (m.param_type): a caller's insert into a variable of this type cannot cut or round a value
-- past its column unseen; enqueue_batch refuses it with error 50010.
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
-- (enqueued = 0). A value past its column's
-- limit is refused with error 50010, never cut or rounded: its parameter is one wider (m.param_type).
CREATE OR ALTER PROCEDURE [four].[four_queue_enqueue]
    @reputation int
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL);
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK + HOLDLOCK keep the key range locked until the insert, so two sessions enqueueing
        -- the same key cannot both find it missing; a locking read, so it sees current rows also
        -- under READ_COMMITTED_SNAPSHOT.
        DECLARE @q$existing bigint =
        (
            SELECT [id] FROM [four].[four_queue] WITH (UPDLOCK, HOLDLOCK)
            WHERE [reputation] = @reputation

        );
        -- dedupe.scope: ever: a finished job holds its key until purge removes it. Read after the
        -- queue table, the order a completion or dead-lettering locks them in: a job moving there
        -- now is waited for above, then found here. A plain locking read of the key, no range lock:
        -- the queue table's range lock above already keeps every claim, completion and failure of
        -- this key out until this transaction ends (each moves a queue row of the key there), and a
        -- range lock held here would stall every claim that archives a key after this one (seed
        -- 002: an import in one transaction stalled every sale; docs/api.md).
        IF @q$existing IS NULL
            SET @q$existing = (SELECT [id] FROM [four].[four_queue_dead] WITH (READCOMMITTEDLOCK)
                             WHERE [reputation] = @reputation);
        IF @q$existing IS NOT NULL
        BEGIN
            COMMIT TRANSACTION;
            SELECT @q$existing AS [id], CAST(0 AS bit) AS [enqueued];
            RETURN;
        END;
        INSERT INTO [four].[four_queue] ([reputation])
        -- OUTPUT INTO a table variable: a bare OUTPUT fails once someone adds a trigger to the table (error 334).
        OUTPUT inserted.[id] INTO @q$new ([id])
        VALUES (@reputation);
        COMMIT TRANSACTION;
        SELECT [id], CAST(1 AS bit) AS [enqueued] FROM @q$new;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch four.four_queue_enqueue_batch, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement (at most 1995: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row: a job already queued, or repeated earlier in the batch, returns that id with enqueued = 0.
CREATE OR ALTER PROCEDURE [four].[four_queue_enqueue_batch]
    @jobs [four].[four_queue_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 1995
        THROW 50003, N'qgen: a batch of more than 1995 jobs is out of range for four.four_queue: one statement writing more could escalate to a table lock; accepted: 1 to 1995 jobs per call (split the batch; the client does).', 1;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- The dedupe checks of the queue table read WITH (UPDLOCK, HOLDLOCK): locking reads of current
        -- rows (also under READ_COMMITTED_SNAPSHOT) that keep the key ranges locked until commit. Those
        -- of the finished tables are plain locking reads by key (READCOMMITTEDLOCK): the queue table's
        -- range lock keeps every move of the key there out, and a range lock there would stall claims.
        INSERT INTO [four].[four_queue] ([reputation])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[reputation]
        FROM @jobs AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [four].[four_queue] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[reputation] = [j].[reputation])
          -- dedupe.scope: ever: read after the queue table, the order a completion locks them in.
          AND NOT EXISTS (SELECT 1 FROM [four].[four_queue_dead] AS [f] WITH (READCOMMITTEDLOCK) WHERE [f].[reputation] = [j].[reputation])
          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[reputation] = [j].[reputation] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], COALESCE([e].[id], [f1].[id]) AS [id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[reputation] = [j].[reputation] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @jobs AS [j]
        LEFT JOIN [four].[four_queue] AS [e] ON [e].[reputation] = [j].[reputation]
        LEFT JOIN [four].[four_queue_dead] AS [f1] ON [f1].[reputation] = [j].[reputation]
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

-- qgen 0.1.0: enqueue_json four.four_queue_enqueue_json, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- enqueue_batch for callers that cannot send a table-valued parameter (pyodbc through FreeTDS):
-- the same jobs as one JSON array of objects, one per job, keyed by the batch type's column names.
-- Every job-type and payload column's key must be there (strict paths: a missing or misspelt key is
-- an error, never a silent NULL; give null for no value); "ordinal" (the job's position in the
-- array, from 1), "priority" and "run_at" are optional. A datetime is ISO 8601, UTC when
-- it has no offset; a json column is the JSON text as a string. Needs SQL Server 2016 or later and
-- database compatibility level 130 or higher (OPENJSON). Returns what enqueue_batch returns.
CREATE OR ALTER PROCEDURE [four].[four_queue_enqueue_json]
    @jobs nvarchar(max)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$batch [four].[four_queue_batch];
    BEGIN TRY
        INSERT INTO @q$batch ([ordinal], [reputation])
        SELECT COALESCE([j].[ordinal], CAST([a].[key] AS int) + 1),
               [j].[reputation]
        FROM OPENJSON(@jobs) AS [a]
        CROSS APPLY OPENJSON([a].[value])
        WITH
        (
            [ordinal] int '$.ordinal',
            [reputation] int 'strict $.reputation'
        ) AS [j];
        IF (SELECT COUNT(*) FROM @q$batch) > 1995
            THROW 50003, N'qgen: a batch of more than 1995 jobs is out of range for four.four_queue: one statement writing more could escalate to a table lock; accepted: 1 to 1995 jobs per call (split the batch; the client does).', 1;
        BEGIN TRANSACTION;
        -- The dedupe checks of the queue table read WITH (UPDLOCK, HOLDLOCK): locking reads of current
        -- rows (also under READ_COMMITTED_SNAPSHOT) that keep the key ranges locked until commit. Those
        -- of the finished tables are plain locking reads by key (READCOMMITTEDLOCK): the queue table's
        -- range lock keeps every move of the key there out, and a range lock there would stall claims.
        INSERT INTO [four].[four_queue] ([reputation])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[reputation]
        FROM @q$batch AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [four].[four_queue] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[reputation] = [j].[reputation])
          -- dedupe.scope: ever: read after the queue table, the order a completion locks them in.
          AND NOT EXISTS (SELECT 1 FROM [four].[four_queue_dead] AS [f] WITH (READCOMMITTEDLOCK) WHERE [f].[reputation] = [j].[reputation])
          AND NOT EXISTS (SELECT 1 FROM @q$batch AS [d] WHERE [d].[reputation] = [j].[reputation] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], COALESCE([e].[id], [f1].[id]) AS [id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @q$batch AS [d] WHERE [d].[reputation] = [j].[reputation] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @q$batch AS [j]
        LEFT JOIN [four].[four_queue] AS [e] ON [e].[reputation] = [j].[reputation]
        LEFT JOIN [four].[four_queue_dead] AS [f1] ON [f1].[reputation] = [j].[reputation]
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

-- qgen 0.1.0: watermark_move four.four_queue_watermark_move, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
-- Deferred jobs ([deferred] = 1) do not stop it: claims find them through the due index, whatever their id.
CREATE OR ALTER PROCEDURE [four].[four_queue_watermark_move]
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
    DECLARE @q$current bigint = (SELECT [id] FROM [four].[four_queue_watermark] WITH (NOLOCK));
    IF @q$current IS NULL OR @q$current >= @q$target
        RETURN;
    IF EXISTS (SELECT 1 FROM [four].[four_queue] AS [job] WITH (NOLOCK)
               WHERE [job].[id] = @q$current
                 AND ([job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0
                      OR NOT EXISTS (SELECT 1 FROM [four].[four_queue] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                     WHERE [settled].[id] = [job].[id]))
              )
        RETURN;
    UPDATE [w]
    SET [id] = COALESCE(
            (
                SELECT MIN([job].[id])
                FROM [four].[four_queue] AS [job] WITH (NOLOCK)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @q$target
                  AND ([job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0
                       OR NOT EXISTS (SELECT 1 FROM [four].[four_queue] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                      WHERE [settled].[id] = [job].[id]))
            ), @q$target),
        [version] = [w].[version] + 1
    FROM [four].[four_queue_watermark] AS [w] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK)
    WHERE [w].[id] < @q$target;
END;
GO

-- qgen 0.1.0: watermark_correct four.four_queue_watermark_correct, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty;
-- unchanged only when no id was ever generated), never below 0. It repairs a watermark that is wrong
-- either way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it
-- after a drain (run it after a dequeue that found nothing) and for a watermark set by hand. It
-- never waits on the watermark row, and never passes a job another transaction holds.
CREATE OR ALTER PROCEDURE [four].[four_queue_watermark_correct]
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
        SELECT @q$old = [id] FROM [four].[four_queue_watermark] WITH (ROWLOCK, READPAST, UPDLOCK);
        IF @q$old IS NULL AND EXISTS (SELECT 1 FROM [four].[four_queue_watermark] WITH (NOLOCK))
        BEGIN
            COMMIT TRANSACTION;
            SET @q$old = (SELECT [id] FROM [four].[four_queue_watermark] WITH (NOLOCK));
            SELECT @old_watermark = @q$old, @new_watermark = @q$old;
            IF @result_set = 1
                SELECT @q$old AS [old_watermark], @q$old AS [new_watermark];
            RETURN;
        END;
        -- No row (deleted by hand): lock the empty range (HOLDLOCK) so that one session puts it back.
        IF @q$old IS NULL
            SET @q$old = (SELECT [id] FROM [four].[four_queue_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- corrected_at gets the time before the search (it counts as a dequeue's rescan): a job that
        -- becomes claimable below the watermark after this moment may be missed here, and the next
        -- rescan is due watermark.rescan seconds after this moment, so within the bound.
        SET @q$searched = SYSUTCDATETIME();
        -- The scans never wait on a job row (NOLOCK). NOLOCK also sees a job whose insert is not yet
        -- committed, so the watermark does not pass it. Deferred jobs (the [deferred] bit) do not hold
        -- it back: the due index hands them to claims.
        SET @q$new = (SELECT MIN([job].[id]) FROM [four].[four_queue] AS [job] WITH (NOLOCK) WHERE [job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0);
        -- A row NOLOCK shows leased but another transaction holds (READPAST skips it) counts as
        -- unclaimed, as in the mover: a lease claim inside a caller's transaction that may still roll
        -- back (the job is then unclaimed again, below a watermark passed on the strength of a claim
        -- that never was), or a release in flight. Only leased rows can be such a row (the lease
        -- index holds them). Rows this transaction holds itself are not skipped: a rollback of those
        -- rolls this correction back too.
        SET @q$held = (SELECT MIN([job].[id]) FROM [four].[four_queue] AS [job] WITH (NOLOCK)
                       WHERE [job].[lease_token] IS NOT NULL
                         AND NOT EXISTS (SELECT 1 FROM [four].[four_queue] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                         WHERE [settled].[id] = [job].[id]));
        IF @q$held < @q$new OR (@q$new IS NULL AND @q$held IS NOT NULL)
            SET @q$new = @q$held;
        SET @q$new = @q$new - 50;
        IF @q$new IS NULL
            SET @q$new = (SELECT MAX([id]) + 1 FROM [four].[four_queue] WITH (NOLOCK)) - 50;
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
                        WHERE [object_id] = OBJECT_ID(N'[four].[four_queue]') AND [name] = N'id') - 50;
        IF @q$new IS NULL
            SET @q$new = COALESCE(@q$old, 0);
        IF @q$new < 0
            SET @q$new = 0;
        IF @q$old IS NULL
            INSERT INTO [four].[four_queue_watermark] ([id], [corrected_at]) VALUES (@q$new, @q$searched);
        ELSE
            UPDATE [four].[four_queue_watermark] SET [id] = @q$new, [version] = [version] + 1, [corrected_at] = @q$searched;
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

-- qgen 0.1.0: control_table four.four_queue_control, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which login). Every
-- claim reads it first, WITH (READPAST, READCOMMITTEDLOCK): a pause or resume counts from its
-- commit, and no claim waits on one left open. A missing row (deleted by hand) reads as running.
IF OBJECT_ID(N'four.four_queue_control', N'U') IS NULL
BEGIN
    CREATE TABLE [four].[four_queue_control]
    (
        [one_row] bit NOT NULL CONSTRAINT [four_queue_control_one_row_df] DEFAULT (1),
        [paused] bit NOT NULL CONSTRAINT [four_queue_control_paused_df] DEFAULT (0),
        [changed_at] datetime2(3) NULL,
        [changed_by] nvarchar(128) NULL,
        CONSTRAINT [four_queue_control_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [four_queue_control_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [four].[four_queue_control])
    INSERT INTO [four].[four_queue_control] ([paused]) VALUES (0);
GO

-- qgen 0.1.0: dequeue four.four_queue_dequeue, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With @complete_lease_token it first completes that lease's jobs as complete(@lease_token) does,
-- in the same transaction: one commit per batch instead of two. A token that holds no job raises
-- 50001 and nothing is claimed.
CREATE OR ALTER PROCEDURE [four].[four_queue_dequeue]
    @owner nvarchar(129) = NULL,
    @batch_size int = 1,
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
            N' is out of range for four.four_queue_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in four.four_queue_dequeue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF @lease_seconds IS NULL OR @lease_seconds < 1
        THROW 50003, N'qgen: @lease_seconds is out of range; accepted: 1 or more seconds.', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on four.four_queue: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$token uniqueidentifier = NEWID();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [reputation] int NOT NULL,
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
            SELECT [id] FROM [four].[four_queue] WHERE [lease_token] = @complete_lease_token;
            UPDATE [four].[four_queue]
            SET [processed] = 1, [processed_at] = @q$now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @complete_lease_token;

            IF @@ROWCOUNT = 0
                THROW 50001, N'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [four].[four_queue_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
        -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
        IF EXISTS (SELECT 1 FROM [four].[four_queue_watermark] WITH (NOLOCK) WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME()))
        BEGIN
            DECLARE @q$mark bigint, @q$stranded bigint;
            UPDATE [four].[four_queue_watermark] WITH (ROWLOCK, READPAST, UPDLOCK)
            SET @q$mark = [id], [corrected_at] = SYSUTCDATETIME(), [version] = [version] + 1
            WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME());
            IF @@ROWCOUNT = 1
            BEGIN
                SELECT @q$stranded = MIN([job].[id])
                FROM [four].[four_queue] AS [job] WITH (NOLOCK)
                WHERE [job].[id] < @q$mark AND [job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0;
                IF @q$stranded IS NOT NULL
                    UPDATE [four].[four_queue_watermark]
                    SET [id] = CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END,
                        [version] = [version] + 1
                    WHERE [id] > CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END;
            END;
        END
        ELSE IF NOT EXISTS (SELECT 1 FROM [four].[four_queue_watermark] WITH (NOLOCK))
            INSERT INTO [four].[four_queue_watermark] ([id])
            SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM [four].[four_queue_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
        -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
        -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
        -- A missing row reads as 0.
        SET @q$from = COALESCE((SELECT [id] FROM [four].[four_queue_watermark] WITH (NOLOCK)), 0);
        ;WITH [due_job] AS
        (
            SELECT TOP (@batch_size) [id], [reputation], [attempts], [lease_token], [lease_owner], [lease_expires_at], [deferred]
            -- The one reference to the table (see the claim below); it seeks the due index.
            FROM [four].[four_queue] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [deferred] = 1 AND [available_at] <= @q$now
            ORDER BY [available_at], [id]
        )
        UPDATE [due_job]
        SET [lease_token] = @q$token,
            [lease_owner] = @owner,
            [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
            [deferred] = 0,
            [attempts] = [attempts] + 1
        OUTPUT inserted.[id], inserted.[reputation], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
        INTO @q$claimed ([id], [reputation], [attempts], [lease_token], [lease_expires_at])
        -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        -- Then the rest of the batch from the claim index, which holds only claimable jobs.
        SET @q$rest = @batch_size - @@ROWCOUNT;
        IF @q$rest > 0
        BEGIN
            ;WITH [next_job] AS
            (
                SELECT TOP (@q$rest) [id], [reputation], [attempts], [lease_token], [lease_owner], [lease_expires_at]
                -- The one reference to the table: these hints hold for every row the claim reads.
                FROM [four].[four_queue] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @q$now AND [deferred] = 0
                  AND [id] >= @q$from
                ORDER BY [id]
            )
            UPDATE [next_job]
            SET [lease_token] = @q$token,
                [lease_owner] = @owner,
                [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
                [attempts] = [attempts] + 1
            OUTPUT inserted.[id], inserted.[reputation], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
            INTO @q$claimed ([id], [reputation], [attempts], [lease_token], [lease_expires_at])
            -- Planned for one row, whatever @q$rest the first call sniffed: a seek in queue order.
            OPTION (OPTIMIZE FOR (@q$rest = 1));
        END;
        -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
        -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
        -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
        DECLARE @q$highest bigint;
        SELECT @q$highest = MAX([id]) FROM @q$claimed;
        IF @q$highest - @q$from >= 150
            EXEC [four].[four_queue_watermark_move] @claimed_from = @q$highest;
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
        SELECT [id], [reputation], [attempts], [lease_token], [lease_expires_at]
        FROM @q$claimed
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
            SELECT [id] FROM [four].[four_queue] WHERE [lease_token] = @lease_token;
            UPDATE [four].[four_queue]
            SET [processed] = 1, [processed_at] = @q$now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;

            SET @q$completed = @@ROWCOUNT;
        END
        ELSE
        BEGIN
            UPDATE [four].[four_queue]
            SET [processed] = 1, [processed_at] = @q$now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [id] = @id AND [lease_token] = @lease_token;

            SET @q$completed = @@ROWCOUNT;
        END;
        IF @q$completed = 0
            THROW 50001, N'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        COMMIT TRANSACTION;
        RETURN @q$completed;
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
        [reputation] int NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL
    );
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK: a locking read of the current row (also under READ_COMMITTED_SNAPSHOT), held
        -- until commit, so a reaper cannot release the job between this read and the change below.
        SELECT @q$attempts = [attempts]
        FROM [four].[four_queue] WITH (UPDLOCK, ROWLOCK)
        WHERE [id] = @id AND [lease_token] = @lease_token;
        IF @q$attempts IS NULL
            THROW 50001, N'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        IF @retry = 1 AND @q$attempts < 5
        BEGIN
            UPDATE [four].[four_queue]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [last_error] = @q$error,
                [available_at] = DATEADD(second, CAST(CASE WHEN 10 * POWER(CAST(2 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) > 3600 THEN 3600 ELSE 10 * POWER(CAST(2 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) END AS int), @q$now),
                -- Into the due index for its backoff, off the claim index and the watermark's way.
                [deferred] = 1
            WHERE [id] = @id;
            -- The job is claimable again: the watermark must not stay above it (unless another
            -- transaction holds the watermark row: then the rescan finds the job; never a wait).
            UPDATE [w]
            SET [id] = @id, [version] = [w].[version] + 1
            FROM [four].[four_queue_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [w].[id] > @id;
            COMMIT TRANSACTION;
            RETURN 0;
        END;
        DELETE FROM [four].[four_queue]
        OUTPUT deleted.[id], deleted.[reputation], deleted.[enqueued_at], deleted.[attempts]
        INTO @q$dead ([id], [reputation], [enqueued_at], [attempts])
        WHERE [id] = @id;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [four].[four_queue_dead] ([id], [reputation], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [reputation], [enqueued_at], [attempts], @q$error, @q$now FROM @q$dead;
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
            SELECT [id] FROM [four].[four_queue] WHERE [lease_token] = @lease_token;
            UPDATE [four].[four_queue] SET [lease_expires_at] = @q$until WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [four].[four_queue] SET [lease_expires_at] = @q$until WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$extended = @@ROWCOUNT;
        IF @q$extended = 0
        BEGIN
            IF @id IS NOT NULL AND EXISTS (SELECT 1 FROM [four].[four_queue_dead] AS [d]
                                           WHERE [d].[id] = @id AND [d].[last_error] = N'cancelled')
                THROW 50006, N'qgen: job cancelled on four.four_queue: cancel took it out of the queue while its lease ran; stop working on it (its complete and fail are refused).', 1;
            THROW 50001, N'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        RETURN @q$extended;
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
            N' is out of range for four.four_queue_reap; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$expired TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$freed TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [reputation] int NOT NULL,
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
        FROM [four].[four_queue] WITH (READPAST, READCOMMITTEDLOCK)
        WHERE [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        -- Each statement reads the table once, through its CTE (as dequeue's claim does). UPDLOCK
        -- (and the statement's own update locks) make these locking reads of current rows.
        ;WITH [expired] AS
        (
            SELECT TOP (@batch_size) [id], [lease_token], [lease_owner], [lease_expires_at], [available_at], [last_error], [deferred]            FROM [four].[four_queue] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)
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
            SELECT TOP (@batch_size - @q$released) [id], [reputation], [enqueued_at], [attempts]
            FROM [four].[four_queue] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)
            WHERE [id] IN (SELECT [id] FROM @q$expired)
              AND [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now AND [attempts] >= 5
        )
        DELETE FROM [expired]
        OUTPUT deleted.[id], deleted.[reputation], deleted.[enqueued_at], deleted.[attempts]
        INTO @q$dead ([id], [reputation], [enqueued_at], [attempts])
        OPTION (OPTIMIZE FOR (@batch_size = 1, @q$released = 0));
        SET @q$dead_lettered = @@ROWCOUNT;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [four].[four_queue_dead] ([id], [reputation], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [reputation], [enqueued_at], [attempts], N'qgen: lease expired on the last attempt', @q$now FROM @q$dead;

        -- Released jobs are claimable again: the watermark must not stay above them (unless another
        -- transaction holds the watermark row: then the rescan finds them; never a wait).
        SELECT @q$lowest = MIN([id]) FROM @q$freed;
        IF @q$lowest IS NOT NULL
            UPDATE [w]
            SET [id] = @q$lowest, [version] = [w].[version] + 1
            FROM [four].[four_queue_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
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

-- qgen 0.1.0: worker four.four_queue_worker, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Drains the queue from inside the database (a looping worker), so a scheduled job can run
-- it: claims one job at a time, calls four.count_users_with_reputation with @id and the payload, completes the job when
-- the handler returns and fails it (retry or dead letter) when the handler raises. Stops when nothing
-- is claimable, after @max_items jobs or after @max_seconds (0: no limit).
CREATE OR ALTER PROCEDURE [four].[four_queue_worker]
    @max_items int = 0,
    @max_seconds int = 0,
    @owner nvarchar(129) = NULL,
    @lease_seconds int = 300
AS
BEGIN
    -- The handler runs at READ COMMITTED too, unless it sets a level of its own.
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @lease_seconds IS NULL OR @lease_seconds < 1
        THROW 50003, N'qgen: @lease_seconds is out of range; accepted: 1 or more seconds.', 1;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in four.four_queue_worker; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    -- Each job commits on its own (the handler's work with its completion), and a failing handler's
    -- work is rolled back: inside the caller's transaction, or with the caller's
    -- IMPLICIT_TRANSACTIONS ON, nothing would commit until the caller does, and that rollback would
    -- take the caller's own work with it. Refused there, before anything is claimed.
    IF (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on four.four_queue: the worker commits after every job, which it cannot do inside a transaction of the caller (or with IMPLICIT_TRANSACTIONS ON); call it outside a transaction in autocommit mode', 1;
    DECLARE @q$started datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3), @q$token uniqueidentifier, @q$processed int = 0, @q$job_id bigint, @q$error nvarchar(4000);
    DECLARE @q$c$reputation int;
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [reputation] int NOT NULL,
        [attempts] int NOT NULL,
        [lease_token] uniqueidentifier NOT NULL,
        [lease_expires_at] datetime2(3) NOT NULL
    );
    DECLARE @q$from bigint;
    -- The default owner fits its column: the name's first 117 characters, ':' and the session id.
    SET @owner = COALESCE(@owner, N'four_queue_worker:' + CAST(@@SPID AS nvarchar(10)));
    WHILE (@max_items = 0 OR @q$processed < @max_items)
      AND (@max_seconds = 0 OR DATEDIFF(second, @q$started, SYSUTCDATETIME()) < @max_seconds)
    BEGIN
        -- Paused (pause, resume): stop, as when the queue is empty.
        IF NOT EXISTS (SELECT 1 FROM [four].[four_queue_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            BREAK;
        DELETE FROM @q$claimed;
        SET @q$now = SYSUTCDATETIME();
        SET @q$token = NEWID();
        -- The claim takes the path dequeue takes: from the watermark, after the rescan when it is due,
        -- moving the watermark as a dequeue's claim does, in one short transaction of its own.
        BEGIN TRANSACTION;
        IF EXISTS (SELECT 1 FROM [four].[four_queue_watermark] WITH (NOLOCK) WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME()))
        BEGIN
            DECLARE @q$mark bigint, @q$stranded bigint;
            UPDATE [four].[four_queue_watermark] WITH (ROWLOCK, READPAST, UPDLOCK)
            SET @q$mark = [id], [corrected_at] = SYSUTCDATETIME(), [version] = [version] + 1
            WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME());
            IF @@ROWCOUNT = 1
            BEGIN
                SELECT @q$stranded = MIN([job].[id])
                FROM [four].[four_queue] AS [job] WITH (NOLOCK)
                WHERE [job].[id] < @q$mark AND [job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0;
                IF @q$stranded IS NOT NULL
                    UPDATE [four].[four_queue_watermark]
                    SET [id] = CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END,
                        [version] = [version] + 1
                    WHERE [id] > CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END;
            END;
        END
        ELSE IF NOT EXISTS (SELECT 1 FROM [four].[four_queue_watermark] WITH (NOLOCK))
            INSERT INTO [four].[four_queue_watermark] ([id])
            SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM [four].[four_queue_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
        -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
        -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
        -- A missing row reads as 0.
        SET @q$from = COALESCE((SELECT [id] FROM [four].[four_queue_watermark] WITH (NOLOCK)), 0);
        ;WITH [due_job] AS
        (
            SELECT TOP (1) [id], [reputation], [attempts], [lease_token], [lease_owner], [lease_expires_at], [deferred]
            -- The one reference to the table (see the claim below); it seeks the due index.
            FROM [four].[four_queue] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [deferred] = 1 AND [available_at] <= @q$now
            ORDER BY [available_at], [id]
        )
        UPDATE [due_job]
        SET [lease_token] = @q$token,
            [lease_owner] = @owner,
            [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
            [deferred] = 0,
            [attempts] = [attempts] + 1
        OUTPUT inserted.[id], inserted.[reputation], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
        INTO @q$claimed ([id], [reputation], [attempts], [lease_token], [lease_expires_at]);
        -- Then the rest of the batch from the claim index, which holds only claimable jobs.
        IF NOT EXISTS (SELECT 1 FROM @q$claimed)
        BEGIN
            ;WITH [next_job] AS
            (
                SELECT TOP (1) [id], [reputation], [attempts], [lease_token], [lease_owner], [lease_expires_at]
                -- The one reference to the table: these hints hold for every row the claim reads.
                FROM [four].[four_queue] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @q$now AND [deferred] = 0
                  AND [id] >= @q$from
                ORDER BY [id]
            )
            UPDATE [next_job]
            SET [lease_token] = @q$token,
                [lease_owner] = @owner,
                [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
                [attempts] = [attempts] + 1
            OUTPUT inserted.[id], inserted.[reputation], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
            INTO @q$claimed ([id], [reputation], [attempts], [lease_token], [lease_expires_at]);
        END;
        IF (SELECT MAX([id]) FROM @q$claimed) - @q$from >= 150
        BEGIN
            SET @q$job_id = (SELECT MAX([id]) FROM @q$claimed);
            EXEC [four].[four_queue_watermark_move] @claimed_from = @q$job_id;
        END;
        COMMIT TRANSACTION;
        IF NOT EXISTS (SELECT 1 FROM @q$claimed)
            BREAK;
        SELECT @q$job_id = [id], @q$c$reputation = [reputation] FROM @q$claimed;
        BEGIN TRY
            -- The handler's work and the completion commit together or not at all, so a job that
            -- is retried never has its work applied twice.
            BEGIN TRANSACTION;
            EXEC [four].[count_users_with_reputation] @id = @q$job_id, @reputation = @q$c$reputation;
            EXEC [four].[four_queue_complete] @lease_token = @q$token, @id = @q$job_id;
            COMMIT TRANSACTION;
        END TRY
        BEGIN CATCH
            IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
            SET @q$error = ERROR_MESSAGE();
            -- Fail the job only while this lease still holds it: a lost lease (50001) means the
            -- reaper released it and another worker may have it now.
            IF EXISTS (SELECT 1 FROM [four].[four_queue] WHERE [id] = @q$job_id AND [lease_token] = @q$token)
            BEGIN
                BEGIN TRY
                    EXEC [four].[four_queue_fail] @lease_token = @q$token, @id = @q$job_id, @error = @q$error;
                END TRY
                BEGIN CATCH
                    IF ERROR_NUMBER() <> 50001
                        THROW;
                END CATCH;
            END;
        END CATCH;
        SET @q$processed += 1;
    END;
    SELECT @q$processed AS [processed];
END;
GO

-- qgen 0.1.0: metrics four.four_queue_metrics, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now, for dashboards and alerts. Each count reads the one index that
-- holds its rows (claim, due, lease, processed index; the dead-letter and archive tables), never the
-- whole queue table (finished rows included), and does not wait on a row: WITH (READPAST,
-- READCOMMITTEDLOCK) skips a row another transaction holds (a job being claimed, completed or enqueued right now),
-- the watermark's one row is read WITH (NOLOCK). So under concurrency the numbers are approximate:
-- a job changing at that moment is counted in neither state, and the counts are not one snapshot.
-- READPAST skips row and page locks only: a table lock (an escalated lock of a large transaction,
-- uninstall's TABLOCKX, an offline index build) still makes it wait.
CREATE OR ALTER PROCEDURE [four].[four_queue_metrics]
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
    FROM [four].[four_queue] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [lease_token] IS NULL AND [processed] = 0 AND [deferred] = 0;
    -- Deferred jobs (delayed, backed off, released): the due index.
    SELECT @q$due_ready = COUNT_BIG(CASE WHEN [available_at] <= @q$now THEN 1 END),
        @q$due_scheduled = COUNT_BIG(CASE WHEN [available_at] > @q$now THEN 1 END),
        @q$due_oldest = MIN(CASE WHEN [available_at] <= @q$now THEN [id] END),
        @q$due_lowest = MIN([id])
    FROM [four].[four_queue] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [deferred] = 1;
    SELECT @q$ready += @q$due_ready, @q$scheduled += @q$due_scheduled,
        @q$oldest_id = CASE WHEN @q$due_oldest < @q$oldest_id OR @q$oldest_id IS NULL THEN @q$due_oldest ELSE @q$oldest_id END,
        @q$lowest = CASE WHEN @q$due_lowest < @q$lowest OR @q$lowest IS NULL THEN @q$due_lowest ELSE @q$lowest END;
    -- Jobs in flight: the lease index.
    SELECT @q$in_flight = COUNT_BIG(*), @q$expired = COUNT_BIG(CASE WHEN [lease_expires_at] < @q$now THEN 1 END)
    FROM [four].[four_queue] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [lease_token] IS NOT NULL;
    -- Finished jobs kept by mark: the processed index.
    SELECT @q$processed = COUNT_BIG(*), @q$recent = COUNT_BIG(CASE WHEN [processed_at] >= DATEADD(minute, -1, @q$now) THEN 1 END)
    FROM [four].[four_queue] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [processed] = 1;
    SELECT @q$dead = COUNT_BIG(*) FROM [four].[four_queue_dead] WITH (READPAST, READCOMMITTEDLOCK);
    -- One row, a value: read without waiting on a transaction that holds it (a dirty value at worst).
    SELECT @q$watermark = [id] FROM [four].[four_queue_watermark] WITH (NOLOCK);
    -- The highest id: the last key of the clustered index (one row, skipped if locked).
    SELECT @q$highest = MAX([id]) FROM [four].[four_queue] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$ready AS [ready], @q$scheduled AS [scheduled], @q$in_flight AS [in_flight], @q$expired AS [expired],
        @q$processed AS [processed], @q$dead AS [dead], @q$archived AS [archived],
        -- The age of the oldest ready job: the one with the lowest id (ids grow with enqueued_at).
        COALESCE(DATEDIFF_BIG(second, (SELECT [enqueued_at] FROM [four].[four_queue] WITH (READPAST, READCOMMITTEDLOCK) WHERE [id] = @q$oldest_id), @q$now), 0)
            AS [oldest_ready_age_seconds],
        @q$watermark AS [watermark],
        @q$lowest AS [lowest_pending_id],
        @q$recent AS [completed_last_minute],
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        COALESCE(@q$lowest, @q$highest + 1) - @q$watermark AS [watermark_lag],
        CAST(CASE WHEN NOT EXISTS (SELECT 1 FROM [four].[four_queue_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0) THEN 1 ELSE 0 END AS bit) AS [paused];
END;
GO

-- qgen 0.1.0: peek four.four_queue_peek, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them.
CREATE OR ALTER PROCEDURE [four].[four_queue_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    -- NULL or negative is refused with the other argument checks' code (TOP would raise 1014).
    IF @limit IS NULL OR @limit < 0
        THROW 50003, N'qgen: @limit is out of range for four.four_queue_peek; accepted: 0 or more rows.', 1;
    SELECT TOP (@limit) [id], [reputation], [available_at], [enqueued_at], [attempts], [last_error]
    FROM [four].[four_queue_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge_batch four.four_queue_purge_batch, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds: at most @batch_size rows (1000 by default, refused above 1995) over all those
-- tables together, in one transaction (the caller's, when there is one). purge loops over batches;
-- maintain runs one.
CREATE OR ALTER PROCEDURE [four].[four_queue_purge_batch]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1995
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1995 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$left int = @batch_size, @q$archived int = 0, @q$processed int = 0, @q$dead int = 0;
    BEGIN TRY
        BEGIN TRANSACTION;
        IF @q$left > 0
        BEGIN
            DELETE TOP (@q$left) FROM [four].[four_queue] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [processed] = 1 AND [processed_at] < @q$cutoff
            OPTION (OPTIMIZE FOR (@q$left = 1));
            SET @q$processed = @@ROWCOUNT;
            SET @q$left -= @q$processed;
        END;

        IF @q$left > 0
        BEGIN
            DELETE TOP (@q$left) FROM [four].[four_queue_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
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

-- qgen 0.1.0: purge four.four_queue_purge, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds, in batches of at most @batch_size rows (1000 by default, refused above 1995),
-- each committed on its own, so no statement takes enough locks to escalate to a table lock and
-- no transaction holds more than one batch. The cutoff is fixed when the call begins, so rows that
-- finish while it runs are left for the next purge and the loop ends. It must commit per batch,
-- so it refuses to run inside the caller's transaction (error 50004: there, call
-- four_queue_purge_batch, which deletes one batch in that transaction).
CREATE OR ALTER PROCEDURE [four].[four_queue_purge]
    @older_than_seconds int = 604800,
    @batch_size int = 1000
AS
BEGIN
    -- READPAST needs READ COMMITTED (or REPEATABLE READ): pinned here, whatever the caller runs at.
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1995
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1995 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    IF (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50004, N'qgen: purge commits after every batch, which it cannot do inside the caller''s transaction (or with IMPLICIT_TRANSACTIONS ON, where its first statement would open one); call it outside a transaction in autocommit mode, or call four_queue_purge_batch (one batch) there.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$archived bigint = 0, @q$processed bigint = 0, @q$dead bigint = 0, @q$deleted int;
    SET @q$deleted = @batch_size;
    WHILE @q$deleted = @batch_size
    BEGIN
        -- No transaction is open: each DELETE commits by itself, one batch at a time.
        DELETE TOP (@batch_size) FROM [four].[four_queue] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [processed] = 1 AND [processed_at] < @q$cutoff
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$deleted = @@ROWCOUNT;
        SET @q$processed += @q$deleted;
    END;

    SET @q$deleted = @batch_size;
    WHILE @q$deleted = @batch_size
    BEGIN
        -- No transaction is open: each DELETE commits by itself, one batch at a time.
        DELETE TOP (@batch_size) FROM [four].[four_queue_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [dead_at] < @q$cutoff
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$deleted = @@ROWCOUNT;
        SET @q$dead += @q$deleted;
    END;

    SELECT @q$archived AS [archived], @q$processed AS [processed], @q$dead AS [dead];
END;
GO

-- qgen 0.1.0: maintain four.four_queue_maintain, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
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
CREATE OR ALTER PROCEDURE [four].[four_queue_maintain]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1995
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1995 (a batch stays well under lock escalation).', 1;
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
            @Resource = N'qgen.maintain:[four].[four_queue]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0, @DbPrincipal = @q$principal;
        -- -1: not granted at once, another maintain holds it. -2 (cancelled), -3 (deadlock victim)
        -- and -999 (a call error) are not "someone else is maintaining": refused with the code.
        IF @q$lock = -1
            SET @q$skipped = 1;
        ELSE IF @q$lock < 0
        BEGIN
            DECLARE @q$why nvarchar(2048) = CONCAT(N'qgen: refused on four.four_queue: maintain could not take its application lock (sp_getapplock returned ',
                @q$lock, N' for principal ', @q$principal, N').');
            THROW 50005, @q$why, 1;
        END
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            EXEC [four].[four_queue_purge_batch] @older_than_seconds = 604800, @batch_size = @batch_size,
                @archived = @q$archived OUTPUT, @processed = @q$processed OUTPUT, @dead = @q$dead OUTPUT, @result_set = 0;
            EXEC [four].[four_queue_reap] @batch_size = @q$reap_batch,
                @released = @q$released OUTPUT, @dead_lettered = @q$dead_lettered OUTPUT, @result_set = 0;
            EXEC [four].[four_queue_watermark_correct]
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

-- qgen 0.1.0: redrive four.four_queue_redrive, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
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
CREATE OR ALTER PROCEDURE [four].[four_queue_redrive]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1995
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1995 (a batch stays well under lock escalation).', 1;
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
            FROM [four].[four_queue_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[entry_id] > ISNULL(@after_id, 0)
            ORDER BY [x].[entry_id];
        ELSE
            INSERT INTO @q$picked ([entry_id])
            SELECT TOP (@batch_size) [x].[entry_id]
            FROM [four].[four_queue_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[id] IN (SELECT TRY_CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j])
            ORDER BY [x].[entry_id];
        SET @q$last_id = (SELECT MAX([entry_id]) FROM @q$picked);
        -- UPDLOCK + HOLDLOCK: no enqueue of the same key slips in between this check and the insert.
        UPDATE [p]
        SET [keep] = 1
        FROM @q$picked AS [p]
        INNER JOIN [four].[four_queue_dead] AS [x] ON [x].[entry_id] = [p].[entry_id]
        WHERE EXISTS (SELECT 1 FROM [four].[four_queue] AS [job] WITH (UPDLOCK, HOLDLOCK)
                      WHERE [job].[reputation] = [x].[reputation])
           OR EXISTS (SELECT 1 FROM @q$picked AS [first] INNER JOIN [four].[four_queue_dead] AS [y] ON [y].[entry_id] = [first].[entry_id]
                      WHERE [first].[entry_id] < [p].[entry_id] AND [y].[reputation] = [x].[reputation]);
        INSERT INTO [four].[four_queue] ([reputation], [attempts], [available_at], [last_error])
        SELECT [x].[reputation], 0, SYSUTCDATETIME(), [x].[last_error]
        FROM [four].[four_queue_dead] AS [x]
        INNER JOIN @q$picked AS [p] ON [p].[entry_id] = [x].[entry_id] AND [p].[keep] = 0
        ORDER BY [x].[entry_id];
        SET @q$redriven = @@ROWCOUNT;
        DELETE [x]
        FROM [four].[four_queue_dead] AS [x]
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

-- qgen 0.1.0: dead_letters four.four_queue_dead_letters, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first, with the error each died of: at most @limit rows (1 to
-- 1000). Reads only. WITH (READPAST, READCOMMITTEDLOCK), as metrics reads: a locking
-- read at READ COMMITTED (also under READ_COMMITTED_SNAPSHOT) that never waits on a row another
-- transaction holds and skips it instead (a dead letter fail or reap is writing, or redrive or
-- purge is taking away, right now: it is on its way in or out), and holds each shared lock only
-- while it reads that row, so fail, reap, redrive and purge never wait on it. Not NOLOCK: a
-- fail rolled back with its caller's transaction would be listed as dead. READPAST skips row and
-- page locks only: a table lock (escalated, uninstall's TABLOCKX) still makes it wait.
CREATE OR ALTER PROCEDURE [four].[four_queue_dead_letters]
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
            N' is out of range for four.four_queue_dead_letters; accepted: 1 to 1000 rows.');
        THROW 50003, @q$error, 1;
    END;
    -- Newest first, in the order they arrived: the clustered key backwards, which stops after @limit rows.
    SELECT TOP (@limit) [x].[id], [x].[reputation], [x].[enqueued_at], [x].[attempts],
        [x].[dead_at], [x].[last_error]
    FROM [four].[four_queue_dead] AS [x] WITH (READPAST, READCOMMITTEDLOCK)
    ORDER BY [x].[entry_id] DESC
    OPTION (RECOMPILE);
END;
GO

-- qgen 0.1.0: job four.four_queue_job, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
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
CREATE OR ALTER PROCEDURE [four].[four_queue_job]
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
            N' is out of range for four.four_queue_job; accepted: a job id, 1 or more.');
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
    FROM [four].[four_queue] AS [j]
    WHERE [j].[id] = @job_id;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is reseeded.
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at])
        SELECT TOP (1) [x].[id], N'dead', [x].[enqueued_at], NULL, [x].[attempts], NULL, NULL,
            [x].[last_error], [x].[dead_at]
        FROM [four].[four_queue_dead] AS [x]
        WHERE [x].[id] = @job_id
        ORDER BY [x].[entry_id] DESC;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state]) VALUES (@job_id, N'not_found');
    SELECT [id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at] FROM @q$found;
END;
GO

-- qgen 0.1.0: release four.four_queue_release, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With @id, that
-- job; without, every job of the lease. The token is the fence: a job whose lease was released,
-- taken over or finished gets error 50001. last_error is kept (no failure happened).
CREATE OR ALTER PROCEDURE [four].[four_queue_release]
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
            SELECT [id] FROM [four].[four_queue] WHERE [lease_token] = @lease_token;
            UPDATE [four].[four_queue]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now, [deferred] = 1,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [four].[four_queue]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now, [deferred] = 1,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$released = @@ROWCOUNT;
        IF @q$released = 0
            THROW 50001, N'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        -- Released jobs are claimable again: the watermark must not stay above them (unless another
        -- transaction holds the watermark row: then the rescan finds them; never a wait).
        SELECT @q$lowest = MIN([id]) FROM @q$freed;
        UPDATE [w]
            SET [id] = @q$lowest, [version] = [w].[version] + 1
            FROM [four].[four_queue_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
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

-- qgen 0.1.0: pause four.four_queue_pause, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job, and a dequeue waiting with @wait_ms keeps waiting. Enqueues go on, and leases already
-- granted run to their end (complete, fail, extend_lease, release and reap work as before).
-- Returns 1 when this call paused the queue, 0 when it was paused already.
CREATE OR ALTER PROCEDURE [four].[four_queue_pause]
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
        SELECT @q$was = [paused] FROM [four].[four_queue_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [four].[four_queue_control] ([paused], [changed_at], [changed_by]) VALUES (1, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 0;
        END
        ELSE IF @q$was = 0
        BEGIN
            UPDATE [four].[four_queue_control]
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
            THROW 50005, N'qgen: refused on four.four_queue: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: resume four.four_queue_resume, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again (a dequeue waiting with
-- @wait_ms takes one at its next attempt). Returns 1 when this call resumed the queue, 0 when it
-- was not paused.
CREATE OR ALTER PROCEDURE [four].[four_queue_resume]
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
        SELECT @q$was = [paused] FROM [four].[four_queue_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [four].[four_queue_control] ([paused], [changed_at], [changed_by]) VALUES (0, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 1;
        END
        ELSE IF @q$was = 1
        BEGIN
            UPDATE [four].[four_queue_control]
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
            THROW 50005, N'qgen: refused on four.four_queue: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: cancel four.four_queue_cancel, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (@ids: a JSON array of whole numbers from 1, e.g. N'[3, 7]'; at most 1995): each job still
-- in the queue leaves it at once, in this one transaction, into the dead-letter table with last_error N'cancelled', and
-- never runs. One row per distinct id, in id order, [outcome]:
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   cancelled_in_flight: it held a lease: its worker's complete, fail and extend_lease get 50001 (the
--     token fences them off, so nothing it does commits with the job);
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order (the clustered key, FORCESEEK from the ordered list of ids), as
-- every other statement that locks several jobs does, so cancel deadlocks with none of them; a row a
-- completion or a claim holds is waited for, at most 5 s (then refused, 50005: nothing done).
CREATE OR ALTER PROCEDURE [four].[four_queue_cancel]
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
    IF (SELECT COUNT(*) FROM OPENJSON(@ids)) > 1995
        THROW 50003, N'qgen: @ids lists more than 1995 jobs; accepted: 1 to 1995 per call (a bigger one could escalate to a table lock).', 1;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$asked TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$found TABLE ([id] bigint NOT NULL PRIMARY KEY);
    -- What the DELETE took out (its OUTPUT): the outcome is what happened, not what was found.
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [reputation] int NOT NULL,
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
        FROM [four].[four_queue] AS [job] WITH (UPDLOCK, ROWLOCK, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]) AND [job].[processed] = 0;
        DELETE FROM [four].[four_queue]
        OUTPUT deleted.[id], deleted.[reputation], deleted.[enqueued_at], deleted.[attempts], deleted.[lease_token]
        INTO @q$dead ([id], [reputation], [enqueued_at], [attempts], [lease_token])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [four].[four_queue_dead] ([id], [reputation], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [reputation], [enqueued_at], [attempts], N'cancelled', @q$now FROM @q$dead;
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on four.four_queue: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
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

-- qgen 0.1.0: grants to roles four_producer, four_consumer, four_admin, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue] TO [four_producer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue_batch] TO [four_producer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue_json] TO [four_producer];
GRANT EXECUTE ON TYPE::[four].[four_queue_batch] TO [four_producer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_dequeue] TO [four_consumer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_complete] TO [four_consumer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_fail] TO [four_consumer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_extend_lease] TO [four_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[four].[four_queue_watermark_correct] TO [four_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[four].[four_queue] TO [four_consumer];
GRANT VIEW DEFINITION ON OBJECT::[four].[four_queue] TO [four_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[four].[four_queue_maintain] TO [four_consumer];
GRANT SELECT ON OBJECT::[four].[four_queue_pending] TO [four_admin];
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON OBJECT::[four].[four_queue_release] TO [four_consumer];
-- The admin role runs every procedure qgen created, and nothing else: each by name, never EXECUTE
-- ON SCHEMA, which in a shared schema (or dbo) would reach every application procedure, present
-- and future (upgrade.sql takes back a schema-wide grant a former version made).
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue_batch] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue_json] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_watermark_move] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_watermark_correct] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_dequeue] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_complete] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_fail] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_extend_lease] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_reap] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_worker] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_metrics] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_peek] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_purge_batch] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_purge] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_maintain] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_redrive] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_dead_letters] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_job] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_release] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_pause] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_resume] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_cancel] TO [four_admin];
GRANT EXECUTE ON TYPE::[four].[four_queue_batch] TO [four_admin];
GO

-- qgen 0.1.0: verify four, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
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
WHERE [s].[name] = N'four'
  AND [o].[name] IN
  (
      N'four_queue',
      N'four_queue_claim_ix',
      N'four_queue_dead',
      N'four_queue_dedupe_ux',
      N'four_queue_lease_ix',
      N'four_queue_processed_ix',
      N'four_queue_watermark',
      N'four_queue_dead_ix',
      N'four_queue_pending',
      N'four_queue_batch',
      N'four_queue_enqueue',
      N'four_queue_enqueue_batch',
      N'four_queue_enqueue_json',
      N'four_queue_watermark_move',
      N'four_queue_watermark_correct',
      N'four_queue_control',
      N'four_queue_dequeue',
      N'four_queue_complete',
      N'four_queue_fail',
      N'four_queue_extend_lease',
      N'four_queue_reap',
      N'four_queue_worker',
      N'four_queue_metrics',
      N'four_queue_peek',
      N'four_queue_purge_batch',
      N'four_queue_purge',
      N'four_queue_maintain',
      N'four_queue_redrive',
      N'four_queue_dead_letters',
      N'four_queue_job',
      N'four_queue_release',
      N'four_queue_pause',
      N'four_queue_resume',
      N'four_queue_cancel'
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
IF OBJECT_ID(N'four.four_queue') IS NULL
    SET @q$missing += N' four.four_queue';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'four_queue_claim_ix' AND [object_id] = OBJECT_ID(N'four.four_queue'))
    SET @q$missing += N' four.four_queue_claim_ix';
IF OBJECT_ID(N'four.four_queue_dead') IS NULL
    SET @q$missing += N' four.four_queue_dead';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'four_queue_dedupe_ux' AND [object_id] = OBJECT_ID(N'four.four_queue'))
    SET @q$missing += N' four.four_queue_dedupe_ux';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'four_queue_lease_ix' AND [object_id] = OBJECT_ID(N'four.four_queue'))
    SET @q$missing += N' four.four_queue_lease_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'four_queue_processed_ix' AND [object_id] = OBJECT_ID(N'four.four_queue'))
    SET @q$missing += N' four.four_queue_processed_ix';
IF OBJECT_ID(N'four.four_queue_watermark') IS NULL
    SET @q$missing += N' four.four_queue_watermark';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'four_queue_dead_ix' AND [object_id] = OBJECT_ID(N'four.four_queue_dead'))
    SET @q$missing += N' four.four_queue_dead_ix';
IF OBJECT_ID(N'four.four_queue_pending') IS NULL
    SET @q$missing += N' four.four_queue_pending';
IF TYPE_ID(N'four.four_queue_batch') IS NULL
    SET @q$missing += N' four.four_queue_batch';
IF OBJECT_ID(N'four.four_queue_enqueue') IS NULL
    SET @q$missing += N' four.four_queue_enqueue';
IF OBJECT_ID(N'four.four_queue_enqueue_batch') IS NULL
    SET @q$missing += N' four.four_queue_enqueue_batch';
IF OBJECT_ID(N'four.four_queue_enqueue_json') IS NULL
    SET @q$missing += N' four.four_queue_enqueue_json';
IF OBJECT_ID(N'four.four_queue_watermark_move') IS NULL
    SET @q$missing += N' four.four_queue_watermark_move';
IF OBJECT_ID(N'four.four_queue_watermark_correct') IS NULL
    SET @q$missing += N' four.four_queue_watermark_correct';
IF OBJECT_ID(N'four.four_queue_control') IS NULL
    SET @q$missing += N' four.four_queue_control';
IF OBJECT_ID(N'four.four_queue_dequeue') IS NULL
    SET @q$missing += N' four.four_queue_dequeue';
IF OBJECT_ID(N'four.four_queue_complete') IS NULL
    SET @q$missing += N' four.four_queue_complete';
IF OBJECT_ID(N'four.four_queue_fail') IS NULL
    SET @q$missing += N' four.four_queue_fail';
IF OBJECT_ID(N'four.four_queue_extend_lease') IS NULL
    SET @q$missing += N' four.four_queue_extend_lease';
IF OBJECT_ID(N'four.four_queue_reap') IS NULL
    SET @q$missing += N' four.four_queue_reap';
IF OBJECT_ID(N'four.four_queue_worker') IS NULL
    SET @q$missing += N' four.four_queue_worker';
IF OBJECT_ID(N'four.four_queue_metrics') IS NULL
    SET @q$missing += N' four.four_queue_metrics';
IF OBJECT_ID(N'four.four_queue_peek') IS NULL
    SET @q$missing += N' four.four_queue_peek';
IF OBJECT_ID(N'four.four_queue_purge_batch') IS NULL
    SET @q$missing += N' four.four_queue_purge_batch';
IF OBJECT_ID(N'four.four_queue_purge') IS NULL
    SET @q$missing += N' four.four_queue_purge';
IF OBJECT_ID(N'four.four_queue_maintain') IS NULL
    SET @q$missing += N' four.four_queue_maintain';
IF OBJECT_ID(N'four.four_queue_redrive') IS NULL
    SET @q$missing += N' four.four_queue_redrive';
IF OBJECT_ID(N'four.four_queue_dead_letters') IS NULL
    SET @q$missing += N' four.four_queue_dead_letters';
IF OBJECT_ID(N'four.four_queue_job') IS NULL
    SET @q$missing += N' four.four_queue_job';
IF OBJECT_ID(N'four.four_queue_release') IS NULL
    SET @q$missing += N' four.four_queue_release';
IF OBJECT_ID(N'four.four_queue_pause') IS NULL
    SET @q$missing += N' four.four_queue_pause';
IF OBJECT_ID(N'four.four_queue_resume') IS NULL
    SET @q$missing += N' four.four_queue_resume';
IF OBJECT_ID(N'four.four_queue_cancel') IS NULL
    SET @q$missing += N' four.four_queue_cancel';
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
WHERE [s].[name] = N'four'
  AND [o].[name] IN
  (
      N'four_queue_maintain'
  )
  AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$owners <> N''
BEGIN
    DECLARE @q$impersonate nvarchar(2048) = LEFT(N'qgen: maintain runs WITH EXECUTE AS OWNER, which cannot impersonate its owner, '
        + N'so every call of it fails:' + @q$owners + N'. Give schema [four] to a user, ALTER AUTHORIZATION ON SCHEMA::'
        + N'[four] TO [dbo]; (a procedure given an owner of its own: ALTER AUTHORIZATION ON OBJECT::... TO SCHEMA OWNER;), '
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
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'four.' + [r].[name]), N' '))
FROM
(
    VALUES
        (N'four_queue_cancel', 0x84D0C6B470339F9A91502ACE282ADA521AB2816B9A5AAB298B3B41D841A9C6D4),
        (N'four_queue_complete', 0xC6D5E4BCB8C453E7ADA1F224451B69CC6C4BE145133B0CB3DD32AC9DD89F94C9),
        (N'four_queue_dead_letters', 0x8377E6B34DF45FFE8BA4E4D4441DC7AB4E1869C877F312A4DC49064890352BED),
        (N'four_queue_dequeue', 0x830489B1DB27BFC8F3782F01DC5BFE8A64B0424F1DF7DB5046B163BE2815DB7E),
        (N'four_queue_enqueue', 0xB9B503EB8C08CE29535CAC02A089D504C77BA938EA1D7FBBFB887C8BCEC9FC43),
        (N'four_queue_enqueue_batch', 0x1271BAD2278EF511C98D21C6BA1F59841AD059274AF17E34527AF2D6CFE038C5),
        (N'four_queue_enqueue_json', 0x3775AB3DFBB387C6CE364D57625BFC37FE00946E8A3F230D053085546F57C532),
        (N'four_queue_extend_lease', 0xBF5A9A25A96AD52EF93809A92BD0C18FE47EB92743262A8A3649190683485C40),
        (N'four_queue_fail', 0x32FF0FD960ED779AA7D2B40C985ED33FA36479BF5FF4D90B014A4F706F1D09B9),
        (N'four_queue_job', 0x8AC18EF4CD37FFBB0C5994C0FE16CD792E89A43EB8AC3B6D6DFE0A5F56FBACA1),
        (N'four_queue_maintain', 0x4098AA75B4E28419FC3FA526E0C9EACE2998EF4223648FF9A323508529F356B5),
        (N'four_queue_metrics', 0x99334E2D23674CE3934AF96B02E84226D5DFB0F866ACB68863322AE6BD247391),
        (N'four_queue_pause', 0x99DBF42A92F60182640F0336AE848BE9CD46B7C57736A03282E630314E5006BA),
        (N'four_queue_peek', 0xADD33894121D0A58A1D8B4AC44B7A5FDF971FB7317BDDA43D3B609D3F122A866),
        (N'four_queue_pending', 0xAF925EE75A4A78DC2EA9944F20F585984927539E193D99E8C757607725EBABA0),
        (N'four_queue_purge', 0xC8AE32737A1B473A9437D487919E4A70A3432EF44ABFA6CDEF972BD39F544AB6),
        (N'four_queue_purge_batch', 0x768584AA8613BF926D010D78D82DC8A1608D5D88CC35AF638B10A80BB3308350),
        (N'four_queue_reap', 0x92B8469B9E18AB95FB1386CFED26E1F8D447DE4D96E9335DEBAB25BCB9D07F9A),
        (N'four_queue_redrive', 0x1757DA770CEBBCF9416AF450099D0981CB0D476494D232BF863CF4C98FF1EEB9),
        (N'four_queue_release', 0xEF3DBD44C08E15AED3864ABE249FE2BF2510E6EBFE19B0E6A9EB5E4A1DBDA58C),
        (N'four_queue_resume', 0xC1F706D93AF299D737DF5876731FC60701D9AD120897CB119B2E337AF94EBFB6),
        (N'four_queue_watermark_correct', 0x0CDB7B8572A3F50BDE821C11312B5C7E57CA07E90FAD1FD2579C455EFCF4BEBF),
        (N'four_queue_watermark_move', 0x9AF47F995274ADF4A8F227017185E758818BBAFF8237561DAD3EEB6E7EF37B76),
        (N'four_queue_worker', 0x56E57E9AB9F9E650D332A30993E4C65762D8DCAFB8584FE3097D9D7A9BD21C9B)
) AS [r]([name], [fingerprint])
INNER JOIN sys.sql_modules AS [sm] ON [sm].[object_id] = OBJECT_ID(N'four.' + [r].[name])
CROSS APPLY (SELECT [sm].[definition] COLLATE Latin1_General_BIN2 AS [text]) AS [d]
WHERE HASHBYTES('SHA2_256', REPLACE(REPLACE(REPLACE(REPLACE(
          SUBSTRING([d].[text], CHARINDEX(N'[four].[' + [r].[name] + N']' COLLATE Latin1_General_BIN2, [d].[text]), LEN([d].[text])),
          NCHAR(32), N''), NCHAR(9), N''), NCHAR(10), N''), NCHAR(13), N'')) <> [r].[fingerprint];
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'four.' + [r].[table] + N'.' + [r].[name]
    + N' (' + COALESCE([shape].[now], N'?') + N', rendered ' + [r].[shape] + N')'), N' '))
FROM
(
    VALUES
        (N'four_queue', N'four_queue_claim_ix', N'(id) include (available_at, deferred, lease_token, processed) where'),
        (N'four_queue', N'four_queue_claim_ix_due', N'(available_at, id) include (deferred) where'),
        (N'four_queue', N'four_queue_dedupe_ux', N'unique (reputation)'),
        (N'four_queue', N'four_queue_lease_ix', N'(lease_token) include (attempts, lease_expires_at) where'),
        (N'four_queue', N'four_queue_processed_ix', N'(processed_at) include (processed) where'),
        (N'four_queue_dead', N'four_queue_dead_dedupe_ux', N'unique (reputation)'),
        (N'four_queue_dead', N'four_queue_dead_id_ix', N'(id)'),
        (N'four_queue_dead', N'four_queue_dead_ix', N'(dead_at)')
) AS [r]([table], [name], [shape])
INNER JOIN sys.indexes AS [i] ON [i].[object_id] = OBJECT_ID(N'four.' + [r].[table]) AND [i].[name] = [r].[name]
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
