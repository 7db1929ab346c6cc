-- qgen 0.1.0: worker four.four_queue_worker, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Drains the queue from inside the database (seed 000's looping worker), so a scheduled job can run
-- it: claims one job at a time, calls four.count_users_with_reputation with @id and the payload, completes the job when
-- the handler returns and fails it (retry or dead letter) when the handler raises. Stops when nothing
-- is claimable, after @max_items jobs or after @max_seconds (0: no limit).
CREATE OR ALTER PROCEDURE [four].[four_queue_worker]
    @max_items int = 0,
    @max_seconds int = 0,
    @owner nvarchar(128) = NULL,
    @lease_seconds int = 300
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @started datetime2(3) = SYSUTCDATETIME();
    DECLARE @now datetime2(3), @token uniqueidentifier, @processed int = 0, @job_id bigint, @error nvarchar(4000);
    DECLARE @reputation int;
    DECLARE @claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [reputation] int NOT NULL,
        [attempts] int NOT NULL,
        [lease_token] uniqueidentifier NOT NULL,
        [lease_expires_at] datetime2(3) NOT NULL
    );
    SET @owner = COALESCE(@owner, N'four_queue_worker:' + CAST(@@SPID AS nvarchar(10)));
    WHILE (@max_items = 0 OR @processed < @max_items)
      AND (@max_seconds = 0 OR DATEDIFF(second, @started, SYSUTCDATETIME()) < @max_seconds)
    BEGIN
        DELETE FROM @claimed;
        SET @now = SYSUTCDATETIME();
        SET @token = NEWID();
        UPDATE [job]
        SET [lease_token] = @token,
            [lease_owner] = @owner,
            [lease_expires_at] = DATEADD(second, @lease_seconds, @now),
            [attempts] = [job].[attempts] + 1
        OUTPUT inserted.[id], inserted.[reputation], inserted.[attempts], inserted.[lease_token], inserted.[lease_expires_at]
        INTO @claimed ([id], [reputation], [attempts], [lease_token], [lease_expires_at])
        FROM [four].[four_queue] AS [job]
        INNER JOIN
        (
            SELECT TOP (1) [id]
            FROM [four].[four_queue] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @now
            ORDER BY [id]
        ) AS [next_job] ON [next_job].[id] = [job].[id];
        IF NOT EXISTS (SELECT 1 FROM @claimed)
            BREAK;
        SELECT @job_id = [id], @reputation = [reputation] FROM @claimed;
        BEGIN TRY
            -- The handler's work and the completion commit together or not at all, so a job that
            -- is retried never has its work applied twice.
            BEGIN TRANSACTION;
            EXEC [four].[count_users_with_reputation] @id = @job_id, @reputation = @reputation;
            EXEC [four].[four_queue_complete] @lease_token = @token, @id = @job_id;
            COMMIT TRANSACTION;
        END TRY
        BEGIN CATCH
            IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
            SET @error = ERROR_MESSAGE();
            -- Fail the job only while this lease still holds it: a lost lease (50001) means the
            -- reaper released it and another worker may have it now.
            IF EXISTS (SELECT 1 FROM [four].[four_queue] WHERE [id] = @job_id AND [lease_token] = @token)
            BEGIN
                BEGIN TRY
                    EXEC [four].[four_queue_fail] @lease_token = @token, @id = @job_id, @error = @error;
                END TRY
                BEGIN CATCH
                    IF ERROR_NUMBER() <> 50001
                        THROW;
                END CATCH;
            END;
        END CATCH;
        SET @processed += 1;
    END;
    SELECT @processed AS [processed];
END;
GO
