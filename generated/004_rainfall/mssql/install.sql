-- qgen 0.1.0: every object of 004_rainfall.yaml, for SQL Server (T-SQL), in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- qgen 0.1.0: schema rainfall, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Refused before anything is created: a schema that exists and is owned by a database role (or an
-- application role, a group, a user mapped to a certificate or key). Its procedures are owned by
-- that owner, and maintain runs WITH EXECUTE AS OWNER, which can impersonate only a user: every
-- call of maintain would fail (error 15517) long after install succeeded. sqlcmd and SSMS go on to
-- the next batch after an error: the batch after the refusal sets NOEXEC ON, so no later batch runs
-- (verify, install's last batch, sets it OFF again).
DECLARE @q$refused nvarchar(2048);
SELECT @q$refused = CONCAT(N'qgen: install refused: schema [rainfall] is owned by ', QUOTENAME([p].[name]), N' (',
    [p].[type_desc], N'), which EXECUTE AS OWNER cannot impersonate: qgen''s maintain procedures run as the schema''s owner, ',
    N'so every call of maintain would fail. Give the schema to a user, ALTER AUTHORIZATION ON SCHEMA::[rainfall] TO [dbo]; ',
    N'(or to another user), then run install.sql again.')
FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'rainfall' AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$refused IS NOT NULL
    THROW 50022, @q$refused, 1;
GO

IF EXISTS (SELECT 1 FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'rainfall' AND [p].[type] NOT IN ('S', 'U', 'E'))
    SET NOEXEC ON;
GO

-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
-- A schema install creates is marked (extended property qgen.created): uninstall drops only such a one.
IF SCHEMA_ID(N'rainfall') IS NULL
BEGIN
    EXEC(N'CREATE SCHEMA [rainfall] AUTHORIZATION [dbo];');
    EXEC sys.sp_addextendedproperty @name = N'qgen.created', @value = N'created by the install of qgen''s queues',
        @level0type = N'SCHEMA', @level0name = N'rainfall';
END;
GO

-- qgen 0.1.0: roles rainfall_producer, rainfall_consumer, rainfall_admin (database roles), rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
-- A role install creates is recorded on the schema (extended property qgen.created_role.<role>):
-- uninstall drops only such a one, never a role that was there before and that the spec only names.
IF DATABASE_PRINCIPAL_ID(N'rainfall_producer') IS NULL
BEGIN
    CREATE ROLE [rainfall_producer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'rainfall') AND [name] = N'qgen.created_role.rainfall_producer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.rainfall_producer', @value = N'rainfall_producer',
            @level0type = N'SCHEMA', @level0name = N'rainfall';
END;
IF DATABASE_PRINCIPAL_ID(N'rainfall_consumer') IS NULL
BEGIN
    CREATE ROLE [rainfall_consumer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'rainfall') AND [name] = N'qgen.created_role.rainfall_consumer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.rainfall_consumer', @value = N'rainfall_consumer',
            @level0type = N'SCHEMA', @level0name = N'rainfall';
END;
IF DATABASE_PRINCIPAL_ID(N'rainfall_admin') IS NULL
BEGIN
    CREATE ROLE [rainfall_admin];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'rainfall') AND [name] = N'qgen.created_role.rainfall_admin')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.rainfall_admin', @value = N'rainfall_admin',
            @level0type = N'SCHEMA', @level0name = N'rainfall';
END;
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
        -- 1 while the job waits for its time (delayed by run_at, or released by fail or reap) and no
        -- claim holds it: such a job is in the due index, not the claim index (a filtered index
        -- cannot compare available_at with enqueued_at, so enqueue, fail, reap and dequeue keep it).
        [deferred] bit NOT NULL CONSTRAINT [rainfall_events_deferred_df] DEFAULT (0),
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
-- Deferred jobs (delayed, or released with a backoff: [deferred] = 1) are left out of it: see the due index below.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_claim_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events'))
    CREATE NONCLUSTERED INDEX [rainfall_events_claim_ix]
    ON [rainfall].[rainfall_events] ([id])
    INCLUDE ([available_at], [lease_token], [processed], [deferred])
    WHERE [lease_token] IS NULL AND [processed] = 0 AND [deferred] = 0;
-- The due index: deferred jobs, by the time they become available ([deferred] = 1 only while no
-- claim holds the job: a claim clears it). A claim takes the due ones from here first, so however
-- many wait for their time, no claim and no watermark steps over them.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_claim_ix_due' AND object_id = OBJECT_ID(N'rainfall.rainfall_events'))
    CREATE NONCLUSTERED INDEX [rainfall_events_claim_ix_due]
    ON [rainfall].[rainfall_events] ([available_at], [id])
    INCLUDE ([deferred])
    WHERE [deferred] = 1;
GO

-- qgen 0.1.0: lease_index rainfall.rainfall_events_lease_ix, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_lease_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events'))
    CREATE NONCLUSTERED INDEX [rainfall_events_lease_ix]
    ON [rainfall].[rainfall_events] ([lease_token]) INCLUDE ([lease_expires_at], [attempts])
    WHERE [lease_token] IS NOT NULL;
GO

-- qgen 0.1.0: processed_index rainfall.rainfall_events_processed_ix, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes processed jobs by age: only processed rows are indexed, by when they were processed
-- (INCLUDE [processed]: a filtered index carries the columns its filter names).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_processed_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events'))
    CREATE NONCLUSTERED INDEX [rainfall_events_processed_ix]
    ON [rainfall].[rainfall_events] ([processed_at])
    INCLUDE ([processed])
    WHERE [processed] = 1;
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
        -- When the table was last searched below the watermark (by a dequeue's rescan or
        -- watermark_correct): a dequeue rescans when this is watermark.rescan old.
        [corrected_at] datetime2(3) NOT NULL
            CONSTRAINT [rainfall_events_watermark_corrected_at_df] DEFAULT ('0001-01-01'),
        CONSTRAINT [rainfall_events_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [rainfall_events_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_events_watermark])
    INSERT INTO [rainfall].[rainfall_events_watermark] ([id]) VALUES (0);
GO

-- qgen 0.1.0: dead_letter_table rainfall.rainfall_events_dead, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: [id] is the job's id, which repeats once the queue's identity is reseeded.
IF OBJECT_ID(N'rainfall.rainfall_events_dead', N'U') IS NULL
BEGIN
    CREATE TABLE [rainfall].[rainfall_events_dead]
    (
        [entry_id] bigint IDENTITY(1, 1) NOT NULL,
        [id] bigint NOT NULL,
        [rainfall_id] bigint NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL,
        [last_error] nvarchar(4000) NULL,
        [dead_at] datetime2(3) NOT NULL CONSTRAINT [rainfall_events_dead_dead_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [rainfall_events_dead_pk] PRIMARY KEY CLUSTERED ([entry_id])
    );
END;
GO

-- qgen 0.1.0: dead_letter_index rainfall.rainfall_events_dead_ix, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_dead_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events_dead'))
    CREATE NONCLUSTERED INDEX [rainfall_events_dead_ix]
    ON [rainfall].[rainfall_events_dead] ([dead_at]);
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_dead_id_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events_dead'))
    CREATE NONCLUSTERED INDEX [rainfall_events_dead_id_ix]
    ON [rainfall].[rainfall_events_dead] ([id]);
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
-- drops and recreates it with the procedures that use it. Its columns are one wider than the
-- table's (m.param_type): a caller's insert into a variable of this type cannot cut or round a value
-- past its column unseen; enqueue_batch refuses it with error 50010.
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
-- (enqueued = 0). A value past its column's
-- limit is refused with error 50010, never cut or rounded: its parameter is one wider (m.param_type).
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_enqueue]
    @rainfall_id bigint
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL);
    BEGIN TRY
        INSERT INTO [rainfall].[rainfall_events] ([rainfall_id])
        -- OUTPUT INTO a table variable: a bare OUTPUT fails once someone adds a trigger to the table (error 334).
        OUTPUT inserted.[id] INTO @q$new ([id])
        VALUES (@rainfall_id);
        SELECT [id], CAST(1 AS bit) AS [enqueued] FROM @q$new;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch rainfall.rainfall_events_enqueue_batch, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement (at most 1999: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_enqueue_batch]
    @jobs [rainfall].[rainfall_events_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 1999
        THROW 50003, N'qgen: a batch of more than 1999 jobs is out of range for rainfall.rainfall_events: one statement writing more could escalate to a table lock; accepted: 1 to 1999 jobs per call (split the batch; the client does).', 1;
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [rainfall].[rainfall_events] ([rainfall_id])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[rainfall_id]
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

-- qgen 0.1.0: enqueue_json rainfall.rainfall_events_enqueue_json, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- enqueue_batch for callers that cannot send a table-valued parameter (pyodbc through FreeTDS):
-- the same jobs as one JSON array of objects, one per job, keyed by the batch type's column names.
-- Every job-type and payload column's key must be there (strict paths: a missing or misspelt key is
-- an error, never a silent NULL; give null for no value); "ordinal" (the job's position in the
-- array, from 1), "priority" and "run_at" are optional. A datetime is ISO 8601, UTC when
-- it has no offset; a json column is the JSON text as a string. Needs SQL Server 2016 or later and
-- database compatibility level 130 or higher (OPENJSON). Returns what enqueue_batch returns.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_enqueue_json]
    @jobs nvarchar(max)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$batch [rainfall].[rainfall_events_batch];
    BEGIN TRY
        INSERT INTO @q$batch ([ordinal], [rainfall_id])
        SELECT COALESCE([j].[ordinal], CAST([a].[key] AS int) + 1),
               [j].[rainfall_id]
        FROM OPENJSON(@jobs) AS [a]
        CROSS APPLY OPENJSON([a].[value])
        WITH
        (
            [ordinal] int '$.ordinal',
            [rainfall_id] bigint 'strict $.rainfall_id'
        ) AS [j];
        IF (SELECT COUNT(*) FROM @q$batch) > 1999
            THROW 50003, N'qgen: a batch of more than 1999 jobs is out of range for rainfall.rainfall_events: one statement writing more could escalate to a table lock; accepted: 1 to 1999 jobs per call (split the batch; the client does).', 1;
        BEGIN TRANSACTION;
        INSERT INTO [rainfall].[rainfall_events] ([rainfall_id])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[rainfall_id]
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

