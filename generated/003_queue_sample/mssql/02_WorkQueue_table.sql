-- qgen 0.1.0: table QueueSample.WorkQueue, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'QueueSample.WorkQueue', N'U') IS NULL
BEGIN
    CREATE TABLE [QueueSample].[WorkQueue]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [JobType] uniqueidentifier NOT NULL,
        [JobInfo] xml NULL,
        [available_at] datetime2(3) NOT NULL CONSTRAINT [WorkQueue_available_at_df] DEFAULT (SYSUTCDATETIME()),
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [WorkQueue_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        [enqueued_by] nvarchar(128) NULL,
        [attempts] int NOT NULL CONSTRAINT [WorkQueue_attempts_df] DEFAULT (0),
        [lease_token] uniqueidentifier NULL,
        [lease_owner] nvarchar(128) NULL,
        [lease_expires_at] datetime2(3) NULL,
        [claimed_at] datetime2(3) NULL,
        [claimed_by] nvarchar(128) NULL,
        [last_error] nvarchar(4000) NULL,
        [processed] bit NOT NULL CONSTRAINT [WorkQueue_processed_df] DEFAULT (0),
        [processed_at] datetime2(3) NULL,
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [WorkQueue_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO
