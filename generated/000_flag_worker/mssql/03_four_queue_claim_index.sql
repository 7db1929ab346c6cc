-- qgen 0.1.0: claim_index four.four_queue_claim_ix, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
-- Deferred jobs (delayed, or released with a backoff: [deferred] = 1) are left out of it: see the due index below.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_claim_ix' AND object_id = OBJECT_ID(N'four.four_queue'))
    CREATE NONCLUSTERED INDEX [four_queue_claim_ix]
    ON [four].[four_queue] ([id])
    INCLUDE ([available_at], [lease_token], [processed], [deferred])
    WHERE [lease_token] IS NULL AND [processed] = 0 AND [deferred] = 0;
-- The due index: deferred jobs, by the time they become available ([deferred] = 1 only while no
-- claim holds the job: a claim clears it). A claim takes the due ones from here first, so however
-- many wait for their time, no claim and no watermark steps over them.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_claim_ix_due' AND object_id = OBJECT_ID(N'four.four_queue'))
    CREATE NONCLUSTERED INDEX [four_queue_claim_ix_due]
    ON [four].[four_queue] ([available_at], [id])
    INCLUDE ([deferred])
    WHERE [deferred] = 1;
GO
