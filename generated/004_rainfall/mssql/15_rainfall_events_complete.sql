-- qgen 0.1.0: complete rainfall.rainfall_events_complete, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: marks them processed. With @id, only that job; without, every job of
-- the lease. The token is the fence: a worker whose lease was released or taken over gets error 50001.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_complete]
    @lease_token uniqueidentifier,
    @id bigint = NULL,
    @rainfall_id bigint = NULL,
    @summary nvarchar(400) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    DECLARE @completed int;
    BEGIN TRY
        BEGIN TRANSACTION;
        IF @id IS NULL
        BEGIN
            UPDATE [rainfall].[rainfall_events]
            SET [processed] = 1, [processed_at] = @now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [lease_token] = @lease_token;

            SET @completed = @@ROWCOUNT;
        END
        ELSE
        BEGIN
            UPDATE [rainfall].[rainfall_events]
            SET [processed] = 1, [processed_at] = @now, [lease_token] = NULL, [lease_owner] = NULL, [lease_expires_at] = NULL
            WHERE [id] = @id AND [lease_token] = @lease_token;

            SET @completed = @@ROWCOUNT;
        END;
        IF @completed = 0
            THROW 50001, N'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        -- The result goes on in the same transaction as the completion (seed 004's local queue table).
        IF @id IS NOT NULL AND (@rainfall_id IS NOT NULL OR @summary IS NOT NULL)
            INSERT INTO [rainfall].[rainfall_transfer] ([rainfall_id], [summary])
            VALUES (@rainfall_id, @summary);
        COMMIT TRANSACTION;
        RETURN @completed;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
