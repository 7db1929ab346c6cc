-- qgen 0.1.0: batch_type QueueSample.WorkQueue_batch, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows enqueue_batch takes as a table-valued parameter; ids are assigned in ordinal order.
-- A table type cannot be altered: a spec change that touches it goes through a migration that
-- drops and recreates it with the procedures that use it.
IF TYPE_ID(N'QueueSample.WorkQueue_batch') IS NULL
    CREATE TYPE [QueueSample].[WorkQueue_batch] AS TABLE
    (
        [ordinal] int NOT NULL,
        [JobType] uniqueidentifier NOT NULL,
        [JobInfo] xml NULL,
        PRIMARY KEY ([ordinal])
    );
GO
