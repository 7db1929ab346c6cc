-- qgen 0.1.0: claim_index cards.card_codes_claim_ix, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A delete queue holds only unclaimed rows, so the clustered id already is claim order; this index
-- serves the job-type filter and priority order when there is one.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'card_codes_claim_ix' AND object_id = OBJECT_ID(N'cards.card_codes'))
    CREATE NONCLUSTERED INDEX [card_codes_claim_ix]
    ON [cards].[card_codes] ([id]);
GO
