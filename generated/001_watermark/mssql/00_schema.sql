-- qgen 0.1.0: schema ghosts, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
IF SCHEMA_ID(N'ghosts') IS NULL
    EXEC(N'CREATE SCHEMA [ghosts] AUTHORIZATION [dbo];');
GO
