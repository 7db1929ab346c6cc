-- qgen 0.1.0: every object of 004_rainfall.yaml, for SQL Server (T-SQL), removed in reverse dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
REVOKE EXECUTE ON SCHEMA::[rainfall] FROM [rainfall_admin];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_purge];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_peek];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_metrics];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_dequeue];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_watermark_correct];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_watermark_move];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_enqueue_batch];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_enqueue];
GO
DROP TYPE IF EXISTS [rainfall].[rainfall_transfer_batch];
GO
DROP VIEW IF EXISTS [rainfall].[rainfall_transfer_pending];
GO
DROP TABLE IF EXISTS [rainfall].[rainfall_transfer_watermark];
GO
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_transfer_claim_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_transfer'))
    DROP INDEX [rainfall_transfer_claim_ix] ON [rainfall].[rainfall_transfer];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_purge];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_peek];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_metrics];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_reap];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_extend_lease];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_fail];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_complete];
GO
DROP TABLE IF EXISTS [rainfall].[rainfall_transfer];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_dequeue];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_watermark_correct];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_watermark_move];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_enqueue_batch];
GO
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_enqueue];
GO
DROP TYPE IF EXISTS [rainfall].[rainfall_events_batch];
GO
DROP VIEW IF EXISTS [rainfall].[rainfall_events_pending];
GO
DROP TABLE IF EXISTS [rainfall].[rainfall_events_dead];
GO
DROP TABLE IF EXISTS [rainfall].[rainfall_events_watermark];
GO
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_lease_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events'))
    DROP INDEX [rainfall_events_lease_ix] ON [rainfall].[rainfall_events];
GO
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_claim_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events'))
    DROP INDEX [rainfall_events_claim_ix] ON [rainfall].[rainfall_events];
GO
DROP TABLE IF EXISTS [rainfall].[rainfall_events];
GO
IF DATABASE_PRINCIPAL_ID(N'rainfall_producer') IS NOT NULL
    DROP ROLE [rainfall_producer];
IF DATABASE_PRINCIPAL_ID(N'rainfall_consumer') IS NOT NULL
    DROP ROLE [rainfall_consumer];
IF DATABASE_PRINCIPAL_ID(N'rainfall_admin') IS NOT NULL
    DROP ROLE [rainfall_admin];
GO
IF SCHEMA_ID(N'rainfall') IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sys.objects WHERE schema_id = SCHEMA_ID(N'rainfall'))
    AND NOT EXISTS (SELECT 1 FROM sys.types WHERE schema_id = SCHEMA_ID(N'rainfall'))
    EXEC(N'DROP SCHEMA [rainfall];');
GO
