-- qgen 0.1.0: roles ghosts_admin, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables directly.
IF DATABASE_PRINCIPAL_ID(N'ghosts_producer') IS NULL
    CREATE ROLE [ghosts_producer];
IF DATABASE_PRINCIPAL_ID(N'ghosts_consumer') IS NULL
    CREATE ROLE [ghosts_consumer];
IF DATABASE_PRINCIPAL_ID(N'ghosts_admin') IS NULL
    CREATE ROLE [ghosts_admin];
GO
