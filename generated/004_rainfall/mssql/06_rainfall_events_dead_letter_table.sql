-- qgen 0.1.0: dead_letter_table rainfall.rainfall_events_dead, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged.
IF OBJECT_ID(N'rainfall.rainfall_events_dead', N'U') IS NULL
BEGIN
    CREATE TABLE [rainfall].[rainfall_events_dead]
    (
        [id] bigint NOT NULL,
        [rainfall_id] bigint NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL,
        [attempts] int NOT NULL,
        [last_error] nvarchar(4000) NULL,
        [dead_at] datetime2(3) NOT NULL CONSTRAINT [rainfall_events_dead_dead_at_df] DEFAULT (SYSUTCDATETIME()),
        CONSTRAINT [rainfall_events_dead_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO
