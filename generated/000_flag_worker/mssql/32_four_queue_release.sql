-- qgen 0.1.0: release four.four_queue_release, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With @id, that
-- job; without, every job of the lease. The token is the fence: a job whose lease was released,
-- taken over or finished gets error 50001. last_error is kept (no failure happened).
CREATE OR ALTER PROCEDURE [four].[four_queue_release]
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
            SELECT [id] FROM [four].[four_queue] WHERE [lease_token] = @lease_token;
            UPDATE [four].[four_queue]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now, [deferred] = 1,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] IN (SELECT [id] FROM @q$held) AND [lease_token] = @lease_token;
        END
        ELSE
            UPDATE [four].[four_queue]
            SET [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL, [available_at] = @q$now, [deferred] = 1,
                [attempts] = CASE WHEN [attempts] > 0 THEN [attempts] - 1 ELSE 0 END
            OUTPUT inserted.[id] INTO @q$freed ([id])
            WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @q$released = @@ROWCOUNT;
        IF @q$released = 0
            THROW 50001, N'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        -- Released jobs are claimable again: the watermark must not stay above them (unless another
        -- transaction holds the watermark row: then the rescan finds them; never a wait).
        SELECT @q$lowest = MIN([id]) FROM @q$freed;
        UPDATE [w]
            SET [id] = @q$lowest, [version] = [w].[version] + 1
            FROM [four].[four_queue_watermark] AS [w] WITH (ROWLOCK, READPAST, UPDLOCK)
            WHERE [w].[id] > @q$lowest;
        COMMIT TRANSACTION;
        RETURN @q$released;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
