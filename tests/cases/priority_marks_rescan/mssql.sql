-- qgen 0.1.0: every object of spec.yaml, for SQL Server (T-SQL), in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- qgen 0.1.0: schema qgreview, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Refused before anything is created: a schema that exists and is owned by a database role (or an
-- application role, a group, a user mapped to a certificate or key). Its procedures are owned by
-- that owner, and maintain runs WITH EXECUTE AS OWNER, which can impersonate only a user: every
-- call of maintain would fail (error 15517) long after install succeeded. sqlcmd and SSMS go on to
-- the next batch after an error: the batch after the refusal sets NOEXEC ON, so no later batch runs
-- (verify, install's last batch, sets it OFF again).
DECLARE @q$refused nvarchar(2048);
SELECT @q$refused = CONCAT(N'qgen: install refused: schema [qgreview] is owned by ', QUOTENAME([p].[name]), N' (',
    [p].[type_desc], N'), which EXECUTE AS OWNER cannot impersonate: qgen''s maintain procedures run as the schema''s owner, ',
    N'so every call of maintain would fail. Give the schema to a user, ALTER AUTHORIZATION ON SCHEMA::[qgreview] TO [dbo]; ',
    N'(or to another user), then run install.sql again.')
FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'qgreview' AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$refused IS NOT NULL
    THROW 50022, @q$refused, 1;
GO

IF EXISTS (SELECT 1 FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'qgreview' AND [p].[type] NOT IN ('S', 'U', 'E'))
    SET NOEXEC ON;
GO

-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
-- A schema install creates is marked (extended property qgen.created): uninstall drops only such a one.
IF SCHEMA_ID(N'qgreview') IS NULL
BEGIN
    EXEC(N'CREATE SCHEMA [qgreview] AUTHORIZATION [dbo];');
    EXEC sys.sp_addextendedproperty @name = N'qgen.created', @value = N'created by the install of qgen''s queues',
        @level0type = N'SCHEMA', @level0name = N'qgreview';
END;
GO

-- qgen 0.1.0: roles qgreview_producer, qgreview_consumer, qgreview_admin (database roles), rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
-- A role install creates is recorded on the schema (extended property qgen.created_role.<role>):
-- uninstall drops only such a one, never a role that was there before and that the spec only names.
IF DATABASE_PRINCIPAL_ID(N'qgreview_producer') IS NULL
BEGIN
    CREATE ROLE [qgreview_producer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'qgreview') AND [name] = N'qgen.created_role.qgreview_producer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.qgreview_producer', @value = N'qgreview_producer',
            @level0type = N'SCHEMA', @level0name = N'qgreview';
END;
IF DATABASE_PRINCIPAL_ID(N'qgreview_consumer') IS NULL
BEGIN
    CREATE ROLE [qgreview_consumer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'qgreview') AND [name] = N'qgen.created_role.qgreview_consumer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.qgreview_consumer', @value = N'qgreview_consumer',
            @level0type = N'SCHEMA', @level0name = N'qgreview';
END;
IF DATABASE_PRINCIPAL_ID(N'qgreview_admin') IS NULL
BEGIN
    CREATE ROLE [qgreview_admin];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'qgreview') AND [name] = N'qgen.created_role.qgreview_admin')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.qgreview_admin', @value = N'qgreview_admin',
            @level0type = N'SCHEMA', @level0name = N'qgreview';
END;
GO

-- qgen 0.1.0: table qgreview.prio, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'qgreview.prio', N'U') IS NULL
BEGIN
    CREATE TABLE [qgreview].[prio]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [n] int NOT NULL,
        [priority] int NOT NULL CONSTRAINT [prio_priority_df] DEFAULT (0),
        [available_at] datetime2(3) NOT NULL CONSTRAINT [prio_available_at_df] DEFAULT (SYSUTCDATETIME()),
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [prio_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        [attempts] int NOT NULL CONSTRAINT [prio_attempts_df] DEFAULT (0),
        [lease_token] uniqueidentifier NULL,
        [lease_owner] nvarchar(128) NULL,
        [lease_expires_at] datetime2(3) NULL,
        [last_error] nvarchar(4000) NULL,
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [prio_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: claim_index qgreview.prio_claim_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'prio_claim_ix' AND object_id = OBJECT_ID(N'qgreview.prio'))
    CREATE NONCLUSTERED INDEX [prio_claim_ix]
    ON [qgreview].[prio] ([priority] DESC, [id])
    INCLUDE ([available_at], [lease_token])
    WHERE [lease_token] IS NULL;
GO

-- qgen 0.1.0: lease_index qgreview.prio_lease_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'prio_lease_ix' AND object_id = OBJECT_ID(N'qgreview.prio'))
    CREATE NONCLUSTERED INDEX [prio_lease_ix]
    ON [qgreview].[prio] ([lease_token]) INCLUDE ([lease_expires_at], [attempts])
    WHERE [lease_token] IS NOT NULL;
GO

-- qgen 0.1.0: dead_letter_table qgreview.prio_dead, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: [id] is the job's id, which repeats once the queue's identity is reseeded.
IF OBJECT_ID(N'qgreview.prio_dead', N'U') IS NULL
BEGIN
    CREATE TABLE [qgreview].[prio_dead]
    (
        [entry_id] bigint IDENTITY(1, 1) NOT NULL,
        [id] bigint NOT NULL,
        [n] int NOT NULL,
        [priority] int NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL,
        [last_error] nvarchar(4000) NULL,
        [dead_at] datetime2(3) NOT NULL CONSTRAINT [prio_dead_dead_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [prio_dead_pk] PRIMARY KEY CLUSTERED ([entry_id])
    );
END;
GO

-- qgen 0.1.0: dead_letter_index qgreview.prio_dead_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'prio_dead_ix' AND object_id = OBJECT_ID(N'qgreview.prio_dead'))
    CREATE NONCLUSTERED INDEX [prio_dead_ix]
    ON [qgreview].[prio_dead] ([dead_at]);
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'prio_dead_id_ix' AND object_id = OBJECT_ID(N'qgreview.prio_dead'))
    CREATE NONCLUSTERED INDEX [prio_dead_id_ix]
    ON [qgreview].[prio_dead] ([id]);
GO

-- qgen 0.1.0: pending_view qgreview.prio_pending, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [qgreview].[prio_pending]
AS
SELECT [id], [n], [priority], [available_at], [enqueued_at], [attempts], [last_error]
FROM [qgreview].[prio]
WHERE [lease_token] IS NULL;
GO

-- qgen 0.1.0: batch_type qgreview.prio_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it. Its columns are one wider than the
-- table's (m.param_type): a caller's insert into a variable of this type cannot cut or round a value
-- past its column unseen; enqueue_batch refuses it with error 50010.
IF TYPE_ID(N'qgreview.prio_batch') IS NULL
    CREATE TYPE [qgreview].[prio_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [n] int NOT NULL,
        [priority] int NOT NULL DEFAULT (0),
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue qgreview.prio_enqueue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0). A value past its column's
-- limit is refused with error 50010, never cut or rounded: its parameter is one wider (m.param_type).
CREATE OR ALTER PROCEDURE [qgreview].[prio_enqueue]
    @n int,
    @priority int = 0
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL);
    BEGIN TRY
        INSERT INTO [qgreview].[prio] ([n], [priority])
        -- OUTPUT INTO a table variable: a bare OUTPUT fails once someone adds a trigger to the table (error 334).
        OUTPUT inserted.[id] INTO @q$new ([id])
        VALUES (@n, @priority);
        SELECT [id], CAST(1 AS bit) AS [enqueued] FROM @q$new;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch qgreview.prio_enqueue_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement (at most 1999: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row.
CREATE OR ALTER PROCEDURE [qgreview].[prio_enqueue_batch]
    @jobs [qgreview].[prio_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 1999
        THROW 50003, N'qgen: a batch of more than 1999 jobs is out of range for qgreview.prio: one statement writing more could escalate to a table lock; accepted: 1 to 1999 jobs per call (split the batch; the client does).', 1;
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [qgreview].[prio] ([n], [priority])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[n], [j].[priority]
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

-- qgen 0.1.0: enqueue_json qgreview.prio_enqueue_json, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- enqueue_batch for callers that cannot send a table-valued parameter (pyodbc through FreeTDS):
-- the same jobs as one JSON array of objects, one per job, keyed by the batch type's column names.
-- Every job-type and payload column's key must be there (strict paths: a missing or misspelt key is
-- an error, never a silent NULL; give null for no value); "ordinal" (the job's position in the
-- array, from 1), "priority" and "run_at" are optional. A datetime is ISO 8601, UTC when
-- it has no offset; a json column is the JSON text as a string. Needs SQL Server 2016 or later and
-- database compatibility level 130 or higher (OPENJSON). Returns what enqueue_batch returns.
CREATE OR ALTER PROCEDURE [qgreview].[prio_enqueue_json]
    @jobs nvarchar(max)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$batch [qgreview].[prio_batch];
    BEGIN TRY
        INSERT INTO @q$batch ([ordinal], [n], [priority])
        SELECT COALESCE([j].[ordinal], CAST([a].[key] AS int) + 1),
               [j].[n],
               COALESCE([j].[priority], 0)
        FROM OPENJSON(@jobs) AS [a]
        CROSS APPLY OPENJSON([a].[value])
        WITH
        (
            [ordinal] int '$.ordinal',
            [n] int 'strict $.n',
            [priority] int '$.priority'
        ) AS [j];
        IF (SELECT COUNT(*) FROM @q$batch) > 1999
            THROW 50003, N'qgen: a batch of more than 1999 jobs is out of range for qgreview.prio: one statement writing more could escalate to a table lock; accepted: 1 to 1999 jobs per call (split the batch; the client does).', 1;
        BEGIN TRANSACTION;
        INSERT INTO [qgreview].[prio] ([n], [priority])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[n], [j].[priority]
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

-- qgen 0.1.0: control_table qgreview.prio_control, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which login). Every
-- claim reads it first, WITH (READPAST, READCOMMITTEDLOCK): a pause or resume counts from its
-- commit, and no claim waits on one left open. A missing row (deleted by hand) reads as running.
IF OBJECT_ID(N'qgreview.prio_control', N'U') IS NULL
BEGIN
    CREATE TABLE [qgreview].[prio_control]
    (
        [one_row] bit NOT NULL CONSTRAINT [prio_control_one_row_df] DEFAULT (1),
        [paused] bit NOT NULL CONSTRAINT [prio_control_paused_df] DEFAULT (0),
        [changed_at] datetime2(3) NULL,
        [changed_by] nvarchar(128) NULL,
        CONSTRAINT [prio_control_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [prio_control_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [qgreview].[prio_control])
    INSERT INTO [qgreview].[prio_control] ([paused]) VALUES (0);
GO

-- qgen 0.1.0: dequeue qgreview.prio_dequeue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With @complete_lease_token it first completes that lease's jobs as complete(@lease_token) does,
-- in the same transaction: one commit per batch instead of two. A token that holds no job raises
-- 50001 and nothing is claimed.
CREATE OR ALTER PROCEDURE [qgreview].[prio_dequeue]
    @owner nvarchar(129) = NULL,
    @batch_size int = 5,
    @lease_seconds int = 60,
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
            N' is out of range for qgreview.prio_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in qgreview.prio_dequeue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF @lease_seconds IS NULL OR @lease_seconds < 1
        THROW 50003, N'qgen: @lease_seconds is out of range; accepted: 1 or more seconds.', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on qgreview.prio: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$token uniqueidentifier = NEWID();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [n] int NOT NULL,
        [priority] int NOT NULL,
        [attempts] int NOT NULL,
        [lease_token] uniqueidentifier NOT NULL,
        [lease_expires_at] datetime2(3) NOT NULL
    );
    BEGIN TRY
        -- @wait_ms: each attempt to claim starts here, in a transaction of its own (see the wait block below).
    q$attempt:
        BEGIN TRANSACTION;
        IF @complete_lease_token IS NOT NULL
        BEGIN
            DECLARE @q$held TABLE ([id] bigint NOT NULL PRIMARY KEY);
            INSERT INTO @q$held ([id])
            SELECT [id] FROM [qgreview].[prio] WHERE [lease_token] = @complete_lease_token;
            DELETE FROM [qgreview].[prio]
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @complete_lease_token;

            IF @@ROWCOUNT = 0
                THROW 50001, N'qgen: lease lost on qgreview.prio: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [qgreview].[prio_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
        ;WITH [next_job] AS
        (
            SELECT TOP (@batch_size) [id], [n], [priority], [attempts], [lease_token], [lease_owner], [lease_expires_at]
            -- The one reference to the table: these hints hold for every row the claim reads.
            FROM [qgreview].[prio] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [lease_token] IS NULL AND [available_at] <= @q$now
            ORDER BY [priority] DESC, [id]
        )
        UPDATE [next_job]
        SET [lease_token] = @q$token,
            [lease_owner] = @owner,
            [lease_expires_at] = DATEADD(second, @lease_seconds, @q$now),
            [attempts] = [attempts] + 1
        OUTPUT inserted.[id], inserted.[n], inserted.[priority], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
        INTO @q$claimed ([id], [n], [priority], [attempts], [lease_token], [lease_expires_at])
        -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
        OPTION (OPTIMIZE FOR (@batch_size = 1));
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
        SELECT [id], [n], [priority], [attempts], [lease_token], [lease_expires_at]
        FROM @q$claimed
        ORDER BY [priority] DESC, [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: complete qgreview.prio_complete, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: deletes them. With @id, only that job; without, every job of
-- the lease. The token is the fence: a worker whose lease was released or taken over gets error 50001.
CREATE OR ALTER PROCEDURE [qgreview].[prio_complete]
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
            SELECT [id] FROM [qgreview].[prio] WHERE [lease_token] = @lease_token;
            DELETE FROM [qgreview].[prio]
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;

            SET @q$completed = @@ROWCOUNT;
        END
        ELSE
        BEGIN
            DELETE FROM [qgreview].[prio]
            WHERE [id] = @id AND [lease_token] = @lease_token;

            SET @q$completed = @@ROWCOUNT;
        END;
        IF @q$completed = 0
            THROW 50001, N'qgen: lease lost on qgreview.prio: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        COMMIT TRANSACTION;
        RETURN @q$completed;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: fail qgreview.prio_fail, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 5) and @retry = 1 it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR ALTER PROCEDURE [qgreview].[prio_fail]
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
        [n] int NOT NULL,
        [priority] int NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL
    );
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK: a locking read of the current row (also under READ_COMMITTED_SNAPSHOT), held
        -- until commit, so a reaper cannot release the job between this read and the change below.
        SELECT @q$attempts = [attempts]
        FROM [qgreview].[prio] WITH (UPDLOCK, ROWLOCK)
        WHERE [id] = @id AND [lease_token] = @lease_token;
        IF @q$attempts IS NULL
            THROW 50001, N'qgen: lease lost on qgreview.prio: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        IF @retry = 1 AND @q$attempts < 5
        BEGIN
            UPDATE [qgreview].[prio]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [last_error] = @q$error,
                [available_at] = DATEADD(second, CAST(CASE WHEN 10 * POWER(CAST(2 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) > 3600 THEN 3600 ELSE 10 * POWER(CAST(2 AS float), CASE WHEN @q$attempts > 61 THEN 60 ELSE @q$attempts - 1 END) END AS int), @q$now)
            WHERE [id] = @id;
            COMMIT TRANSACTION;
            RETURN 0;
        END;
        DELETE FROM [qgreview].[prio]
        OUTPUT deleted.[id], deleted.[n], deleted.[priority], deleted.[enqueued_at], deleted.[attempts]
        INTO @q$dead ([id], [n], [priority], [enqueued_at], [attempts])
        WHERE [id] = @id;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [qgreview].[prio_dead] ([id], [n], [priority], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [n], [priority], [enqueued_at], [attempts], @q$error, @q$now FROM @q$dead;
        COMMIT TRANSACTION;
        RETURN 1;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: extend_lease qgreview.prio_extend_lease, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire @lease_seconds from now.
CREATE OR ALTER PROCEDURE [qgreview].[prio_extend_lease]
    @lease_token uniqueidentifier,
    @lease_seconds int = 60,
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
            SELECT [id] FROM [qgreview].[prio] WHERE [lease_token] = @lease_token;
            UPDATE [qgreview].[prio] SET [lease_expires_at] = @q$until WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [qgreview].[prio] SET [lease_expires_at] = @q$until WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$extended = @@ROWCOUNT;
        IF @q$extended = 0
        BEGIN
            IF @id IS NOT NULL AND EXISTS (SELECT 1 FROM [qgreview].[prio_dead] AS [d]
                                           WHERE [d].[id] = @id AND [d].[last_error] = N'cancelled')
                THROW 50006, N'qgen: job cancelled on qgreview.prio: cancel took it out of the queue while its lease ran; stop working on it (its complete and fail are refused).', 1;
            THROW 50001, N'qgen: lease lost on qgreview.prio: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        END;
        RETURN @q$extended;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: reap qgreview.prio_reap, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- @batch_size per call so it never holds many locks: those with attempts left become claimable
-- again, with their old token cleared so the late worker is fenced off; the rest are dead-lettered.
CREATE OR ALTER PROCEDURE [qgreview].[prio_reap]
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
            N' is out of range for qgreview.prio_reap; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$expired TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$freed TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [n] int NOT NULL,
        [priority] int NOT NULL,
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
        FROM [qgreview].[prio] WITH (READPAST, READCOMMITTEDLOCK)
        WHERE [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        -- Each statement reads the table once, through its CTE (as dequeue's claim does). UPDLOCK
        -- (and the statement's own update locks) make these locking reads of current rows.
        ;WITH [expired] AS
        (
            SELECT TOP (@batch_size) [id], [lease_token], [lease_owner], [lease_expires_at], [available_at], [last_error]            FROM [qgreview].[prio] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)
            WHERE [id] IN (SELECT [id] FROM @q$expired)
              AND [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now AND [attempts] < 5
        )
        UPDATE [expired]
        SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now,
            [last_error] = N'qgen: lease expired before the job was completed'
        OUTPUT inserted.[id] INTO @q$freed ([id])
        -- Planned for one row, whatever @batch_size the first call sniffed.
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$released = @@ROWCOUNT;

        -- Out of attempts: what is left of the batch.
        ;WITH [expired] AS
        (
            SELECT TOP (@batch_size - @q$released) [id], [n], [priority], [enqueued_at], [attempts]
            FROM [qgreview].[prio] WITH (ROWLOCK, READPAST, UPDLOCK, INDEX(1), FORCESEEK)
            WHERE [id] IN (SELECT [id] FROM @q$expired)
              AND [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now AND [attempts] >= 5
        )
        DELETE FROM [expired]
        OUTPUT deleted.[id], deleted.[n], deleted.[priority], deleted.[enqueued_at], deleted.[attempts]
        INTO @q$dead ([id], [n], [priority], [enqueued_at], [attempts])
        OPTION (OPTIMIZE FOR (@batch_size = 1, @q$released = 0));
        SET @q$dead_lettered = @@ROWCOUNT;
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [qgreview].[prio_dead] ([id], [n], [priority], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [n], [priority], [enqueued_at], [attempts], N'qgen: lease expired on the last attempt', @q$now FROM @q$dead;
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

-- qgen 0.1.0: metrics qgreview.prio_metrics, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now, for dashboards and alerts. Each count reads the one index that
-- holds its rows (claim, due, lease, processed index; the dead-letter and archive tables), never the
-- whole queue table (finished rows included), and does not wait on a row: WITH (READPAST,
-- READCOMMITTEDLOCK) skips a row another transaction holds (a job being claimed, completed or enqueued right now),
-- the watermark's one row is read WITH (NOLOCK). So under concurrency the numbers are approximate:
-- a job changing at that moment is counted in neither state, and the counts are not one snapshot.
-- READPAST skips row and page locks only: a table lock (an escalated lock of a large transaction,
-- uninstall's TABLOCKX, an offline index build) still makes it wait.
CREATE OR ALTER PROCEDURE [qgreview].[prio_metrics]
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
    SELECT @q$ready = COUNT_BIG(CASE WHEN [available_at] <= @q$now THEN 1 END),
        @q$scheduled = COUNT_BIG(CASE WHEN [available_at] > @q$now THEN 1 END),
        @q$oldest_id = MIN(CASE WHEN [available_at] <= @q$now THEN [id] END),
        @q$lowest = MIN([id])
    FROM [qgreview].[prio] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [lease_token] IS NULL;
    -- Jobs in flight: the lease index.
    SELECT @q$in_flight = COUNT_BIG(*), @q$expired = COUNT_BIG(CASE WHEN [lease_expires_at] < @q$now THEN 1 END)
    FROM [qgreview].[prio] WITH (READPAST, READCOMMITTEDLOCK)
    WHERE [lease_token] IS NOT NULL;
    SELECT @q$dead = COUNT_BIG(*) FROM [qgreview].[prio_dead] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$ready AS [ready], @q$scheduled AS [scheduled], @q$in_flight AS [in_flight], @q$expired AS [expired],
        @q$processed AS [processed], @q$dead AS [dead], @q$archived AS [archived],
        -- The age of the oldest ready job: the one with the lowest id (ids grow with enqueued_at).
        COALESCE(DATEDIFF_BIG(second, (SELECT [enqueued_at] FROM [qgreview].[prio] WITH (READPAST, READCOMMITTEDLOCK) WHERE [id] = @q$oldest_id), @q$now), 0)
            AS [oldest_ready_age_seconds],
        @q$watermark AS [watermark],
        @q$lowest AS [lowest_pending_id],
        -- on_complete: delete leaves no trace of a completion to count.
        CAST(NULL AS bigint) AS [completed_last_minute],
        CAST(NULL AS bigint) AS [watermark_lag],
        CAST(CASE WHEN NOT EXISTS (SELECT 1 FROM [qgreview].[prio_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0) THEN 1 ELSE 0 END AS bit) AS [paused];
END;
GO

-- qgen 0.1.0: peek qgreview.prio_peek, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them.
CREATE OR ALTER PROCEDURE [qgreview].[prio_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    -- NULL or negative is refused with the other argument checks' code (TOP would raise 1014).
    IF @limit IS NULL OR @limit < 0
        THROW 50003, N'qgen: @limit is out of range for qgreview.prio_peek; accepted: 0 or more rows.', 1;
    SELECT TOP (@limit) [id], [n], [priority], [available_at], [enqueued_at], [attempts], [last_error]
    FROM [qgreview].[prio_pending]
    ORDER BY [priority] DESC, [id];
END;
GO

-- qgen 0.1.0: purge_batch qgreview.prio_purge_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds: at most @batch_size rows (1000 by default, refused above 1999) over all those
-- tables together, in one transaction (the caller's, when there is one). purge loops over batches;
-- maintain runs one.
CREATE OR ALTER PROCEDURE [qgreview].[prio_purge_batch]
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
            DELETE TOP (@q$left) FROM [qgreview].[prio_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
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

-- qgen 0.1.0: purge qgreview.prio_purge, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds, in batches of at most @batch_size rows (1000 by default, refused above 1999),
-- each committed on its own, so no statement takes enough locks to escalate to a table lock and
-- no transaction holds more than one batch. The cutoff is fixed when the call begins, so rows that
-- finish while it runs are left for the next purge and the loop ends. It must commit per batch,
-- so it refuses to run inside the caller's transaction (error 50004: there, call
-- prio_purge_batch, which deletes one batch in that transaction).
CREATE OR ALTER PROCEDURE [qgreview].[prio_purge]
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
        THROW 50004, N'qgen: purge commits after every batch, which it cannot do inside the caller''s transaction (or with IMPLICIT_TRANSACTIONS ON, where its first statement would open one); call it outside a transaction in autocommit mode, or call prio_purge_batch (one batch) there.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$archived bigint = 0, @q$processed bigint = 0, @q$dead bigint = 0, @q$deleted int;
    SET @q$deleted = @batch_size;
    WHILE @q$deleted = @batch_size
    BEGIN
        -- No transaction is open: each DELETE commits by itself, one batch at a time.
        DELETE TOP (@batch_size) FROM [qgreview].[prio_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [dead_at] < @q$cutoff
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$deleted = @@ROWCOUNT;
        SET @q$dead += @q$deleted;
    END;

    SELECT @q$archived AS [archived], @q$processed AS [processed], @q$dead AS [dead];
END;
GO

-- qgen 0.1.0: maintain qgreview.prio_maintain, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- @batch_size finished jobs older than the retention (604800 s), releases up to @batch_size expired
-- leases (reap), in that order, in one transaction. Only one runs at a
-- time per queue (an application lock owned by the transaction, so it goes with the commit or the
-- rollback, a client timeout included): a caller that finds another one running returns at once
-- with skipped = 1. more = 1 when a step filled its batch: call again to do the rest.
-- Inside a caller's transaction its work commits with that transaction, and the lock is held
-- until then. It reads the steps' results through OUTPUT parameters, not INSERT ... EXEC: inside
-- one, a step's ROLLBACK fails with error 3915, which is all the caller would see of the step's own
-- error. Granted to the consumer role, so any worker can run it. It runs as the owner of qgen's
-- objects (EXECUTE AS OWNER) so that it can take its lock as that owner, not as public: see below.
CREATE OR ALTER PROCEDURE [qgreview].[prio_maintain]
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
            @Resource = N'qgen.maintain:[qgreview].[prio]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0, @DbPrincipal = @q$principal;
        -- -1: not granted at once, another maintain holds it. -2 (cancelled), -3 (deadlock victim)
        -- and -999 (a call error) are not "someone else is maintaining": refused with the code.
        IF @q$lock = -1
            SET @q$skipped = 1;
        ELSE IF @q$lock < 0
        BEGIN
            DECLARE @q$why nvarchar(2048) = CONCAT(N'qgen: refused on qgreview.prio: maintain could not take its application lock (sp_getapplock returned ',
                @q$lock, N' for principal ', @q$principal, N').');
            THROW 50005, @q$why, 1;
        END
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            EXEC [qgreview].[prio_purge_batch] @older_than_seconds = 604800, @batch_size = @batch_size,
                @archived = @q$archived OUTPUT, @processed = @q$processed OUTPUT, @dead = @q$dead OUTPUT, @result_set = 0;
            EXEC [qgreview].[prio_reap] @batch_size = @q$reap_batch,
                @released = @q$released OUTPUT, @dead_lettered = @q$dead_lettered OUTPUT, @result_set = 0;
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

-- qgen 0.1.0: redrive qgreview.prio_redrive, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Puts dead-lettered jobs back into the queue as new jobs: a new id, attempts 0, available now,
-- their last error kept. Either the dead jobs whose ids @ids lists (a JSON array, e.g. N'[3, 7]';
-- OPENJSON needs database compatibility level 130 or later), or (@redrive_all = 1) every dead job
-- after @after_id, in the order they died; at most @batch_size per call: [last_id] is the last
-- dead-letter entry looked at (its entry_id: a job id can repeat there), to pass as @after_id to
-- the next call. Each job is inserted and removed from the
-- dead-letter table in this one transaction, so it is redriven once: a second call finds
-- nothing, and a concurrent one waits (UPDLOCK) and then finds it gone.
CREATE OR ALTER PROCEDURE [qgreview].[prio_redrive]
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
            FROM [qgreview].[prio_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[entry_id] > ISNULL(@after_id, 0)
            ORDER BY [x].[entry_id];
        ELSE
            INSERT INTO @q$picked ([entry_id])
            SELECT TOP (@batch_size) [x].[entry_id]
            FROM [qgreview].[prio_dead] AS [x] WITH (UPDLOCK, ROWLOCK)
            WHERE [x].[id] IN (SELECT TRY_CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j])
            ORDER BY [x].[entry_id];
        SET @q$last_id = (SELECT MAX([entry_id]) FROM @q$picked);
        INSERT INTO [qgreview].[prio] ([n], [priority], [attempts], [available_at], [last_error])
        SELECT [x].[n], [x].[priority], 0, SYSUTCDATETIME(), [x].[last_error]
        FROM [qgreview].[prio_dead] AS [x]
        INNER JOIN @q$picked AS [p] ON [p].[entry_id] = [x].[entry_id] AND [p].[keep] = 0
        ORDER BY [x].[entry_id];
        SET @q$redriven = @@ROWCOUNT;
        DELETE [x]
        FROM [qgreview].[prio_dead] AS [x]
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

-- qgen 0.1.0: dead_letters qgreview.prio_dead_letters, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first, with the error each died of: at most @limit rows (1 to
-- 1000). Reads only. WITH (READPAST, READCOMMITTEDLOCK), as metrics reads: a locking
-- read at READ COMMITTED (also under READ_COMMITTED_SNAPSHOT) that never waits on a row another
-- transaction holds and skips it instead (a dead letter fail or reap is writing, or redrive or
-- purge is taking away, right now: it is on its way in or out), and holds each shared lock only
-- while it reads that row, so fail, reap, redrive and purge never wait on it. Not NOLOCK: a
-- fail rolled back with its caller's transaction would be listed as dead. READPAST skips row and
-- page locks only: a table lock (escalated, uninstall's TABLOCKX) still makes it wait.
CREATE OR ALTER PROCEDURE [qgreview].[prio_dead_letters]
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
            N' is out of range for qgreview.prio_dead_letters; accepted: 1 to 1000 rows.');
        THROW 50003, @q$error, 1;
    END;
    -- Newest first, in the order they arrived: the clustered key backwards, which stops after @limit rows.
    SELECT TOP (@limit) [x].[id], [x].[n], [x].[priority], [x].[enqueued_at], [x].[attempts],
        [x].[dead_at], [x].[last_error]
    FROM [qgreview].[prio_dead] AS [x] WITH (READPAST, READCOMMITTEDLOCK)
    ORDER BY [x].[entry_id] DESC
    OPTION (RECOMPILE);
END;
GO

-- qgen 0.1.0: job qgreview.prio_job, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [qgreview].[prio_job]
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
            N' is out of range for qgreview.prio_job; accepted: a job id, 1 or more.');
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
    FROM [qgreview].[prio] AS [j]
    WHERE [j].[id] = @job_id;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is reseeded.
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at])
        SELECT TOP (1) [x].[id], N'dead', [x].[enqueued_at], NULL, [x].[attempts], NULL, NULL,
            [x].[last_error], [x].[dead_at]
        FROM [qgreview].[prio_dead] AS [x]
        WHERE [x].[id] = @job_id
        ORDER BY [x].[entry_id] DESC;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state]) VALUES (@job_id, N'not_found');
    SELECT [id], [state], [enqueued_at], [available_at], [attempts], [lease_owner], [lease_expires_at], [last_error], [finished_at] FROM @q$found;
END;
GO

-- qgen 0.1.0: release qgreview.prio_release, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With @id, that
-- job; without, every job of the lease. The token is the fence: a job whose lease was released,
-- taken over or finished gets error 50001. last_error is kept (no failure happened).
CREATE OR ALTER PROCEDURE [qgreview].[prio_release]
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
            SELECT [id] FROM [qgreview].[prio] WHERE [lease_token] = @lease_token;
            UPDATE [qgreview].[prio]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [qgreview].[prio]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$released = @@ROWCOUNT;
        IF @q$released = 0
            THROW 50001, N'qgen: lease lost on qgreview.prio: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        COMMIT TRANSACTION;
        RETURN @q$released;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: pause qgreview.prio_pause, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job, and a dequeue waiting with @wait_ms keeps waiting. Enqueues go on, and leases already
-- granted run to their end (complete, fail, extend_lease, release and reap work as before).
-- Returns 1 when this call paused the queue, 0 when it was paused already.
CREATE OR ALTER PROCEDURE [qgreview].[prio_pause]
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
        SELECT @q$was = [paused] FROM [qgreview].[prio_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [qgreview].[prio_control] ([paused], [changed_at], [changed_by]) VALUES (1, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 0;
        END
        ELSE IF @q$was = 0
        BEGIN
            UPDATE [qgreview].[prio_control]
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
            THROW 50005, N'qgen: refused on qgreview.prio: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: resume qgreview.prio_resume, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again (a dequeue waiting with
-- @wait_ms takes one at its next attempt). Returns 1 when this call resumed the queue, 0 when it
-- was not paused.
CREATE OR ALTER PROCEDURE [qgreview].[prio_resume]
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
        SELECT @q$was = [paused] FROM [qgreview].[prio_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [qgreview].[prio_control] ([paused], [changed_at], [changed_by]) VALUES (0, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 1;
        END
        ELSE IF @q$was = 1
        BEGIN
            UPDATE [qgreview].[prio_control]
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
            THROW 50005, N'qgen: refused on qgreview.prio: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: cancel qgreview.prio_cancel, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [qgreview].[prio_cancel]
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
        [n] int NOT NULL,
        [priority] int NOT NULL,
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
        FROM [qgreview].[prio] AS [job] WITH (UPDLOCK, ROWLOCK, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]);
        DELETE FROM [qgreview].[prio]
        OUTPUT deleted.[id], deleted.[n], deleted.[priority], deleted.[enqueued_at], deleted.[attempts], deleted.[lease_token]
        INTO @q$dead ([id], [n], [priority], [enqueued_at], [attempts], [lease_token])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [qgreview].[prio_dead] ([id], [n], [priority], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [n], [priority], [enqueued_at], [attempts], N'cancelled', @q$now FROM @q$dead;
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on qgreview.prio: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
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

-- qgen 0.1.0: table qgreview.priod, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'qgreview.priod', N'U') IS NULL
BEGIN
    CREATE TABLE [qgreview].[priod]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [n] int NOT NULL,
        [priority] int NOT NULL CONSTRAINT [priod_priority_df] DEFAULT (0),
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [priod_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [priod_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: claim_index qgreview.priod_claim_ix, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A delete queue holds only unclaimed rows, so the clustered id already is claim order; this index
-- serves the job-type filter and priority order.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'priod_claim_ix' AND object_id = OBJECT_ID(N'qgreview.priod'))
    CREATE NONCLUSTERED INDEX [priod_claim_ix]
    ON [qgreview].[priod] ([priority] DESC, [id]);
GO

-- qgen 0.1.0: pending_view qgreview.priod_pending, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [qgreview].[priod_pending]
AS
SELECT [id], [n], [priority], [enqueued_at]
FROM [qgreview].[priod]
WHERE 1 = 1;
GO

-- qgen 0.1.0: batch_type qgreview.priod_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it. Its columns are one wider than the
-- table's (m.param_type): a caller's insert into a variable of this type cannot cut or round a value
-- past its column unseen; enqueue_batch refuses it with error 50010.
IF TYPE_ID(N'qgreview.priod_batch') IS NULL
    CREATE TYPE [qgreview].[priod_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [n] int NOT NULL,
        [priority] int NOT NULL DEFAULT (0),
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue qgreview.priod_enqueue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0). A value past its column's
-- limit is refused with error 50010, never cut or rounded: its parameter is one wider (m.param_type).
CREATE OR ALTER PROCEDURE [qgreview].[priod_enqueue]
    @n int,
    @priority int = 0
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL);
    BEGIN TRY
        INSERT INTO [qgreview].[priod] ([n], [priority])
        -- OUTPUT INTO a table variable: a bare OUTPUT fails once someone adds a trigger to the table (error 334).
        OUTPUT inserted.[id] INTO @q$new ([id])
        VALUES (@n, @priority);
        SELECT [id], CAST(1 AS bit) AS [enqueued] FROM @q$new;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch qgreview.priod_enqueue_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement (at most 3959: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row.
CREATE OR ALTER PROCEDURE [qgreview].[priod_enqueue_batch]
    @jobs [qgreview].[priod_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 3959
        THROW 50003, N'qgen: a batch of more than 3959 jobs is out of range for qgreview.priod: one statement writing more could escalate to a table lock; accepted: 1 to 3959 jobs per call (split the batch; the client does).', 1;
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [qgreview].[priod] ([n], [priority])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[n], [j].[priority]
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

-- qgen 0.1.0: enqueue_json qgreview.priod_enqueue_json, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- enqueue_batch for callers that cannot send a table-valued parameter (pyodbc through FreeTDS):
-- the same jobs as one JSON array of objects, one per job, keyed by the batch type's column names.
-- Every job-type and payload column's key must be there (strict paths: a missing or misspelt key is
-- an error, never a silent NULL; give null for no value); "ordinal" (the job's position in the
-- array, from 1), "priority" and "run_at" are optional. A datetime is ISO 8601, UTC when
-- it has no offset; a json column is the JSON text as a string. Needs SQL Server 2016 or later and
-- database compatibility level 130 or higher (OPENJSON). Returns what enqueue_batch returns.
CREATE OR ALTER PROCEDURE [qgreview].[priod_enqueue_json]
    @jobs nvarchar(max)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$batch [qgreview].[priod_batch];
    BEGIN TRY
        INSERT INTO @q$batch ([ordinal], [n], [priority])
        SELECT COALESCE([j].[ordinal], CAST([a].[key] AS int) + 1),
               [j].[n],
               COALESCE([j].[priority], 0)
        FROM OPENJSON(@jobs) AS [a]
        CROSS APPLY OPENJSON([a].[value])
        WITH
        (
            [ordinal] int '$.ordinal',
            [n] int 'strict $.n',
            [priority] int '$.priority'
        ) AS [j];
        IF (SELECT COUNT(*) FROM @q$batch) > 3959
            THROW 50003, N'qgen: a batch of more than 3959 jobs is out of range for qgreview.priod: one statement writing more could escalate to a table lock; accepted: 1 to 3959 jobs per call (split the batch; the client does).', 1;
        BEGIN TRANSACTION;
        INSERT INTO [qgreview].[priod] ([n], [priority])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[n], [j].[priority]
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

-- qgen 0.1.0: control_table qgreview.priod_control, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which login). Every
-- claim reads it first, WITH (READPAST, READCOMMITTEDLOCK): a pause or resume counts from its
-- commit, and no claim waits on one left open. A missing row (deleted by hand) reads as running.
IF OBJECT_ID(N'qgreview.priod_control', N'U') IS NULL
BEGIN
    CREATE TABLE [qgreview].[priod_control]
    (
        [one_row] bit NOT NULL CONSTRAINT [priod_control_one_row_df] DEFAULT (1),
        [paused] bit NOT NULL CONSTRAINT [priod_control_paused_df] DEFAULT (0),
        [changed_at] datetime2(3) NULL,
        [changed_by] nvarchar(128) NULL,
        CONSTRAINT [priod_control_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [priod_control_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [qgreview].[priod_control])
    INSERT INTO [qgreview].[priod_control] ([paused]) VALUES (0);
GO

-- qgen 0.1.0: dequeue qgreview.priod_dequeue, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs by deleting them, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction the claim would commit at once (at-most-once delivery): refused unless
-- the caller says so with @at_most_once = 1. A caller with IMPLICIT_TRANSACTIONS ON is inside one:
-- the claim opens it, and the caller's COMMIT or ROLLBACK ends it.
-- @owner is accepted and unused here (the claim deletes the row: nothing records it), as on
-- PostgreSQL, so one call works in either claim mode.
CREATE OR ALTER PROCEDURE [qgreview].[priod_dequeue]
    @owner nvarchar(129) = NULL,
    @batch_size int = 5,
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
            N' is out of range for qgreview.priod_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in qgreview.priod_dequeue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF NOT (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2) AND ISNULL(@at_most_once, 0) = 0
        THROW 50005, N'qgen: refused on qgreview.priod: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass @at_most_once = 1', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on qgreview.priod: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0, or claim with @at_most_once = 1', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [n] int NOT NULL,
        [priority] int NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL
    );
    BEGIN TRY
        -- @wait_ms: each attempt to claim starts here, in a transaction of its own (see the wait block below).
    q$attempt:
        BEGIN TRANSACTION;
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [qgreview].[priod_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
        ;WITH [next_job] AS
        (
            SELECT TOP (@batch_size) [id], [n], [priority], [enqueued_at]
            -- The one reference to the table: these hints hold for every row the claim reads.
            FROM [qgreview].[priod] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE 1 = 1
            ORDER BY [priority] DESC, [id]
        )
        DELETE FROM [next_job]
        OUTPUT deleted.[id], deleted.[n], deleted.[priority], deleted.[enqueued_at]
        INTO @q$claimed ([id], [n], [priority], [enqueued_at])
        -- Planned for one row, whatever @batch_size the first call sniffed: a seek in queue order.
        OPTION (OPTIMIZE FOR (@batch_size = 1));
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
        SELECT [id], [n], [priority], [enqueued_at]
        FROM @q$claimed
        ORDER BY [priority] DESC, [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: metrics qgreview.priod_metrics, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now, for dashboards and alerts. Each count reads the one index that
-- holds its rows (claim, due, lease, processed index; the dead-letter and archive tables), never the
-- whole queue table (finished rows included), and does not wait on a row: WITH (READPAST,
-- READCOMMITTEDLOCK) skips a row another transaction holds (a job being claimed, completed or enqueued right now),
-- the watermark's one row is read WITH (NOLOCK). So under concurrency the numbers are approximate:
-- a job changing at that moment is counted in neither state, and the counts are not one snapshot.
-- READPAST skips row and page locks only: a table lock (an escalated lock of a large transaction,
-- uninstall's TABLOCKX, an offline index build) still makes it wait.
CREATE OR ALTER PROCEDURE [qgreview].[priod_metrics]
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
    FROM [qgreview].[priod] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$ready AS [ready], @q$scheduled AS [scheduled], @q$in_flight AS [in_flight], @q$expired AS [expired],
        @q$processed AS [processed], @q$dead AS [dead], @q$archived AS [archived],
        -- The age of the oldest ready job: the one with the lowest id (ids grow with enqueued_at).
        COALESCE(DATEDIFF_BIG(second, (SELECT [enqueued_at] FROM [qgreview].[priod] WITH (READPAST, READCOMMITTEDLOCK) WHERE [id] = @q$oldest_id), @q$now), 0)
            AS [oldest_ready_age_seconds],
        @q$watermark AS [watermark],
        @q$lowest AS [lowest_pending_id],
        -- on_complete: delete leaves no trace of a completion to count.
        CAST(NULL AS bigint) AS [completed_last_minute],
        CAST(NULL AS bigint) AS [watermark_lag],
        CAST(CASE WHEN NOT EXISTS (SELECT 1 FROM [qgreview].[priod_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0) THEN 1 ELSE 0 END AS bit) AS [paused];
END;
GO

-- qgen 0.1.0: peek qgreview.priod_peek, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them.
CREATE OR ALTER PROCEDURE [qgreview].[priod_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    -- NULL or negative is refused with the other argument checks' code (TOP would raise 1014).
    IF @limit IS NULL OR @limit < 0
        THROW 50003, N'qgen: @limit is out of range for qgreview.priod_peek; accepted: 0 or more rows.', 1;
    SELECT TOP (@limit) [id], [n], [priority], [enqueued_at]
    FROM [qgreview].[priod_pending]
    ORDER BY [priority] DESC, [id];
END;
GO

-- qgen 0.1.0: purge_batch qgreview.priod_purge_batch, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds: at most @batch_size rows (1000 by default, refused above 3959) over all those
-- tables together, in one transaction (the caller's, when there is one). purge loops over batches;
-- maintain runs one.
CREATE OR ALTER PROCEDURE [qgreview].[priod_purge_batch]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 3959
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 3959 (a batch stays well under lock escalation).', 1;
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

-- qgen 0.1.0: purge qgreview.priod_purge, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds, in batches of at most @batch_size rows (1000 by default, refused above 3959),
-- each committed on its own, so no statement takes enough locks to escalate to a table lock and
-- no transaction holds more than one batch. The cutoff is fixed when the call begins, so rows that
-- finish while it runs are left for the next purge and the loop ends. It must commit per batch,
-- so it refuses to run inside the caller's transaction (error 50004: there, call
-- priod_purge_batch, which deletes one batch in that transaction).
CREATE OR ALTER PROCEDURE [qgreview].[priod_purge]
    @older_than_seconds int = 604800,
    @batch_size int = 1000
AS
BEGIN
    -- READPAST needs READ COMMITTED (or REPEATABLE READ): pinned here, whatever the caller runs at.
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 3959
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 3959 (a batch stays well under lock escalation).', 1;
    IF @older_than_seconds IS NULL OR @older_than_seconds < 0
        THROW 50003, N'qgen: @older_than_seconds is out of range; accepted: 0 or more.', 1;
    IF (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50004, N'qgen: purge commits after every batch, which it cannot do inside the caller''s transaction (or with IMPLICIT_TRANSACTIONS ON, where its first statement would open one); call it outside a transaction in autocommit mode, or call priod_purge_batch (one batch) there.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$archived bigint = 0, @q$processed bigint = 0, @q$dead bigint = 0, @q$deleted int;
    SELECT @q$archived AS [archived], @q$processed AS [processed], @q$dead AS [dead];
END;
GO

-- qgen 0.1.0: maintain qgreview.priod_maintain, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- @batch_size finished jobs older than the retention (604800 s), in that order, in one transaction. Only one runs at a
-- time per queue (an application lock owned by the transaction, so it goes with the commit or the
-- rollback, a client timeout included): a caller that finds another one running returns at once
-- with skipped = 1. more = 1 when a step filled its batch: call again to do the rest.
-- Inside a caller's transaction its work commits with that transaction, and the lock is held
-- until then. It reads the steps' results through OUTPUT parameters, not INSERT ... EXEC: inside
-- one, a step's ROLLBACK fails with error 3915, which is all the caller would see of the step's own
-- error. Granted to the consumer role, so any worker can run it. It runs as the owner of qgen's
-- objects (EXECUTE AS OWNER) so that it can take its lock as that owner, not as public: see below.
CREATE OR ALTER PROCEDURE [qgreview].[priod_maintain]
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
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 3959
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 3959 (a batch stays well under lock escalation).', 1;
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
            @Resource = N'qgen.maintain:[qgreview].[priod]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0, @DbPrincipal = @q$principal;
        -- -1: not granted at once, another maintain holds it. -2 (cancelled), -3 (deadlock victim)
        -- and -999 (a call error) are not "someone else is maintaining": refused with the code.
        IF @q$lock = -1
            SET @q$skipped = 1;
        ELSE IF @q$lock < 0
        BEGIN
            DECLARE @q$why nvarchar(2048) = CONCAT(N'qgen: refused on qgreview.priod: maintain could not take its application lock (sp_getapplock returned ',
                @q$lock, N' for principal ', @q$principal, N').');
            THROW 50005, @q$why, 1;
        END
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            EXEC [qgreview].[priod_purge_batch] @older_than_seconds = 604800, @batch_size = @batch_size,
                @archived = @q$archived OUTPUT, @processed = @q$processed OUTPUT, @dead = @q$dead OUTPUT, @result_set = 0;
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

-- qgen 0.1.0: job qgreview.priod_job, rendered for SQL Server (T-SQL) from spec.yaml.
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
CREATE OR ALTER PROCEDURE [qgreview].[priod_job]
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
            N' is out of range for qgreview.priod_job; accepted: a job id, 1 or more.');
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
    FROM [qgreview].[priod] AS [j]
    WHERE [j].[id] = @job_id;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state]) VALUES (@job_id, N'not_found');
    SELECT [id], [state], [enqueued_at], [attempts], [last_error], [finished_at] FROM @q$found;
END;
GO

-- qgen 0.1.0: pause qgreview.priod_pause, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job, and a dequeue waiting with @wait_ms keeps waiting. Enqueues go on, and leases already
-- granted run to their end (complete, fail, extend_lease, release and reap work as before).
-- Returns 1 when this call paused the queue, 0 when it was paused already.
CREATE OR ALTER PROCEDURE [qgreview].[priod_pause]
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
        SELECT @q$was = [paused] FROM [qgreview].[priod_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [qgreview].[priod_control] ([paused], [changed_at], [changed_by]) VALUES (1, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 0;
        END
        ELSE IF @q$was = 0
        BEGIN
            UPDATE [qgreview].[priod_control]
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
            THROW 50005, N'qgen: refused on qgreview.priod: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: resume qgreview.priod_resume, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again (a dequeue waiting with
-- @wait_ms takes one at its next attempt). Returns 1 when this call resumed the queue, 0 when it
-- was not paused.
CREATE OR ALTER PROCEDURE [qgreview].[priod_resume]
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
        SELECT @q$was = [paused] FROM [qgreview].[priod_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [qgreview].[priod_control] ([paused], [changed_at], [changed_by]) VALUES (0, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 1;
        END
        ELSE IF @q$was = 1
        BEGIN
            UPDATE [qgreview].[priod_control]
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
            THROW 50005, N'qgen: refused on qgreview.priod: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: cancel qgreview.priod_cancel, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (@ids: a JSON array of whole numbers from 1, e.g. N'[3, 7]'; at most 3959): each job still
-- in the queue leaves it at once, in this one transaction, deleted (this queue keeps no dead letters), and
-- never runs. One row per distinct id, in id order, [outcome]:
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   held: another open transaction holds it (a claim, or another cancel): READPAST never waits for
--     it, nothing is done. If that transaction rolls back the job is queued again, and can be
--     cancelled then;
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order (the clustered key, FORCESEEK from the ordered list of ids), as
-- every other statement that locks several jobs does, so cancel deadlocks with none of them, at most 5 s (then refused, 50005: nothing done).
CREATE OR ALTER PROCEDURE [qgreview].[priod_cancel]
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
    IF (SELECT COUNT(*) FROM OPENJSON(@ids)) > 3959
        THROW 50003, N'qgen: @ids lists more than 3959 jobs; accepted: 1 to 3959 per call (a bigger one could escalate to a table lock).', 1;
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
        FROM [qgreview].[priod] AS [job] WITH (UPDLOCK, ROWLOCK, READPAST, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]);
        DELETE FROM [qgreview].[priod]
        OUTPUT deleted.[id]
        INTO @q$dead ([id])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on qgreview.priod: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
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
            IF EXISTS (SELECT 1 FROM [qgreview].[priod] WITH (READCOMMITTEDLOCK) WHERE [id] = @q$probe)
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

-- qgen 0.1.0: grants to roles qgreview_producer, qgreview_consumer, qgreview_admin, rendered for SQL Server (T-SQL) from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[qgreview].[prio_enqueue] TO [qgreview_producer];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_enqueue_batch] TO [qgreview_producer];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_enqueue_json] TO [qgreview_producer];
GRANT EXECUTE ON TYPE::[qgreview].[prio_batch] TO [qgreview_producer];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_dequeue] TO [qgreview_consumer];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_complete] TO [qgreview_consumer];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_fail] TO [qgreview_consumer];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_extend_lease] TO [qgreview_consumer];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[qgreview].[prio_maintain] TO [qgreview_consumer];
GRANT SELECT ON OBJECT::[qgreview].[prio_pending] TO [qgreview_admin];
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON OBJECT::[qgreview].[prio_release] TO [qgreview_consumer];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_enqueue] TO [qgreview_producer];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_enqueue_batch] TO [qgreview_producer];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_enqueue_json] TO [qgreview_producer];
GRANT EXECUTE ON TYPE::[qgreview].[priod_batch] TO [qgreview_producer];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_dequeue] TO [qgreview_consumer];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[qgreview].[priod_maintain] TO [qgreview_consumer];
GRANT SELECT ON OBJECT::[qgreview].[priod_pending] TO [qgreview_admin];
-- The admin role runs every procedure qgen created, and nothing else: each by name, never EXECUTE
-- ON SCHEMA, which in a shared schema (or dbo) would reach every application procedure, present
-- and future (upgrade.sql takes back a schema-wide grant a former version made).
GRANT EXECUTE ON OBJECT::[qgreview].[prio_enqueue] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_enqueue_batch] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_enqueue_json] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_dequeue] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_complete] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_fail] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_extend_lease] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_reap] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_metrics] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_peek] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_purge_batch] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_purge] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_maintain] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_redrive] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_dead_letters] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_job] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_release] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_pause] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_resume] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[prio_cancel] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_enqueue] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_enqueue_batch] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_enqueue_json] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_dequeue] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_metrics] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_peek] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_purge_batch] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_purge] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_maintain] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_job] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_pause] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_resume] TO [qgreview_admin];
GRANT EXECUTE ON OBJECT::[qgreview].[priod_cancel] TO [qgreview_admin];
GRANT EXECUTE ON TYPE::[qgreview].[prio_batch] TO [qgreview_admin];
GRANT EXECUTE ON TYPE::[qgreview].[priod_batch] TO [qgreview_admin];
GO

-- qgen 0.1.0: verify qgreview, rendered for SQL Server (T-SQL) from spec.yaml.
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
WHERE [s].[name] = N'qgreview'
  AND [o].[name] IN
  (
      N'prio',
      N'prio_claim_ix',
      N'prio_lease_ix',
      N'prio_dead',
      N'prio_dead_ix',
      N'prio_pending',
      N'prio_batch',
      N'prio_enqueue',
      N'prio_enqueue_batch',
      N'prio_enqueue_json',
      N'prio_control',
      N'prio_dequeue',
      N'prio_complete',
      N'prio_fail',
      N'prio_extend_lease',
      N'prio_reap',
      N'prio_metrics',
      N'prio_peek',
      N'prio_purge_batch',
      N'prio_purge',
      N'prio_maintain',
      N'prio_redrive',
      N'prio_dead_letters',
      N'prio_job',
      N'prio_release',
      N'prio_pause',
      N'prio_resume',
      N'prio_cancel',
      N'priod',
      N'priod_claim_ix',
      N'priod_pending',
      N'priod_batch',
      N'priod_enqueue',
      N'priod_enqueue_batch',
      N'priod_enqueue_json',
      N'priod_control',
      N'priod_dequeue',
      N'priod_metrics',
      N'priod_peek',
      N'priod_purge_batch',
      N'priod_purge',
      N'priod_maintain',
      N'priod_job',
      N'priod_pause',
      N'priod_resume',
      N'priod_cancel'
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
IF OBJECT_ID(N'qgreview.prio') IS NULL
    SET @q$missing += N' qgreview.prio';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'prio_claim_ix' AND [object_id] = OBJECT_ID(N'qgreview.prio'))
    SET @q$missing += N' qgreview.prio_claim_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'prio_lease_ix' AND [object_id] = OBJECT_ID(N'qgreview.prio'))
    SET @q$missing += N' qgreview.prio_lease_ix';
