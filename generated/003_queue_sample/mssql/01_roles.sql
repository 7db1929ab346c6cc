-- qgen 0.1.0: roles QueueSample_admin, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
IF DATABASE_PRINCIPAL_ID(N'QueueSample_producer') IS NULL
    CREATE ROLE [QueueSample_producer];
IF DATABASE_PRINCIPAL_ID(N'QueueSample_consumer') IS NULL
    CREATE ROLE [QueueSample_consumer];
IF DATABASE_PRINCIPAL_ID(N'QueueSample_admin') IS NULL
    CREATE ROLE [QueueSample_admin];
GO
