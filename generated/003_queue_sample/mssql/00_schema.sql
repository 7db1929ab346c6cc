-- qgen 0.1.0: schema QueueSample, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
IF SCHEMA_ID(N'QueueSample') IS NULL
    EXEC(N'CREATE SCHEMA [QueueSample] AUTHORIZATION [dbo];');
GO
