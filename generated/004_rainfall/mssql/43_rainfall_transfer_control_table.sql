-- qgen 0.1.0: control_table rainfall.rainfall_transfer_control, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- One row: whether the queue is paused, and the last pause or resume (when, by which login). Every
-- claim reads it first, WITH (READPAST, READCOMMITTEDLOCK): a pause or resume counts from its
-- commit, and no claim waits on one left open. A missing row (deleted by hand) reads as running.
IF OBJECT_ID(N'rainfall.rainfall_transfer_control', N'U') IS NULL
BEGIN
    CREATE TABLE [rainfall].[rainfall_transfer_control]
    (
        [one_row] bit NOT NULL CONSTRAINT [rainfall_transfer_control_one_row_df] DEFAULT (1),
        [paused] bit NOT NULL CONSTRAINT [rainfall_transfer_control_paused_df] DEFAULT (0),
        [changed_at] datetime2(3) NULL,
        [changed_by] nvarchar(128) NULL,
        CONSTRAINT [rainfall_transfer_control_pk] PRIMARY KEY CLUSTERED ([one_row]),
        CONSTRAINT [rainfall_transfer_control_one_row_ck] CHECK ([one_row] = 1)
    );
END;
IF NOT EXISTS (SELECT 1 FROM [rainfall].[rainfall_transfer_control])
    INSERT INTO [rainfall].[rainfall_transfer_control] ([paused]) VALUES (0);
GO
