-- qgen 0.1.0: claim_order_index QueueSample.WorkQueue_claim_order_ix, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- A dequeue without a job type claims from every sub-queue, in queue order: WorkQueue_claim_ix is keyed
-- by job type first and cannot give that order, so this one does.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'WorkQueue_claim_order_ix' AND object_id = OBJECT_ID(N'QueueSample.WorkQueue'))
    CREATE NONCLUSTERED INDEX [WorkQueue_claim_order_ix]
    ON [QueueSample].[WorkQueue] ([id])
    INCLUDE ([available_at], [lease_token], [processed], [deferred])
    WHERE [lease_token] IS NULL AND [processed] = 0 AND [deferred] = 0;
GO
