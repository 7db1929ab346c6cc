-- qgen 0.1.0: table cards.card_codes, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'cards.card_codes', N'U') IS NULL
BEGIN
    CREATE TABLE [cards].[card_codes]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [card_number] nvarchar(32) NOT NULL,
        [card_secret] nvarchar(64) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [card_codes_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [card_codes_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO
