-- qgen 0.1.0: schema four, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
IF SCHEMA_ID(N'four') IS NULL
    EXEC(N'CREATE SCHEMA [four] AUTHORIZATION [dbo];');
GO
