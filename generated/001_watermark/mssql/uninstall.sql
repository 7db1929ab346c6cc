-- qgen 0.1.0: every object of 001_watermark.yaml, for SQL Server (T-SQL), removed in reverse dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
REVOKE EXECUTE ON SCHEMA::[ghosts] FROM [ghosts_admin];
GO
DROP PROCEDURE IF EXISTS [ghosts].[testq_purge];
GO
DROP PROCEDURE IF EXISTS [ghosts].[testq_peek];
GO
DROP PROCEDURE IF EXISTS [ghosts].[testq_metrics];
GO
DROP PROCEDURE IF EXISTS [ghosts].[testq_dequeue];
GO
DROP PROCEDURE IF EXISTS [ghosts].[testq_watermark_correct];
GO
DROP PROCEDURE IF EXISTS [ghosts].[testq_watermark_move];
GO
DROP PROCEDURE IF EXISTS [ghosts].[testq_enqueue_batch];
GO
DROP PROCEDURE IF EXISTS [ghosts].[testq_enqueue];
GO
DROP TYPE IF EXISTS [ghosts].[testq_batch];
GO
DROP VIEW IF EXISTS [ghosts].[testq_pending];
GO
DROP TABLE IF EXISTS [ghosts].[testq_watermark];
GO
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'testq_claim_ix' AND object_id = OBJECT_ID(N'ghosts.testq'))
    DROP INDEX [testq_claim_ix] ON [ghosts].[testq];
GO
DROP TABLE IF EXISTS [ghosts].[testq];
GO
IF DATABASE_PRINCIPAL_ID(N'ghosts_producer') IS NOT NULL
    DROP ROLE [ghosts_producer];
IF DATABASE_PRINCIPAL_ID(N'ghosts_consumer') IS NOT NULL
    DROP ROLE [ghosts_consumer];
IF DATABASE_PRINCIPAL_ID(N'ghosts_admin') IS NOT NULL
    DROP ROLE [ghosts_admin];
GO
IF SCHEMA_ID(N'ghosts') IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sys.objects WHERE schema_id = SCHEMA_ID(N'ghosts'))
    AND NOT EXISTS (SELECT 1 FROM sys.types WHERE schema_id = SCHEMA_ID(N'ghosts'))
    EXEC(N'DROP SCHEMA [ghosts];');
GO
