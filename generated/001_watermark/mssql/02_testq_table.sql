-- qgen 0.1.0: table ghosts.testq, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'ghosts.testq', N'U') IS NULL
BEGIN
    CREATE TABLE [ghosts].[testq]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [filler] nvarchar(400) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [testq_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [testq_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO
