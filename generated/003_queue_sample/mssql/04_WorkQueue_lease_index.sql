-- qgen 0.1.0: lease_index QueueSample.WorkQueue_lease_ix, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'WorkQueue_lease_ix' AND object_id = OBJECT_ID(N'QueueSample.WorkQueue'))
    CREATE NONCLUSTERED INDEX [WorkQueue_lease_ix]
    ON [QueueSample].[WorkQueue] ([lease_token]) INCLUDE ([lease_expires_at], [attempts])
    WHERE [lease_token] IS NOT NULL;
GO
