-- qgen 0.1.0: peek four.four_queue_peek, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue).
CREATE OR ALTER PROCEDURE [four].[four_queue_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SELECT TOP (@limit) [id], [reputation], [available_at], [enqueued_at], [attempts], [last_error]
    FROM [four].[four_queue_pending]
    ORDER BY [id];
END;
GO
