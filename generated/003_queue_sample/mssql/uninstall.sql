-- qgen 0.1.0: every object of 003_queue_sample.yaml, for SQL Server (T-SQL), removed in reverse dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
REVOKE EXECUTE ON SCHEMA::[QueueSample] FROM [QueueSample_admin];
GO
DROP PROCEDURE IF EXISTS [QueueSample].[WorkQueue_purge];
GO
DROP PROCEDURE IF EXISTS [QueueSample].[ViewQueue];
GO
DROP PROCEDURE IF EXISTS [QueueSample].[WorkQueue_metrics];
GO
DROP PROCEDURE IF EXISTS [QueueSample].[WorkQueue_reap];
GO
DROP PROCEDURE IF EXISTS [QueueSample].[WorkQueue_extend_lease];
GO
DROP PROCEDURE IF EXISTS [QueueSample].[WorkQueue_fail];
GO
DROP PROCEDURE IF EXISTS [QueueSample].[WorkQueue_complete];
GO
DROP PROCEDURE IF EXISTS [QueueSample].[GetNextJob];
GO
DROP PROCEDURE IF EXISTS [QueueSample].[WorkQueue_watermark_correct];
GO
DROP PROCEDURE IF EXISTS [QueueSample].[WorkQueue_watermark_move];
GO
DROP PROCEDURE IF EXISTS [QueueSample].[WorkQueue_enqueue_batch];
GO
DROP PROCEDURE IF EXISTS [QueueSample].[QueueJob];
GO
DROP TYPE IF EXISTS [QueueSample].[WorkQueue_batch];
GO
DROP VIEW IF EXISTS [QueueSample].[WorkQueue_Pending];
GO
DROP TABLE IF EXISTS [QueueSample].[WorkQueue_dead];
GO
DROP TABLE IF EXISTS [QueueSample].[WorkQueue_watermark];
GO
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'WorkQueue_lease_ix' AND object_id = OBJECT_ID(N'QueueSample.WorkQueue'))
    DROP INDEX [WorkQueue_lease_ix] ON [QueueSample].[WorkQueue];
GO
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'WorkQueue_claim_ix' AND object_id = OBJECT_ID(N'QueueSample.WorkQueue'))
    DROP INDEX [WorkQueue_claim_ix] ON [QueueSample].[WorkQueue];
GO
DROP TABLE IF EXISTS [QueueSample].[WorkQueue];
GO
IF DATABASE_PRINCIPAL_ID(N'QueueSample_producer') IS NOT NULL
    DROP ROLE [QueueSample_producer];
IF DATABASE_PRINCIPAL_ID(N'QueueSample_consumer') IS NOT NULL
    DROP ROLE [QueueSample_consumer];
IF DATABASE_PRINCIPAL_ID(N'QueueSample_admin') IS NOT NULL
    DROP ROLE [QueueSample_admin];
GO
IF SCHEMA_ID(N'QueueSample') IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sys.objects WHERE schema_id = SCHEMA_ID(N'QueueSample'))
    AND NOT EXISTS (SELECT 1 FROM sys.types WHERE schema_id = SCHEMA_ID(N'QueueSample'))
    EXEC(N'DROP SCHEMA [QueueSample];');
GO
