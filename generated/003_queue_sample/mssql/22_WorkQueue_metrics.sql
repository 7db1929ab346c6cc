-- qgen 0.1.0: metrics QueueSample.WorkQueue_metrics, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_metrics]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    SELECT
        COUNT_BIG(CASE WHEN [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @q$now THEN 1 END) AS [ready],
        COUNT_BIG(CASE WHEN [lease_token] IS NULL AND [processed] = 0 AND [available_at] > @q$now THEN 1 END) AS [scheduled],
        COUNT_BIG(CASE WHEN [lease_token] IS NOT NULL THEN 1 END) AS [in_flight],
        COUNT_BIG(CASE WHEN [lease_token] IS NOT NULL AND [lease_expires_at] < @q$now THEN 1 END) AS [expired],
        COUNT_BIG(CASE WHEN [processed] = 1 THEN 1 END) AS [processed],
        (SELECT COUNT_BIG(*) FROM [QueueSample].[WorkQueue_dead]) AS [dead],
        CAST(0 AS bigint) AS [archived],
        COALESCE(DATEDIFF_BIG(second, MIN(CASE WHEN [lease_token] IS NULL AND [processed] = 0 AND [available_at] <= @q$now THEN [enqueued_at] END), @q$now), 0) AS [oldest_ready_age_seconds],
        (SELECT [id] FROM [QueueSample].[WorkQueue_watermark]) AS [watermark],
        MIN(CASE WHEN [lease_token] IS NULL AND [processed] = 0 THEN [id] END) AS [lowest_pending_id],
        COUNT_BIG(CASE WHEN [processed] = 1 AND [processed_at] >= DATEADD(minute, -1, @q$now) THEN 1 END) AS [completed_last_minute],
        -- How many ids a claim walks below the first unclaimed job (or the next id, when none is).
        COALESCE(MIN(CASE WHEN [lease_token] IS NULL AND [processed] = 0 THEN [id] END), MAX([id]) + 1)
            - (SELECT [id] FROM [QueueSample].[WorkQueue_watermark]) AS [watermark_lag]
    FROM [QueueSample].[WorkQueue];
END;
GO
