-- qgen 0.1.0: every object of 001_watermark.yaml, for SQL Server (T-SQL), in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema ghosts, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
IF SCHEMA_ID(N'ghosts') IS NULL
    EXEC(N'CREATE SCHEMA [ghosts] AUTHORIZATION [dbo];');
GO

-- qgen 0.1.0: roles ghosts_admin, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
IF DATABASE_PRINCIPAL_ID(N'ghosts_producer') IS NULL
    CREATE ROLE [ghosts_producer];
IF DATABASE_PRINCIPAL_ID(N'ghosts_consumer') IS NULL
    CREATE ROLE [ghosts_consumer];
IF DATABASE_PRINCIPAL_ID(N'ghosts_admin') IS NULL
    CREATE ROLE [ghosts_admin];
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

-- qgen 0.1.0: claim_index ghosts.testq_claim_ix, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A delete queue holds only unclaimed rows, so the clustered id already is claim order; this index
-- serves the job-type filter and priority order when there is one.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'testq_claim_ix' AND object_id = OBJECT_ID(N'ghosts.testq'))
    CREATE NONCLUSTERED INDEX [testq_claim_ix]
    ON [ghosts].[testq] ([id]);
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
    BEGIN TRY
        INSERT INTO [ghosts].[testq] ([filler])
        OUTPUT inserted.[id], CAST(1 AS bit) AS [enqueued]
        VALUES (@filler);
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
    DECLARE @new TABLE ([id] bigint NOT NULL PRIMARY KEY);
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO [ghosts].[testq] ([filler])
        OUTPUT inserted.[id] INTO @new ([id])
        SELECT [j].[filler]
        FROM @jobs AS [j]
        -- INSERT ... SELECT ... ORDER BY assigns identity values in that order.
        ORDER BY [j].[ordinal];
        -- The nth lowest new id belongs to the nth lowest ordinal.
        SELECT [j].[ordinal], [n].[id], CAST(1 AS bit) AS [enqueued]
        FROM (SELECT [ordinal], ROW_NUMBER() OVER (ORDER BY [ordinal]) AS [position] FROM @jobs) AS [j]
        INNER JOIN (SELECT [id], ROW_NUMBER() OVER (ORDER BY [id]) AS [position] FROM @new) AS [n]
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
    DECLARE @target bigint = @claimed_from - 50;
    -- READPAST on the watermark row: a session already moving it wins, this one skips.
    -- READPAST on the queue: rows locked by other claimers are being claimed; rows locked by a
    -- release (fail, reap) are lowered by that release itself after this move.
    UPDATE [w]
    SET [id] = COALESCE(
            (
                SELECT MIN([job].[id])
                FROM [ghosts].[testq] AS [job] WITH (READPAST)
                WHERE [job].[id] >= [w].[id] AND [job].[id] < @target AND 1 = 1
            ), @target),
        [version] = [w].[version] + 1
    FROM [ghosts].[testq_watermark] AS [w] WITH (ROWLOCK, READPAST)
    WHERE [w].[id] < @target;
END;
GO

-- qgen 0.1.0: watermark_correct ghosts.testq_watermark_correct, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty).
-- Run it from a periodic job and after a dequeue that found nothing; it repairs a watermark that is
-- wrong either way.
CREATE OR ALTER PROCEDURE [ghosts].[testq_watermark_correct]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @old bigint, @version bigint, @new bigint, @tries int = 0, @written int = 0;
    WHILE @written = 0 AND @tries < 5
    BEGIN
        SET @tries += 1;
        SELECT @old = [id], @version = [version] FROM [ghosts].[testq_watermark];
        SET @new = (SELECT MIN([id]) FROM [ghosts].[testq] WHERE 1 = 1) - 50;
        IF @new IS NULL
            SET @new = (SELECT MAX([id]) + 1 FROM [ghosts].[testq]) - 50;
        -- Drained: the next id comes from the identity (NULL if none was ever generated). Left where
        -- it was, a watermark a release had lowered would make every claim walk the drained range.
        IF @new IS NULL
            SET @new = (SELECT CONVERT(bigint, [last_value]) + 1 FROM sys.identity_columns
                        WHERE [object_id] = OBJECT_ID(N'[ghosts].[testq]') AND [name] = N'id') - 50;
        IF @new IS NULL
            SET @new = @old;
        IF @new < 0
            SET @new = 0;
        -- Compare-and-set on version: a release that lowered the watermark while we scanned wins,
        -- and we scan again.
        UPDATE [ghosts].[testq_watermark] SET [id] = @new, [version] = [version] + 1 WHERE [version] = @version;
        SET @written = @@ROWCOUNT;
    END;
    SELECT @old AS [old_watermark], CASE WHEN @written = 1 THEN @new ELSE @old END AS [new_watermark];
