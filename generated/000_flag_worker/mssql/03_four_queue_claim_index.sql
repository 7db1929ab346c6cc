-- qgen 0.1.0: claim_index four.four_queue_claim_ix, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_claim_ix' AND object_id = OBJECT_ID(N'four.four_queue'))
    CREATE NONCLUSTERED INDEX [four_queue_claim_ix]
    ON [four].[four_queue] ([id])
    INCLUDE ([available_at])
    WHERE [lease_token] IS NULL AND [processed] = 0;
GO
