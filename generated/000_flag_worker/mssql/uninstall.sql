-- qgen 0.1.0: every object of 000_flag_worker.yaml, for SQL Server (T-SQL), removed in reverse dependency order.
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
        + N' uses four.' + [e].[referenced_entity_name] AS [what]
    FROM sys.sql_expression_dependencies AS [e]
    WHERE [e].[referencing_class] = 1
      AND COALESCE([e].[referenced_schema_name], OBJECT_SCHEMA_NAME([e].[referencing_id])) = N'four'
      AND [e].[referenced_entity_name] IN (N'four_queue', N'four_queue_claim_ix', N'four_queue_dead', N'four_queue_dedupe_ux', N'four_queue_lease_ix', N'four_queue_processed_ix', N'four_queue_watermark', N'four_queue_dead_ix', N'four_queue_pending', N'four_queue_batch', N'four_queue_enqueue', N'four_queue_enqueue_batch', N'four_queue_enqueue_json', N'four_queue_watermark_move', N'four_queue_watermark_correct', N'four_queue_control', N'four_queue_dequeue', N'four_queue_complete', N'four_queue_fail', N'four_queue_extend_lease', N'four_queue_reap', N'four_queue_worker', N'four_queue_metrics', N'four_queue_peek', N'four_queue_purge_batch', N'four_queue_purge', N'four_queue_maintain', N'four_queue_redrive', N'four_queue_dead_letters', N'four_queue_job', N'four_queue_release', N'four_queue_pause', N'four_queue_resume', N'four_queue_cancel')
      AND NOT (OBJECT_SCHEMA_NAME([e].[referencing_id]) = N'four'
               AND OBJECT_NAME([e].[referencing_id]) IN (N'four_queue', N'four_queue_claim_ix', N'four_queue_dead', N'four_queue_dedupe_ux', N'four_queue_lease_ix', N'four_queue_processed_ix', N'four_queue_watermark', N'four_queue_dead_ix', N'four_queue_pending', N'four_queue_batch', N'four_queue_enqueue', N'four_queue_enqueue_batch', N'four_queue_enqueue_json', N'four_queue_watermark_move', N'four_queue_watermark_correct', N'four_queue_control', N'four_queue_dequeue', N'four_queue_complete', N'four_queue_fail', N'four_queue_extend_lease', N'four_queue_reap', N'four_queue_worker', N'four_queue_metrics', N'four_queue_peek', N'four_queue_purge_batch', N'four_queue_purge', N'four_queue_maintain', N'four_queue_redrive', N'four_queue_dead_letters', N'four_queue_job', N'four_queue_release', N'four_queue_pause', N'four_queue_resume', N'four_queue_cancel'))
    UNION
    SELECT QUOTENAME(OBJECT_SCHEMA_NAME([f].[parent_object_id])) + N'.' + QUOTENAME(OBJECT_NAME([f].[parent_object_id]))
        + N' (foreign key ' + QUOTENAME([f].[name]) + N') references four.' + OBJECT_NAME([f].[referenced_object_id])
    FROM sys.foreign_keys AS [f]
    WHERE OBJECT_SCHEMA_NAME([f].[referenced_object_id]) = N'four'
      AND OBJECT_NAME([f].[referenced_object_id]) IN (N'four_queue', N'four_queue_dead', N'four_queue_watermark')
      AND NOT (OBJECT_SCHEMA_NAME([f].[parent_object_id]) = N'four'
               AND OBJECT_NAME([f].[parent_object_id]) IN (N'four_queue', N'four_queue_dead', N'four_queue_watermark'))
) AS [d];
IF @q$dependents IS NOT NULL
BEGIN
    DECLARE @q$uses nvarchar(2048) = LEFT(N'qgen: uninstall refused, nothing dropped: these objects are not qgen''s and use its objects: '
        + @q$dependents + N'. Drop or change them, then run uninstall.sql again.', 2048);
    THROW 50024, @q$uses, 1;
END;
BEGIN TRANSACTION;
DECLARE @q$holding nvarchar(max) = N'';
IF OBJECT_ID(N'four.four_queue', N'U') IS NOT NULL
    IF EXISTS (SELECT 1 FROM [four].[four_queue] WITH (TABLOCKX, HOLDLOCK))
        SET @q$holding += N' four.four_queue';
IF OBJECT_ID(N'four.four_queue_dead', N'U') IS NOT NULL
    IF EXISTS (SELECT 1 FROM [four].[four_queue_dead] WITH (TABLOCKX, HOLDLOCK))
        SET @q$holding += N' four.four_queue_dead';
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
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_cancel];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_resume];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_pause];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_release];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_job];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_dead_letters];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_redrive];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_maintain];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_purge];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_purge_batch];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_peek];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_metrics];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_worker];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_reap];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_extend_lease];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_fail];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_complete];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_dequeue];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP TABLE IF EXISTS [four].[four_queue_control];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_watermark_correct];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_watermark_move];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_enqueue_json];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_enqueue_batch];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP PROCEDURE IF EXISTS [four].[four_queue_enqueue];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP TYPE IF EXISTS [four].[four_queue_batch];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP VIEW IF EXISTS [four].[four_queue_pending];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_dead_id_ix' AND object_id = OBJECT_ID(N'four.four_queue_dead'))
    DROP INDEX [four_queue_dead_id_ix] ON [four].[four_queue_dead];
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_dead_ix' AND object_id = OBJECT_ID(N'four.four_queue_dead'))
    DROP INDEX [four_queue_dead_ix] ON [four].[four_queue_dead];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP TABLE IF EXISTS [four].[four_queue_watermark];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_processed_ix' AND object_id = OBJECT_ID(N'four.four_queue'))
    DROP INDEX [four_queue_processed_ix] ON [four].[four_queue];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_lease_ix' AND object_id = OBJECT_ID(N'four.four_queue'))
    DROP INDEX [four_queue_lease_ix] ON [four].[four_queue];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_dead_dedupe_ux' AND object_id = OBJECT_ID(N'four.four_queue_dead'))
    DROP INDEX [four_queue_dead_dedupe_ux] ON [four].[four_queue_dead];
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_dedupe_ux' AND object_id = OBJECT_ID(N'four.four_queue'))
    DROP INDEX [four_queue_dedupe_ux] ON [four].[four_queue];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP TABLE IF EXISTS [four].[four_queue_dead];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_claim_ix_due' AND object_id = OBJECT_ID(N'four.four_queue'))
    DROP INDEX [four_queue_claim_ix_due] ON [four].[four_queue];
