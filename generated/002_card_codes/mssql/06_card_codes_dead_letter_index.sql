-- qgen 0.1.0: dead_letter_index cards.card_codes_dead_ix, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_dead_ix' AND object_id = OBJECT_ID(N'cards.card_codes_dead'))
    CREATE NONCLUSTERED INDEX [card_codes_dead_ix]
    ON [cards].[card_codes_dead] ([dead_at]);
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_dead_id_ix' AND object_id = OBJECT_ID(N'cards.card_codes_dead'))
    CREATE NONCLUSTERED INDEX [card_codes_dead_id_ix]
    ON [cards].[card_codes_dead] ([id]);
GO
