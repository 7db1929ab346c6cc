-- qgen 0.1.0: extend_lease four.four_queue_extend_lease, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire @lease_seconds from now.
CREATE OR ALTER PROCEDURE [four].[four_queue_extend_lease]
    @lease_token uniqueidentifier,
    @lease_seconds int = 300,
    @id bigint = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @until datetime2(3) = DATEADD(second, @lease_seconds, SYSUTCDATETIME());
    DECLARE @extended int;
    BEGIN TRY
        IF @id IS NULL
            UPDATE [four].[four_queue] SET [lease_expires_at] = @until WHERE [lease_token] = @lease_token;
        ELSE
            UPDATE [four].[four_queue] SET [lease_expires_at] = @until WHERE [id] = @id AND [lease_token] = @lease_token;
        SET @extended = @@ROWCOUNT;
        IF @extended = 0
            THROW 50001, N'qgen: lease lost on four.four_queue: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished).', 1;
        RETURN @extended;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
