-- qgen 0.1.0: every object of 004_rainfall.yaml, for SQL Server (T-SQL), removed in reverse dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Uninstall starts here. It refuses to drop tables that still hold rows (jobs, dead letters,
-- archived jobs, outbox rows) unless this session has said so first:
--     EXEC sys.sp_set_session_context @key = N'qgen.force_uninstall', @value = 1;
-- Refused, it raises an error and sets NOEXEC ON, so that sqlcmd and SSMS, which go on to the next
-- batch after an error, drop nothing; the last batch of uninstall.sql sets it OFF again.
-- The check and the drops see the same rows: one transaction, from here to the last batch, that
-- first takes an exclusive lock on each table it checks (TABLOCKX, HOLDLOCK: it waits for the
-- writers in flight, and no producer, hand-off or dead-lettering can add a row until the tables are
-- gone). XACT_ABORT ON: an error on the way rolls every drop back (and stays set in this session).
-- Refused first, before anything is dropped (50024): an object that is not qgen's and uses one of
-- qgen's (a procedure taking the queue's table type, a view, a foreign key to a queue table, a
-- procedure or function calling or reading one): it would make a drop fail half way (3732, 3726) or
-- be left pointing at nothing. Each is named; drop or change it, then run uninstall.sql again.
-- (Babelfish keeps sys.sql_expression_dependencies empty: there only foreign keys are named, and
-- the drop the others block fails and rolls back the whole uninstall, see every batch's guard.)
SET XACT_ABORT ON;
DECLARE @q$dependents nvarchar(max);
SELECT @q$dependents = STRING_AGG(CONVERT(nvarchar(max), [d].[what]), N', ') WITHIN GROUP (ORDER BY [d].[what])
FROM
(
    SELECT QUOTENAME(OBJECT_SCHEMA_NAME([e].[referencing_id])) + N'.' + QUOTENAME(OBJECT_NAME([e].[referencing_id]))
        + N' uses rainfall.' + [e].[referenced_entity_name] AS [what]
    FROM sys.sql_expression_dependencies AS [e]
    WHERE [e].[referencing_class] = 1
      AND COALESCE([e].[referenced_schema_name], OBJECT_SCHEMA_NAME([e].[referencing_id])) = N'rainfall'
      AND [e].[referenced_entity_name] IN (N'rainfall_events', N'rainfall_events_claim_ix', N'rainfall_events_lease_ix', N'rainfall_events_processed_ix', N'rainfall_events_watermark', N'rainfall_events_dead', N'rainfall_events_dead_ix', N'rainfall_events_pending', N'rainfall_events_batch', N'rainfall_events_enqueue', N'rainfall_events_enqueue_batch', N'rainfall_events_enqueue_json', N'rainfall_events_watermark_move', N'rainfall_events_watermark_correct', N'rainfall_events_control', N'rainfall_events_dequeue', N'rainfall_transfer', N'rainfall_events_complete', N'rainfall_events_fail', N'rainfall_events_extend_lease', N'rainfall_events_reap', N'rainfall_events_metrics', N'rainfall_events_peek', N'rainfall_events_purge_batch', N'rainfall_events_purge', N'rainfall_events_maintain', N'rainfall_events_redrive', N'rainfall_events_dead_letters', N'rainfall_events_job', N'rainfall_events_release', N'rainfall_events_pause', N'rainfall_events_resume', N'rainfall_events_cancel', N'rainfall_transfer_watermark', N'rainfall_transfer_pending', N'rainfall_transfer_batch', N'rainfall_transfer_enqueue', N'rainfall_transfer_enqueue_batch', N'rainfall_transfer_enqueue_json', N'rainfall_transfer_watermark_move', N'rainfall_transfer_watermark_correct', N'rainfall_transfer_control', N'rainfall_transfer_dequeue', N'rainfall_transfer_metrics', N'rainfall_transfer_peek', N'rainfall_transfer_purge_batch', N'rainfall_transfer_purge', N'rainfall_transfer_maintain', N'rainfall_transfer_job', N'rainfall_transfer_pause', N'rainfall_transfer_resume', N'rainfall_transfer_cancel')
      AND NOT (OBJECT_SCHEMA_NAME([e].[referencing_id]) = N'rainfall'
               AND OBJECT_NAME([e].[referencing_id]) IN (N'rainfall_events', N'rainfall_events_claim_ix', N'rainfall_events_lease_ix', N'rainfall_events_processed_ix', N'rainfall_events_watermark', N'rainfall_events_dead', N'rainfall_events_dead_ix', N'rainfall_events_pending', N'rainfall_events_batch', N'rainfall_events_enqueue', N'rainfall_events_enqueue_batch', N'rainfall_events_enqueue_json', N'rainfall_events_watermark_move', N'rainfall_events_watermark_correct', N'rainfall_events_control', N'rainfall_events_dequeue', N'rainfall_transfer', N'rainfall_events_complete', N'rainfall_events_fail', N'rainfall_events_extend_lease', N'rainfall_events_reap', N'rainfall_events_metrics', N'rainfall_events_peek', N'rainfall_events_purge_batch', N'rainfall_events_purge', N'rainfall_events_maintain', N'rainfall_events_redrive', N'rainfall_events_dead_letters', N'rainfall_events_job', N'rainfall_events_release', N'rainfall_events_pause', N'rainfall_events_resume', N'rainfall_events_cancel', N'rainfall_transfer_watermark', N'rainfall_transfer_pending', N'rainfall_transfer_batch', N'rainfall_transfer_enqueue', N'rainfall_transfer_enqueue_batch', N'rainfall_transfer_enqueue_json', N'rainfall_transfer_watermark_move', N'rainfall_transfer_watermark_correct', N'rainfall_transfer_control', N'rainfall_transfer_dequeue', N'rainfall_transfer_metrics', N'rainfall_transfer_peek', N'rainfall_transfer_purge_batch', N'rainfall_transfer_purge', N'rainfall_transfer_maintain', N'rainfall_transfer_job', N'rainfall_transfer_pause', N'rainfall_transfer_resume', N'rainfall_transfer_cancel'))
    UNION
    SELECT QUOTENAME(OBJECT_SCHEMA_NAME([f].[parent_object_id])) + N'.' + QUOTENAME(OBJECT_NAME([f].[parent_object_id]))
        + N' (foreign key ' + QUOTENAME([f].[name]) + N') references rainfall.' + OBJECT_NAME([f].[referenced_object_id])
    FROM sys.foreign_keys AS [f]
    WHERE OBJECT_SCHEMA_NAME([f].[referenced_object_id]) = N'rainfall'
      AND OBJECT_NAME([f].[referenced_object_id]) IN (N'rainfall_events', N'rainfall_events_watermark', N'rainfall_events_dead', N'rainfall_transfer', N'rainfall_transfer_watermark')
      AND NOT (OBJECT_SCHEMA_NAME([f].[parent_object_id]) = N'rainfall'
               AND OBJECT_NAME([f].[parent_object_id]) IN (N'rainfall_events', N'rainfall_events_watermark', N'rainfall_events_dead', N'rainfall_transfer', N'rainfall_transfer_watermark'))
) AS [d];
IF @q$dependents IS NOT NULL
BEGIN
    DECLARE @q$uses nvarchar(2048) = LEFT(N'qgen: uninstall refused, nothing dropped: these objects are not qgen''s and use its objects: '
        + @q$dependents + N'. Drop or change them, then run uninstall.sql again.', 2048);
    THROW 50024, @q$uses, 1;
END;
BEGIN TRANSACTION;
DECLARE @q$holding nvarchar(max) = N'';
IF OBJECT_ID(N'rainfall.rainfall_events', N'U') IS NOT NULL
    IF EXISTS (SELECT 1 FROM [rainfall].[rainfall_events] WITH (TABLOCKX, HOLDLOCK))
        SET @q$holding += N' rainfall.rainfall_events';
IF OBJECT_ID(N'rainfall.rainfall_events_dead', N'U') IS NOT NULL
    IF EXISTS (SELECT 1 FROM [rainfall].[rainfall_events_dead] WITH (TABLOCKX, HOLDLOCK))
        SET @q$holding += N' rainfall.rainfall_events_dead';
IF OBJECT_ID(N'rainfall.rainfall_transfer', N'U') IS NOT NULL
    IF EXISTS (SELECT 1 FROM [rainfall].[rainfall_transfer] WITH (TABLOCKX, HOLDLOCK))
        SET @q$holding += N' rainfall.rainfall_transfer';
IF @q$holding <> N'' AND ISNULL(TRY_CONVERT(int, SESSION_CONTEXT(N'qgen.force_uninstall')), 0) <> 1
BEGIN
    ROLLBACK TRANSACTION;
    DECLARE @q$message nvarchar(2048) = N'qgen: uninstall refused: these tables still hold rows:' + @q$holding
        + N'. To drop them with their rows, run EXEC sys.sp_set_session_context @key = N''qgen.force_uninstall'', @value = 1; '
        + N'in the same session first.';
    RAISERROR(N'%s', 16, 1, @q$message);
    SET NOEXEC ON;
END;
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_cancel];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_resume];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_pause];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_release];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_job];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_dead_letters];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_redrive];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_maintain];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_purge];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_purge_batch];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_peek];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_metrics];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_reap];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_extend_lease];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_fail];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_complete];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_dequeue];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP TABLE IF EXISTS [rainfall].[rainfall_events_control];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_watermark_correct];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_watermark_move];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_enqueue_json];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_enqueue_batch];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_events_enqueue];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP TYPE IF EXISTS [rainfall].[rainfall_events_batch];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP VIEW IF EXISTS [rainfall].[rainfall_events_pending];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_dead_id_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events_dead'))
    DROP INDEX [rainfall_events_dead_id_ix] ON [rainfall].[rainfall_events_dead];
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_dead_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events_dead'))
    DROP INDEX [rainfall_events_dead_ix] ON [rainfall].[rainfall_events_dead];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP TABLE IF EXISTS [rainfall].[rainfall_events_dead];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP TABLE IF EXISTS [rainfall].[rainfall_events_watermark];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_processed_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events'))
    DROP INDEX [rainfall_events_processed_ix] ON [rainfall].[rainfall_events];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_lease_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events'))
    DROP INDEX [rainfall_events_lease_ix] ON [rainfall].[rainfall_events];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_claim_ix_due' AND object_id = OBJECT_ID(N'rainfall.rainfall_events'))
    DROP INDEX [rainfall_events_claim_ix_due] ON [rainfall].[rainfall_events];
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'rainfall_events_claim_ix' AND object_id = OBJECT_ID(N'rainfall.rainfall_events'))
    DROP INDEX [rainfall_events_claim_ix] ON [rainfall].[rainfall_events];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP TABLE IF EXISTS [rainfall].[rainfall_events];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_cancel];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_resume];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_pause];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_job];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_maintain];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_purge];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_purge_batch];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_peek];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_metrics];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_dequeue];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP TABLE IF EXISTS [rainfall].[rainfall_transfer_control];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_watermark_correct];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_watermark_move];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_enqueue_json];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_enqueue_batch];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [rainfall].[rainfall_transfer_enqueue];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP TYPE IF EXISTS [rainfall].[rainfall_transfer_batch];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP VIEW IF EXISTS [rainfall].[rainfall_transfer_pending];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP TABLE IF EXISTS [rainfall].[rainfall_transfer_watermark];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP TABLE IF EXISTS [rainfall].[rainfall_transfer];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
-- The objects take their own grants with them. An install by an older qgen granted EXECUTE ON
-- SCHEMA to the admin role: take that back too (when both are still there).
IF EXISTS (SELECT 1 FROM sys.database_permissions WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'rainfall')
           AND [grantee_principal_id] = DATABASE_PRINCIPAL_ID(N'rainfall_admin') AND [permission_name] = N'EXECUTE')
    REVOKE EXECUTE ON SCHEMA::[rainfall] FROM [rainfall_admin];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
-- Only the roles install created. DROP ROLE fails while a role has members, and the members are
-- someone else's: a role with members is kept, and said so.
IF EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'rainfall') AND [name] = N'qgen.created_role.rainfall_producer')
BEGIN
    IF EXISTS (SELECT 1 FROM sys.database_role_members WHERE [role_principal_id] = DATABASE_PRINCIPAL_ID(N'rainfall_producer'))
        PRINT N'qgen: role rainfall_producer kept: it still has members; remove them (ALTER ROLE [rainfall_producer] DROP MEMBER ...), then DROP ROLE [rainfall_producer]';
    ELSE
    BEGIN
        IF DATABASE_PRINCIPAL_ID(N'rainfall_producer') IS NOT NULL
            DROP ROLE [rainfall_producer];
        EXEC sys.sp_dropextendedproperty @name = N'qgen.created_role.rainfall_producer', @level0type = N'SCHEMA', @level0name = N'rainfall';
    END;
