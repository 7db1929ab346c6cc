-- qgen 0.1.0: enqueue QueueSample.QueueJob, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0).
CREATE OR ALTER PROCEDURE [QueueSample].[QueueJob]
    @JobType uniqueidentifier,
    @JobInfo xml = NULL,
    @enqueued_by nvarchar(128) = NULL
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    BEGIN TRY
        INSERT INTO [QueueSample].[WorkQueue] ([JobType], [JobInfo], [enqueued_by])
        OUTPUT inserted.[id], CAST(1 AS bit) AS [enqueued]
        VALUES (@JobType, @JobInfo, COALESCE(@enqueued_by, ORIGINAL_LOGIN()));
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
