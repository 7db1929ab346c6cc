-- qgen 0.1.0: table rainfall.rainfall_transfer, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
IF OBJECT_ID(N'rainfall.rainfall_transfer', N'U') IS NULL
BEGIN
    CREATE TABLE [rainfall].[rainfall_transfer]
    (
        [id] bigint IDENTITY(1, 1) NOT NULL,
        [rainfall_id] bigint NOT NULL,
        [summary] nvarchar(400) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL CONSTRAINT [rainfall_transfer_enqueued_at_df] DEFAULT (SYSUTCDATETIME()),
        -- Clustered on the ever-increasing id: inserts append, and claims walk it in order.
        CONSTRAINT [rainfall_transfer_pk] PRIMARY KEY CLUSTERED ([id])
    );
END;
GO
