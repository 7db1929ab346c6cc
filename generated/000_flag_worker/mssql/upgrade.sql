-- qgen 0.1.0: run before install.sql where an older qgen installed 000_flag_worker.yaml, for SQL Server (T-SQL): drops or adds what the objects of this version replace.
-- A fresh install and a qgen revision do not need it. Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Adds the [deferred] bit this qgen keeps (delayed, backed-off and released jobs wait in the due
-- index, off the claim index). NOT NULL with a constant default: metadata only on Enterprise,
-- Developer and Azure SQL; Standard, Web and Express rewrite every row under a schema lock
-- (docs/migrations.md, "What upgrade.sql locks").
IF OBJECT_ID(N'four.four_queue', N'U') IS NOT NULL
    AND COL_LENGTH(N'four.four_queue', N'deferred') IS NULL
    ALTER TABLE [four].[four_queue] ADD [deferred] bit NOT NULL CONSTRAINT [four_queue_deferred_df] DEFAULT (0);
GO
IF EXISTS (SELECT 1 FROM sys.indexes
           WHERE [name] = N'four_queue_claim_ix' AND [object_id] = OBJECT_ID(N'four.four_queue')
             AND ([filter_definition] IS NULL OR [filter_definition] NOT LIKE N'%deferred%'))
BEGIN
    -- Enterprise, Developer (EngineEdition 3) and Azure SQL (5, 8) rebuild it in place, online: claims
    -- keep the old index until the new one replaces it. Other editions (Standard, Web, Express: no
    -- online index operations, error 1712) drop it here and install.sql creates it offline.
    IF CAST(SERVERPROPERTY('EngineEdition') AS int) IN (3, 5, 8)
        CREATE NONCLUSTERED INDEX [four_queue_claim_ix]
        ON [four].[four_queue] ([id])
        INCLUDE ([available_at], [lease_token], [processed], [deferred])
        WHERE [lease_token] IS NULL AND [processed] = 0 AND [deferred] = 0
        WITH (DROP_EXISTING = ON, ONLINE = ON);
    ELSE
        DROP INDEX [four_queue_claim_ix] ON [four].[four_queue];
END;
GO
-- A watermark table an earlier qgen made has no corrected_at.
IF OBJECT_ID(N'four.four_queue_watermark', N'U') IS NOT NULL
    AND COL_LENGTH(N'four.four_queue_watermark', N'corrected_at') IS NULL
    ALTER TABLE [four].[four_queue_watermark] ADD [corrected_at] datetime2(3) NOT NULL
        CONSTRAINT [four_queue_watermark_corrected_at_df] DEFAULT ('0001-01-01');
GO
-- An install by an older qgen granted the admin role EXECUTE ON SCHEMA: taken back.
IF EXISTS (SELECT 1 FROM sys.database_permissions WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'four')
           AND [grantee_principal_id] = DATABASE_PRINCIPAL_ID(N'four_admin') AND [permission_name] = N'EXECUTE')
    REVOKE EXECUTE ON SCHEMA::[four] FROM [four_admin];
GO
