-- qgen 0.1.0: batch_type rainfall.rainfall_transfer_batch, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it.
IF TYPE_ID(N'rainfall.rainfall_transfer_batch') IS NULL
    CREATE TYPE [rainfall].[rainfall_transfer_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [rainfall_id] bigint NOT NULL,
        [summary] nvarchar(400) NOT NULL,
        PRIMARY KEY ([ordinal])
    );
GO
