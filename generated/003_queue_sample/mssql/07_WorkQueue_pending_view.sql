-- qgen 0.1.0: pending_view QueueSample.WorkQueue_Pending, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [QueueSample].[WorkQueue_Pending]
AS
SELECT [id], [JobType], [JobInfo], [available_at], [enqueued_at], [enqueued_by], [attempts], [last_error]
FROM [QueueSample].[WorkQueue]
WHERE [lease_token] IS NULL AND [processed] = 0;
GO
