-- qgen 0.1.0: metrics ghosts.testq_metrics, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR ALTER PROCEDURE [ghosts].[testq_metrics]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    SELECT
        COUNT_BIG(CASE WHEN 1 = 1 THEN 1 END) AS [ready],
        CAST(0 AS bigint) AS [scheduled],
        CAST(0 AS bigint) AS [in_flight],
        CAST(0 AS bigint) AS [expired],
        CAST(0 AS bigint) AS [processed],
        CAST(0 AS bigint) AS [dead],
        CAST(0 AS bigint) AS [archived],
        COALESCE(DATEDIFF_BIG(second, MIN(CASE WHEN 1 = 1 THEN [enqueued_at] END), @now), 0) AS [oldest_ready_age_seconds],
        (SELECT [id] FROM [ghosts].[testq_watermark]) AS [watermark],
        MIN(CASE WHEN 1 = 1 THEN [id] END) AS [lowest_pending_id]
    FROM [ghosts].[testq];
END;
GO