IF EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'four_queue_claim_ix' AND object_id = OBJECT_ID(N'four.four_queue'))
    DROP INDEX [four_queue_claim_ix] ON [four].[four_queue];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
DROP TABLE IF EXISTS [four].[four_queue];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
-- The objects take their own grants with them. An install by an older qgen granted EXECUTE ON
-- SCHEMA to the admin role: take that back too (when both are still there).
IF EXISTS (SELECT 1 FROM sys.database_permissions WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'four')
           AND [grantee_principal_id] = DATABASE_PRINCIPAL_ID(N'four_admin') AND [permission_name] = N'EXECUTE')
    REVOKE EXECUTE ON SCHEMA::[four] FROM [four_admin];
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
-- Only the roles install created. DROP ROLE fails while a role has members, and the members are
-- someone else's: a role with members is kept, and said so.
IF EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'four') AND [name] = N'qgen.created_role.four_producer')
BEGIN
    IF EXISTS (SELECT 1 FROM sys.database_role_members WHERE [role_principal_id] = DATABASE_PRINCIPAL_ID(N'four_producer'))
        PRINT N'qgen: role four_producer kept: it still has members; remove them (ALTER ROLE [four_producer] DROP MEMBER ...), then DROP ROLE [four_producer]';
    ELSE
    BEGIN
        IF DATABASE_PRINCIPAL_ID(N'four_producer') IS NOT NULL
            DROP ROLE [four_producer];
        EXEC sys.sp_dropextendedproperty @name = N'qgen.created_role.four_producer', @level0type = N'SCHEMA', @level0name = N'four';
    END;
END;
IF EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'four') AND [name] = N'qgen.created_role.four_consumer')
BEGIN
    IF EXISTS (SELECT 1 FROM sys.database_role_members WHERE [role_principal_id] = DATABASE_PRINCIPAL_ID(N'four_consumer'))
        PRINT N'qgen: role four_consumer kept: it still has members; remove them (ALTER ROLE [four_consumer] DROP MEMBER ...), then DROP ROLE [four_consumer]';
    ELSE
    BEGIN
        IF DATABASE_PRINCIPAL_ID(N'four_consumer') IS NOT NULL
            DROP ROLE [four_consumer];
        EXEC sys.sp_dropextendedproperty @name = N'qgen.created_role.four_consumer', @level0type = N'SCHEMA', @level0name = N'four';
    END;
END;
IF EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'four') AND [name] = N'qgen.created_role.four_admin')
BEGIN
    IF EXISTS (SELECT 1 FROM sys.database_role_members WHERE [role_principal_id] = DATABASE_PRINCIPAL_ID(N'four_admin'))
        PRINT N'qgen: role four_admin kept: it still has members; remove them (ALTER ROLE [four_admin] DROP MEMBER ...), then DROP ROLE [four_admin]';
    ELSE
    BEGIN
        IF DATABASE_PRINCIPAL_ID(N'four_admin') IS NOT NULL
            DROP ROLE [four_admin];
        EXEC sys.sp_dropextendedproperty @name = N'qgen.created_role.four_admin', @level0type = N'SCHEMA', @level0name = N'four';
    END;
END;
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
    SET NOEXEC ON;
    RETURN;
END;
-- Only a schema install created, and only once nothing else is in it (someone else's objects keep it).
IF EXISTS (SELECT 1 FROM sys.extended_properties WHERE [class] = 3 AND [major_id] = SCHEMA_ID(N'four') AND [name] = N'qgen.created')
BEGIN
    IF NOT EXISTS (SELECT 1 FROM sys.objects WHERE [schema_id] = SCHEMA_ID(N'four'))
        AND NOT EXISTS (SELECT 1 FROM sys.types WHERE [schema_id] = SCHEMA_ID(N'four'))
        AND NOT EXISTS (SELECT 1 FROM sys.xml_schema_collections WHERE [schema_id] = SCHEMA_ID(N'four'))
        EXEC(N'DROP SCHEMA [four];');
    ELSE
        PRINT N'qgen: schema four kept: it still holds other objects';
END;
GO
-- qgen: runs only inside the transaction uninstall's check began (see every batch's guard in docs/api.md).
IF @@TRANCOUNT = 0
BEGIN
    RAISERROR(N'%s', 16, 1, N'qgen: uninstall of schema four stopped, nothing dropped: its transaction is gone (the check refused, or an earlier batch failed and rolled back every drop; read that error). Fix it and run uninstall.sql again.');
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
    EXEC(N'DECLARE @q$job sysname = N''qgen maintain '' + DB_NAME() + N''.four'';
IF EXISTS (SELECT 1 FROM msdb.dbo.sysjobs WHERE [name] = @q$job)
    EXEC msdb.dbo.sp_delete_job @job_name = @q$job;');
GO

-- A refused uninstall set NOEXEC ON, so that sqlcmd and SSMS, which go on to the next batch after
-- an error, ran nothing more: give the session back as it was.
SET NOEXEC OFF;
GO
