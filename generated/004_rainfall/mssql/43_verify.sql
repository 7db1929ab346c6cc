-- qgen 0.1.0: verify rainfall, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Install ends here, and fails loudly if any of qgen's procedures or views is stored with
-- ANSI_NULLS or QUOTED_IDENTIFIER OFF: a module keeps the options of the session that created it,
-- and such a module fails on every call once a filtered index exists (one created or altered
-- from a session with them OFF, as sqlcmd without -I is, and without the SET batch qgen's files begin with).
DECLARE @q$wrong nvarchar(max) = N'';
SELECT @q$wrong = @q$wrong + N' ' + QUOTENAME([s].[name]) + N'.' + QUOTENAME([o].[name])
FROM sys.sql_modules AS [sm]
INNER JOIN sys.objects AS [o] ON [o].[object_id] = [sm].[object_id]
INNER JOIN sys.schemas AS [s] ON [s].[schema_id] = [o].[schema_id]
WHERE [s].[name] = N'rainfall'
  AND [o].[name] IN
  (
      N'rainfall_events',
      N'rainfall_events_claim_ix',
      N'rainfall_events_lease_ix',
      N'rainfall_events_processed_ix',
      N'rainfall_events_watermark',
      N'rainfall_events_dead',
      N'rainfall_events_dead_ix',
      N'rainfall_events_pending',
      N'rainfall_events_batch',
      N'rainfall_events_enqueue',
      N'rainfall_events_enqueue_batch',
      N'rainfall_events_enqueue_json',
      N'rainfall_events_watermark_move',
      N'rainfall_events_watermark_correct',
      N'rainfall_events_dequeue',
      N'rainfall_transfer',
      N'rainfall_events_complete',
      N'rainfall_events_fail',
      N'rainfall_events_extend_lease',
      N'rainfall_events_reap',
      N'rainfall_events_metrics',
      N'rainfall_events_peek',
      N'rainfall_events_purge_batch',
      N'rainfall_events_purge',
      N'rainfall_events_maintain',
      N'rainfall_events_redrive',
      N'rainfall_transfer_watermark',
      N'rainfall_transfer_pending',
      N'rainfall_transfer_batch',
      N'rainfall_transfer_enqueue',
      N'rainfall_transfer_enqueue_batch',
      N'rainfall_transfer_enqueue_json',
      N'rainfall_transfer_watermark_move',
      N'rainfall_transfer_watermark_correct',
      N'rainfall_transfer_dequeue',
      N'rainfall_transfer_metrics',
      N'rainfall_transfer_peek',
      N'rainfall_transfer_purge_batch',
      N'rainfall_transfer_purge',
      N'rainfall_transfer_maintain'
  )
  AND ([sm].[uses_ansi_nulls] = 0 OR [sm].[uses_quoted_identifier] = 0);
IF @q$wrong <> N''
BEGIN
    DECLARE @q$message nvarchar(2048) = LEFT(N'qgen: stored with ANSI_NULLS or QUOTED_IDENTIFIER OFF, so they fail once a '
        + N'filtered index exists:' + @q$wrong + N'. Run install.sql again from a session with both ON (sqlcmd -I).', 2048);
    THROW 50020, @q$message, 1;
END;
-- And every object install makes must exist: sqlcmd without -b goes on after a batch that failed
-- (a CREATE PROCEDURE that does not compile, an OPENJSON under compatibility level 130), so an
-- install that printed an error and carried on ends here with the names of what is missing.
DECLARE @q$missing nvarchar(max) = N'';
IF OBJECT_ID(N'rainfall.rainfall_events') IS NULL
    SET @q$missing += N' rainfall.rainfall_events';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'rainfall_events_claim_ix' AND [object_id] = OBJECT_ID(N'rainfall.rainfall_events'))
    SET @q$missing += N' rainfall.rainfall_events_claim_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'rainfall_events_lease_ix' AND [object_id] = OBJECT_ID(N'rainfall.rainfall_events'))
    SET @q$missing += N' rainfall.rainfall_events_lease_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'rainfall_events_processed_ix' AND [object_id] = OBJECT_ID(N'rainfall.rainfall_events'))
    SET @q$missing += N' rainfall.rainfall_events_processed_ix';
