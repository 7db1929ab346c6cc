-- qgen 0.1.0: metrics rainfall.rainfall_events_metrics, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_metrics]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @now datetime2(3) = SYSUTCDATETIME();
    SELECT
        COUNT_BIG(CASE WHEN [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @now THEN 1 END) AS [ready],
        COUNT_BIG(CASE WHEN [lease_token] IS NULL AND [processed] = 0 AND [available_at] > @now THEN 1 END) AS [scheduled],
        COUNT_BIG(CASE WHEN [lease_token] IS NOT NULL THEN 1 END) AS [in_flight],
        COUNT_BIG(CASE WHEN [lease_token] IS NOT NULL AND [lease_expires_at] < @now THEN 1 END) AS [expired],
        COUNT_BIG(CASE WHEN [processed] = 1 THEN 1 END) AS [processed],
        (SELECT COUNT_BIG(*) FROM [rainfall].[rainfall_events_dead]) AS [dead],
        CAST(0 AS bigint) AS [archived],
        COALESCE(DATEDIFF_BIG(second, MIN(CASE WHEN [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @now THEN [enqueued_at] END), @now), 0) AS [oldest_ready_age_seconds],
        (SELECT [id] FROM [rainfall].[rainfall_events_watermark]) AS [watermark],
        MIN(CASE WHEN [lease_token] IS NULL AND [processed] = 0 THEN [id] END) AS [lowest_pending_id]
    FROM [rainfall].[rainfall_events];
END;
GO
