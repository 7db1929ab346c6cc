-- qgen 0.1.0: complete QueueSample.WorkQueue_complete, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Finishes jobs held by a lease: marks them processed. With @id, only that job; without, every job of
-- the lease. The token is the fence: a worker whose lease was released or taken over gets error 50001.
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_complete]
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
            SELECT [id] FROM [QueueSample].[WorkQueue] WHERE [lease_token] = @lease_token;
            UPDATE [QueueSample].[WorkQueue]
            SET [processed] = 1, [processed_at] = @q$now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;

            SET @q$completed = @@ROWCOUNT;
        END
        ELSE
        BEGIN
            UPDATE [QueueSample].[WorkQueue]
            SET [processed] = 1, [processed_at] = @q$now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [id] = @id AND [lease_token] = @lease_token;

            SET @q$completed = @@ROWCOUNT;
        END;
        IF @q$completed = 0
            THROW 50001, N'qgen: lease lost on QueueSample.WorkQueue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        COMMIT TRANSACTION;
        RETURN @q$completed;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
