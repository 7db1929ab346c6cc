-- qgen 0.1.0: table rainfall.rainfall_events, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'rainfall.rainfall_events', N'U') IS NULL
BEGIN
    CREATE TABLE [rainfall].[rainfall_events]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [rainfall_id] bigint NOT NULL,
        [available_at] datetime2(3) NOT NULL CONSTRAINT [rainfall_events_available_at_df] DEFAULT (SYSUTCDATETIME()),
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [rainfall_events_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        [attempts] int NOT NULL CONSTRAINT [rainfall_events_attempts_df] DEFAULT (0),
        [lease_token] uniqueidentifier NULL,
        [lease_owner] nvarchar(128) NULL,
        [lease_expires_at] datetime2(3) NULL,
        [last_error] nvarchar(4000) NULL,
        [processed] bit NOT NULL CONSTRAINT [rainfall_events_processed_df] DEFAULT (0),
        [processed_at] datetime2(3) NULL,
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [rainfall_events_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO
