-- qgen 0.1.0: enqueue ghosts.testq_enqueue, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0).
CREATE OR ALTER PROCEDURE [ghosts].[testq_enqueue]
    @filler nvarchar(400)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    BEGIN TRY
        INSERT INTO [ghosts].[testq] ([filler])
        OUTPUT inserted.[id], CAST(1 AS bit) AS [enqueued]
        VALUES (@filler);
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
