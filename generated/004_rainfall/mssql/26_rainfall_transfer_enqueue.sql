-- qgen 0.1.0: enqueue rainfall.rainfall_transfer_enqueue, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0).
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_enqueue]
    @rainfall_id bigint,
    @summary nvarchar(400)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    BEGIN TRY
        INSERT INTO [rainfall].[rainfall_transfer] ([rainfall_id], [summary])
        OUTPUT inserted.[id], CAST(1 AS bit) AS [enqueued]
        VALUES (@rainfall_id, @summary);
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
