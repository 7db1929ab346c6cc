-- qgen 0.1.0: extend_lease rainfall.rainfall_events_extend_lease, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire @lease_seconds from now.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_extend_lease]
    @lease_token uniqueidentifier,
    @lease_seconds int = 900,
    @id bigint = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @until datetime2(3) = DATEADD(second, @lease_seconds, SYSUTCDATETIME());
    DECLARE @extended int;
    BEGIN TRY
        IF @id IS NULL
            UPDATE [rainfall].[rainfall_events] SET [lease_expires_at] = @until WHERE [lease_token] = @lease_token;
        ELSE
            UPDATE [rainfall].[rainfall_events] SET [lease_expires_at] = @until WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @extended = @@ROWCOUNT;
        IF @extended = 0
            THROW 50001, N'qgen: lease lost on rainfall.rainfall_events: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        RETURN @extended;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