-- qgen 0.1.0: watermark_move rainfall.rainfall_events_watermark_move, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
-- Deferred jobs ([deferred] = 1) do not stop it: claims find them through the due index, whatever their id.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_watermark_move]
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
    DECLARE @q$current bigint = (SELECT [id] FROM [rainfall].[rainfall_events_watermark] WITH (NOLOCK));
    IF @q$current IS NULL OR @q$current >= @q$target
        RETURN;
    IF EXISTS (SELECT 1 FROM [rainfall].[rainfall_events] AS [job] WITH (NOLOCK)
               WHERE [job].[id] = @q$current
                 AND ([job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0
                      OR NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_events] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                     WHERE [settled].[id] = [job].[id]))
              )
        RETURN;
    UPDATE [w]
    SET [id] = COALESCE(
            (
                SELECT MIN([job].[id])
                FROM [rainfall].[rainfall_events] AS [job] WITH (NOLOCK)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @q$target
                  AND ([job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0
                       OR NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_events] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                      WHERE [settled].[id] = [job].[id]))
            ), @q$target),
        [version] = [w].[version] + 1
    FROM [rainfall].[rainfall_events_watermark] AS [w] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK)
    WHERE [w].[id] < @q$target;
END;
GO

-- qgen 0.1.0: watermark_correct rainfall.rainfall_events_watermark_correct, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty;
-- unchanged only when no id was ever generated), never below 0. It repairs a watermark that is wrong
-- either way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it
-- after a drain (run it after a dequeue that found nothing) and for a watermark set by hand. It
-- never waits on the watermark row, and never passes a job another transaction holds.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_watermark_correct]
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
        SELECT @q$old = [id] FROM [rainfall].[rainfall_events_watermark] WITH (ROWLOCK, READPAST, UPDLOCK);
        IF @q$old IS NULL AND EXISTS (SELECT 1 FROM [rainfall].[rainfall_events_watermark] WITH (NOLOCK))
        BEGIN
            COMMIT TRANSACTION;
            SET @q$old = (SELECT [id] FROM [rainfall].[rainfall_events_watermark] WITH (NOLOCK));
            SELECT @old_watermark = @q$old, @new_watermark = @q$old;
            IF @result_set = 1
                SELECT @q$old AS [old_watermark], @q$old AS [new_watermark];
            RETURN;
        END;
        -- No row (deleted by hand): lock the empty range (HOLDLOCK) so that one session puts it back.
        IF @q$old IS NULL
            SET @q$old = (SELECT [id] FROM [rainfall].[rainfall_events_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- corrected_at gets the time before the search (it counts as a dequeue's rescan): a job that
        -- becomes claimable below the watermark after this moment may be missed here, and the next
        -- rescan is due watermark.rescan seconds after this moment, so within the bound.
        SET @q$searched = SYSUTCDATETIME();
        -- The scans never wait on a job row (NOLOCK). NOLOCK also sees a job whose insert is not yet
        -- committed, so the watermark does not pass it. Deferred jobs (the [deferred] bit) do not hold
        -- it back: the due index hands them to claims.
        SET @q$new = (SELECT MIN([job].[id]) FROM [rainfall].[rainfall_events] AS [job] WITH (NOLOCK) WHERE [job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0);
        -- A row NOLOCK shows leased but another transaction holds (READPAST skips it) counts as
        -- unclaimed, as in the mover: a lease claim inside a caller's transaction that may still roll
        -- back (the job is then unclaimed again, below a watermark passed on the strength of a claim
        -- that never was), or a release in flight. Only leased rows can be such a row (the lease
        -- index holds them). Rows this transaction holds itself are not skipped: a rollback of those
        -- rolls this correction back too.
        SET @q$held = (SELECT MIN([job].[id]) FROM [rainfall].[rainfall_events] AS [job] WITH (NOLOCK)
                       WHERE [job].[lease_token] IS NOT NULL
                         AND NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_events] AS [settled] WITH (READCOMMITTEDLOCK, READPAST)
                                         WHERE [settled].[id] = [job].[id]));
        IF @q$held < @q$new OR (@q$new IS NULL AND @q$held IS NOT NULL)
            SET @q$new = @q$held;
        SET @q$new = @q$new - 50;
        IF @q$new IS NULL
            SET @q$new = (SELECT MAX([id]) + 1 FROM [rainfall].[rainfall_events] WITH (NOLOCK)) - 50;
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
                        WHERE [object_id] = OBJECT_ID(N'[rainfall].[rainfall_events]') AND [name] = N'id') - 50;
        IF @q$new IS NULL
            SET @q$new = COALESCE(@q$old, 0);
        IF @q$new < 0
            SET @q$new = 0;
        IF @q$old IS NULL
            INSERT INTO [rainfall].[rainfall_events_watermark] ([id], [corrected_at]) VALUES (@q$new, @q$searched);
        ELSE
            UPDATE [rainfall].[rainfall_events_watermark] SET [id] = @q$new, [version] = [version] + 1, [corrected_at] = @q$searched;
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

-- qgen 0.1.0: control_table rainfall.rainfall_events_control, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which login). Every
-- claim reads it first, WITH (READPAST, READCOMMITTEDLOCK): a pause or resume counts from its
-- commit, and no claim waits on one left open. A missing row (deleted by hand) reads as running.
IF OBJECT_ID(N'rainfall.rainfall_events_control', N'U') IS NULL
BEGIN
    CREATE TABLE [rainfall].[rainfall_events_control]
    (
        [one_row] bit NOT NULL CONSTRAINT [rainfall_events_control_one_row_df] DEFAULT (1),
        [paused] bit NOT NULL CONSTRAINT [rainfall_events_control_paused_df] DEFAULT (0),
        [changed_at] datetime2(3) NULL,
        [changed_by] nvarchar(128) NULL,
        CONSTRAINT [rainfall_events_control_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [rainfall_events_control_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_events_control])
    INSERT INTO [rainfall].[rainfall_events_control] ([paused]) VALUES (0);
GO

-- qgen 0.1.0: dequeue rainfall.rainfall_events_dequeue, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With @complete_lease_token it first completes that lease's jobs as complete(@lease_token) does,
-- in the same transaction: one commit per batch instead of two. A token that holds no job raises
-- 50001 and nothing is claimed.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_dequeue]
    @owner nvarchar(129) = NULL,
    @batch_size int = 5,
    @lease_seconds int = 900,
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
            N' is out of range for rainfall.rainfall_events_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in rainfall.rainfall_events_dequeue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF @lease_seconds IS NULL OR @lease_seconds < 1
        THROW 50003, N'qgen: @lease_seconds is out of range; accepted: 1 or more seconds.', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on rainfall.rainfall_events: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$token uniqueidentifier = NEWID();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [rainfall_id] bigint NOT NULL,
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
            THROW 50005, N'qgen: refused on rainfall.rainfall_events: this queue has an outbox: complete each job with its @id and its outbox values, then dequeue', 1;
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_events_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
        -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
        IF EXISTS (SELECT 1 FROM [rainfall].[rainfall_events_watermark] WITH (NOLOCK) WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME()))
        BEGIN
            DECLARE @q$mark bigint, @q$stranded bigint;
            UPDATE [rainfall].[rainfall_events_watermark] WITH (ROWLOCK, READPAST, UPDLOCK)
            SET @q$mark = [id], [corrected_at] = SYSUTCDATETIME(), [version] = [version] + 1
            WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME());
            IF @@ROWCOUNT = 1
            BEGIN
                SELECT @q$stranded = MIN([job].[id])
                FROM [rainfall].[rainfall_events] AS [job] WITH (NOLOCK)
                WHERE [job].[id] < @q$mark AND [job].[lease_token] IS NULL AND [job].[processed] = 0 AND [job].[deferred] = 0;
                IF @q$stranded IS NOT NULL
                    UPDATE [rainfall].[rainfall_events_watermark]
                    SET [id] = CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END,
                        [version] = [version] + 1
                    WHERE [id] > CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END;
            END;
        END
        ELSE IF NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_events_watermark] WITH (NOLOCK))
            INSERT INTO [rainfall].[rainfall_events_watermark] ([id])
            SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_events_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
        -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
        -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
        -- A missing row reads as 0.
        SET @q$from = COALESCE((SELECT [id] FROM [rainfall].[rainfall_events_watermark] WITH (NOLOCK)), 0);
        ;WITH [due_job] AS
        (
            SELECT TOP (@batch_size) [id], [rainfall_id], [attempts], [lease_token], [lease_owner], [lease_expires_at], [deferred]
            -- The one reference to the table (see the claim below); it seeks the due index.
            FROM [rainfall].[rainfall_events] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [deferred] = 1 AND [available_at] <= @q$now
            ORDER BY [available_at], [id]
        )
        UPDATE [due_job]
        SET [lease_token] = @q$token,
            [lease_owner] = @owner,
            [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
            [deferred] = 0,
            [attempts] = [attempts] + 1
        OUTPUT inserted.[id], inserted.[rainfall_id], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
        INTO @q$claimed ([id], [rainfall_id], [attempts], [lease_token], [lease_expires_at])
        -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        -- Then the rest of the batch from the claim index, which holds only claimable jobs.
        SET @q$rest = @batch_size - @@ROWCOUNT;
        IF @q$rest > 0
        BEGIN
            ;WITH [next_job] AS
            (
                SELECT TOP (@q$rest) [id], [rainfall_id], [attempts], [lease_token], [lease_owner], [lease_expires_at]
                -- The one reference to the table: these hints hold for every row the claim reads.
                FROM [rainfall].[rainfall_events] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @q$now AND [deferred] = 0
                  AND [id] >= @q$from
                ORDER BY [id]
            )
            UPDATE [next_job]
            SET [lease_token] = @q$token,
                [lease_owner] = @owner,
                [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
                [attempts] = [attempts] + 1
            OUTPUT inserted.[id], inserted.[rainfall_id], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
            INTO @q$claimed ([id], [rainfall_id], [attempts], [lease_token], [lease_expires_at])
            -- Planned for one row, whatever @q$rest the first call sniffed: a seek in queue order.
            OPTION (OPTIMIZE FOR (@q$rest = 1));
        END;
        -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
        -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
        -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
        DECLARE @q$highest bigint;
        SELECT @q$highest = MAX([id]) FROM @q$claimed;
        IF @q$highest - @q$from >= 150
            EXEC [rainfall].[rainfall_events_watermark_move] @claimed_from = @q$highest;
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
        SELECT [id], [rainfall_id], [attempts], [lease_token], [lease_expires_at]
        FROM @q$claimed
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
-- the lease (refused here with 50005: this queue has an outbox, whose values belong to one job). The token is the fence: a worker whose lease was released or taken over gets error 50001.
-- A job hands its outbox values on, or the caller says it has none with @no_result = 1: a job
-- completed with neither is refused (50005), never finished with nothing handed on.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_complete]
    @lease_token uniqueidentifier,
    @id bigint = NULL,
    @rainfall_id bigint = NULL,
    @summary nvarchar(401) = NULL,
    @no_result bit = 0
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF DATALENGTH(@summary) > 800
        THROW 50010, N'qgen: @summary is past its column''s limit in rainfall.rainfall_events_complete; accepted: string(400), at most 400 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$completed int;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- Outbox values belong to one job: a whole lease completed at once would skip them silently.
        IF @id IS NULL
            THROW 50005, N'qgen: refused on rainfall.rainfall_events: this queue has an outbox: complete each job with its @id and its outbox values, not a whole lease by its token', 1;
        IF @no_result IS NULL
            THROW 50003, N'qgen: @no_result NULL is out of range; accepted: 0 (the outbox values are given) or 1 (this job hands nothing on).', 1;
        IF @no_result = 1 AND (@rainfall_id IS NOT NULL OR @summary IS NOT NULL)
            THROW 50003, N'qgen: complete on rainfall.rainfall_events: @no_result = 1 says this job hands nothing on, yet outbox values were given; pass the values or @no_result = 1, not both.', 1;
        IF @no_result = 0 AND NOT (@rainfall_id IS NOT NULL OR @summary IS NOT NULL)
            THROW 50005, N'qgen: refused on rainfall.rainfall_events: this queue has an outbox: complete each job with its outbox values (rainfall_id, summary), or with @no_result = 1 when the job hands nothing on', 1;
        IF @no_result = 0 AND @rainfall_id IS NULL
            THROW 50003, N'qgen: complete on rainfall.rainfall_events: outbox value @rainfall_id is missing (NULL); it is NOT NULL in the outbox; accepted: every NOT NULL outbox value, or @no_result = 1.', 1;
        IF @no_result = 0 AND @summary IS NULL
            THROW 50003, N'qgen: complete on rainfall.rainfall_events: outbox value @summary is missing (NULL); it is NOT NULL in the outbox; accepted: every NOT NULL outbox value, or @no_result = 1.', 1;

        BEGIN
            UPDATE [rainfall].[rainfall_events]
            SET [processed] = 1, [processed_at] = @q$now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [id] = @id AND [lease_token] = @lease_token;

            SET @q$completed = @@ROWCOUNT;
        END;
        IF @q$completed = 0
            THROW 50001, N'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        -- The result goes on in the same transaction as the completion (seed 004's local queue table).
        IF @no_result = 0
        BEGIN
            INSERT INTO [rainfall].[rainfall_transfer] ([rainfall_id], [summary])
            SELECT @rainfall_id, @summary;
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

