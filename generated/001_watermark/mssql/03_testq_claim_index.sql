-- qgen 0.1.0: claim_index ghosts.testq_claim_ix, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A delete queue holds only unclaimed rows, so the clustered id already is claim order; this index
-- serves the job-type filter and priority order when there is one.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'testq_claim_ix' AND object_id = OBJECT_ID(N'ghosts.testq'))
    CREATE NONCLUSTERED INDEX [testq_claim_ix]
    ON [ghosts].[testq] ([id]);
GO