END;
GO

-- qgen 0.1.0: dequeue ghosts.testq_dequeue, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Claims up to @batch_size jobs by deleting them, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
CREATE OR ALTER PROCEDURE [ghosts].[testq_dequeue]
    @owner nvarchar(128) = NULL,
    @batch_size int = 1
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    DECLARE @claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [filler] nvarchar(400) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL
    );
    -- Start at the watermark: below it every row is claimed or gone, and only ghosts remain.
    -- NOLOCK: a mover inside another caller's open transaction must not block every claim; its
    -- uncommitted value is as safe as a committed one (it never passes that claim's own rows).
    DECLARE @from bigint = (SELECT [id] FROM [ghosts].[testq_watermark] WITH (NOLOCK));
    BEGIN TRY
        BEGIN TRANSACTION;
        DELETE [job]
        OUTPUT deleted.[id], deleted.[filler], deleted.[enqueued_at]
        INTO @claimed ([id], [filler], [enqueued_at])
        FROM [ghosts].[testq] AS [job]
        INNER JOIN
        (
            SELECT TOP (@batch_size) [id]
            FROM [ghosts].[testq] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE 1 = 1
              AND [id] >= @from
            ORDER BY [id]
        ) AS [next_job] ON [next_job].[id] = [job].[id];
        -- Move the watermark about once per 100 claimed ids: when this claim's ids cross a multiple of it.
        DECLARE @lowest bigint, @highest bigint;
        SELECT @lowest = MIN([id]), @highest = MAX([id]) FROM @claimed;
        IF @highest / 100 > (@lowest - 1) / 100
            EXEC [ghosts].[testq_watermark_move] @claimed_from = @lowest;
        COMMIT TRANSACTION;
        SELECT [id], [filler], [enqueued_at]
        FROM @claimed
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
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    SELECT
        COUNT_BIG(CASE WHEN 1 = 1 THEN 1 END) AS [ready],
        CAST(0 AS bigint) AS [scheduled],
        CAST(0 AS bigint) AS [in_flight],
        CAST(0 AS bigint) AS [expired],
        CAST(0 AS bigint) AS [processed],
        CAST(0 AS bigint) AS [dead],
        CAST(0 AS bigint) AS [archived],
        COALESCE(DATEDIFF_BIG(second, MIN(CASE WHEN 1 = 1 THEN [enqueued_at] END), @now), 0) AS [oldest_ready_age_seconds],
        (SELECT [id] FROM [ghosts].[testq_watermark]) AS [watermark],
        MIN(CASE WHEN 1 = 1 THEN [id] END) AS [lowest_pending_id]
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
    SELECT TOP (@limit) [id], [filler], [enqueued_at]
    FROM [ghosts].[testq_pending]
    ORDER BY [id];
END;
GO

-- qgen 0.1.0: purge ghosts.testq_purge, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than @older_than_seconds, in
-- batches of @batch_size so no single delete escalates to a table lock or bloats the log.
CREATE OR ALTER PROCEDURE [ghosts].[testq_purge]
    @older_than_seconds int = 604800,
    @batch_size int = 10000
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @archived bigint = 0, @processed bigint = 0, @dead bigint = 0, @deleted int;
    SELECT @archived AS [archived], @processed AS [processed], @dead AS [dead];
END;
GO

-- qgen 0.1.0: grants ghosts_consumer, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue] TO [ghosts_producer];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue_batch] TO [ghosts_producer];
GRANT EXECUTE ON TYPE::[ghosts].[testq_batch] TO [ghosts_producer];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_dequeue] TO [ghosts_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[ghosts].[testq_watermark_correct] TO [ghosts_consumer];
GRANT SELECT ON OBJECT::[ghosts].[testq_pending] TO [ghosts_admin];
GRANT EXECUTE ON SCHEMA::[ghosts] TO [ghosts_admin];
GO
