-- qgen 0.1.0: dedupe_index cards.card_codes_dedupe_ux, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- One row per dedupe key: enqueueing the same item twice finds the row already there.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_dedupe_ux' AND object_id = OBJECT_ID(N'cards.card_codes'))
    CREATE UNIQUE NONCLUSTERED INDEX [card_codes_dedupe_ux]
    ON [cards].[card_codes] ([card_number]);
-- dedupe.scope: ever: a finished job keeps its key in card_codes_archive until purge removes it; enqueue looks
-- here, and the index refuses a second job with the key even if something bypassed enqueue.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_archive_dedupe_ux' AND object_id = OBJECT_ID(N'cards.card_codes_archive'))
    CREATE UNIQUE NONCLUSTERED INDEX [card_codes_archive_dedupe_ux]
    ON [cards].[card_codes_archive] ([card_number]);
GO
