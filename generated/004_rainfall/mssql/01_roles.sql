-- qgen 0.1.0: roles rainfall_admin, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
IF DATABASE_PRINCIPAL_ID(N'rainfall_producer') IS NULL
    CREATE ROLE [rainfall_producer];
IF DATABASE_PRINCIPAL_ID(N'rainfall_consumer') IS NULL
    CREATE ROLE [rainfall_consumer];
IF DATABASE_PRINCIPAL_ID(N'rainfall_admin') IS NULL
    CREATE ROLE [rainfall_admin];
GO
