-- qgen 0.1.0: roles cards_admin, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
IF DATABASE_PRINCIPAL_ID(N'cards_producer') IS NULL
    CREATE ROLE [cards_producer];
IF DATABASE_PRINCIPAL_ID(N'cards_consumer') IS NULL
    CREATE ROLE [cards_consumer];
IF DATABASE_PRINCIPAL_ID(N'cards_admin') IS NULL
    CREATE ROLE [cards_admin];
GO
