-- qgen 0.1.0: dead_letter_table QueueSample.WorkQueue_dead, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged.
IF OBJECT_ID(N'QueueSample.WorkQueue_dead', N'U') IS NULL
BEGIN
    CREATE TABLE [QueueSample].[WorkQueue_dead]
    (
        [id] bigint NOT NULL,
        [JobType] uniqueidentifier NOT NULL,
        [JobInfo] xml NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [enqueued_by] nvarchar(128) NULL,
        [claimed_at] datetime2(3) NULL,
        [claimed_by] nvarchar(128) NULL,
        [attempts] int NOT NULL,
        [last_error] nvarchar(4000) NULL,
        [dead_at] datetime2(3) NOT NULL CONSTRAINT [WorkQueue_dead_dead_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [WorkQueue_dead_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO
