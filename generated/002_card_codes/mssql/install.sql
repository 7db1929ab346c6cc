-- qgen 0.1.0: every object of 002_card_codes.yaml, for SQL Server (T-SQL), in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- qgen 0.1.0: schema cards, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Refused before anything is created: a schema that exists and is owned by a database role (or an
-- application role, a group, a user mapped to a certificate or key). Its procedures are owned by
-- that owner, and maintain runs WITH EXECUTE AS OWNER, which can impersonate only a user: every
-- call of maintain would fail (error 15517) long after install succeeded. sqlcmd and SSMS go on to
-- the next batch after an error: the batch after the refusal sets NOEXEC ON, so no later batch runs
-- (verify, install's last batch, sets it OFF again).
DECLARE @q$refused nvarchar(2048);
SELECT @q$refused = CONCAT(N'qgen: install refused: schema [cards] is owned by ', QUOTENAME([p].[name]), N' (',
    [p].[type_desc], N'), which EXECUTE AS OWNER cannot impersonate: qgen''s maintain procedures run as the schema''s owner, ',
    N'so every call of maintain would fail. Give the schema to a user, ALTER AUTHORIZATION ON SCHEMA::[cards] TO [dbo]; ',
    N'(or to another user), then run install.sql again.')
FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'cards' AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$refused IS NOT NULL
    THROW 50022, @q$refused, 1;
GO

IF EXISTS (SELECT 1 FROM sys.schemas AS [s] INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = [s].[principal_id] WHERE [s].[name] = N'cards' AND [p].[type] NOT IN ('S', 'U', 'E'))
    SET NOEXEC ON;
GO

-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
-- A schema install creates is marked (extended property qgen.created): uninstall drops only such a one.
IF SCHEMA_ID(N'cards') IS NULL
BEGIN
    EXEC(N'CREATE SCHEMA [cards] AUTHORIZATION [dbo];');
    EXEC sys.sp_addextendedproperty @name = N'qgen.created', @value = N'created by the install of qgen''s queues',
        @level0type = N'SCHEMA', @level0name = N'cards';
END;
GO

-- qgen 0.1.0: roles cards_producer, cards_consumer, cards_admin (database roles), rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
-- A role install creates is recorded on the schema (extended property qgen.created_role.<role>):
-- uninstall drops only such a one, never a role that was there before and that the spec only names.
IF DATABASE_PRINCIPAL_ID(N'cards_producer') IS NULL
BEGIN
    CREATE ROLE [cards_producer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'cards') AND [name] = N'qgen.created_role.cards_producer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.cards_producer', @value = N'cards_producer',
            @level0type = N'SCHEMA', @level0name = N'cards';
END;
IF DATABASE_PRINCIPAL_ID(N'cards_consumer') IS NULL
BEGIN
    CREATE ROLE [cards_consumer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'cards') AND [name] = N'qgen.created_role.cards_consumer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.cards_consumer', @value = N'cards_consumer',
            @level0type = N'SCHEMA', @level0name = N'cards';
END;
IF DATABASE_PRINCIPAL_ID(N'cards_admin') IS NULL
BEGIN
    CREATE ROLE [cards_admin];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'cards') AND [name] = N'qgen.created_role.cards_admin')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.cards_admin', @value = N'cards_admin',
            @level0type = N'SCHEMA', @level0name = N'cards';
END;
GO

