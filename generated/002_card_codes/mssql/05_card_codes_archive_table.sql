-- qgen 0.1.0: archive_table cards.card_codes_archive, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Completed jobs, moved here by dequeue and removed by purge after the retention period.
IF OBJECT_ID(N'cards.card_codes_archive', N'U') IS NULL
BEGIN
    CREATE TABLE [cards].[card_codes_archive]
    (
        [id] bigint NOT NULL,
        [card_number] nvarchar(32) NOT NULL,
        [card_secret] nvarchar(64) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [completed_at] datetime2(3) NOT NULL CONSTRAINT [card_codes_archive_completed_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [card_codes_archive_pk] PRIMARY KEY CLUSTERED ([id])
    );
    -- purge deletes by age.
    CREATE NONCLUSTERED INDEX [card_codes_archive_completed_at_ix] ON [cards].[card_codes_archive] ([completed_at]);
END;
GO