END;
IF EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'rainfall') AND [name] = N'qgen.created_role.rainfall_consumer')
BEGIN
    IF EXISTS (SELECT 1 FROM sys.database_role_members WHERE [role_principal_id] = DATABASE_PRINCIPAL_ID(N'rainfall_consumer'))
        PRINT N'qgen: role rainfall_consumer kept: it still has members; remove them (ALTER ROLE [rainfall_consumer] DROP MEMBER ...), then DROP ROLE [rainfall_consumer]';
    ELSE
    BEGIN
        IF DATABASE_PRINCIPAL_ID(N'rainfall_consumer') IS NOT NULL
            DROP ROLE [rainfall_consumer];
        EXEC sys.sp_dropextendedproperty @name = N'qgen.created_role.rainfall_consumer', @level0type = N'SCHEMA', @level0name = N'rainfall';
    END;
END;
IF EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'rainfall') AND [name] = N'qgen.created_role.rainfall_admin')
BEGIN
    IF EXISTS (SELECT 1 FROM sys.database_role_members WHERE [role_principal_id] = DATABASE_PRINCIPAL_ID(N'rainfall_admin'))
        PRINT N'qgen: role rainfall_admin kept: it still has members; remove them (ALTER ROLE [rainfall_admin] DROP MEMBER ...), then DROP ROLE [rainfall_admin]';
    ELSE
    BEGIN
        IF DATABASE_PRINCIPAL_ID(N'rainfall_admin') IS NOT NULL
            DROP ROLE [rainfall_admin];
        EXEC sys.sp_dropextendedproperty @name = N'qgen.created_role.rainfall_admin', @level0type = N'SCHEMA', @level0name = N'rainfall';
    END;
