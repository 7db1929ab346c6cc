-- qgen 0.1.0: batch_type cards.card_codes_batch, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it.
IF TYPE_ID(N'cards.card_codes_batch') IS NULL
    CREATE TYPE [cards].[card_codes_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [card_number] nvarchar(32) NOT NULL,
        [card_secret] nvarchar(64) NOT NULL,
        PRIMARY KEY ([ordinal])
    );
GO
