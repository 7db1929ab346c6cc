-- qgen 0.1.0: schema cards, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
-- A schema install creates is marked (extended property qgen.created): uninstall drops only such a one.
IF SCHEMA_ID(N'cards') IS NULL
BEGIN
    EXEC(N'CREATE SCHEMA [cards] AUTHORIZATION [dbo];');
    EXEC sys.sp_addextendedproperty @name = N'qgen.created', @value = N'created by the install of qgen''s queues',
        @level0type = N'SCHEMA', @level0name = N'cards';
END;
GO