-- qgen 0.1.0: table cards.card_codes, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'cards.card_codes', N'U') IS NULL
BEGIN
    CREATE TABLE [cards].[card_codes]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [card_number] nvarchar(32) NOT NULL,
        [card_secret] nvarchar(64) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [card_codes_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [card_codes_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO

-- qgen 0.1.0: dead_letter_table cards.card_codes_dead, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: [id] is the job's id, which repeats once the queue's identity is reseeded.
IF OBJECT_ID(N'cards.card_codes_dead', N'U') IS NULL
BEGIN
    CREATE TABLE [cards].[card_codes_dead]
    (
        [entry_id] bigint IDENTITY(1, 1) NOT NULL,
        [id] bigint NOT NULL,
        [card_number] nvarchar(32) NOT NULL,
        [card_secret] nvarchar(64) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL,
        [last_error] nvarchar(4000) NULL,
        [dead_at] datetime2(3) NOT NULL CONSTRAINT [card_codes_dead_dead_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [card_codes_dead_pk] PRIMARY KEY CLUSTERED ([entry_id])
    );
END;
GO

-- qgen 0.1.0: archive_table cards.card_codes_archive, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Completed jobs, moved here by dequeue and removed by purge after the retention period.
-- Keyed by an identity of its own: [id] is the job's id, which repeats once the queue's identity is
-- reseeded (or when a job reaches the archive twice).
IF OBJECT_ID(N'cards.card_codes_archive', N'U') IS NULL
BEGIN
    CREATE TABLE [cards].[card_codes_archive]
    (
        [entry_id] bigint IDENTITY(1, 1) NOT NULL,
        [id] bigint NOT NULL,
        [card_number] nvarchar(32) NOT NULL,
        [card_secret] nvarchar(64) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [completed_at] datetime2(3) NOT NULL CONSTRAINT [card_codes_archive_completed_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [card_codes_archive_pk] PRIMARY KEY CLUSTERED ([entry_id])
    );
END;
GO

-- qgen 0.1.0: dedupe_index cards.card_codes_dedupe_ux, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_dedupe_ux' AND object_id = OBJECT_ID(N'cards.card_codes'))
    CREATE UNIQUE NONCLUSTERED INDEX [card_codes_dedupe_ux]
    ON [cards].[card_codes] ([card_number]);
-- dedupe.scope: ever: a finished job keeps its key in card_codes_archive until purge removes it; enqueue looks
-- here, and the index refuses a second job with the key even if something bypassed enqueue.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_archive_dedupe_ux' AND object_id = OBJECT_ID(N'cards.card_codes_archive'))
    CREATE UNIQUE NONCLUSTERED INDEX [card_codes_archive_dedupe_ux]
    ON [cards].[card_codes_archive] ([card_number]);
GO

-- qgen 0.1.0: dead_letter_index cards.card_codes_dead_ix, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_dead_ix' AND object_id = OBJECT_ID(N'cards.card_codes_dead'))
    CREATE NONCLUSTERED INDEX [card_codes_dead_ix]
    ON [cards].[card_codes_dead] ([dead_at]);
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_dead_id_ix' AND object_id = OBJECT_ID(N'cards.card_codes_dead'))
    CREATE NONCLUSTERED INDEX [card_codes_dead_id_ix]
    ON [cards].[card_codes_dead] ([id]);
GO

-- qgen 0.1.0: archive_index cards.card_codes_archive_ix, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes archived jobs by age: it finds the old ones here instead of scanning the archive.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_archive_ix' AND object_id = OBJECT_ID(N'cards.card_codes_archive'))
    CREATE NONCLUSTERED INDEX [card_codes_archive_ix]
    ON [cards].[card_codes_archive] ([completed_at]);
GO

-- qgen 0.1.0: pending_view cards.card_codes_pending, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [cards].[card_codes_pending]
AS
SELECT [id], [card_number], [card_secret], [enqueued_at]
FROM [cards].[card_codes]
WHERE 1 = 1;
GO

-- qgen 0.1.0: batch_type cards.card_codes_batch, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it. Its columns are one wider than the
-- table's (m.param_type): a caller's insert into a variable of this type cannot cut or round a value
-- past its column unseen; enqueue_batch refuses it with error 50010.
IF TYPE_ID(N'cards.card_codes_batch') IS NULL
    CREATE TYPE [cards].[card_codes_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [card_number] nvarchar(33) NOT NULL,
        [card_secret] nvarchar(65) NOT NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue cards.card_codes_enqueue, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0). A value past its column's
-- limit is refused with error 50010, never cut or rounded: its parameter is one wider (m.param_type).
CREATE OR ALTER PROCEDURE [cards].[card_codes_enqueue]
    @card_number nvarchar(33),
    @card_secret nvarchar(65)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF DATALENGTH(@card_number) > 64
        THROW 50010, N'qgen: @card_number is past its column''s limit in cards.card_codes_enqueue; accepted: string(32), at most 32 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF DATALENGTH(@card_secret) > 128
        THROW 50010, N'qgen: @card_secret is past its column''s limit in cards.card_codes_enqueue; accepted: string(64), at most 64 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL);
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK + HOLDLOCK keep the key range locked until the insert, so two sessions enqueueing
        -- the same key cannot both find it missing; a locking read, so it sees current rows also
        -- under READ_COMMITTED_SNAPSHOT.
        DECLARE @q$existing bigint =
        (
            SELECT [id] FROM [cards].[card_codes] WITH (UPDLOCK, HOLDLOCK)
            WHERE [card_number] = @card_number

        );
        -- dedupe.scope: ever: a finished job holds its key until purge removes it. Read after the
        -- queue table, the order a completion or dead-lettering locks them in: a job moving there
        -- now is waited for above, then found here. A plain locking read of the key, no range lock:
        -- the queue table's range lock above already keeps every claim, completion and failure of
        -- this key out until this transaction ends (each moves a queue row of the key there), and a
        -- range lock held here would stall every claim that archives a key after this one (seed
        -- 002: an import in one transaction stalled every sale; docs/api.md).
        IF @q$existing IS NULL
            SET @q$existing = (SELECT [id] FROM [cards].[card_codes_archive] WITH (READCOMMITTEDLOCK)
                             WHERE [card_number] = @card_number);
        IF @q$existing IS NOT NULL
        BEGIN
            COMMIT TRANSACTION;
            SELECT @q$existing AS [id], CAST(0 AS bit) AS [enqueued];
            RETURN;
        END;
        INSERT INTO [cards].[card_codes] ([card_number], [card_secret])
        -- OUTPUT INTO a table variable: a bare OUTPUT fails once someone adds a trigger to the table (error 334).
        OUTPUT inserted.[id] INTO @q$new ([id])
        VALUES (@card_number, @card_secret);
        COMMIT TRANSACTION;
        SELECT [id], CAST(1 AS bit) AS [enqueued] FROM @q$new;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch cards.card_codes_enqueue_batch, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement (at most 1988: more could escalate to a table lock; the client
-- splits a bigger batch); ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row: a job already queued, or repeated earlier in the batch, returns that id with enqueued = 0.
CREATE OR ALTER PROCEDURE [cards].[card_codes_enqueue_batch]
    @jobs [cards].[card_codes_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    IF (SELECT COUNT(*) FROM @jobs) > 1988
        THROW 50003, N'qgen: a batch of more than 1988 jobs is out of range for cards.card_codes: one statement writing more could escalate to a table lock; accepted: 1 to 1988 jobs per call (split the batch; the client does).', 1;
    DECLARE @q$over int, @q$over_column nvarchar(2048);
    SELECT TOP (1) @q$over = [j].[ordinal],
           @q$over_column = CASE WHEN DATALENGTH([j].[card_number]) > 64 THEN N'card_number; accepted: string(32), at most 32 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' WHEN DATALENGTH([j].[card_secret]) > 128 THEN N'card_secret; accepted: string(64), at most 64 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
    FROM @jobs AS [j]
    WHERE DATALENGTH([j].[card_number]) > 64 OR DATALENGTH([j].[card_secret]) > 128
    ORDER BY [j].[ordinal];
    IF @q$over IS NOT NULL
    BEGIN
        DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in cards.card_codes_enqueue_batch: column ', @q$over_column, N'.');
        THROW 50010, @q$over_message, 1;
    END;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- The dedupe checks of the queue table read WITH (UPDLOCK, HOLDLOCK): locking reads of current
        -- rows (also under READ_COMMITTED_SNAPSHOT) that keep the key ranges locked until commit. Those
        -- of the finished tables are plain locking reads by key (READCOMMITTEDLOCK): the queue table's
        -- range lock keeps every move of the key there out, and a range lock there would stall claims.
        INSERT INTO [cards].[card_codes] ([card_number], [card_secret])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[card_number], [j].[card_secret]
        FROM @jobs AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [cards].[card_codes] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[card_number] = [j].[card_number])
          -- dedupe.scope: ever: read after the queue table, the order a completion locks them in.
          AND NOT EXISTS (SELECT 1 FROM [cards].[card_codes_archive] AS [f] WITH (READCOMMITTEDLOCK) WHERE [f].[card_number] = [j].[card_number])
          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[card_number] = [j].[card_number] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], COALESCE([e].[id], [f1].[id]) AS [id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[card_number] = [j].[card_number] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @jobs AS [j]
        LEFT JOIN [cards].[card_codes] AS [e] ON [e].[card_number] = [j].[card_number]
        LEFT JOIN [cards].[card_codes_archive] AS [f1] ON [f1].[card_number] = [j].[card_number]
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

-- qgen 0.1.0: enqueue_json cards.card_codes_enqueue_json, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- enqueue_batch for callers that cannot send a table-valued parameter (pyodbc through FreeTDS):
-- the same jobs as one JSON array of objects, one per job, keyed by the batch type's column names.
-- Every job-type and payload column's key must be there (strict paths: a missing or misspelt key is
-- an error, never a silent NULL; give null for no value); "ordinal" (the job's position in the
-- array, from 1), "priority" and "run_at" are optional. A datetime is ISO 8601, UTC when
-- it has no offset; a json column is the JSON text as a string. Needs SQL Server 2016 or later and
-- database compatibility level 130 or higher (OPENJSON). Returns what enqueue_batch returns.
CREATE OR ALTER PROCEDURE [cards].[card_codes_enqueue_json]
    @jobs nvarchar(max)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$batch [cards].[card_codes_batch];
    BEGIN TRY
        INSERT INTO @q$batch ([ordinal], [card_number], [card_secret])
        SELECT COALESCE([j].[ordinal], CAST([a].[key] AS int) + 1),
               [j].[card_number],
               [j].[card_secret]
        FROM OPENJSON(@jobs) AS [a]
        CROSS APPLY OPENJSON([a].[value])
        WITH
        (
            [ordinal] int '$.ordinal',
            [card_number] nvarchar(33) 'strict $.card_number',
            [card_secret] nvarchar(65) 'strict $.card_secret'
        ) AS [j];
        IF (SELECT COUNT(*) FROM @q$batch) > 1988
            THROW 50003, N'qgen: a batch of more than 1988 jobs is out of range for cards.card_codes: one statement writing more could escalate to a table lock; accepted: 1 to 1988 jobs per call (split the batch; the client does).', 1;
        DECLARE @q$over int, @q$over_column nvarchar(2048);
        SELECT TOP (1) @q$over = [j].[ordinal],
               @q$over_column = CASE WHEN DATALENGTH([j].[card_number]) > 64 THEN N'card_number; accepted: string(32), at most 32 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' WHEN DATALENGTH([j].[card_secret]) > 128 THEN N'card_secret; accepted: string(64), at most 64 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two)' END
        FROM @q$batch AS [j]
        WHERE DATALENGTH([j].[card_number]) > 64 OR DATALENGTH([j].[card_secret]) > 128
        ORDER BY [j].[ordinal];
        IF @q$over IS NOT NULL
        BEGIN
            DECLARE @q$over_message nvarchar(2048) = CONCAT(N'qgen: job ', @q$over, N' of the batch has a value past its column''s limit in cards.card_codes_enqueue_json: column ', @q$over_column, N'.');
            THROW 50010, @q$over_message, 1;
        END;
        BEGIN TRANSACTION;
        -- The dedupe checks of the queue table read WITH (UPDLOCK, HOLDLOCK): locking reads of current
        -- rows (also under READ_COMMITTED_SNAPSHOT) that keep the key ranges locked until commit. Those
        -- of the finished tables are plain locking reads by key (READCOMMITTEDLOCK): the queue table's
        -- range lock keeps every move of the key there out, and a range lock there would stall claims.
        INSERT INTO [cards].[card_codes] ([card_number], [card_secret])
        OUTPUT inserted.[id] INTO @q$new ([id])
        SELECT [j].[card_number], [j].[card_secret]
        FROM @q$batch AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [cards].[card_codes] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[card_number] = [j].[card_number])
          -- dedupe.scope: ever: read after the queue table, the order a completion locks them in.
          AND NOT EXISTS (SELECT 1 FROM [cards].[card_codes_archive] AS [f] WITH (READCOMMITTEDLOCK) WHERE [f].[card_number] = [j].[card_number])
          AND NOT EXISTS (SELECT 1 FROM @q$batch AS [d] WHERE [d].[card_number] = [j].[card_number] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], COALESCE([e].[id], [f1].[id]) AS [id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @q$batch AS [d] WHERE [d].[card_number] = [j].[card_number] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @q$batch AS [j]
        LEFT JOIN [cards].[card_codes] AS [e] ON [e].[card_number] = [j].[card_number]
        LEFT JOIN [cards].[card_codes_archive] AS [f1] ON [f1].[card_number] = [j].[card_number]
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

-- qgen 0.1.0: control_table cards.card_codes_control, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which login). Every
-- claim reads it first, WITH (READPAST, READCOMMITTEDLOCK): a pause or resume counts from its
-- commit, and no claim waits on one left open. A missing row (deleted by hand) reads as running.
IF OBJECT_ID(N'cards.card_codes_control', N'U') IS NULL
BEGIN
    CREATE TABLE [cards].[card_codes_control]
    (
        [one_row] bit NOT NULL CONSTRAINT [card_codes_control_one_row_df] DEFAULT (1),
        [paused] bit NOT NULL CONSTRAINT [card_codes_control_paused_df] DEFAULT (0),
        [changed_at] datetime2(3) NULL,
        [changed_by] nvarchar(128) NULL,
        CONSTRAINT [card_codes_control_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [card_codes_control_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [cards].[card_codes_control])
    INSERT INTO [cards].[card_codes_control] ([paused]) VALUES (0);
GO

-- qgen 0.1.0: dequeue cards.card_codes_dequeue, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs by deleting them into the archive, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction the claim would commit at once (at-most-once delivery): refused unless
-- the caller says so with @at_most_once = 1. A caller with IMPLICIT_TRANSACTIONS ON is inside one:
-- the claim opens it, and the caller's COMMIT or ROLLBACK ends it.
-- @owner is accepted and unused here (the claim deletes the row: nothing records it), as on
-- PostgreSQL, so one call works in either claim mode.
CREATE OR ALTER PROCEDURE [cards].[card_codes_dequeue]
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
            N' is out of range for cards.card_codes_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in cards.card_codes_dequeue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF NOT (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2) AND ISNULL(@at_most_once, 0) = 0
        THROW 50005, N'qgen: refused on cards.card_codes: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass @at_most_once = 1', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on cards.card_codes: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0, or claim with @at_most_once = 1', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [card_number] nvarchar(32) NOT NULL,
        [card_secret] nvarchar(64) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL
    );
    -- What the claim has left to fill, and the jobs of the last round kept back (see keep_duplicates_back).
    DECLARE @q$want int, @q$dropped int;
    DECLARE @q$duplicates TABLE ([id] bigint NOT NULL PRIMARY KEY);
    BEGIN TRY
        -- @wait_ms: each attempt to claim starts here, in a transaction of its own (see the wait block below).
    q$attempt:
        BEGIN TRANSACTION;
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [cards].[card_codes_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
        -- A job the archive already holds is kept back, and as many again are claimed in its place
        -- (each round takes rows out of the queue, so it ends).
        SET @q$want = @batch_size;
        WHILE @q$want > 0
        BEGIN
            ;WITH [next_job] AS
            (
                SELECT TOP (@q$want) [id], [card_number], [card_secret], [enqueued_at]
                -- The one reference to the table: these hints hold for every row the claim reads.
                FROM [cards].[card_codes] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE 1 = 1
                ORDER BY [id]
            )
            DELETE FROM [next_job]
            OUTPUT deleted.[id], deleted.[card_number], deleted.[card_secret], deleted.[enqueued_at]
            INTO @q$claimed ([id], [card_number], [card_secret], [enqueued_at])
            -- Planned for one row, whatever @q$want the first call sniffed: a seek in queue order.
            OPTION (OPTIMIZE FOR (@q$want = 1));
            DELETE FROM @q$duplicates;
            INSERT INTO @q$duplicates ([id])
            SELECT [c].[id] FROM @q$claimed AS [c]
            WHERE EXISTS (SELECT 1 FROM [cards].[card_codes_archive] AS [a] WITH (READCOMMITTEDLOCK)
                          WHERE [a].[card_number] = [c].[card_number]);
            SET @q$dropped = @@ROWCOUNT;
            IF @q$dropped > 0
            BEGIN
                INSERT INTO [cards].[card_codes_dead] ([id], [card_number], [card_secret], [enqueued_at], [attempts], [last_error])
                SELECT [c].[id], [c].[card_number], [c].[card_secret], [c].[enqueued_at], 0,
                       N'qgen: not handed out: the archive already holds this dedupe key (card_number), so it was handed out before (a row loaded past enqueue?); kept here instead'
                FROM @q$claimed AS [c]
                WHERE [c].[id] IN (SELECT [d].[id] FROM @q$duplicates AS [d]);
                DELETE FROM @q$claimed WHERE [id] IN (SELECT [d].[id] FROM @q$duplicates AS [d]);
            END;
            IF @q$dropped = 0 BREAK;
            SET @q$want = @batch_size - (SELECT COUNT(*) FROM @q$claimed);
        END;
        INSERT INTO [cards].[card_codes_archive] ([id], [card_number], [card_secret], [enqueued_at], [completed_at])
        SELECT [id], [card_number], [card_secret], [enqueued_at], @q$now FROM @q$claimed;
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
        SELECT [id], [card_number], [card_secret], [enqueued_at]
        FROM @q$claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: metrics cards.card_codes_metrics, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now, for dashboards and alerts. Each count reads the one index that
-- holds its rows (claim, due, lease, processed index; the dead-letter and archive tables), never the
-- whole queue table (finished rows included), and does not wait on a row: WITH (READPAST,
-- READCOMMITTEDLOCK) skips a row another transaction holds (a job being claimed, completed or enqueued right now),
-- the watermark's one row is read WITH (NOLOCK). So under concurrency the numbers are approximate:
-- a job changing at that moment is counted in neither state, and the counts are not one snapshot.
-- READPAST skips row and page locks only: a table lock (an escalated lock of a large transaction,
-- uninstall's TABLOCKX, an offline index build) still makes it wait.
CREATE OR ALTER PROCEDURE [cards].[card_codes_metrics]
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
    FROM [cards].[card_codes] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$dead = COUNT_BIG(*) FROM [cards].[card_codes_dead] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$archived = COUNT_BIG(*), @q$recent = COUNT_BIG(CASE WHEN [completed_at] >= DATEADD(minute, -1, @q$now) THEN 1 END)
    FROM [cards].[card_codes_archive] WITH (READPAST, READCOMMITTEDLOCK);
    SELECT @q$ready AS [ready], @q$scheduled AS [scheduled], @q$in_flight AS [in_flight], @q$expired AS [expired],
        @q$processed AS [processed], @q$dead AS [dead], @q$archived AS [archived],
        -- The age of the oldest ready job: the one with the lowest id (ids grow with enqueued_at).
        COALESCE(DATEDIFF_BIG(second, (SELECT [enqueued_at] FROM [cards].[card_codes] WITH (READPAST, READCOMMITTEDLOCK) WHERE [id] = @q$oldest_id), @q$now), 0)
            AS [oldest_ready_age_seconds],
        @q$watermark AS [watermark],
        @q$lowest AS [lowest_pending_id],
        @q$recent AS [completed_last_minute],
        CAST(NULL AS bigint) AS [watermark_lag],
        CAST(CASE WHEN NOT EXISTS (SELECT 1 FROM [cards].[card_codes_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0) THEN 1 ELSE 0 END AS bit) AS [paused];
END;
GO

-- qgen 0.1.0: peek cards.card_codes_peek, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them.
CREATE OR ALTER PROCEDURE [cards].[card_codes_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    -- NULL or negative is refused with the other argument checks' code (TOP would raise 1014).
    IF @limit IS NULL OR @limit < 0
        THROW 50003, N'qgen: @limit is out of range for cards.card_codes_peek; accepted: 0 or more rows.', 1;
    SELECT TOP (@limit) [id], [card_number], [card_secret], [enqueued_at]
    FROM [cards].[card_codes_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge_batch cards.card_codes_purge_batch, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds: at most @batch_size rows (1000 by default, refused above 1988) over all those
-- tables together, in one transaction (the caller's, when there is one). purge loops over batches;
-- maintain runs one.
CREATE OR ALTER PROCEDURE [cards].[card_codes_purge_batch]
    @older_than_seconds int = 31536000,
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
            DELETE TOP (@q$left) FROM [cards].[card_codes_archive] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [completed_at] < @q$cutoff
            OPTION (OPTIMIZE FOR (@q$left = 1));
            SET @q$archived = @@ROWCOUNT;
            SET @q$left -= @q$archived;
        END;

        IF @q$left > 0
        BEGIN
            DELETE TOP (@q$left) FROM [cards].[card_codes_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
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

-- qgen 0.1.0: purge cards.card_codes_purge, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- @older_than_seconds, in batches of at most @batch_size rows (1000 by default, refused above 1988),
-- each committed on its own, so no statement takes enough locks to escalate to a table lock and
-- no transaction holds more than one batch. The cutoff is fixed when the call begins, so rows that
-- finish while it runs are left for the next purge and the loop ends. It must commit per batch,
-- so it refuses to run inside the caller's transaction (error 50004: there, call
-- card_codes_purge_batch, which deletes one batch in that transaction).
CREATE OR ALTER PROCEDURE [cards].[card_codes_purge]
    @older_than_seconds int = 31536000,
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
        THROW 50004, N'qgen: purge commits after every batch, which it cannot do inside the caller''s transaction (or with IMPLICIT_TRANSACTIONS ON, where its first statement would open one); call it outside a transaction in autocommit mode, or call card_codes_purge_batch (one batch) there.', 1;
    DECLARE @q$cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @q$archived bigint = 0, @q$processed bigint = 0, @q$dead bigint = 0, @q$deleted int;
    SET @q$deleted = @batch_size;
    WHILE @q$deleted = @batch_size
    BEGIN
        -- No transaction is open: each DELETE commits by itself, one batch at a time.
        DELETE TOP (@batch_size) FROM [cards].[card_codes_archive] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [completed_at] < @q$cutoff
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$deleted = @@ROWCOUNT;
        SET @q$archived += @q$deleted;
    END;

    SET @q$deleted = @batch_size;
    WHILE @q$deleted = @batch_size
    BEGIN
        -- No transaction is open: each DELETE commits by itself, one batch at a time.
        DELETE TOP (@batch_size) FROM [cards].[card_codes_dead] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [dead_at] < @q$cutoff
        OPTION (OPTIMIZE FOR (@batch_size = 1));
        SET @q$deleted = @@ROWCOUNT;
        SET @q$dead += @q$deleted;
    END;

    SELECT @q$archived AS [archived], @q$processed AS [processed], @q$dead AS [dead];
END;
GO

-- qgen 0.1.0: maintain cards.card_codes_maintain, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- @batch_size finished jobs older than the retention (31536000 s), in that order, in one transaction. Only one runs at a
-- time per queue (an application lock owned by the transaction, so it goes with the commit or the
-- rollback, a client timeout included): a caller that finds another one running returns at once
-- with skipped = 1. more = 1 when a step filled its batch: call again to do the rest.
-- Inside a caller's transaction its work commits with that transaction, and the lock is held
-- until then. It reads the steps' results through OUTPUT parameters, not INSERT ... EXEC: inside
-- one, a step's ROLLBACK fails with error 3915, which is all the caller would see of the step's own
-- error. Granted to the consumer role, so any worker can run it. It runs as the owner of qgen's
-- objects (EXECUTE AS OWNER) so that it can take its lock as that owner, not as public: see below.
CREATE OR ALTER PROCEDURE [cards].[card_codes_maintain]
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
            @Resource = N'qgen.maintain:[cards].[card_codes]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0, @DbPrincipal = @q$principal;
        -- -1: not granted at once, another maintain holds it. -2 (cancelled), -3 (deadlock victim)
        -- and -999 (a call error) are not "someone else is maintaining": refused with the code.
        IF @q$lock = -1
            SET @q$skipped = 1;
        ELSE IF @q$lock < 0
        BEGIN
            DECLARE @q$why nvarchar(2048) = CONCAT(N'qgen: refused on cards.card_codes: maintain could not take its application lock (sp_getapplock returned ',
                @q$lock, N' for principal ', @q$principal, N').');
            THROW 50005, @q$why, 1;
        END
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            EXEC [cards].[card_codes_purge_batch] @older_than_seconds = 31536000, @batch_size = @batch_size,
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

-- qgen 0.1.0: dead_letters cards.card_codes_dead_letters, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first, with the error each died of: at most @limit rows (1 to
-- 1000). Reads only. WITH (READPAST, READCOMMITTEDLOCK), as metrics reads: a locking
-- read at READ COMMITTED (also under READ_COMMITTED_SNAPSHOT) that never waits on a row another
-- transaction holds and skips it instead (a dead letter fail or reap is writing, or redrive or
-- purge is taking away, right now: it is on its way in or out), and holds each shared lock only
-- while it reads that row, so fail, reap, redrive and purge never wait on it. Not NOLOCK: a
-- fail rolled back with its caller's transaction would be listed as dead. READPAST skips row and
-- page locks only: a table lock (escalated, uninstall's TABLOCKX) still makes it wait.
CREATE OR ALTER PROCEDURE [cards].[card_codes_dead_letters]
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
            N' is out of range for cards.card_codes_dead_letters; accepted: 1 to 1000 rows.');
        THROW 50003, @q$error, 1;
    END;
    -- Newest first, in the order they arrived: the clustered key backwards, which stops after @limit rows.
    SELECT TOP (@limit) [x].[id], [x].[card_number], [x].[card_secret], [x].[enqueued_at], [x].[attempts],
        [x].[dead_at], [x].[last_error]
    FROM [cards].[card_codes_dead] AS [x] WITH (READPAST, READCOMMITTEDLOCK)
    ORDER BY [x].[entry_id] DESC
    OPTION (RECOMPILE);
END;
GO

-- qgen 0.1.0: job cards.card_codes_job, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
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
CREATE OR ALTER PROCEDURE [cards].[card_codes_job]
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
            N' is out of range for cards.card_codes_job; accepted: a job id, 1 or more.');
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
    FROM [cards].[card_codes] AS [j]
    WHERE [j].[id] = @job_id;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is reseeded.
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state], [enqueued_at], [attempts], [last_error], [finished_at])
        SELECT TOP (1) [x].[id], N'dead', [x].[enqueued_at], [x].[attempts],
            [x].[last_error], [x].[dead_at]
        FROM [cards].[card_codes_dead] AS [x]
        WHERE [x].[id] = @job_id
        ORDER BY [x].[entry_id] DESC;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state], [enqueued_at], [attempts], [last_error], [finished_at])
        SELECT TOP (1) [a].[id], N'archived', [a].[enqueued_at], NULL,
            NULL, [a].[completed_at]
        FROM [cards].[card_codes_archive] AS [a] WITH (READPAST, READCOMMITTEDLOCK)
        WHERE [a].[id] = @job_id
        ORDER BY [a].[entry_id] DESC;
    IF NOT EXISTS (SELECT 1 FROM @q$found)
        INSERT INTO @q$found ([id], [state]) VALUES (@job_id, N'not_found');
    SELECT [id], [state], [enqueued_at], [attempts], [last_error], [finished_at] FROM @q$found;
END;
GO

-- qgen 0.1.0: pause cards.card_codes_pause, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job, and a dequeue waiting with @wait_ms keeps waiting. Enqueues go on, and leases already
-- granted run to their end (complete, fail, extend_lease, release and reap work as before).
-- Returns 1 when this call paused the queue, 0 when it was paused already.
CREATE OR ALTER PROCEDURE [cards].[card_codes_pause]
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
        SELECT @q$was = [paused] FROM [cards].[card_codes_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [cards].[card_codes_control] ([paused], [changed_at], [changed_by]) VALUES (1, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 0;
        END
        ELSE IF @q$was = 0
        BEGIN
            UPDATE [cards].[card_codes_control]
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
            THROW 50005, N'qgen: refused on cards.card_codes: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: resume cards.card_codes_resume, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again (a dequeue waiting with
-- @wait_ms takes one at its next attempt). Returns 1 when this call resumed the queue, 0 when it
-- was not paused.
CREATE OR ALTER PROCEDURE [cards].[card_codes_resume]
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
        SELECT @q$was = [paused] FROM [cards].[card_codes_control] WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE [one_row] = 1;
        IF @@ROWCOUNT = 0
        BEGIN
            -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue.
            INSERT INTO [cards].[card_codes_control] ([paused], [changed_at], [changed_by]) VALUES (0, SYSUTCDATETIME(), ORIGINAL_LOGIN());
            SET @q$changed = 1;
        END
        ELSE IF @q$was = 1
        BEGIN
            UPDATE [cards].[card_codes_control]
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
            THROW 50005, N'qgen: refused on cards.card_codes: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again', 1;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: cancel cards.card_codes_cancel, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (@ids: a JSON array of whole numbers from 1, e.g. N'[3, 7]'; at most 1988): each job still
-- in the queue leaves it at once, in this one transaction, into the dead-letter table with last_error N'cancelled', and
-- never runs. One row per distinct id, in id order, [outcome]:
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   held: another open transaction holds it (a claim, or another cancel): READPAST never waits for
--     it, nothing is done. If that transaction rolls back the job is queued again, and can be
--     cancelled then;
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order (the clustered key, FORCESEEK from the ordered list of ids), as
-- every other statement that locks several jobs does, so cancel deadlocks with none of them, at most 5 s (then refused, 50005: nothing done).
CREATE OR ALTER PROCEDURE [cards].[card_codes_cancel]
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
    DECLARE @q$held TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$probe bigint;
    -- What the DELETE took out (its OUTPUT): the outcome is what happened, not what was found.
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [card_number] nvarchar(32) NOT NULL,
        [card_secret] nvarchar(64) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL
    );
    INSERT INTO @q$asked ([id])
    SELECT DISTINCT CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j];
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO @q$found ([id])
        SELECT [job].[id]
        FROM [cards].[card_codes] AS [job] WITH (UPDLOCK, ROWLOCK, READPAST, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]);
        DELETE FROM [cards].[card_codes]
        OUTPUT deleted.[id], deleted.[card_number], deleted.[card_secret], deleted.[enqueued_at]
        INTO @q$dead ([id], [card_number], [card_secret], [enqueued_at])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [cards].[card_codes_dead] ([id], [card_number], [card_secret], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [card_number], [card_secret], [enqueued_at], 0, N'cancelled', @q$now FROM @q$dead;
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on cards.card_codes: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
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
            IF EXISTS (SELECT 1 FROM [cards].[card_codes] WITH (READCOMMITTEDLOCK) WHERE [id] = @q$probe)
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

-- qgen 0.1.0: grants to roles cards_producer, cards_consumer, cards_admin, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue] TO [cards_producer];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue_batch] TO [cards_producer];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue_json] TO [cards_producer];
GRANT EXECUTE ON TYPE::[cards].[card_codes_batch] TO [cards_producer];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_dequeue] TO [cards_consumer];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[cards].[card_codes_maintain] TO [cards_consumer];
GRANT SELECT ON OBJECT::[cards].[card_codes_pending] TO [cards_admin];
-- The admin role runs every procedure qgen created, and nothing else: each by name, never EXECUTE
-- ON SCHEMA, which in a shared schema (or dbo) would reach every application procedure, present
-- and future (upgrade.sql takes back a schema-wide grant a former version made).
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue_batch] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue_json] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_dequeue] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_metrics] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_peek] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_purge_batch] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_purge] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_maintain] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_dead_letters] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_job] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_pause] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_resume] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_cancel] TO [cards_admin];
GRANT EXECUTE ON TYPE::[cards].[card_codes_batch] TO [cards_admin];
GO

