-- qgen 0.1.0: dedupe_index cards.card_codes_dedupe_ux, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_dedupe_ux' AND object_id = OBJECT_ID(N'cards.card_codes'))
    CREATE UNIQUE NONCLUSTERED INDEX [card_codes_dedupe_ux]
    ON [cards].[card_codes] ([card_number]);
GO
