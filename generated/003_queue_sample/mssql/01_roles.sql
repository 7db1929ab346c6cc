-- qgen 0.1.0: roles QueueSample_producer, QueueSample_consumer, QueueSample_admin (database roles), rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
-- A role install creates is recorded on the schema (extended property qgen.created_role.<role>):
-- uninstall drops only such a one, never a role that was there before and that the spec only names.
IF DATABASE_PRINCIPAL_ID(N'QueueSample_producer') IS NULL
BEGIN
    CREATE ROLE [QueueSample_producer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'QueueSample') AND [name] = N'qgen.created_role.QueueSample_producer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.QueueSample_producer', @value = N'QueueSample_producer',
            @level0type = N'SCHEMA', @level0name = N'QueueSample';
END;
IF DATABASE_PRINCIPAL_ID(N'QueueSample_consumer') IS NULL
BEGIN
    CREATE ROLE [QueueSample_consumer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'QueueSample') AND [name] = N'qgen.created_role.QueueSample_consumer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.QueueSample_consumer', @value = N'QueueSample_consumer',
            @level0type = N'SCHEMA', @level0name = N'QueueSample';
END;
IF DATABASE_PRINCIPAL_ID(N'QueueSample_admin') IS NULL
BEGIN
    CREATE ROLE [QueueSample_admin];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'QueueSample') AND [name] = N'qgen.created_role.QueueSample_admin')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.QueueSample_admin', @value = N'QueueSample_admin',
            @level0type = N'SCHEMA', @level0name = N'QueueSample';
END;
GO
