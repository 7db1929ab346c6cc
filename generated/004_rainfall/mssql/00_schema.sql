-- qgen 0.1.0: schema rainfall, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- CREATE SCHEMA must be alone in its batch, so it runs through EXEC; the name is a checked identifier.
IF SCHEMA_ID(N'rainfall') IS NULL
    EXEC(N'CREATE SCHEMA [rainfall] AUTHORIZATION [dbo];');
GO
