-- qgen 0.1.0: watermark_table ghosts.testq_watermark, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their range seek here instead of
-- walking the ghost records that deleted or claimed rows leave at the low end of the index.
IF OBJECT_ID(N'ghosts.testq_watermark', N'U') IS NULL
BEGIN
    CREATE TABLE [ghosts].[testq_watermark]
    (
        [id] bigint NOT NULL,
        -- Bumped by every change, so watermark_correct can tell a release happened while it scanned.
        [version] bigint NOT NULL CONSTRAINT [testq_watermark_version_df] DEFAULT (0),
        [one_row] bit NOT NULL CONSTRAINT [testq_watermark_one_row_df] DEFAULT (1),
        CONSTRAINT [testq_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [testq_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [ghosts].[testq_watermark])
    INSERT INTO [ghosts].[testq_watermark] ([id]) VALUES (0);
GO
