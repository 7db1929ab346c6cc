-- qgen 0.1.0: dedupe_index four.four_queue_dedupe_ux, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- One row per dedupe key: enqueueing the same item twice finds the row already there (processed rows included: dedupe.scope: ever).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_dedupe_ux' AND object_id = OBJECT_ID(N'four.four_queue'))
    CREATE UNIQUE NONCLUSTERED INDEX [four_queue_dedupe_ux]
    ON [four].[four_queue] ([reputation]);
-- dedupe.scope: ever: a finished job keeps its key in four_queue_dead until purge removes it; enqueue looks
-- here, and the index refuses a second job with the key even if something bypassed enqueue.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_dead_dedupe_ux' AND object_id = OBJECT_ID(N'four.four_queue_dead'))
    CREATE UNIQUE NONCLUSTERED INDEX [four_queue_dead_dedupe_ux]
    ON [four].[four_queue_dead] ([reputation]);
GO
