-- qgen 0.1.0: purge rainfall.rainfall_events_purge, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than @older_than_seconds, in
-- batches of @batch_size so no single delete escalates to a table lock or bloats the log.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_events_purge]
    @older_than_seconds int = 604800,
    @batch_size int = 10000
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @archived bigint = 0, @processed bigint = 0, @dead bigint = 0, @deleted int;
    SET @deleted = 1;
    WHILE @deleted > 0
    BEGIN
        DELETE TOP (@batch_size) FROM [rainfall].[rainfall_events] WHERE [processed] = 1 AND [processed_at] < @cutoff;
        SET @deleted = @@ROWCOUNT;
        SET @processed += @deleted;
    END;

    SET @deleted = 1;
    WHILE @deleted > 0
    BEGIN
        DELETE TOP (@batch_size) FROM [rainfall].[rainfall_events_dead] WHERE [dead_at] < @cutoff;
        SET @deleted = @@ROWCOUNT;
        SET @dead += @deleted;
    END;

    SELECT @archived AS [archived], @processed AS [processed], @dead AS [dead];
END;
GO