-- qgen 0.1.0: verify cards, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
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
WHERE [s].[name] = N'cards'
  AND [o].[name] IN
  (
      N'card_codes',
      N'card_codes_dead',
      N'card_codes_archive',
      N'card_codes_dedupe_ux',
      N'card_codes_dead_ix',
      N'card_codes_archive_ix',
      N'card_codes_pending',
      N'card_codes_batch',
      N'card_codes_enqueue',
      N'card_codes_enqueue_batch',
      N'card_codes_enqueue_json',
      N'card_codes_control',
      N'card_codes_dequeue',
      N'card_codes_metrics',
      N'card_codes_peek',
      N'card_codes_purge_batch',
      N'card_codes_purge',
      N'card_codes_maintain',
      N'card_codes_dead_letters',
      N'card_codes_job',
      N'card_codes_pause',
      N'card_codes_resume',
      N'card_codes_cancel'
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
IF OBJECT_ID(N'cards.card_codes') IS NULL
    SET @q$missing += N' cards.card_codes';
IF OBJECT_ID(N'cards.card_codes_dead') IS NULL
    SET @q$missing += N' cards.card_codes_dead';
IF OBJECT_ID(N'cards.card_codes_archive') IS NULL
    SET @q$missing += N' cards.card_codes_archive';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'card_codes_dedupe_ux' AND [object_id] = OBJECT_ID(N'cards.card_codes'))
    SET @q$missing += N' cards.card_codes_dedupe_ux';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'card_codes_dead_ix' AND [object_id] = OBJECT_ID(N'cards.card_codes_dead'))
    SET @q$missing += N' cards.card_codes_dead_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'card_codes_archive_ix' AND [object_id] = OBJECT_ID(N'cards.card_codes_archive'))
    SET @q$missing += N' cards.card_codes_archive_ix';
