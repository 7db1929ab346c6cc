-- qgen 0.1.0: every object of 002_card_codes.yaml, for SQL Server (T-SQL), in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema cards, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
IF SCHEMA_ID(N'cards') IS NULL
    EXEC(N'CREATE SCHEMA [cards] AUTHORIZATION [dbo];');
GO

-- qgen 0.1.0: roles cards_admin, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
IF DATABASE_PRINCIPAL_ID(N'cards_producer') IS NULL
    CREATE ROLE [cards_producer];
IF DATABASE_PRINCIPAL_ID(N'cards_consumer') IS NULL
    CREATE ROLE [cards_consumer];
IF DATABASE_PRINCIPAL_ID(N'cards_admin') IS NULL
    CREATE ROLE [cards_admin];
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

-- qgen 0.1.0: claim_index cards.card_codes_claim_ix, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A delete queue holds only unclaimed rows, so the clustered id already is claim order; this index
-- serves the job-type filter and priority order when there is one.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_claim_ix' AND object_id = OBJECT_ID(N'cards.card_codes'))
    CREATE NONCLUSTERED INDEX [card_codes_claim_ix]
    ON [cards].[card_codes] ([id]);
GO

-- qgen 0.1.0: dedupe_index cards.card_codes_dedupe_ux, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_dedupe_ux' AND object_id = OBJECT_ID(N'cards.card_codes'))
    CREATE UNIQUE NONCLUSTERED INDEX [card_codes_dedupe_ux]
    ON [cards].[card_codes] ([card_number]);
GO

-- qgen 0.1.0: archive_table cards.card_codes_archive, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Completed jobs, moved here by dequeue and removed by purge after the retention period.
IF OBJECT_ID(N'cards.card_codes_archive', N'U') IS NULL
BEGIN
    CREATE TABLE [cards].[card_codes_archive]
    (
        [id] bigint NOT NULL,
        [card_number] nvarchar(32) NOT NULL,
        [card_secret] nvarchar(64) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [completed_at] datetime2(3) NOT NULL CONSTRAINT [card_codes_archive_completed_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [card_codes_archive_pk] PRIMARY KEY CLUSTERED ([id])
    );
    -- purge deletes by age.
    CREATE NONCLUSTERED INDEX [card_codes_archive_completed_at_ix] ON [cards].[card_codes_archive] ([completed_at]);
END;
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
-- drops and recreates it with the procedures that use it.
IF TYPE_ID(N'cards.card_codes_batch') IS NULL
    CREATE TYPE [cards].[card_codes_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [card_number] nvarchar(32) NOT NULL,
        [card_secret] nvarchar(64) NOT NULL,
        PRIMARY KEY ([ordinal])
    );
GO

-- qgen 0.1.0: enqueue cards.card_codes_enqueue, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0).
CREATE OR ALTER PROCEDURE [cards].[card_codes_enqueue]
    @card_number nvarchar(32),
    @card_secret nvarchar(64)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK + HOLDLOCK keep the key range locked until the insert, so two sessions enqueueing
        -- the same key cannot both find it missing.
        DECLARE @existing bigint =
        (
            SELECT [id] FROM [cards].[card_codes] WITH (UPDLOCK, HOLDLOCK)
            WHERE [card_number] = @card_number
        );
        IF @existing IS NOT NULL
        BEGIN
            COMMIT TRANSACTION;
            SELECT @existing AS [id], CAST(0 AS bit) AS [enqueued];
            RETURN;
        END;
        INSERT INTO [cards].[card_codes] ([card_number], [card_secret])
        OUTPUT inserted.[id], CAST(1 AS bit) AS [enqueued]
        VALUES (@card_number, @card_secret);
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: enqueue_batch cards.card_codes_enqueue_batch, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order. Returns (ordinal, id, enqueued)
-- for every input row: a job already queued, or repeated earlier in the batch, returns that id with enqueued = 0.
CREATE OR ALTER PROCEDURE [cards].[card_codes_enqueue_batch]
    @jobs [cards].[card_codes_batch] READONLY
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [cards].[card_codes] ([card_number], [card_secret])
        OUTPUT inserted.[id] INTO @new ([id])
        SELECT [j].[card_number], [j].[card_secret]
        FROM @jobs AS [j]
        WHERE NOT EXISTS (SELECT 1 FROM [cards].[card_codes] AS [e] WITH (UPDLOCK, HOLDLOCK) WHERE [e].[card_number] = [j].[card_number])
          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[card_number] = [j].[card_number] AND [d].[ordinal] < [j].[ordinal])
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        SELECT [j].[ordinal], [e].[id],
               CAST(CASE WHEN [n].[id] IS NOT NULL
                          AND NOT EXISTS (SELECT 1 FROM @jobs AS [d] WHERE [d].[card_number] = [j].[card_number] AND [d].[ordinal] < [j].[ordinal])
                         THEN 1 ELSE 0 END AS bit) AS [enqueued]
        FROM @jobs AS [j]
        INNER JOIN [cards].[card_codes] AS [e] ON [e].[card_number] = [j].[card_number]
        LEFT JOIN @new AS [n] ON [n].[id] = [e].[id]
        ORDER BY [j].[ordinal];
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO

