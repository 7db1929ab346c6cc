-- qgen 0.1.0: watermark_table QueueSample.WorkQueue_watermark, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: the lowest id a claim needs to look at. Claims start their range seek here instead of
-- walking the ghost records that deleted or claimed rows leave at the low end of the index.
IF OBJECT_ID(N'QueueSample.WorkQueue_watermark', N'U') IS NULL
BEGIN
    CREATE TABLE [QueueSample].[WorkQueue_watermark]
    (
        [id] bigint NOT NULL,
        -- Bumped by every change, so watermark_correct can tell a release happened while it scanned.
        [version] bigint NOT NULL CONSTRAINT [WorkQueue_watermark_version_df] DEFAULT (0),
        [one_row] bit NOT NULL CONSTRAINT [WorkQueue_watermark_one_row_df] DEFAULT (1),
        CONSTRAINT [WorkQueue_watermark_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [WorkQueue_watermark_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [QueueSample].[WorkQueue_watermark])
    INSERT INTO [QueueSample].[WorkQueue_watermark] ([id]) VALUES (0);
GO