-- qgen 0.1.0: fail rainfall.rainfall_events_fail, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 3) and @retry = 1 it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_fail]
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
        [rainfall_id] bigint NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL
    );
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK: a locking read of the current row (also under READ_COMMITTED_SNAPSHOT), held
        -- until commit, so a reaper cannot release the job between this read and the change below.
        SELECT @q$attempts = [attempts]
        FROM [rainfall].[rainfall_events] WITH (UPDLOCK, ROWLOCK)
        WHERE [id] = @id AND [lease_token] = @lease_token;
        IF @q$attempts IS NULL
            THROW 50001, N'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        IF @retry = 1 AND @q$attempts < 3
        BEGIN
            UPDATE [rainfall].[rainfall_events]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [last_error] = @q$error,
                [available_at] = DATEADD(second, CAST(CASE WHEN 30 * POWER(CAST(2 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) > 600 THEN 600 ELSE 30 * POWER(CAST(2 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) END AS int), @q$now),
                -- Into the due index for its backoff, off the claim index and the watermark's way.
                [deferred] = 1
            WHERE [id] = @id;
            -- The job is claimable again: the watermark must not stay above it (unless another
            -- transaction holds the watermark row: then the rescan finds the job; never a wait).
            UPDATE [w]
            SET [id] = @id, [version] = [w].[version] + 1
            FROM [rainfall].[rainfall_events_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [w].[id] > @id;
            COMMIT TRANSACTION;
            RETURN 0;
        END;
        DELETE FROM [rainfall].[rainfall_events]
        OUTPUT deleted.[id], deleted.[rainfall_id], deleted.[enqueued_at], deleted.[attempts]
        INTO @q$dead ([id], [rainfall_id], [enqueued_at], [attempts])
        WHERE [id] = @id;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [rainfall].[rainfall_events_dead] ([id], [rainfall_id], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [rainfall_id], [enqueued_at], [attempts], @q$error, @q$now FROM @q$dead;
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
            SELECT [id] FROM [rainfall].[rainfall_events] WHERE [lease_token] = @lease_token;
            UPDATE [rainfall].[rainfall_events] SET [lease_expires_at] = @q$until WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [rainfall].[rainfall_events] SET [lease_expires_at] = @q$until WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$extended = @@ROWCOUNT;
        IF @q$extended = 0
        BEGIN
            IF @id IS NOT NULL AND EXISTS (SELECT 1 FROM [rainfall].[rainfall_events_dead] AS [d]
                                           WHERE [d].[id] = @id AND [d].[last_error] = N'cancelled')
                THROW 50006, N'qgen: job cancelled on rainfall.rainfall_events: cancel took it out of the queue while its lease ran; stop working on it (its complete and fail are refused).', 1;
            THROW 50001, N'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        RETURN @q$extended;
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
            N' is out of range for rainfall.rainfall_events_reap; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$expired TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$freed TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [rainfall_id] bigint NOT NULL,
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
        FROM [rainfall].[rainfall_events] WITH (READPAST, READCOMMITTEDLOCK)
        WHERE [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        -- Each statement reads the table once, through its CTE (as dequeue's claim does). UPDLOCK
        -- (and the statement's own update locks) make these locking reads of current rows.
        ;WITH [expired] AS
        (
            SELECT TOP (@batch_size) [id], [lease_token], [lease_owner], [lease_expires_at], [available_at], [last_error], [deferred]            FROM [rainfall].[rainfall_events] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)
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
            SELECT TOP (@batch_size - @q$released) [id], [rainfall_id], [enqueued_at], [attempts]
            FROM [rainfall].[rainfall_events] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)
            WHERE [id] IN (SELECT [id] FROM @q$expired)
              AND [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now AND [attempts] >= 3
        )
        DELETE FROM [expired]
        OUTPUT deleted.[id], deleted.[rainfall_id], deleted.[enqueued_at], deleted.[attempts]
        INTO @q$dead ([id], [rainfall_id], [enqueued_at], [attempts])
        OPTION (OPTIMIZE FOR (@batch_size = 1, @q$released = 0));
        SET @q$dead_lettered = @@ROWCOUNT;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [rainfall].[rainfall_events_dead] ([id], [rainfall_id], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [rainfall_id], [enqueued_at], [attempts], N'qgen: lease expired on the last attempt', @q$now FROM @q$dead;

        -- Released jobs are claimable again: the watermark must not stay above them (unless another
        -- transaction holds the watermark row: then the rescan finds them; never a wait).
        SELECT @q$lowest = MIN([id]) FROM @q$freed;
        IF @q$lowest IS NOT NULL
            UPDATE [w]
            SET [id] = @q$lowest, [version] = [w].[version] + 1
            FROM [rainfall].[rainfall_events_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
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

-- qgen 0.1.0: metrics rainfall.rainfall_events_metrics, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now, for dashboards and alerts. Each count reads the one index that
-- holds its rows (claim, due, lease, processed index; the dead-letter and archive tables), never the
-- whole queue table (finished rows included), and does not wait on a row: WITH (READPAST,
-- READCOMMITTEDLOCK) skips a row another transaction holds (a job being claimed, completed or enqueued right now),
-- the watermark's one row is read WITH (NOLOCK). So under concurrency the numbers are approximate:
-- a job changing at that moment is counted in neither state, and the counts are not one snapshot.
-- READPAST skips row and page locks only: a table lock (an escalated lock of a large transaction,
-- uninstall's TABLOCKX, an offline index build) still makes it wait.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_metrics]
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
    FROM [rainfall].[rainfall_events] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [lease_token] IS NULL AND [processed] = 0 AND [deferred] = 0;
    -- Deferred jobs (delayed, backed off, released): the due index.
    SELECT @q$due_ready = COUNT_BIG(CASE WHEN [available_at] <= @q$now THEN 1 END),
        @q$due_scheduled = COUNT_BIG(CASE WHEN [available_at] > @q$now THEN 1 END),
        @q$due_oldest = MIN(CASE WHEN [available_at] <= @q$now THEN [id] END),
        @q$due_lowest = MIN([id])
    FROM [rainfall].[rainfall_events] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [deferred] = 1;
    SELECT @q$ready += @q$due_ready, @q$scheduled += @q$due_scheduled,
        @q$oldest_id = CASE WHEN @q$due_oldest < @q$oldest_id OR @q$oldest_id IS NULL THEN @q$due_oldest ELSE @q$oldest_id END,
        @q$lowest = CASE WHEN @q$due_lowest < @q$lowest OR @q$lowest IS NULL THEN @q$due_lowest ELSE @q$lowest END;
    -- Jobs in flight: the lease index.
    SELECT @q$in_flight = COUNT_BIG(*), @q$expired = COUNT_BIG(CASE WHEN [lease_expires_at] < @q$now THEN 1 END)
    FROM [rainfall].[rainfall_events] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [lease_token] IS NOT NULL;
    -- Finished jobs kept by mark: the processed index.
    SELECT @q$processed = COUNT_BIG(*), @q$recent = COUNT_BIG(CASE WHEN [processed_at] >= DATEADD(minute, -1, @q$now) THEN 1 END)
    FROM [rainfall].[rainfall_events] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [processed] = 1;
    SELECT @q$dead = COUNT_BIG(*) FROM [rainfall].[rainfall_events_dead] WITH (READPAST, READCOMMITTEDLOCK);
    -- One row, a value: read without waiting on a transaction that holds it (a dirty value at worst).
    SELECT @q$watermark = [id] FROM [rainfall].[rainfall_events_watermark] WITH (NOLOCK);
    -- The highest id: the last key of the clustered index (one row, skipped if locked).
    SELECT @q$highest = MAX([id]) FROM [rainfall].[rainfall_events] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$ready AS [ready], @q$scheduled AS [scheduled], @q$in_flight AS [in_flight], @q$expired AS [expired],
        @q$processed AS [processed], @q$dead AS [dead], @q$archived AS [archived],
        -- The age of the oldest ready job: the one with the lowest id (ids grow with enqueued_at).
        COALESCE(DATEDIFF_BIG(second, (SELECT [enqueued_at] FROM [rainfall].[rainfall_events] WITH (READPAST, READCOMMITTEDLOCK) WHERE [id] = @q$oldest_id), @q$now), 0)
            AS [oldest_ready_age_seconds],
        @q$watermark AS [watermark],
        @q$lowest AS [lowest_pending_id],
        @q$recent AS [completed_last_minute],
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        COALESCE(@q$lowest, @q$highest + 1) - @q$watermark AS [watermark_lag],
        CAST(CASE WHEN NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_events_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0) THEN 1 ELSE 0 END AS bit) AS [paused];
END;
GO

-- qgen 0.1.0: peek rainfall.rainfall_events_peek, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    -- NULL or negative is refused with the other argument checks' code (TOP would raise 1014).
    IF @limit IS NULL OR @limit < 0
        THROW 50003, N'qgen: @limit is out of range for rainfall.rainfall_events_peek; accepted: 0 or more rows.', 1;
    SELECT TOP (@limit) [id], [rainfall_id], [available_at], [enqueued_at], [attempts], [last_error]
    FROM [rainfall].[rainfall_events_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge_batch rainfall.rainfall_events_purge_batch, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds: at most @batch_size rows (1000 by default, refused above 1999) over all those
-- tables together, in one transaction (the caller's, when there is one). purge loops over batches;
-- maintain runs one.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_purge_batch]
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
            DELETE TOP (@q$left) FROM [rainfall].[rainfall_events] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [processed] = 1 AND [processed_at] < @q$cutoff
            OPTION (OPTIMIZE FOR (@q$left = 1));
            SET @q$processed = @@ROWCOUNT;
            SET @q$left -= @q$processed;
        END;

        IF @q$left > 0
        BEGIN
            DELETE TOP (@q$left) FROM [rainfall].[rainfall_events_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
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

-- qgen 0.1.0: purge rainfall.rainfall_events_purge, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds, in batches of at most @batch_size rows (1000 by default, refused above 1999),
-- each committed on its own, so no statement takes enough locks to escalate to a table lock and
-- no transaction holds more than one batch. The cutoff is fixed when the call begins, so rows that
-- finish while it runs are left for the next purge and the loop ends. It must commit per batch,
-- so it refuses to run inside the caller's transaction (error 50004: there, call
-- rainfall_events_purge_batch, which deletes one batch in that transaction).
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_purge]
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
        THROW 50004, N'qgen: purge commits after every batch, which it cannot do inside the caller''s transaction (or with IMPLICIT_TRANSACTIONS ON, where its first statement would open one); call it outside a transaction in autocommit mode, or call rainfall_events_purge_batch (one batch) there.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$archived bigint = 0, @q$processed bigint = 0, @q$dead bigint = 0, @q$deleted int;
    SET @q$deleted = @batch_size;
    WHILE @q$deleted = @batch_size
    BEGIN
        -- No transaction is open: each DELETE commits by itself, one batch at a time.
        DELETE TOP (@batch_size) FROM [rainfall].[rainfall_events] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [processed] = 1 AND [processed_at] < @q$cutoff
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$deleted = @@ROWCOUNT;
        SET @q$processed += @q$deleted;
    END;

    SET @q$deleted = @batch_size;
    WHILE @q$deleted = @batch_size
    BEGIN
        -- No transaction is open: each DELETE commits by itself, one batch at a time.
        DELETE TOP (@batch_size) FROM [rainfall].[rainfall_events_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [dead_at] < @q$cutoff
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$deleted = @@ROWCOUNT;
        SET @q$dead += @q$deleted;
    END;

    SELECT @q$archived AS [archived], @q$processed AS [processed], @q$dead AS [dead];
END;
GO

-- qgen 0.1.0: maintain rainfall.rainfall_events_maintain, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
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
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_maintain]
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
            @Resource = N'qgen.maintain:[rainfall].[rainfall_events]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0, @DbPrincipal = @q$principal;
        -- -1: not granted at once, another maintain holds it. -2 (cancelled), -3 (deadlock victim)
        -- and -999 (a call error) are not "someone else is maintaining": refused with the code.
        IF @q$lock = -1
            SET @q$skipped = 1;
        ELSE IF @q$lock < 0
        BEGIN
            DECLARE @q$why nvarchar(2048) = CONCAT(N'qgen: refused on rainfall.rainfall_events: maintain could not take its application lock (sp_getapplock returned ',
                @q$lock, N' for principal ', @q$principal, N').');
            THROW 50005, @q$why, 1;
        END
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            EXEC [rainfall].[rainfall_events_purge_batch] @older_than_seconds = 604800, @batch_size = @batch_size,
                @archived = @q$archived OUTPUT, @processed = @q$processed OUTPUT, @dead = @q$dead OUTPUT, @result_set = 0;
            EXEC [rainfall].[rainfall_events_reap] @batch_size = @q$reap_batch,
                @released = @q$released OUTPUT, @dead_lettered = @q$dead_lettered OUTPUT, @result_set = 0;
            EXEC [rainfall].[rainfall_events_watermark_correct]
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

-- qgen 0.1.0: redrive rainfall.rainfall_events_redrive, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Puts dead-lettered jobs back into the queue as new jobs: a new id, attempts 0, available now,
-- their last error kept. Either the dead jobs whose ids @ids lists (a JSON array, e.g. N'[3, 7]';
-- OPENJSON needs database compatibility level 130 or later), or (@redrive_all = 1) every dead job
-- after @after_id, in the order they died; at most @batch_size per call: [last_id] is the last
-- dead-letter entry looked at (its entry_id: a job id can repeat there), to pass as @after_id to
-- the next call. Each job is inserted and removed from the
-- dead-letter table in this one transaction, so it is redriven once: a second call finds
-- nothing, and a concurrent one waits (UPDLOCK) and then finds it gone.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_redrive]
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
            FROM [rainfall].[rainfall_events_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[entry_id] > ISNULL(@after_id, 0)
            ORDER BY [x].[entry_id];
        ELSE
            INSERT INTO @q$picked ([entry_id])
            SELECT TOP (@batch_size) [x].[entry_id]
            FROM [rainfall].[rainfall_events_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[id] IN (SELECT TRY_CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j])
            ORDER BY [x].[entry_id];
        SET @q$last_id = (SELECT MAX([entry_id]) FROM @q$picked);
        INSERT INTO [rainfall].[rainfall_events] ([rainfall_id], [attempts], [available_at], [last_error])
        SELECT [x].[rainfall_id], 0, SYSUTCDATETIME(), [x].[last_error]
        FROM [rainfall].[rainfall_events_dead] AS [x]
        INNER JOIN @q$picked AS [p] ON [p].[entry_id] = [x].[entry_id] AND [p].[keep] = 0
        ORDER BY [x].[entry_id];
        SET @q$redriven = @@ROWCOUNT;
        DELETE [x]
        FROM [rainfall].[rainfall_events_dead] AS [x]
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

-- qgen 0.1.0: dead_letters rainfall.rainfall_events_dead_letters, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first, with the error each died of: at most @limit rows (1 to
-- 1000). Reads only. WITH (READPAST, READCOMMITTEDLOCK), as metrics reads: a locking
-- read at READ COMMITTED (also under READ_COMMITTED_SNAPSHOT) that never waits on a row another
-- transaction holds and skips it instead (a dead letter fail or reap is writing, or redrive or
-- purge is taking away, right now: it is on its way in or out), and holds each shared lock only
-- while it reads that row, so fail, reap, redrive and purge never wait on it. Not NOLOCK: a
-- fail rolled back with its caller's transaction would be listed as dead. READPAST skips row and
-- page locks only: a table lock (escalated, uninstall's TABLOCKX) still makes it wait.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_dead_letters]
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
            N' is out of range for rainfall.rainfall_events_dead_letters; accepted: 1 to 1000 rows.');
        THROW 50003, @q$error, 1;
    END;
    -- Newest first, in the order they arrived: the clustered key backwards, which stops after @limit rows.
    SELECT TOP (@limit) [x].[id], [x].[rainfall_id], [x].[enqueued_at], [x].[attempts],
        [x].[dead_at], [x].[last_error]
    FROM [rainfall].[rainfall_events_dead] AS [x] WITH (READPAST, READCOMMITTEDLOCK)
    ORDER BY [x].[entry_id] DESC
    OPTION (RECOMPILE);
END;
GO

-- qgen 0.1.0: job rainfall.rainfall_events_job, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
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
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_job]
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
            N' is out of range for rainfall.rainfall_events_job; accepted: a job id, 1 or more.');
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
    FROM [rainfall].[rainfall_events] AS [j]
    WHERE [j].[id] = @job_id;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is reseeded.
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at])
        SELECT TOP (1) [x].[id], N'dead', [x].[enqueued_at], NULL, [x].[attempts], NULL, NULL,
            [x].[last_error], [x].[dead_at]
        FROM [rainfall].[rainfall_events_dead] AS [x]
        WHERE [x].[id] = @job_id
        ORDER BY [x].[entry_id] DESC;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state]) VALUES (@job_id, N'not_found');
    SELECT [id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at] FROM @q$found;
END;
GO

-- qgen 0.1.0: release rainfall.rainfall_events_release, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With @id, that
-- job; without, every job of the lease. The token is the fence: a job whose lease was released,
-- taken over or finished gets error 50001. last_error is kept (no failure happened).
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_release]
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
            SELECT [id] FROM [rainfall].[rainfall_events] WHERE [lease_token] = @lease_token;
            UPDATE [rainfall].[rainfall_events]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now, [deferred] = 1,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [rainfall].[rainfall_events]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now, [deferred] = 1,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$released = @@ROWCOUNT;
        IF @q$released = 0
            THROW 50001, N'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        -- Released jobs are claimable again: the watermark must not stay above them (unless another
        -- transaction holds the watermark row: then the rescan finds them; never a wait).
        SELECT @q$lowest = MIN([id]) FROM @q$freed;
        UPDATE [w]
            SET [id] = @q$lowest, [version] = [w].[version] + 1
            FROM [rainfall].[rainfall_events_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
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

-- qgen 0.1.0: pause rainfall.rainfall_events_pause, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job, and a dequeue waiting with @wait_ms keeps waiting. Enqueues go on, and leases already
-- granted run to their end (complete, fail, extend_lease, release and reap work as before).
-- Returns 1 when this call paused the queue, 0 when it was paused already.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_pause]
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
        SELECT @q$was = [paused] FROM [rainfall].[rainfall_events_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [rainfall].[rainfall_events_control] ([paused], [changed_at], [changed_by]) VALUES (1, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 0;
        END
        ELSE IF @q$was = 0
        BEGIN
            UPDATE [rainfall].[rainfall_events_control]
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
            THROW 50005, N'qgen: refused on rainfall.rainfall_events: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: resume rainfall.rainfall_events_resume, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again (a dequeue waiting with
-- @wait_ms takes one at its next attempt). Returns 1 when this call resumed the queue, 0 when it
-- was not paused.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_resume]
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
        SELECT @q$was = [paused] FROM [rainfall].[rainfall_events_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [rainfall].[rainfall_events_control] ([paused], [changed_at], [changed_by]) VALUES (0, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 1;
        END
        ELSE IF @q$was = 1
        BEGIN
            UPDATE [rainfall].[rainfall_events_control]
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
            THROW 50005, N'qgen: refused on rainfall.rainfall_events: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: cancel rainfall.rainfall_events_cancel, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
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
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_cancel]
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
        [rainfall_id] bigint NOT NULL,
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
        FROM [rainfall].[rainfall_events] AS [job] WITH (UPDLOCK, ROWLOCK, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]) AND [job].[processed] = 0;
        DELETE FROM [rainfall].[rainfall_events]
        OUTPUT deleted.[id], deleted.[rainfall_id], deleted.[enqueued_at], deleted.[attempts], deleted.[lease_token]
        INTO @q$dead ([id], [rainfall_id], [enqueued_at], [attempts], [lease_token])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [rainfall].[rainfall_events_dead] ([id], [rainfall_id], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [rainfall_id], [enqueued_at], [attempts], N'cancelled', @q$now FROM @q$dead;
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on rainfall.rainfall_events: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
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
        -- When the table was last searched below the watermark (by a dequeue's rescan or
        -- watermark_correct): a dequeue rescans when this is watermark.rescan old.
        [corrected_at] datetime2(3) NOT NULL
            CONSTRAINT [rainfall_transfer_watermark_corrected_at_df] DEFAULT ('0001-01-01'),
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
-- drops and recreates it with the procedures that use it. Its columns are one wider than the
-- table's (m.param_type): a caller's insert into a variable of this type cannot cut or round a value
-- past its column unseen; enqueue_batch refuses it with error 50010.
IF TYPE_ID(N'rainfall.rainfall_transfer_batch') IS NULL
    CREATE TYPE [rainfall].[rainfall_transfer_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [rainfall_id] bigint NOT NULL,
        [summary] nvarchar(401) NOT NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue rainfall.rainfall_transfer_enqueue, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0). A value past its column's
-- limit is refused with error 50010, never cut or rounded: its parameter is one wider (m.param_type).
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_enqueue]
    @rainfall_id bigint,
    @summary nvarchar(401)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF DATALENGTH(@summary) > 800
        THROW 50010, N'qgen: @summary is past its column''s limit in rainfall.rainfall_transfer_enqueue; accepted: string(400), at most 400 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL);
    BEGIN TRY
        INSERT INTO [rainfall].[rainfall_transfer] ([rainfall_id], [summary])
        -- OUTPUT INTO a table variable: a bare OUTPUT fails once someone adds a trigger to the table (error 334).
        OUTPUT inserted.[id] INTO @q$new ([id])
        VALUES (@rainfall_id, @summary);
        SELECT [id], CAST(1 AS bit) AS [enqueued] FROM @q$new;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch rainfall.rainfall_transfer_enqueue_batch, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement (at most 3599: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_enqueue_batch]
    @jobs [rainfall].[rainfall_transfer_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 3599
        THROW 50003, N'qgen: a batch of more than 3599 jobs is out of range for rainfall.rainfall_transfer: one statement writing more could escalate to a table lock; accepted: 1 to 3599 jobs per call (split the batch; the client does).', 1;
    DECLARE @q$over int, @q$over_column nvarchar(2048);
    SELECT TOP (1) @q$over = [j].[ordinal],
           @q$over_column = CASE WHEN DATALENGTH([j].[summary]) > 800 THEN N'summary; accepted: string(400), at most 400 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
    FROM @jobs AS [j]
    WHERE DATALENGTH([j].[summary]) > 800
    ORDER BY [j].[ordinal];
    IF @q$over IS NOT NULL
    BEGIN
        DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in rainfall.rainfall_transfer_enqueue_batch: column ', @q$over_column, N'.');
        THROW 50010, @q$over_message, 1;
    END;
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [rainfall].[rainfall_transfer] ([rainfall_id], [summary])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[rainfall_id], [j].[summary]
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

-- qgen 0.1.0: enqueue_json rainfall.rainfall_transfer_enqueue_json, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- enqueue_batch for callers that cannot send a table-valued parameter (pyodbc through FreeTDS):
-- the same jobs as one JSON array of objects, one per job, keyed by the batch type's column names.
-- Every job-type and payload column's key must be there (strict paths: a missing or misspelt key is
-- an error, never a silent NULL; give null for no value); "ordinal" (the job's position in the
-- array, from 1), "priority" and "run_at" are optional. A datetime is ISO 8601, UTC when
-- it has no offset; a json column is the JSON text as a string. Needs SQL Server 2016 or later and
-- database compatibility level 130 or higher (OPENJSON). Returns what enqueue_batch returns.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_enqueue_json]
    @jobs nvarchar(max)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$batch [rainfall].[rainfall_transfer_batch];
    BEGIN TRY
        INSERT INTO @q$batch ([ordinal], [rainfall_id], [summary])
        SELECT COALESCE([j].[ordinal], CAST([a].[key] AS int) + 1),
               [j].[rainfall_id],
               [j].[summary]
        FROM OPENJSON(@jobs) AS [a]
        CROSS APPLY OPENJSON([a].[value])
        WITH
        (
            [ordinal] int '$.ordinal',
            [rainfall_id] bigint 'strict $.rainfall_id',
            [summary] nvarchar(401) 'strict $.summary'
        ) AS [j];
        IF (SELECT COUNT(*) FROM @q$batch) > 3599
            THROW 50003, N'qgen: a batch of more than 3599 jobs is out of range for rainfall.rainfall_transfer: one statement writing more could escalate to a table lock; accepted: 1 to 3599 jobs per call (split the batch; the client does).', 1;
        DECLARE @q$over int, @q$over_column nvarchar(2048);
        SELECT TOP (1) @q$over = [j].[ordinal],
               @q$over_column = CASE WHEN DATALENGTH([j].[summary]) > 800 THEN N'summary; accepted: string(400), at most 400 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
        FROM @q$batch AS [j]
        WHERE DATALENGTH([j].[summary]) > 800
        ORDER BY [j].[ordinal];
        IF @q$over IS NOT NULL
        BEGIN
            DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in rainfall.rainfall_transfer_enqueue_json: column ', @q$over_column, N'.');
            THROW 50010, @q$over_message, 1;
        END;
        BEGIN TRANSACTION;
        INSERT INTO [rainfall].[rainfall_transfer] ([rainfall_id], [summary])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[rainfall_id], [j].[summary]
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