END;
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
-- Only a schema install created, and only once nothing else is in it (someone else's objects keep it).
IF EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'rainfall') AND [name] = N'qgen.created')
BEGIN
    IF NOT EXISTS (SELECT 1 FROM sys.objects WHERE [schema_id] = SCHEMA_ID(N'rainfall'))
        AND NOT EXISTS (SELECT 1 FROM sys.types WHERE [schema_id] = SCHEMA_ID(N'rainfall'))
        AND NOT EXISTS (SELECT 1 FROM sys.xml_schema_collections WHERE [schema_id] = SCHEMA_ID(N'rainfall'))
        EXEC(N'DROP SCHEMA [rainfall];');
    ELSE
        PRINT N'qgen: schema rainfall kept: it still holds other objects';
END;
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema rainfall stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;

-- The transaction the check began, holding its table locks through every drop, ends here. Each
-- batch from the check on begins with the guard above: once the transaction is gone (the check
-- refused and rolled it back, or a batch failed and XACT_ABORT rolled back every drop) the next
-- batch refuses and sets NOEXEC ON, so that sqlcmd and SSMS, which go on to the next batch after
-- an error, drop nothing in autocommit and this COMMIT does not run.
IF @@TRANCOUNT > 0
    COMMIT TRANSACTION;
GO

-- The SQL Server Agent job schedule.sql made for this schema and database, if there is one and this
-- login may see it: it would run maintain procedures that are gone every 10 seconds, failing. After
-- the COMMIT: a login that may not delete it gets an error here, and the uninstall stands.
IF DB_ID(N'msdb') IS NOT NULL AND HAS_PERMS_BY_NAME(N'msdb.dbo.sysjobs', N'OBJECT', N'SELECT') = 1
    EXEC(N'DECLARE @q$job sysname = N''qgen maintain '' + DB_NAME() + N''.rainfall'';
IF EXISTS (SELECT 1 FROM msdb.dbo.sysjobs WHERE [name] = @q$job)
    EXEC msdb.dbo.sp_delete_job @job_name = @q$job;');
GO

-- A refused uninstall set NOEXEC ON, so that sqlcmd and SSMS, which go on to the next batch after
-- an error, ran nothing more: give the session back as it was.
SET NOEXEC OFF;
GO
