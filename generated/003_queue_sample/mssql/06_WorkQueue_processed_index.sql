-- qgen 0.1.0: processed_index QueueSample.WorkQueue_processed_ix, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- purge deletes processed jobs by age: only processed rows are indexed, by when they were processed
-- (INCLUDE [processed]: a filtered index carries the columns its filter names).
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'WorkQueue_processed_ix' AND object_id = OBJECT_ID(N'QueueSample.WorkQueue'))
    CREATE NONCLUSTERED INDEX [WorkQueue_processed_ix]
    ON [QueueSample].[WorkQueue] ([processed_at])
    INCLUDE ([processed])
    WHERE [processed] = 1;
GO