-- qgen 0.1.0: watermark_move rainfall.rainfall_transfer_watermark_move, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Moves the watermark up to 50 ids below the claim that called it (the slack covers claims and inserts
-- still in flight), but never past a row that is still unclaimed, and never down.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_watermark_move]
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
    DECLARE @q$current bigint = (SELECT [id] FROM [rainfall].[rainfall_transfer_watermark] WITH (NOLOCK));
    IF @q$current IS NULL OR @q$current >= @q$target
        RETURN;
    IF EXISTS (SELECT 1 FROM [rainfall].[rainfall_transfer] AS [job] WITH (NOLOCK)
               WHERE [job].[id] = @q$current
              )
        RETURN;
    UPDATE [w]
    SET [id] = COALESCE(
            (
                SELECT MIN([job].[id])
                FROM [rainfall].[rainfall_transfer] AS [job] WITH (NOLOCK)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @q$target
            ), @q$target),
        [version] = [w].[version] + 1
    FROM [rainfall].[rainfall_transfer_watermark] AS [w] WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK)
    WHERE [w].[id] < @q$target;
END;
GO

-- qgen 0.1.0: watermark_correct rainfall.rainfall_transfer_watermark_correct, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty;
-- unchanged only when no id was ever generated), never below 0. It repairs a watermark that is wrong
-- either way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it
-- after a drain (run it after a dequeue that found nothing) and for a watermark set by hand. It
-- never waits on the watermark row.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_watermark_correct]
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
        SELECT @q$old = [id] FROM [rainfall].[rainfall_transfer_watermark] WITH (ROWLOCK, READPAST, UPDLOCK);
        IF @q$old IS NULL AND EXISTS (SELECT 1 FROM [rainfall].[rainfall_transfer_watermark] WITH (NOLOCK))
        BEGIN
            COMMIT TRANSACTION;
            SET @q$old = (SELECT [id] FROM [rainfall].[rainfall_transfer_watermark] WITH (NOLOCK));
            SELECT @old_watermark = @q$old, @new_watermark = @q$old;
            IF @result_set = 1
                SELECT @q$old AS [old_watermark], @q$old AS [new_watermark];
            RETURN;
        END;
        -- No row (deleted by hand): lock the empty range (HOLDLOCK) so that one session puts it back.
        IF @q$old IS NULL
            SET @q$old = (SELECT [id] FROM [rainfall].[rainfall_transfer_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- corrected_at gets the time before the search (it counts as a dequeue's rescan): a job that
        -- becomes claimable below the watermark after this moment may be missed here, and the next
        -- rescan is due watermark.rescan seconds after this moment, so within the bound.
        SET @q$searched = SYSUTCDATETIME();
        -- The scans never wait on a job row (NOLOCK). NOLOCK also sees a job whose insert is not yet
        -- committed, so the watermark does not pass it. Deferred jobs (the [deferred] bit) do not hold
        -- it back: the due index hands them to claims.
        SET @q$new = (SELECT MIN([job].[id]) FROM [rainfall].[rainfall_transfer] AS [job] WITH (NOLOCK) WHERE 1 = 1);
        -- A row an open delete-mode claim holds is invisible to NOLOCK and skipped by READPAST (only
        -- a locking read, which would wait for the claimer, could see it): the correction can pass
        -- it, as the mover can; if that claim rolls back, the rescan finds the job (docs/api.md).
        SET @q$new = @q$new - 50;
        IF @q$new IS NULL
            SET @q$new = (SELECT MAX([id]) + 1 FROM [rainfall].[rainfall_transfer] WITH (NOLOCK)) - 50;
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
                        WHERE [object_id] = OBJECT_ID(N'[rainfall].[rainfall_transfer]') AND [name] = N'id') - 50;
        IF @q$new IS NULL
            SET @q$new = COALESCE(@q$old, 0);
        IF @q$new < 0
            SET @q$new = 0;
        IF @q$old IS NULL
            INSERT INTO [rainfall].[rainfall_transfer_watermark] ([id], [corrected_at]) VALUES (@q$new, @q$searched);
        ELSE
            UPDATE [rainfall].[rainfall_transfer_watermark] SET [id] = @q$new, [version] = [version] + 1, [corrected_at] = @q$searched;
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

-- qgen 0.1.0: control_table rainfall.rainfall_transfer_control, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which login). Every
-- claim reads it first, WITH (READPAST, READCOMMITTEDLOCK): a pause or resume counts from its
-- commit, and no claim waits on one left open. A missing row (deleted by hand) reads as running.
IF OBJECT_ID(N'rainfall.rainfall_transfer_control', N'U') IS NULL
BEGIN
    CREATE TABLE [rainfall].[rainfall_transfer_control]
    (
        [one_row] bit NOT NULL CONSTRAINT [rainfall_transfer_control_one_row_df] DEFAULT (1),
        [paused] bit NOT NULL CONSTRAINT [rainfall_transfer_control_paused_df] DEFAULT (0),
        [changed_at] datetime2(3) NULL,
        [changed_by] nvarchar(128) NULL,
        CONSTRAINT [rainfall_transfer_control_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [rainfall_transfer_control_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_transfer_control])
    INSERT INTO [rainfall].[rainfall_transfer_control] ([paused]) VALUES (0);
GO

-- qgen 0.1.0: dequeue rainfall.rainfall_transfer_dequeue, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs by deleting them, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction the claim would commit at once (at-most-once delivery): refused unless
-- the caller says so with @at_most_once = 1. A caller with IMPLICIT_TRANSACTIONS ON is inside one:
-- the claim opens it, and the caller's COMMIT or ROLLBACK ends it.
-- @owner is accepted and unused here (the claim deletes the row: nothing records it), as on
-- PostgreSQL, so one call works in either claim mode.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_dequeue]
    @owner nvarchar(129) = NULL,
    @batch_size int = 100,
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
            N' is out of range for rainfall.rainfall_transfer_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in rainfall.rainfall_transfer_dequeue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF NOT (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2) AND ISNULL(@at_most_once, 0) = 0
        THROW 50005, N'qgen: refused on rainfall.rainfall_transfer: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass @at_most_once = 1', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on rainfall.rainfall_transfer: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0, or claim with @at_most_once = 1', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [rainfall_id] bigint NOT NULL,
        [summary] nvarchar(400) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL
    );
    DECLARE @q$from bigint;
    BEGIN TRY
        -- @wait_ms: each attempt to claim starts here, in a transaction of its own (see the wait block below).
    q$attempt:
        BEGIN TRANSACTION;
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_transfer_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
        -- Start at the watermark; every 10 s, look below it first for jobs it passed (see the macro watermark_start).
        IF EXISTS (SELECT 1 FROM [rainfall].[rainfall_transfer_watermark] WITH (NOLOCK) WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME()))
        BEGIN
            DECLARE @q$mark bigint, @q$stranded bigint;
            UPDATE [rainfall].[rainfall_transfer_watermark] WITH (ROWLOCK, READPAST, UPDLOCK)
            SET @q$mark = [id], [corrected_at] = SYSUTCDATETIME(), [version] = [version] + 1
            WHERE [corrected_at] <= DATEADD(second, -10, SYSUTCDATETIME());
            IF @@ROWCOUNT = 1
            BEGIN
                SELECT @q$stranded = MIN([job].[id])
                FROM [rainfall].[rainfall_transfer] AS [job] WITH (NOLOCK)
                WHERE [job].[id] < @q$mark AND 1 = 1;
                IF @q$stranded IS NOT NULL
                    UPDATE [rainfall].[rainfall_transfer_watermark]
                    SET [id] = CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END,
                        [version] = [version] + 1
                    WHERE [id] > CASE WHEN @q$stranded > 50 THEN @q$stranded - 50 ELSE 0 END;
            END;
        END
        ELSE IF NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_transfer_watermark] WITH (NOLOCK))
            INSERT INTO [rainfall].[rainfall_transfer_watermark] ([id])
            SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_transfer_watermark] WITH (UPDLOCK, HOLDLOCK));
        -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
        -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
        -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
        -- A missing row reads as 0.
        SET @q$from = COALESCE((SELECT [id] FROM [rainfall].[rainfall_transfer_watermark] WITH (NOLOCK)), 0);
        ;WITH [next_job] AS
        (
            SELECT TOP (@batch_size) [id], [rainfall_id], [summary], [enqueued_at]
            -- The one reference to the table: these hints hold for every row the claim reads.
            FROM [rainfall].[rainfall_transfer] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE 1 = 1
              AND [id] >= @q$from
            ORDER BY [id]
        )
        DELETE FROM [next_job]
        OUTPUT deleted.[id], deleted.[rainfall_id], deleted.[summary], deleted.[enqueued_at]
        INTO @q$claimed ([id], [rainfall_id], [summary], [enqueued_at])
        -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        -- Move the watermark once this claim reached 100 + 50 ids above it, to 50 below the claim's highest
        -- id: about once per 100 claimed ids, however the ids run (a gap at every multiple of
        -- 100, from dedupe hits or rolled-back enqueues, or one claim of many ids).
        DECLARE @q$highest bigint;
        SELECT @q$highest = MAX([id]) FROM @q$claimed;
        IF @q$highest - @q$from >= 150
            EXEC [rainfall].[rainfall_transfer_watermark_move] @claimed_from = @q$highest;
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
        SELECT [id], [rainfall_id], [summary], [enqueued_at]
        FROM @q$claimed
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
-- One row describing the queue now, for dashboards and alerts. Each count reads the one index that
-- holds its rows (claim, due, lease, processed index; the dead-letter and archive tables), never the
-- whole queue table (finished rows included), and does not wait on a row: WITH (READPAST,
-- READCOMMITTEDLOCK) skips a row another transaction holds (a job being claimed, completed or enqueued right now),
-- the watermark's one row is read WITH (NOLOCK). So under concurrency the numbers are approximate:
-- a job changing at that moment is counted in neither state, and the counts are not one snapshot.
-- READPAST skips row and page locks only: a table lock (an escalated lock of a large transaction,
-- uninstall's TABLOCKX, an offline index build) still makes it wait.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_metrics]
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
    FROM [rainfall].[rainfall_transfer] WITH (READPAST, READCOMMITTEDLOCK);
    -- One row, a value: read without waiting on a transaction that holds it (a dirty value at worst).
    SELECT @q$watermark = [id] FROM [rainfall].[rainfall_transfer_watermark] WITH (NOLOCK);
    -- The highest id: the last key of the clustered index (one row, skipped if locked).
    SELECT @q$highest = MAX([id]) FROM [rainfall].[rainfall_transfer] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$ready AS [ready], @q$scheduled AS [scheduled], @q$in_flight AS [in_flight], @q$expired AS [expired],
        @q$processed AS [processed], @q$dead AS [dead], @q$archived AS [archived],
        -- The age of the oldest ready job: the one with the lowest id (ids grow with enqueued_at).
        COALESCE(DATEDIFF_BIG(second, (SELECT [enqueued_at] FROM [rainfall].[rainfall_transfer] WITH (READPAST, READCOMMITTEDLOCK) WHERE [id] = @q$oldest_id), @q$now), 0)
            AS [oldest_ready_age_seconds],
        @q$watermark AS [watermark],
        @q$lowest AS [lowest_pending_id],
        -- on_complete: delete leaves no trace of a completion to count.
        CAST(NULL AS bigint) AS [completed_last_minute],
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        COALESCE(@q$lowest, @q$highest + 1) - @q$watermark AS [watermark_lag],
        CAST(CASE WHEN NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_transfer_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0) THEN 1 ELSE 0 END AS bit) AS [paused];