IF OBJECT_ID(N'qgreview.prio_dead') IS NULL
    SET @q$missing += N' qgreview.prio_dead';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'prio_dead_ix' AND [object_id] = OBJECT_ID(N'qgreview.prio_dead'))
    SET @q$missing += N' qgreview.prio_dead_ix';
IF OBJECT_ID(N'qgreview.prio_pending') IS NULL
    SET @q$missing += N' qgreview.prio_pending';
IF TYPE_ID(N'qgreview.prio_batch') IS NULL
    SET @q$missing += N' qgreview.prio_batch';
IF OBJECT_ID(N'qgreview.prio_enqueue') IS NULL
    SET @q$missing += N' qgreview.prio_enqueue';
IF OBJECT_ID(N'qgreview.prio_enqueue_batch') IS NULL
    SET @q$missing += N' qgreview.prio_enqueue_batch';
IF OBJECT_ID(N'qgreview.prio_enqueue_json') IS NULL
    SET @q$missing += N' qgreview.prio_enqueue_json';
IF OBJECT_ID(N'qgreview.prio_control') IS NULL
    SET @q$missing += N' qgreview.prio_control';
IF OBJECT_ID(N'qgreview.prio_dequeue') IS NULL
    SET @q$missing += N' qgreview.prio_dequeue';
