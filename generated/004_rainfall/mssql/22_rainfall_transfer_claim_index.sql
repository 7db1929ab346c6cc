-- qgen 0.1.0: claim_index rainfall.rainfall_transfer_claim_ix, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A delete queue holds only unclaimed rows, so the clustered id already is claim order; this index
-- serves the job-type filter and priority order when there is one.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_transfer_claim_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_transfer'))
    CREATE NONCLUSTERED INDEX [rainfall_transfer_claim_ix]
    ON [rainfall].[rainfall_transfer] ([id]);
GO