END;
GO

-- qgen 0.1.0: peek rainfall.rainfall_transfer_peek, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    -- NULL or negative is refused with the other argument checks' code (TOP would raise 1014).
    IF @limit IS NULL OR @limit < 0
        THROW 50003, N'qgen: @limit is out of range for rainfall.rainfall_transfer_peek; accepted: 0 or more rows.', 1;
    SELECT TOP (@limit) [id], [rainfall_id], [summary], [enqueued_at]
    FROM [rainfall].[rainfall_transfer_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge_batch rainfall.rainfall_transfer_purge_batch, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds: at most @batch_size rows (1000 by default, refused above 3599) over all those
-- tables together, in one transaction (the caller's, when there is one). purge loops over batches;
-- maintain runs one.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_purge_batch]
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

-- qgen 0.1.0: purge rainfall.rainfall_transfer_purge, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds, in batches of at most @batch_size rows (1000 by default, refused above 3599),
-- each committed on its own, so no statement takes enough locks to escalate to a table lock and
-- no transaction holds more than one batch. The cutoff is fixed when the call begins, so rows that
-- finish while it runs are left for the next purge and the loop ends. It must commit per batch,
-- so it refuses to run inside the caller's transaction (error 50004: there, call
-- rainfall_transfer_purge_batch, which deletes one batch in that transaction).
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_purge]
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
        THROW 50004, N'qgen: purge commits after every batch, which it cannot do inside the caller''s transaction (or with IMPLICIT_TRANSACTIONS ON, where its first statement would open one); call it outside a transaction in autocommit mode, or call rainfall_transfer_purge_batch (one batch) there.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$archived bigint = 0, @q$processed bigint = 0, @q$dead bigint = 0, @q$deleted int;
    SELECT @q$archived AS [archived], @q$processed AS [processed], @q$dead AS [dead];
