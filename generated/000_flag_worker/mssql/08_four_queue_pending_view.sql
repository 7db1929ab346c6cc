-- qgen 0.1.0: pending_view four.four_queue_pending, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [four].[four_queue_pending]
AS
SELECT [id], [reputation], [available_at], [enqueued_at], [attempts], [last_error]
FROM [four].[four_queue]
WHERE [lease_token] IS NULL AND [processed] = 0;
GO
