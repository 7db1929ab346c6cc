-- qgen 0.1.0: every object of 002_card_codes.yaml, for SQL Server (T-SQL), removed in reverse dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
REVOKE EXECUTE ON SCHEMA::[cards] FROM [cards_admin];
GO
DROP PROCEDURE IF EXISTS [cards].[card_codes_purge];
GO
DROP PROCEDURE IF EXISTS [cards].[card_codes_peek];
GO
DROP PROCEDURE IF EXISTS [cards].[card_codes_metrics];
GO
DROP PROCEDURE IF EXISTS [cards].[card_codes_dequeue];
GO
DROP PROCEDURE IF EXISTS [cards].[card_codes_enqueue_batch];
GO
DROP PROCEDURE IF EXISTS [cards].[card_codes_enqueue];
GO
DROP TYPE IF EXISTS [cards].[card_codes_batch];
GO
DROP VIEW IF EXISTS [cards].[card_codes_pending];
GO
DROP TABLE IF EXISTS [cards].[card_codes_archive];
GO
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_dedupe_ux' AND object_id = OBJECT_ID(N'cards.card_codes'))
    DROP INDEX [card_codes_dedupe_ux] ON [cards].[card_codes];
GO
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_claim_ix' AND object_id = OBJECT_ID(N'cards.card_codes'))
    DROP INDEX [card_codes_claim_ix] ON [cards].[card_codes];
GO
DROP TABLE IF EXISTS [cards].[card_codes];
GO
IF DATABASE_PRINCIPAL_ID(N'cards_producer') IS NOT NULL
    DROP ROLE [cards_producer];
IF DATABASE_PRINCIPAL_ID(N'cards_consumer') IS NOT NULL
    DROP ROLE [cards_consumer];
IF DATABASE_PRINCIPAL_ID(N'cards_admin') IS NOT NULL
    DROP ROLE [cards_admin];
GO
IF SCHEMA_ID(N'cards') IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sys.objects WHERE schema_id = SCHEMA_ID(N'cards'))
    AND NOT EXISTS (SELECT 1 FROM sys.types WHERE schema_id = SCHEMA_ID(N'cards'))
    EXEC(N'DROP SCHEMA [cards];');
GO