IF OBJECT_ID(N'qgreview.prio_complete') IS NULL
    SET @q$missing += N' qgreview.prio_complete';
IF OBJECT_ID(N'qgreview.prio_fail') IS NULL
    SET @q$missing += N' qgreview.prio_fail';
IF OBJECT_ID(N'qgreview.prio_extend_lease') IS NULL
    SET @q$missing += N' qgreview.prio_extend_lease';
IF OBJECT_ID(N'qgreview.prio_reap') IS NULL
    SET @q$missing += N' qgreview.prio_reap';
IF OBJECT_ID(N'qgreview.prio_metrics') IS NULL
    SET @q$missing += N' qgreview.prio_metrics';
IF OBJECT_ID(N'qgreview.prio_peek') IS NULL
    SET @q$missing += N' qgreview.prio_peek';
IF OBJECT_ID(N'qgreview.prio_purge_batch') IS NULL
    SET @q$missing += N' qgreview.prio_purge_batch';
IF OBJECT_ID(N'qgreview.prio_purge') IS NULL
    SET @q$missing += N' qgreview.prio_purge';
IF OBJECT_ID(N'qgreview.prio_maintain') IS NULL
    SET @q$missing += N' qgreview.prio_maintain';
IF OBJECT_ID(N'qgreview.prio_redrive') IS NULL
    SET @q$missing += N' qgreview.prio_redrive';
