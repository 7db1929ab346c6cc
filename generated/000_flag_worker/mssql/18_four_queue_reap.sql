-- qgen 0.1.0: reap four.four_queue_reap, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- @batch_size per call so it never holds many locks: those with attempts left become claimable
-- again, with their old token cleared so the late worker is fenced off; the rest are dead-lettered.
CREATE OR ALTER PROCEDURE [four].[four_queue_reap]
    @batch_size int = 1000
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    DECLARE @expired TABLE ([id] bigint NOT NULL PRIMARY KEY, [attempts] int NOT NULL);
    DECLARE @released int = 0, @dead_lettered int = 0, @lowest bigint;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- READPAST: a job being completed right now is locked by its worker; leave it to finish.
        INSERT INTO @expired ([id], [attempts])
        SELECT TOP (@batch_size) [id], [attempts]
        FROM [four].[four_queue] WITH (ROWLOCK, READPAST, UPDLOCK)
        WHERE [lease_token] IS NOT NULL AND [lease_expires_at] < @now;

        UPDATE [job]
        SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @now,
            [last_error] = N'qgen: lease expired before the job was completed'
        FROM [four].[four_queue] AS [job]
        INNER JOIN @expired AS [e] ON [e].[id] = [job].[id]
        WHERE [e].[attempts] < 5;
        SET @released = @@ROWCOUNT;

        DELETE [job]
        OUTPUT deleted.[id], deleted.[reputation], deleted.[enqueued_at], deleted.[attempts], N'qgen: lease expired on the last attempt', @now
        INTO [four].[four_queue_dead] ([id], [reputation], [enqueued_at], [attempts], [last_error], [dead_at])
        FROM [four].[four_queue] AS [job]
        INNER JOIN @expired AS [e] ON [e].[id] = [job].[id]
        WHERE [e].[attempts] >= 5;
        SET @dead_lettered = @@ROWCOUNT;

        -- Released jobs are claimable again: the watermark must not stay above them.
        SELECT @lowest = MIN([id]) FROM @expired WHERE [attempts] < 5;
        IF @lowest IS NOT NULL
            UPDATE [four].[four_queue_watermark]
            SET [id] = CASE WHEN [id] > @lowest THEN @lowest ELSE [id] END, [version] = [version] + 1;
        COMMIT TRANSACTION;
        SELECT @released AS [released], @dead_lettered AS [dead_lettered];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