END;
GO

-- qgen 0.1.0: maintain rainfall.rainfall_transfer_maintain, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
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
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_maintain]
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
            @Resource = N'qgen.maintain:[rainfall].[rainfall_transfer]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0, @DbPrincipal = @q$principal;
        -- -1: not granted at once, another maintain holds it. -2 (cancelled), -3 (deadlock victim)
        -- and -999 (a call error) are not "someone else is maintaining": refused with the code.
        IF @q$lock = -1
            SET @q$skipped = 1;
        ELSE IF @q$lock < 0
        BEGIN
            DECLARE @q$why nvarchar(2048) = CONCAT(N'qgen: refused on rainfall.rainfall_transfer: maintain could not take its application lock (sp_getapplock returned ',
                @q$lock, N' for principal ', @q$principal, N').');
            THROW 50005, @q$why, 1;
        END
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            EXEC [rainfall].[rainfall_transfer_purge_batch] @older_than_seconds = 604800, @batch_size = @batch_size,
                @archived = @q$archived OUTPUT, @processed = @q$processed OUTPUT, @dead = @q$dead OUTPUT, @result_set = 0;
            EXEC [rainfall].[rainfall_transfer_watermark_correct]
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

-- qgen 0.1.0: job rainfall.rainfall_transfer_job, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
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
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_job]
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
            N' is out of range for rainfall.rainfall_transfer_job; accepted: a job id, 1 or more.');
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
    FROM [rainfall].[rainfall_transfer] AS [j]
    WHERE [j].[id] = @job_id;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state]) VALUES (@job_id, N'not_found');
    SELECT [id], [state], [enqueued_at], [attempts], [last_error], [finished_at] FROM @q$found;
