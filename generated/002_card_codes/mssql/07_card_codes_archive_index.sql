-- qgen 0.1.0: archive_index cards.card_codes_archive_ix, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- purge deletes archived jobs by age: it finds the old ones here instead of scanning the archive.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_archive_ix' AND object_id = OBJECT_ID(N'cards.card_codes_archive'))
    CREATE NONCLUSTERED INDEX [card_codes_archive_ix]
    ON [cards].[card_codes_archive] ([completed_at]);
GO
