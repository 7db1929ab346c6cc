-- qgen 0.1.0: table four.four_queue, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
IF OBJECT_ID(N'four.four_queue', N'U') IS NULL
BEGIN
    CREATE TABLE [four].[four_queue]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [reputation] int NOT NULL,
        [available_at] datetime2(3) NOT NULL CONSTRAINT [four_queue_available_at_df] DEFAULT (SYSUTCDATETIME()),
        -- 1 while the job waits for its time (delayed by run_at, or released by fail or reap) and no
        -- claim holds it: such a job is in the due index, not the claim index (a filtered index
        -- cannot compare available_at with enqueued_at, so enqueue, fail, reap and dequeue keep it).
        [deferred] bit NOT NULL CONSTRAINT [four_queue_deferred_df] DEFAULT (0),
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [four_queue_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        [attempts] int NOT NULL CONSTRAINT [four_queue_attempts_df] DEFAULT (0),
        [lease_token] uniqueidentifier NULL,
        [lease_owner] nvarchar(128) NULL,
        [lease_expires_at] datetime2(3) NULL,
        [last_error] nvarchar(4000) NULL,
        [processed] bit NOT NULL CONSTRAINT [four_queue_processed_df] DEFAULT (0),
        [processed_at] datetime2(3) NULL,
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [four_queue_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO
