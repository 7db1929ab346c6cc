-- qgen 0.1.0: claim_index rainfall.rainfall_events_claim_ix, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_claim_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events'))
    CREATE NONCLUSTERED INDEX [rainfall_events_claim_ix]
    ON [rainfall].[rainfall_events] ([id])
    INCLUDE ([available_at])
    WHERE [lease_token] IS NULL AND [processed] = 0;
GO
