-- qgen 0.1.0: pending_view rainfall.rainfall_transfer_pending, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [rainfall].[rainfall_transfer_pending]
AS
SELECT [id], [rainfall_id], [summary], [enqueued_at]
FROM [rainfall].[rainfall_transfer]
WHERE 1 = 1;
GO
