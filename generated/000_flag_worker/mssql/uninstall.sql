-- qgen 0.1.0: every object of 000_flag_worker.yaml, for SQL Server (T-SQL), removed in reverse dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
REVOKE EXECUTE ON SCHEMA::[four] FROM [four_admin];
GO
DROP PROCEDURE IF EXISTS [four].[four_queue_purge];
GO
DROP PROCEDURE IF EXISTS [four].[four_queue_peek];
GO
DROP PROCEDURE IF EXISTS [four].[four_queue_metrics];
GO
DROP PROCEDURE IF EXISTS [four].[four_queue_worker];
GO
DROP PROCEDURE IF EXISTS [four].[four_queue_reap];
GO
DROP PROCEDURE IF EXISTS [four].[four_queue_extend_lease];
GO
DROP PROCEDURE IF EXISTS [four].[four_queue_fail];
GO
DROP PROCEDURE IF EXISTS [four].[four_queue_complete];
GO
DROP PROCEDURE IF EXISTS [four].[four_queue_dequeue];
GO
DROP PROCEDURE IF EXISTS [four].[four_queue_watermark_correct];
GO
DROP PROCEDURE IF EXISTS [four].[four_queue_watermark_move];
GO
DROP PROCEDURE IF EXISTS [four].[four_queue_enqueue_batch];
GO
DROP PROCEDURE IF EXISTS [four].[four_queue_enqueue];
GO
DROP TYPE IF EXISTS [four].[four_queue_batch];
GO
DROP VIEW IF EXISTS [four].[four_queue_pending];
GO
DROP TABLE IF EXISTS [four].[four_queue_dead];
GO
DROP TABLE IF EXISTS [four].[four_queue_watermark];
GO
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_lease_ix' AND object_id = OBJECT_ID(N'four.four_queue'))
    DROP INDEX [four_queue_lease_ix] ON [four].[four_queue];
GO
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_dedupe_ux' AND object_id = OBJECT_ID(N'four.four_queue'))
    DROP INDEX [four_queue_dedupe_ux] ON [four].[four_queue];
GO
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_claim_ix' AND object_id = OBJECT_ID(N'four.four_queue'))
    DROP INDEX [four_queue_claim_ix] ON [four].[four_queue];
GO
DROP TABLE IF EXISTS [four].[four_queue];
GO
IF DATABASE_PRINCIPAL_ID(N'four_producer') IS NOT NULL
    DROP ROLE [four_producer];
IF DATABASE_PRINCIPAL_ID(N'four_consumer') IS NOT NULL
    DROP ROLE [four_consumer];
IF DATABASE_PRINCIPAL_ID(N'four_admin') IS NOT NULL
    DROP ROLE [four_admin];
GO
IF SCHEMA_ID(N'four') IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sys.objects WHERE schema_id = SCHEMA_ID(N'four'))
    AND NOT EXISTS (SELECT 1 FROM sys.types WHERE schema_id = SCHEMA_ID(N'four'))
    EXEC(N'DROP SCHEMA [four];');
GO