IF OBJECT_ID(N'qgreview.prio_dead_letters') IS NULL
    SET @q$missing += N' qgreview.prio_dead_letters';
IF OBJECT_ID(N'qgreview.prio_job') IS NULL
    SET @q$missing += N' qgreview.prio_job';
IF OBJECT_ID(N'qgreview.prio_release') IS NULL
    SET @q$missing += N' qgreview.prio_release';
IF OBJECT_ID(N'qgreview.prio_pause') IS NULL
    SET @q$missing += N' qgreview.prio_pause';
IF OBJECT_ID(N'qgreview.prio_resume') IS NULL
    SET @q$missing += N' qgreview.prio_resume';
IF OBJECT_ID(N'qgreview.prio_cancel') IS NULL
    SET @q$missing += N' qgreview.prio_cancel';
IF OBJECT_ID(N'qgreview.priod') IS NULL
    SET @q$missing += N' qgreview.priod';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'priod_claim_ix' AND [object_id] = OBJECT_ID(N'qgreview.priod'))
    SET @q$missing += N' qgreview.priod_claim_ix';
IF OBJECT_ID(N'qgreview.priod_pending') IS NULL
    SET @q$missing += N' qgreview.priod_pending';
IF TYPE_ID(N'qgreview.priod_batch') IS NULL
    SET @q$missing += N' qgreview.priod_batch';
