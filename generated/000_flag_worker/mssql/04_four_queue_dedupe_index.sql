-- qgen 0.1.0: dedupe_index four.four_queue_dedupe_ux, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_dedupe_ux' AND object_id = OBJECT_ID(N'four.four_queue'))
    CREATE UNIQUE NONCLUSTERED INDEX [four_queue_dedupe_ux]
    ON [four].[four_queue] ([reputation]);
GO
