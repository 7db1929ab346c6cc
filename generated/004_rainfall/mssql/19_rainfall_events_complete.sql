-- qgen 0.1.0: complete rainfall.rainfall_events_complete, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Finishes jobs held by a lease: marks them processed. With @id, only that job; without, every job of
-- the lease (refused here with 50005: this queue has an outbox, whose values belong to one job). The token is the fence: a worker whose lease was released or taken over gets error 50001.
-- A job hands its outbox values on, or the caller says it has none with @no_result = 1: a job
-- completed with neither is refused (50005), never finished with nothing handed on.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_complete]
    @lease_token uniqueidentifier,
    @id bigint = NULL,
    @rainfall_id bigint = NULL,
    @summary nvarchar(401) = NULL,
    @no_result bit = 0
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF DATALENGTH(@summary) > 800
        THROW 50010, N'qgen: @summary is past its column''s limit in rainfall.rainfall_events_complete; accepted: string(400), at most 400 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$completed int;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- Outbox values belong to one job: a whole lease completed at once would skip them silently.
        IF @id IS NULL
            THROW 50005, N'qgen: refused on rainfall.rainfall_events: this queue has an outbox: complete each job with its @id and its outbox values, not a whole lease by its token', 1;
        IF @no_result IS NULL
            THROW 50003, N'qgen: @no_result NULL is out of range; accepted: 0 (the outbox values are given) or 1 (this job hands nothing on).', 1;
        IF @no_result = 1 AND (@rainfall_id IS NOT NULL OR @summary IS NOT NULL)
            THROW 50003, N'qgen: complete on rainfall.rainfall_events: @no_result = 1 says this job hands nothing on, yet outbox values were given; pass the values or @no_result = 1, not both.', 1;
        IF @no_result = 0 AND NOT (@rainfall_id IS NOT NULL OR @summary IS NOT NULL)
            THROW 50005, N'qgen: refused on rainfall.rainfall_events: this queue has an outbox: complete each job with its outbox values (rainfall_id, summary), or with @no_result = 1 when the job hands nothing on', 1;
        IF @no_result = 0 AND @rainfall_id IS NULL
            THROW 50003, N'qgen: complete on rainfall.rainfall_events: outbox value @rainfall_id is missing (NULL); it is NOT NULL in the outbox; accepted: every NOT NULL outbox value, or @no_result = 1.', 1;
        IF @no_result = 0 AND @summary IS NULL
            THROW 50003, N'qgen: complete on rainfall.rainfall_events: outbox value @summary is missing (NULL); it is NOT NULL in the outbox; accepted: every NOT NULL outbox value, or @no_result = 1.', 1;

        BEGIN
            UPDATE [rainfall].[rainfall_events]
            SET [processed] = 1, [processed_at] = @q$now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [id] = @id AND [lease_token] = @lease_token;

            SET @q$completed = @@ROWCOUNT;
        END;
        IF @q$completed = 0
            THROW 50001, N'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        -- The result goes on in the same transaction as the completion (seed 004's local queue table).
        IF @no_result = 0
        BEGIN
            INSERT INTO [rainfall].[rainfall_transfer] ([rainfall_id], [summary])
            SELECT @rainfall_id, @summary;
        END;
        COMMIT TRANSACTION;
        RETURN @q$completed;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