-- qgen 0.1.0: dequeue cards.card_codes_dequeue, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs by deleting them into the archive, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
CREATE OR ALTER PROCEDURE [cards].[card_codes_dequeue]
    @owner nvarchar(128) = NULL,
    @batch_size int = 1
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    DECLARE @claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [card_number] nvarchar(32) NOT NULL,
        [card_secret] nvarchar(64) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL
    );
    BEGIN TRY
        BEGIN TRANSACTION;
        DELETE [job]
        OUTPUT deleted.[id], deleted.[card_number], deleted.[card_secret], deleted.[enqueued_at]
        INTO @claimed ([id], [card_number], [card_secret], [enqueued_at])
        FROM [cards].[card_codes] AS [job]
        INNER JOIN
        (
            SELECT TOP (@batch_size) [id]
            FROM [cards].[card_codes] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE 1 = 1
            ORDER BY [id]
        ) AS [next_job] ON [next_job].[id] = [job].[id];
        INSERT INTO [cards].[card_codes_archive] ([id], [card_number], [card_secret], [enqueued_at], [completed_at])
        SELECT [id], [card_number], [card_secret], [enqueued_at], @now FROM @claimed;
        COMMIT TRANSACTION;
        SELECT [id], [card_number], [card_secret], [enqueued_at]
        FROM @claimed
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
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR ALTER PROCEDURE [cards].[card_codes_metrics]
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
        (SELECT COUNT_BIG(*) FROM [cards].[card_codes_archive]) AS [archived],
        COALESCE(DATEDIFF_BIG(second, MIN(CASE WHEN 1 = 1 THEN [enqueued_at] END), @now), 0) AS [oldest_ready_age_seconds],
        CAST(NULL AS bigint) AS [watermark],
        MIN(CASE WHEN 1 = 1 THEN [id] END) AS [lowest_pending_id]
    FROM [cards].[card_codes];
END;
GO

-- qgen 0.1.0: peek cards.card_codes_peek, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue).
CREATE OR ALTER PROCEDURE [cards].[card_codes_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SELECT TOP (@limit) [id], [card_number], [card_secret], [enqueued_at]
    FROM [cards].[card_codes_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge cards.card_codes_purge, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than @older_than_seconds, in
-- batches of @batch_size so no single delete escalates to a table lock or bloats the log.
CREATE OR ALTER PROCEDURE [cards].[card_codes_purge]
    @older_than_seconds int = 31536000,
    @batch_size int = 10000
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @archived bigint = 0, @processed bigint = 0, @dead bigint = 0, @deleted int;
    SET @deleted = 1;
    WHILE @deleted > 0
    BEGIN
        DELETE TOP (@batch_size) FROM [cards].[card_codes_archive] WHERE [completed_at] < @cutoff;
        SET @deleted = @@ROWCOUNT;
        SET @archived += @deleted;
    END;

    SELECT @archived AS [archived], @processed AS [processed], @dead AS [dead];
END;
GO

-- qgen 0.1.0: grants cards_consumer, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue] TO [cards_producer];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue_batch] TO [cards_producer];
GRANT EXECUTE ON TYPE::[cards].[card_codes_batch] TO [cards_producer];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_dequeue] TO [cards_consumer];
GRANT SELECT ON OBJECT::[cards].[card_codes_pending] TO [cards_admin];
GRANT EXECUTE ON SCHEMA::[cards] TO [cards_admin];
GO
