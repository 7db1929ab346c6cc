-- qgen 0.1.0: schema cards, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
IF SCHEMA_ID(N'cards') IS NULL
    EXEC(N'CREATE SCHEMA [cards] AUTHORIZATION [dbo];');
GO