END;
GO

-- qgen 0.1.0: pause rainfall.rainfall_transfer_pause, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job, and a dequeue waiting with @wait_ms keeps waiting. Enqueues go on, and leases already
-- granted run to their end (complete, fail, extend_lease, release and reap work as before).
-- Returns 1 when this call paused the queue, 0 when it was paused already.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_pause]
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
        SELECT @q$was = [paused] FROM [rainfall].[rainfall_transfer_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [rainfall].[rainfall_transfer_control] ([paused], [changed_at], [changed_by]) VALUES (1, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 0;
        END
        ELSE IF @q$was = 0
        BEGIN
            UPDATE [rainfall].[rainfall_transfer_control]
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
            THROW 50005, N'qgen: refused on rainfall.rainfall_transfer: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: resume rainfall.rainfall_transfer_resume, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again (a dequeue waiting with
-- @wait_ms takes one at its next attempt). Returns 1 when this call resumed the queue, 0 when it
-- was not paused.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_resume]
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
        SELECT @q$was = [paused] FROM [rainfall].[rainfall_transfer_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [rainfall].[rainfall_transfer_control] ([paused], [changed_at], [changed_by]) VALUES (0, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 1;
        END
        ELSE IF @q$was = 1
        BEGIN
            UPDATE [rainfall].[rainfall_transfer_control]
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
            THROW 50005, N'qgen: refused on rainfall.rainfall_transfer: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: cancel rainfall.rainfall_transfer_cancel, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
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
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_cancel]
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
        FROM [rainfall].[rainfall_transfer] AS [job] WITH (UPDLOCK, ROWLOCK, READPAST, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]);
        DELETE FROM [rainfall].[rainfall_transfer]
        OUTPUT deleted.[id]
        INTO @q$dead ([id])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on rainfall.rainfall_transfer: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
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
            IF EXISTS (SELECT 1 FROM [rainfall].[rainfall_transfer] WITH (READCOMMITTEDLOCK) WHERE [id] = @q$probe)
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

-- qgen 0.1.0: grants to roles rainfall_producer, rainfall_consumer, rainfall_admin, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue_batch] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue_json] TO [rainfall_producer];
GRANT EXECUTE ON TYPE::[rainfall].[rainfall_events_batch] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_dequeue] TO [rainfall_consumer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_complete] TO [rainfall_consumer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_fail] TO [rainfall_consumer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_extend_lease] TO [rainfall_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_watermark_correct] TO [rainfall_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[rainfall].[rainfall_events] TO [rainfall_consumer];
GRANT VIEW DEFINITION ON OBJECT::[rainfall].[rainfall_events] TO [rainfall_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_maintain] TO [rainfall_consumer];
GRANT SELECT ON OBJECT::[rainfall].[rainfall_events_pending] TO [rainfall_admin];
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_release] TO [rainfall_consumer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue_batch] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue_json] TO [rainfall_producer];
GRANT EXECUTE ON TYPE::[rainfall].[rainfall_transfer_batch] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_dequeue] TO [rainfall_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_watermark_correct] TO [rainfall_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[rainfall].[rainfall_transfer] TO [rainfall_consumer];
GRANT VIEW DEFINITION ON OBJECT::[rainfall].[rainfall_transfer] TO [rainfall_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_maintain] TO [rainfall_consumer];
GRANT SELECT ON OBJECT::[rainfall].[rainfall_transfer_pending] TO [rainfall_admin];
-- The admin role runs every procedure qgen created, and nothing else: each by name, never EXECUTE
-- ON SCHEMA, which in a shared schema (or dbo) would reach every application procedure, present
-- and future (upgrade.sql takes back a schema-wide grant a former version made).
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue_batch] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue_json] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_watermark_move] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_watermark_correct] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_dequeue] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_complete] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_fail] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_extend_lease] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_reap] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_metrics] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_peek] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_purge_batch] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_purge] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_maintain] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_redrive] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_dead_letters] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_job] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_release] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_pause] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_resume] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_cancel] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue_batch] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue_json] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_watermark_move] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_watermark_correct] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_dequeue] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_metrics] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_peek] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_purge_batch] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_purge] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_maintain] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_job] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_pause] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_resume] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_cancel] TO [rainfall_admin];
GRANT EXECUTE ON TYPE::[rainfall].[rainfall_events_batch] TO [rainfall_admin];
GRANT EXECUTE ON TYPE::[rainfall].[rainfall_transfer_batch] TO [rainfall_admin];
GO

-- qgen 0.1.0: verify rainfall, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
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
WHERE [s].[name] = N'rainfall'
  AND [o].[name] IN
  (
      N'rainfall_events',
      N'rainfall_events_claim_ix',
      N'rainfall_events_lease_ix',
      N'rainfall_events_processed_ix',
      N'rainfall_events_watermark',
      N'rainfall_events_dead',
      N'rainfall_events_dead_ix',
      N'rainfall_events_pending',
      N'rainfall_events_batch',
      N'rainfall_events_enqueue',
      N'rainfall_events_enqueue_batch',
      N'rainfall_events_enqueue_json',
      N'rainfall_events_watermark_move',
      N'rainfall_events_watermark_correct',
      N'rainfall_events_control',
      N'rainfall_events_dequeue',
      N'rainfall_transfer',
      N'rainfall_events_complete',
      N'rainfall_events_fail',
      N'rainfall_events_extend_lease',
      N'rainfall_events_reap',
      N'rainfall_events_metrics',
      N'rainfall_events_peek',
      N'rainfall_events_purge_batch',
      N'rainfall_events_purge',
      N'rainfall_events_maintain',
      N'rainfall_events_redrive',
      N'rainfall_events_dead_letters',
      N'rainfall_events_job',
      N'rainfall_events_release',
      N'rainfall_events_pause',
      N'rainfall_events_resume',
      N'rainfall_events_cancel',
      N'rainfall_transfer_watermark',
      N'rainfall_transfer_pending',
      N'rainfall_transfer_batch',
      N'rainfall_transfer_enqueue',
      N'rainfall_transfer_enqueue_batch',
      N'rainfall_transfer_enqueue_json',
      N'rainfall_transfer_watermark_move',
      N'rainfall_transfer_watermark_correct',
      N'rainfall_transfer_control',
      N'rainfall_transfer_dequeue',
      N'rainfall_transfer_metrics',
      N'rainfall_transfer_peek',
      N'rainfall_transfer_purge_batch',
      N'rainfall_transfer_purge',
      N'rainfall_transfer_maintain',
      N'rainfall_transfer_job',
      N'rainfall_transfer_pause',
      N'rainfall_transfer_resume',
      N'rainfall_transfer_cancel'
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
IF OBJECT_ID(N'rainfall.rainfall_events') IS NULL
    SET @q$missing += N' rainfall.rainfall_events';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'rainfall_events_claim_ix' AND [object_id] = OBJECT_ID(N'rainfall.rainfall_events'))
    SET @q$missing += N' rainfall.rainfall_events_claim_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'rainfall_events_lease_ix' AND [object_id] = OBJECT_ID(N'rainfall.rainfall_events'))
    SET @q$missing += N' rainfall.rainfall_events_lease_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'rainfall_events_processed_ix' AND [object_id] = OBJECT_ID(N'rainfall.rainfall_events'))
    SET @q$missing += N' rainfall.rainfall_events_processed_ix';
IF OBJECT_ID(N'rainfall.rainfall_events_watermark') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_watermark';
IF OBJECT_ID(N'rainfall.rainfall_events_dead') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_dead';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'rainfall_events_dead_ix' AND [object_id] = OBJECT_ID(N'rainfall.rainfall_events_dead'))
    SET @q$missing += N' rainfall.rainfall_events_dead_ix';
IF OBJECT_ID(N'rainfall.rainfall_events_pending') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_pending';
IF TYPE_ID(N'rainfall.rainfall_events_batch') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_batch';
IF OBJECT_ID(N'rainfall.rainfall_events_enqueue') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_enqueue';
IF OBJECT_ID(N'rainfall.rainfall_events_enqueue_batch') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_enqueue_batch';
IF OBJECT_ID(N'rainfall.rainfall_events_enqueue_json') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_enqueue_json';
IF OBJECT_ID(N'rainfall.rainfall_events_watermark_move') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_watermark_move';
IF OBJECT_ID(N'rainfall.rainfall_events_watermark_correct') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_watermark_correct';
IF OBJECT_ID(N'rainfall.rainfall_events_control') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_control';
IF OBJECT_ID(N'rainfall.rainfall_events_dequeue') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_dequeue';
IF OBJECT_ID(N'rainfall.rainfall_transfer') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer';
IF OBJECT_ID(N'rainfall.rainfall_events_complete') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_complete';
IF OBJECT_ID(N'rainfall.rainfall_events_fail') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_fail';
IF OBJECT_ID(N'rainfall.rainfall_events_extend_lease') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_extend_lease';
IF OBJECT_ID(N'rainfall.rainfall_events_reap') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_reap';
IF OBJECT_ID(N'rainfall.rainfall_events_metrics') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_metrics';
IF OBJECT_ID(N'rainfall.rainfall_events_peek') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_peek';
IF OBJECT_ID(N'rainfall.rainfall_events_purge_batch') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_purge_batch';
IF OBJECT_ID(N'rainfall.rainfall_events_purge') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_purge';
IF OBJECT_ID(N'rainfall.rainfall_events_maintain') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_maintain';
IF OBJECT_ID(N'rainfall.rainfall_events_redrive') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_redrive';
IF OBJECT_ID(N'rainfall.rainfall_events_dead_letters') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_dead_letters';
IF OBJECT_ID(N'rainfall.rainfall_events_job') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_job';
IF OBJECT_ID(N'rainfall.rainfall_events_release') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_release';
IF OBJECT_ID(N'rainfall.rainfall_events_pause') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_pause';
IF OBJECT_ID(N'rainfall.rainfall_events_resume') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_resume';
IF OBJECT_ID(N'rainfall.rainfall_events_cancel') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_cancel';
IF OBJECT_ID(N'rainfall.rainfall_transfer_watermark') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_watermark';
IF OBJECT_ID(N'rainfall.rainfall_transfer_pending') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_pending';
IF TYPE_ID(N'rainfall.rainfall_transfer_batch') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_batch';
IF OBJECT_ID(N'rainfall.rainfall_transfer_enqueue') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_enqueue';
IF OBJECT_ID(N'rainfall.rainfall_transfer_enqueue_batch') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_enqueue_batch';
IF OBJECT_ID(N'rainfall.rainfall_transfer_enqueue_json') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_enqueue_json';
IF OBJECT_ID(N'rainfall.rainfall_transfer_watermark_move') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_watermark_move';
IF OBJECT_ID(N'rainfall.rainfall_transfer_watermark_correct') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_watermark_correct';
IF OBJECT_ID(N'rainfall.rainfall_transfer_control') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_control';
IF OBJECT_ID(N'rainfall.rainfall_transfer_dequeue') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_dequeue';
IF OBJECT_ID(N'rainfall.rainfall_transfer_metrics') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_metrics';
IF OBJECT_ID(N'rainfall.rainfall_transfer_peek') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_peek';
IF OBJECT_ID(N'rainfall.rainfall_transfer_purge_batch') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_purge_batch';
IF OBJECT_ID(N'rainfall.rainfall_transfer_purge') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_purge';
IF OBJECT_ID(N'rainfall.rainfall_transfer_maintain') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_maintain';
IF OBJECT_ID(N'rainfall.rainfall_transfer_job') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_job';
IF OBJECT_ID(N'rainfall.rainfall_transfer_pause') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_pause';
IF OBJECT_ID(N'rainfall.rainfall_transfer_resume') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_resume';
IF OBJECT_ID(N'rainfall.rainfall_transfer_cancel') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_cancel';
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
WHERE [s].[name] = N'rainfall'
  AND [o].[name] IN
  (
      N'rainfall_events_maintain',
      N'rainfall_transfer_maintain'
  )
  AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$owners <> N''
