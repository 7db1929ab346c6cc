-- qgen 0.1.0: pending_view rainfall.rainfall_events_pending, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [rainfall].[rainfall_events_pending]
AS
SELECT [id], [rainfall_id], [available_at], [enqueued_at], [attempts], [last_error]
FROM [rainfall].[rainfall_events]
WHERE [lease_token] IS NULL AND [processed] = 0;
GO
