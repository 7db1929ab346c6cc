-- qgen 0.1.0: maintain rainfall.rainfall_events_maintain, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- @batch_size finished jobs older than the retention (604800 s), releases up to @batch_size expired
-- leases (reap), and corrects the watermark, in that order, in one transaction. Only one runs at a
-- time per queue (an application lock owned by the transaction, so it goes with the commit or the
-- rollback, a client timeout included): a caller that finds another one running returns at once
-- with skipped = 1. more = 1 when a step filled its batch: call again to do the rest.
-- Inside a caller's transaction its work commits with that transaction, and the lock is held
-- until then. It reads the steps' results with INSERT ... EXEC, so it cannot itself be called by
-- INSERT ... EXEC (error 8164). Granted to the consumer role, so any worker can run it.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_maintain]
    @batch_size int = 1000
AS
BEGIN
    -- reap and purge READPAST, which needs READ COMMITTED: pinned here, whatever the caller runs at.
    SET NOCOUNT, XACT_ABORT ON;
    SET IMPLICIT_TRANSACTIONS OFF;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1999
        THROW 50003, N'qgen: @batch_size is out of range; accepted: 1 to 1999 (a batch stays well under lock escalation).', 1;
    DECLARE @q$lock int, @q$skipped bit = 0, @q$more bit = 0;
    DECLARE @q$purged TABLE ([archived] int NOT NULL, [processed] int NOT NULL, [dead] int NOT NULL);
    DECLARE @q$reaped TABLE ([released] int NOT NULL, [dead_lettered] int NOT NULL);
    DECLARE @q$corrected TABLE ([old_watermark] bigint NULL, [new_watermark] bigint NULL);
    -- reap takes at most the queue's max_batch_size: a larger batch would be refused (50003).
    DECLARE @q$reap_batch int = CASE WHEN @batch_size > 1000 THEN 1000 ELSE @batch_size END;
    BEGIN TRY
        BEGIN TRANSACTION;
        EXEC @q$lock = sys.sp_getapplock
            @Resource = N'qgen.maintain:[rainfall].[rainfall_events]',
            @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0;
        IF @q$lock < 0
            SET @q$skipped = 1;
        ELSE
        BEGIN
            -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
            INSERT INTO @q$purged ([archived], [processed], [dead])
            EXEC [rainfall].[rainfall_events_purge_batch] @older_than_seconds = 604800, @batch_size = @batch_size;
            INSERT INTO @q$reaped ([released], [dead_lettered])
            EXEC [rainfall].[rainfall_events_reap] @batch_size = @q$reap_batch;
            INSERT INTO @q$corrected ([old_watermark], [new_watermark])
            EXEC [rainfall].[rainfall_events_watermark_correct];
        END;
        COMMIT TRANSACTION;
        IF EXISTS (SELECT 1 FROM @q$purged WHERE [archived] + [processed] + [dead] >= @batch_size)
           OR EXISTS (SELECT 1 FROM @q$reaped WHERE [released] + [dead_lettered] >= @q$reap_batch)
            SET @q$more = 1;
        SELECT
            @q$skipped AS [skipped],
            COALESCE((SELECT [released] FROM @q$reaped), 0) AS [released],
            COALESCE((SELECT [dead_lettered] FROM @q$reaped), 0) AS [dead_lettered],
            (SELECT [old_watermark] FROM @q$corrected) AS [old_watermark],
            (SELECT [new_watermark] FROM @q$corrected) AS [new_watermark],
            COALESCE((SELECT [archived] FROM @q$purged), 0) AS [archived],
            COALESCE((SELECT [processed] FROM @q$purged), 0) AS [processed],
            COALESCE((SELECT [dead] FROM @q$purged), 0) AS [dead],
            @q$more AS [more];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
