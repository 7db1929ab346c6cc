-- qgen 0.1.0: dead_letter_table four.four_queue_dead, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged.
IF OBJECT_ID(N'four.four_queue_dead', N'U') IS NULL
BEGIN
    CREATE TABLE [four].[four_queue_dead]
    (
        [id] bigint NOT NULL,
        [reputation] int NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL,
        [last_error] nvarchar(4000) NULL,
        [dead_at] datetime2(3) NOT NULL CONSTRAINT [four_queue_dead_dead_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [four_queue_dead_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO
