-- qgen 0.1.0: enqueue rainfall.rainfall_events_enqueue, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0).
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_enqueue]
    @rainfall_id bigint
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    BEGIN TRY
        INSERT INTO [rainfall].[rainfall_events] ([rainfall_id])
        OUTPUT inserted.[id], CAST(1 AS bit) AS [enqueued]
        VALUES (@rainfall_id);
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
