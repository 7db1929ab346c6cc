-- qgen 0.1.0: table rainfall.rainfall_transfer, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
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