IF OBJECT_ID(N'qgreview.priod_enqueue') IS NULL
    SET @q$missing += N' qgreview.priod_enqueue';
IF OBJECT_ID(N'qgreview.priod_enqueue_batch') IS NULL
    SET @q$missing += N' qgreview.priod_enqueue_batch';
IF OBJECT_ID(N'qgreview.priod_enqueue_json') IS NULL
    SET @q$missing += N' qgreview.priod_enqueue_json';
IF OBJECT_ID(N'qgreview.priod_control') IS NULL
    SET @q$missing += N' qgreview.priod_control';
IF OBJECT_ID(N'qgreview.priod_dequeue') IS NULL
    SET @q$missing += N' qgreview.priod_dequeue';
IF OBJECT_ID(N'qgreview.priod_metrics') IS NULL
    SET @q$missing += N' qgreview.priod_metrics';
IF OBJECT_ID(N'qgreview.priod_peek') IS NULL
    SET @q$missing += N' qgreview.priod_peek';
IF OBJECT_ID(N'qgreview.priod_purge_batch') IS NULL
    SET @q$missing += N' qgreview.priod_purge_batch';
IF OBJECT_ID(N'qgreview.priod_purge') IS NULL
    SET @q$missing += N' qgreview.priod_purge';
IF OBJECT_ID(N'qgreview.priod_maintain') IS NULL
    SET @q$missing += N' qgreview.priod_maintain';
