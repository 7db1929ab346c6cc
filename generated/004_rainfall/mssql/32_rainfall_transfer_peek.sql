-- qgen 0.1.0: peek rainfall.rainfall_transfer_peek, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue).
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SELECT TOP (@limit) [id], [rainfall_id], [summary], [enqueued_at]
    FROM [rainfall].[rainfall_transfer_pending]
    ORDER BY [id];
END;
GO
