-- qgen 0.1.0: reap four.four_queue_reap, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
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
