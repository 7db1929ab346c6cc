-- qgen 0.1.0: peek ghosts.testq_peek, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue).
CREATE OR ALTER PROCEDURE [ghosts].[testq_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SELECT TOP (@limit) [id], [filler], [enqueued_at]
    FROM [ghosts].[testq_pending]
    ORDER BY [id];
END;
GO