IF OBJECT_ID(N'rainfall.rainfall_events_watermark') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_watermark';
IF OBJECT_ID(N'rainfall.rainfall_events_dead') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_dead';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'rainfall_events_dead_ix' AND [object_id] = OBJECT_ID(N'rainfall.rainfall_events_dead'))
    SET @q$missing += N' rainfall.rainfall_events_dead_ix';
IF OBJECT_ID(N'rainfall.rainfall_events_pending') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_pending';
IF TYPE_ID(N'rainfall.rainfall_events_batch') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_batch';
IF OBJECT_ID(N'rainfall.rainfall_events_enqueue') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_enqueue';
IF OBJECT_ID(N'rainfall.rainfall_events_enqueue_batch') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_enqueue_batch';
IF OBJECT_ID(N'rainfall.rainfall_events_enqueue_json') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_enqueue_json';
IF OBJECT_ID(N'rainfall.rainfall_events_watermark_move') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_watermark_move';
IF OBJECT_ID(N'rainfall.rainfall_events_watermark_correct') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_watermark_correct';
IF OBJECT_ID(N'rainfall.rainfall_events_dequeue') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_dequeue';
IF OBJECT_ID(N'rainfall.rainfall_transfer') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer';
IF OBJECT_ID(N'rainfall.rainfall_events_complete') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_complete';
IF OBJECT_ID(N'rainfall.rainfall_events_fail') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_fail';
IF OBJECT_ID(N'rainfall.rainfall_events_extend_lease') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_extend_lease';
IF OBJECT_ID(N'rainfall.rainfall_events_reap') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_reap';
IF OBJECT_ID(N'rainfall.rainfall_events_metrics') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_metrics';
IF OBJECT_ID(N'rainfall.rainfall_events_peek') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_peek';
IF OBJECT_ID(N'rainfall.rainfall_events_purge_batch') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_purge_batch';
IF OBJECT_ID(N'rainfall.rainfall_events_purge') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_purge';
IF OBJECT_ID(N'rainfall.rainfall_events_maintain') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_maintain';
IF OBJECT_ID(N'rainfall.rainfall_events_redrive') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_redrive';
IF OBJECT_ID(N'rainfall.rainfall_transfer_watermark') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_watermark';
IF OBJECT_ID(N'rainfall.rainfall_transfer_pending') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_pending';
IF TYPE_ID(N'rainfall.rainfall_transfer_batch') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_batch';
IF OBJECT_ID(N'rainfall.rainfall_transfer_enqueue') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_enqueue';
IF OBJECT_ID(N'rainfall.rainfall_transfer_enqueue_batch') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_enqueue_batch';
IF OBJECT_ID(N'rainfall.rainfall_transfer_enqueue_json') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_enqueue_json';
IF OBJECT_ID(N'rainfall.rainfall_transfer_watermark_move') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_watermark_move';
IF OBJECT_ID(N'rainfall.rainfall_transfer_watermark_correct') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_watermark_correct';
IF OBJECT_ID(N'rainfall.rainfall_transfer_dequeue') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_dequeue';
IF OBJECT_ID(N'rainfall.rainfall_transfer_metrics') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_metrics';
IF OBJECT_ID(N'rainfall.rainfall_transfer_peek') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_peek';
IF OBJECT_ID(N'rainfall.rainfall_transfer_purge_batch') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_purge_batch';
IF OBJECT_ID(N'rainfall.rainfall_transfer_purge') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_purge';
IF OBJECT_ID(N'rainfall.rainfall_transfer_maintain') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_maintain';
IF @q$missing <> N''
BEGIN
    DECLARE @q$absent nvarchar(2048) = LEFT(N'qgen: install did not create:' + @q$missing
        + N'. An earlier batch failed: read its error above, fix it and run install.sql again (sqlcmd -b stops at the first error).', 2048);
    THROW 50020, @q$absent, 1;
END;
GO
