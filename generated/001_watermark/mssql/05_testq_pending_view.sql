-- qgen 0.1.0: pending_view ghosts.testq_pending, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [ghosts].[testq_pending]
AS
SELECT [id], [filler], [enqueued_at]
FROM [ghosts].[testq]
WHERE 1 = 1;
GO
