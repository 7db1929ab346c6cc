-- qgen 0.1.0: roles four_admin, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
IF DATABASE_PRINCIPAL_ID(N'four_producer') IS NULL
    CREATE ROLE [four_producer];
IF DATABASE_PRINCIPAL_ID(N'four_consumer') IS NULL
    CREATE ROLE [four_consumer];
IF DATABASE_PRINCIPAL_ID(N'four_admin') IS NULL
    CREATE ROLE [four_admin];
GO