BEGIN
    DECLARE @q$impersonate nvarchar(2048) = LEFT(N'qgen: maintain runs WITH EXECUTE AS OWNER, which cannot impersonate its owner, '
        + N'so every call of it fails:' + @q$owners + N'. Give schema [rainfall] to a user, ALTER AUTHORIZATION ON SCHEMA::'
        + N'[rainfall] TO [dbo]; (a procedure given an owner of its own: ALTER AUTHORIZATION ON OBJECT::... TO SCHEMA OWNER;), '
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
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'rainfall.' + [r].[name]), N' '))
FROM
(
    VALUES
        (N'rainfall_events_cancel', 0x02E739715036CC161A2382F1BC9A1F023F0B7CFB7FABA6B9B529A206C903C65F),
        (N'rainfall_events_complete', 0x081E56B82761CC3ADF93EFFEC31E19CA7EDBC76CD20061C68374EDCAEF8FFED8),
        (N'rainfall_events_dead_letters', 0x08A723DF4FBF75897E26686371023A898F3B6629E09CD4DFA44904DFC854DD97),
        (N'rainfall_events_dequeue', 0xDECD639B7B9EB0AB3514060B27A58B4C19E725D1597C2DF018B3523D938943EF),
        (N'rainfall_events_enqueue', 0x39EB463CD90F9397D8920C9628759D4DACED171E1602EE133CFC2250F1F6D8A0),
        (N'rainfall_events_enqueue_batch', 0x780B67F105E1236820FD858F6C60E36D051FDF6723C7CB9FAE35269F55BCD81F),
        (N'rainfall_events_enqueue_json', 0xB2C718D9E5D12B6EE2F7849C6E36E4CFA091E0D076DDD513CBBA3A2AC8E00769),
        (N'rainfall_events_extend_lease', 0xDD5AC7D59A566725DCF2592DCC8C91029F75715EB66F2AA19F04459E1CFD43E1),
        (N'rainfall_events_fail', 0x09699E10EDA96452CC32760A496AB9D61B3C6BE363EE4C52C96FBFF307B703B6),
        (N'rainfall_events_job', 0x65E3E43E29AFF88B24E116D08449975D95B524398C3532552EEAB9FDEFE77BB2),
        (N'rainfall_events_maintain', 0xD39C5D8F36776267E421CECCB96B07B24A33019D881FD2E3E1320597F17C3316),
        (N'rainfall_events_metrics', 0x15F942387430C1C0659634F01940C7A77D8FDE8BC9AB11501BA2B243EB189A45),
        (N'rainfall_events_pause', 0xE13D234455B80A4F352713CF245BCE93F94A395C9BDF056A1C57D6955B119B4A),
        (N'rainfall_events_peek', 0xF661DE30B0942B5BBD5CD0801883088FA634E96355F774D29CED069D143013BB),
        (N'rainfall_events_pending', 0xF6EE67C154BBDB3C53E903862E24FD050158800BA6AC362A27A68FB91B8B6F33),
        (N'rainfall_events_purge', 0x0A2AA955DA8D9227ED5533F8ED1551FC9D1B3510C230EDA03B35240636B9B1F8),
        (N'rainfall_events_purge_batch', 0xC8CB078914FB4D5A9F5EF73D28EB6FF6867D86132080CEEB0AA875681B40FFC9),
        (N'rainfall_events_reap', 0x9D604EC106B61C2B73595761804C8CEDCC254F0B42D062504E66425D4C02FF52),
        (N'rainfall_events_redrive', 0x6D791A1E847FFD6AE16FCA00B071F0383B8692008057E4FE4B1CA548967929A6),
        (N'rainfall_events_release', 0xB5548477F791788D0CEA2C165F2721D49956BA62FF3050740076843DE5EA5BB1),
        (N'rainfall_events_resume', 0x084D7B7A81FAAD97F55C37907D03842C8812AC954D29639E37BB04B1A49FED78),
        (N'rainfall_events_watermark_correct', 0xD1D03D3D300CF4C1B6F3CF873D0B229F4E93A0C963D85A19E7C77A771DCB10C6),
        (N'rainfall_events_watermark_move', 0xF5869882EB8414873736AE334E2EE03BA5B28C6CFF74A468827E7DB04596F462),
        (N'rainfall_transfer_cancel', 0x9FEB7CFEAA16E835125BE54317AFCC9BEBD82BFDCCBDCAFCC67D832B44C681B4),
        (N'rainfall_transfer_dequeue', 0x3EC955943F07D4301F07E7E99C36EC848E8B46F7EE764042D569D8825B889683),
        (N'rainfall_transfer_enqueue', 0x4D6FC5912A895AD8CDAFD76A83A05DED7AAB754D145C8E1CE37C2C99AF121015),
        (N'rainfall_transfer_enqueue_batch', 0x181750DECA8D6EF0F0E4CAE15000C901F0A6C1152D621F99701889FE13E1F24D),
        (N'rainfall_transfer_enqueue_json', 0x66AE0B4A53B56CB2FD5E7B5279CD2B22DA4A6941FBA6A3B79B9EEE9FFA7C2482),
        (N'rainfall_transfer_job', 0x9AA4523E72AED9CF533831C11DFEA30476CCC77EB56BD1DDC269B2F17B4754FA),
        (N'rainfall_transfer_maintain', 0xB644A41001F4BCA64539E498A866C48CF03E51582944C98C99BEF566447C0F3B),
        (N'rainfall_transfer_metrics', 0xE6B692A0CC2F7C6D9C117F5FE961541E1D19314EEA329C47D2D7FDBE4A512A2E),
        (N'rainfall_transfer_pause', 0x2428594080FCA2FE872BF2E1F1483E9E385B903C97B61EE5C4EA908F1C40E0AF),
        (N'rainfall_transfer_peek', 0xE1F6ADA6EF26617A17C86954F520964B088C8151A7A0D88731C74B5EFD74C0C0),
        (N'rainfall_transfer_pending', 0x2B907C1747578186799C5DC23885950914028F807232A3F7E1C58B18BF8D1D71),
        (N'rainfall_transfer_purge', 0x43BF9D0F0B1BBE34F585A91E4FDFAA236858B2379B8C8EFA6D861DD5D2895E45),
        (N'rainfall_transfer_purge_batch', 0xF5A6E6B3E79F117B55B357EFE8D34DFD16E225DD354C35C32DBDAA43B0C50A7F),
        (N'rainfall_transfer_resume', 0x782863171E3BBAC5413F723C944A9123FBDA778638001C85AA40901C9FEA3E15),
        (N'rainfall_transfer_watermark_correct', 0xDD95FE9587A01C6DD49E6306429C75EBC0373D144C57496D9DC086CDAB543FD1),
        (N'rainfall_transfer_watermark_move', 0xBBD6CFBBC32DFAD228537EC2E2AE77D60E4349EC9AA33464C1908A36C65D3741)
) AS [r]([name], [fingerprint])
INNER JOIN sys.sql_modules AS [sm] ON [sm].[object_id] = OBJECT_ID(N'rainfall.' + [r].[name])
CROSS APPLY (SELECT [sm].[definition] COLLATE Latin1_General_BIN2 AS [text]) AS [d]
WHERE HASHBYTES('SHA2_256', REPLACE(REPLACE(REPLACE(REPLACE(
          SUBSTRING([d].[text], CHARINDEX(N'[rainfall].[' + [r].[name] + N']' COLLATE Latin1_General_BIN2, [d].[text]), LEN([d].[text])),
          NCHAR(32), N''), NCHAR(9), N''), NCHAR(10), N''), NCHAR(13), N'')) <> [r].[fingerprint];
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'rainfall.' + [r].[table] + N'.' + [r].[name]
    + N' (' + COALESCE([shape].[now], N'?') + N', rendered ' + [r].[shape] + N')'), N' '))
FROM
(
    VALUES
        (N'rainfall_events', N'rainfall_events_claim_ix', N'(id) include (available_at, deferred, lease_token, processed) where'),
        (N'rainfall_events', N'rainfall_events_claim_ix_due', N'(available_at, id) include (deferred) where'),
        (N'rainfall_events', N'rainfall_events_lease_ix', N'(lease_token) include (attempts, lease_expires_at) where'),
        (N'rainfall_events', N'rainfall_events_processed_ix', N'(processed_at) include (processed) where'),
        (N'rainfall_events_dead', N'rainfall_events_dead_id_ix', N'(id)'),
        (N'rainfall_events_dead', N'rainfall_events_dead_ix', N'(dead_at)')
) AS [r]([table], [name], [shape])
INNER JOIN sys.indexes AS [i] ON [i].[object_id] = OBJECT_ID(N'rainfall.' + [r].[table]) AND [i].[name] = [r].[name]
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
