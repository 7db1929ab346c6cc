-- qgen 0.1.0: peek QueueSample.ViewQueue, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue).
CREATE OR ALTER PROCEDURE [QueueSample].[ViewQueue]
    @job_type uniqueidentifier = NULL,
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SELECT TOP (@limit) [id], [JobType], [JobInfo], [available_at], [enqueued_at], [enqueued_by], [attempts], [last_error]
    FROM [QueueSample].[WorkQueue_Pending]
    WHERE @job_type IS NULL OR [JobType] = @job_type
    ORDER BY [id];
END;
GO
