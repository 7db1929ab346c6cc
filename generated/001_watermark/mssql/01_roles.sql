-- qgen 0.1.0: roles ghosts_producer, ghosts_consumer, ghosts_admin (database roles), rendered for SQL Server (T-SQL) from 001_watermark.yaml.
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
IF DATABASE_PRINCIPAL_ID(N'ghosts_producer') IS NULL
BEGIN
    CREATE ROLE [ghosts_producer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'ghosts') AND [name] = N'qgen.created_role.ghosts_producer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.ghosts_producer', @value = N'ghosts_producer',
            @level0type = N'SCHEMA', @level0name = N'ghosts';
END;
IF DATABASE_PRINCIPAL_ID(N'ghosts_consumer') IS NULL
BEGIN
    CREATE ROLE [ghosts_consumer];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'ghosts') AND [name] = N'qgen.created_role.ghosts_consumer')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.ghosts_consumer', @value = N'ghosts_consumer',
            @level0type = N'SCHEMA', @level0name = N'ghosts';
END;
IF DATABASE_PRINCIPAL_ID(N'ghosts_admin') IS NULL
BEGIN
    CREATE ROLE [ghosts_admin];
    IF NOT EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'ghosts') AND [name] = N'qgen.created_role.ghosts_admin')
        EXEC sys.sp_addextendedproperty @name = N'qgen.created_role.ghosts_admin', @value = N'ghosts_admin',
            @level0type = N'SCHEMA', @level0name = N'ghosts';
END;
GO
