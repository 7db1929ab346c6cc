-- qgen 0.1.0: metrics cards.card_codes_metrics, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR ALTER PROCEDURE [cards].[card_codes_metrics]
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
        (SELECT COUNT_BIG(*) FROM [cards].[card_codes_archive]) AS [archived],
        COALESCE(DATEDIFF_BIG(second, MIN(CASE WHEN 1 = 1 THEN [enqueued_at] END), @now), 0) AS [oldest_ready_age_seconds],
        CAST(NULL AS bigint) AS [watermark],
        MIN(CASE WHEN 1 = 1 THEN [id] END) AS [lowest_pending_id]
    FROM [cards].[card_codes];
END;
GO
