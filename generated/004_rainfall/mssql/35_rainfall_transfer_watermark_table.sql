-- qgen 0.1.0: watermark_table rainfall.rainfall_transfer_watermark, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- One row: the lowest id a claim needs to look at. Claims start their range seek here instead of
-- walking the ghost records that deleted or claimed rows leave at the low end of the index.
IF OBJECT_ID(N'rainfall.rainfall_transfer_watermark', N'U') IS NULL
BEGIN
    CREATE TABLE [rainfall].[rainfall_transfer_watermark]
    (
        [id] bigint NOT NULL,
        -- Bumped by every change, so watermark_correct can tell a release happened while it scanned.
        [version] bigint NOT NULL CONSTRAINT [rainfall_transfer_watermark_version_df] DEFAULT (0),
        [one_row] bit NOT NULL CONSTRAINT [rainfall_transfer_watermark_one_row_df] DEFAULT (1),
        -- When the table was last searched below the watermark (by a dequeue's rescan or
        -- watermark_correct): a dequeue rescans when this is watermark.rescan old.
        [corrected_at] datetime2(3) NOT NULL
            CONSTRAINT [rainfall_transfer_watermark_corrected_at_df] DEFAULT ('0001-01-01'),
        CONSTRAINT [rainfall_transfer_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [rainfall_transfer_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_transfer_watermark])
    INSERT INTO [rainfall].[rainfall_transfer_watermark] ([id]) VALUES (0);
GO