IF OBJECT_ID(N'cards.card_codes_pending') IS NULL
    SET @q$missing += N' cards.card_codes_pending';
IF TYPE_ID(N'cards.card_codes_batch') IS NULL
    SET @q$missing += N' cards.card_codes_batch';
IF OBJECT_ID(N'cards.card_codes_enqueue') IS NULL
    SET @q$missing += N' cards.card_codes_enqueue';
IF OBJECT_ID(N'cards.card_codes_enqueue_batch') IS NULL
    SET @q$missing += N' cards.card_codes_enqueue_batch';
IF OBJECT_ID(N'cards.card_codes_enqueue_json') IS NULL
    SET @q$missing += N' cards.card_codes_enqueue_json';
IF OBJECT_ID(N'cards.card_codes_control') IS NULL
    SET @q$missing += N' cards.card_codes_control';
IF OBJECT_ID(N'cards.card_codes_dequeue') IS NULL
    SET @q$missing += N' cards.card_codes_dequeue';
IF OBJECT_ID(N'cards.card_codes_metrics') IS NULL
    SET @q$missing += N' cards.card_codes_metrics';
IF OBJECT_ID(N'cards.card_codes_peek') IS NULL
    SET @q$missing += N' cards.card_codes_peek';
IF OBJECT_ID(N'cards.card_codes_purge_batch') IS NULL
    SET @q$missing += N' cards.card_codes_purge_batch';
IF OBJECT_ID(N'cards.card_codes_purge') IS NULL
    SET @q$missing += N' cards.card_codes_purge';
IF OBJECT_ID(N'cards.card_codes_maintain') IS NULL
    SET @q$missing += N' cards.card_codes_maintain';
IF OBJECT_ID(N'cards.card_codes_dead_letters') IS NULL
    SET @q$missing += N' cards.card_codes_dead_letters';
IF OBJECT_ID(N'cards.card_codes_job') IS NULL
    SET @q$missing += N' cards.card_codes_job';
IF OBJECT_ID(N'cards.card_codes_pause') IS NULL
    SET @q$missing += N' cards.card_codes_pause';
IF OBJECT_ID(N'cards.card_codes_resume') IS NULL
    SET @q$missing += N' cards.card_codes_resume';
IF OBJECT_ID(N'cards.card_codes_cancel') IS NULL
    SET @q$missing += N' cards.card_codes_cancel';
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
WHERE [s].[name] = N'cards'
  AND [o].[name] IN
  (
      N'card_codes_maintain'
  )
  AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$owners <> N''
BEGIN
    DECLARE @q$impersonate nvarchar(2048) = LEFT(N'qgen: maintain runs WITH EXECUTE AS OWNER, which cannot impersonate its owner, '
        + N'so every call of it fails:' + @q$owners + N'. Give schema [cards] to a user, ALTER AUTHORIZATION ON SCHEMA::'
        + N'[cards] TO [dbo]; (a procedure given an owner of its own: ALTER AUTHORIZATION ON OBJECT::... TO SCHEMA OWNER;), '
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
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'cards.' + [r].[name]), N' '))
FROM
(
    VALUES
        (N'card_codes_cancel', 0x829F3E5FA3EB12807A86CEDCF740EB14CCA1C4DC0F30D282B434680C0F7CAB1D),
        (N'card_codes_dead_letters', 0xE45B7BAA2E02622B1230D539C2AE6CBD206E4068E61F8DA25D62A05804F27098),
        (N'card_codes_dequeue', 0x554A129C25991618382EBB3AC9B7F4AFC619905D6A571850CD9DB2626EFFE2DF),
        (N'card_codes_enqueue', 0x9B172B62FC1734986FC168C56EF0EE5025BB0FA393FCA770DED9F4E333369C74),
        (N'card_codes_enqueue_batch', 0xC195CD211672DFC581B9D2621244A41260A140A066A5A617609AA682E9F4134B),
        (N'card_codes_enqueue_json', 0xC765D36F2F16054C660249DA0B900E0EA8D53EFE0B018AF7608C1F1C156B2CE2),
        (N'card_codes_job', 0x2D2F51E87457AD9235EF77C814E789AE72DAD827F85C03A06C2DE2257A426293),
        (N'card_codes_maintain', 0x30C97B1B24C8ACC3708D0160545676F90AC8ABD1E7EC8F217827E583BA0DA8DD),
        (N'card_codes_metrics', 0x38EA2296F9437739449EA697F450D4F59B160915579F7C3C6954A8DF8D0E9FFE),
        (N'card_codes_pause', 0x4E1922BC3DC5D9E32137E2425650B4AF40CA26FAE228DEF6169BBC385BD84AFD),
        (N'card_codes_peek', 0x01512C2852CCB61306B7277D9ABB615A76E78DED74AB3456AFC9CFBD83743E88),
        (N'card_codes_pending', 0xC154F8B7C894C23422DDACD3008A27385F7A7EB17C08DEC4E05FE658539AEC78),
        (N'card_codes_purge', 0x1C5329C8E442740BA355111F8AA182E9D66BCC9515180683C391DC33EEE65FB6),
        (N'card_codes_purge_batch', 0xE3BCC7363BB82E0F54890F54C50F5CA020071B5D71CC2D6D0972389E63DBBE8A),
        (N'card_codes_resume', 0xBC64C440EEB8B6B54BD780EA853375394082CDE75897BD5EA53F5A29AB086153)
) AS [r]([name], [fingerprint])
INNER JOIN sys.sql_modules AS [sm] ON [sm].[object_id] = OBJECT_ID(N'cards.' + [r].[name])
CROSS APPLY (SELECT [sm].[definition] COLLATE Latin1_General_BIN2 AS [text]) AS [d]
WHERE HASHBYTES('SHA2_256', REPLACE(REPLACE(REPLACE(REPLACE(
          SUBSTRING([d].[text], CHARINDEX(N'[cards].[' + [r].[name] + N']' COLLATE Latin1_General_BIN2, [d].[text]), LEN([d].[text])),
          NCHAR(32), N''), NCHAR(9), N''), NCHAR(10), N''), NCHAR(13), N'')) <> [r].[fingerprint];
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'cards.' + [r].[table] + N'.' + [r].[name]
    + N' (' + COALESCE([shape].[now], N'?') + N', rendered ' + [r].[shape] + N')'), N' '))
FROM
(
    VALUES
        (N'card_codes', N'card_codes_dedupe_ux', N'unique (card_number)'),
        (N'card_codes_archive', N'card_codes_archive_dedupe_ux', N'unique (card_number)'),
        (N'card_codes_archive', N'card_codes_archive_ix', N'(completed_at)'),
        (N'card_codes_dead', N'card_codes_dead_id_ix', N'(id)'),
        (N'card_codes_dead', N'card_codes_dead_ix', N'(dead_at)')
) AS [r]([table], [name], [shape])
INNER JOIN sys.indexes AS [i] ON [i].[object_id] = OBJECT_ID(N'cards.' + [r].[table]) AND [i].[name] = [r].[name]
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