IF OBJECT_ID(N'qgreview.priod_job') IS NULL
    SET @q$missing += N' qgreview.priod_job';
IF OBJECT_ID(N'qgreview.priod_pause') IS NULL
    SET @q$missing += N' qgreview.priod_pause';
IF OBJECT_ID(N'qgreview.priod_resume') IS NULL
    SET @q$missing += N' qgreview.priod_resume';
IF OBJECT_ID(N'qgreview.priod_cancel') IS NULL
    SET @q$missing += N' qgreview.priod_cancel';
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
WHERE [s].[name] = N'qgreview'
  AND [o].[name] IN
  (
      N'prio_maintain',
      N'priod_maintain'
  )
  AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$owners <> N''
BEGIN
    DECLARE @q$impersonate nvarchar(2048) = LEFT(N'qgen: maintain runs WITH EXECUTE AS OWNER, which cannot impersonate its owner, '
        + N'so every call of it fails:' + @q$owners + N'. Give schema [qgreview] to a user, ALTER AUTHORIZATION ON SCHEMA::'
        + N'[qgreview] TO [dbo]; (a procedure given an owner of its own: ALTER AUTHORIZATION ON OBJECT::... TO SCHEMA OWNER;), '
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
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'qgreview.' + [r].[name]), N' '))
FROM
(
    VALUES
        (N'prio_cancel', 0xB6F80896A12452C441BA6FB31F6E25AEA84A6B194BFD11CB4D0AE6D0E257D22E),
        (N'prio_complete', 0x80F9013ECDFBAD452B00BD5ACDB52ABCB766AB3AA5E0B526D6A181B1CA1D7A81),
        (N'prio_dead_letters', 0xC3F32BCF3F9179B19A5112A89BEEE8BE56A5535EB8763ED706D6C56F340E1FFB),
        (N'prio_dequeue', 0x9101CAC7D72E0200531D45B1A1AF63C059F30FA1959322AA44B0227C09A5A1EA),
        (N'prio_enqueue', 0x090A78B782F60536FBC2CF7C62DAE8C791CF697909A90A28B494B39C16EC4864),
        (N'prio_enqueue_batch', 0xA20ED4107A9FF24571930F6A69621D694E990CBC6CADB9A33D1BDD6C15CBF1F2),
        (N'prio_enqueue_json', 0x172032E300CDDE98DDCB36C83AA1BD79D15CF750580FBDDF8B46D2227104A6FC),
        (N'prio_extend_lease', 0x972C5BBFBCDCB1C07390CC41E22D1929D2E5BE9CCC31617AC3A6D612537E134B),
        (N'prio_fail', 0xAA13B9578F0D84D6830364CB6BE7B67F8A6BE04BE1F9902F75369F0542298A45),
        (N'prio_job', 0x07BCDD0B94AA55F8A80365AA2A8FAC7B49718CA5F8DA97403293E04499FE5003),
        (N'prio_maintain', 0x501E0F32BF26C63BA1D62E6EAC66BFA9E986566D42AD385E89D50AD092D00418),
        (N'prio_metrics', 0x31B4D581B8EA0888F6AFA37FA1967FA816506EB8B1A8C850E0390A9151DBAC97),
        (N'prio_pause', 0x9A84D39892DD831421738AC8748958E0D9A8A907ED4B7E08470DEFA02516D6D2),
        (N'prio_peek', 0xCD120DB012D44FCE8D6F6BF19498D0D4A9998F9C12F882E085436A1A1952DF3E),
        (N'prio_pending', 0xA8CAD21A657082D87BBF8697C9B102841ABBD378A9DECEE646C0825F87676713),
        (N'prio_purge', 0x870D8621AF3D5C6C2F6D6889E24674150C6B07A92A7ABAF00D2F366A3669A4A2),
        (N'prio_purge_batch', 0x38E5C0C63DCED73DAB43BD2B2F5E6E310D6A4616A9E5CCAC7E898B681C27653B),
        (N'prio_reap', 0x30CF1F6835E6F46165F399D30F2ED339A7AE4B5B7D9203C8A6D5426135D38AA5),
        (N'prio_redrive', 0xF64168A4FBF8ADC6ECA7624976BD08AF083F413C9C71A7B39C4CF9B57AEBEBF3),
        (N'prio_release', 0x3151D46ED12296D433C3906AFE2727081F15544E8FA0B0EAB59F0C27CE569180),
        (N'prio_resume', 0x6F0E1E0E2A03FA6DCFD2BBBC04152325E6CB5D1637DB91EF89EFE94525EB0D0C),
        (N'priod_cancel', 0x1207FF3CA52B2ECFFE9EC3B2B4D9579FA94E2C0088F043C42B77FA5B579251CF),
        (N'priod_dequeue', 0x676C5D3648DE15068DF5052A67E4C54F609458F0C6D82FD8AE7CFF4BF15A037B),
        (N'priod_enqueue', 0x9A04A62C6C92DEE5CC8E905EDC309A9925B9C8ED70DF544DFDF8C951FCBF82AF),
        (N'priod_enqueue_batch', 0x37A749D0984CC77FD5CCF3F2B612D814379545D564267D6B75F0A165119C9563),
        (N'priod_enqueue_json', 0x8CF20FA9B809F4C7145023A0FE61360B0BBBFBDB11E601CB7E7D20BD2FAB15F0),
        (N'priod_job', 0x236BF72BA9F4FE5B26199F15EC25ECE6FF08CD09DC4C5351DAFEAFB7251F2020),
        (N'priod_maintain', 0x9E34A02F2497291618914D5EF449224604F978324BE9248C0175874DAF9AA8FB),
        (N'priod_metrics', 0x9654E1C9FA3901F5EE0667E5D27EE32B22CEB35F30C270BAE634C31E07204786),
        (N'priod_pause', 0x8BB3E2E15EE7C08DBD745259A2680E5A108D4B54AF39E046F80172229C1F2548),
        (N'priod_peek', 0x162F5DDE8AEF91F80EEFE2426C5DC1107438BABDD4511E46A19C2080EC3E1478),
        (N'priod_pending', 0xE98D9B9503AB242A31608195CC97F18C3BF681A41C480192D44624127A6C4A0A),
        (N'priod_purge', 0x3507826EBB220B7DC1CDDC3CFD6DDC83E9EFEA9C81C7BB4991A242FFE1A78790),
        (N'priod_purge_batch', 0x09D4FD623890DEED8B3400B19436EF8BC2EFEA10C977562CCE460F5A0D3968FF),
        (N'priod_resume', 0x67BC9D2A94F1C91171AEEC59ECB47CA9AEB93532D0E02E75D043358C0901814E)
) AS [r]([name], [fingerprint])
INNER JOIN sys.sql_modules AS [sm] ON [sm].[object_id] = OBJECT_ID(N'qgreview.' + [r].[name])
CROSS APPLY (SELECT [sm].[definition] COLLATE Latin1_General_BIN2 AS [text]) AS [d]
WHERE HASHBYTES('SHA2_256', REPLACE(REPLACE(REPLACE(REPLACE(
          SUBSTRING([d].[text], CHARINDEX(N'[qgreview].[' + [r].[name] + N']' COLLATE Latin1_General_BIN2, [d].[text]), LEN([d].[text])),
          NCHAR(32), N''), NCHAR(9), N''), NCHAR(10), N''), NCHAR(13), N'')) <> [r].[fingerprint];
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'qgreview.' + [r].[table] + N'.' + [r].[name]
    + N' (' + COALESCE([shape].[now], N'?') + N', rendered ' + [r].[shape] + N')'), N' '))
FROM
(
    VALUES
        (N'prio', N'prio_claim_ix', N'(priority desc, id) include (available_at, lease_token) where'),
        (N'prio', N'prio_lease_ix', N'(lease_token) include (attempts, lease_expires_at) where'),
        (N'prio_dead', N'prio_dead_id_ix', N'(id)'),
        (N'prio_dead', N'prio_dead_ix', N'(dead_at)'),
        (N'priod', N'priod_claim_ix', N'(priority desc, id)')
) AS [r]([table], [name], [shape])
INNER JOIN sys.indexes AS [i] ON [i].[object_id] = OBJECT_ID(N'qgreview.' + [r].[table]) AND [i].[name] = [r].[name]
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
