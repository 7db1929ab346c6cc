-- qgen 0.1.0: worker four.four_queue_worker, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
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
