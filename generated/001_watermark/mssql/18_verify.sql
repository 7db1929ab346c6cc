-- qgen 0.1.0: verify ghosts, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
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
WHERE [s].[name] = N'ghosts'
  AND [o].[name] IN
  (
      N'testq',
      N'testq_watermark',
      N'testq_pending',
      N'testq_batch',
      N'testq_enqueue',
      N'testq_enqueue_batch',
      N'testq_enqueue_json',
      N'testq_watermark_move',
      N'testq_watermark_correct',
      N'testq_dequeue',
      N'testq_metrics',
      N'testq_peek',
      N'testq_purge_batch',
      N'testq_purge',
      N'testq_maintain'
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
IF OBJECT_ID(N'ghosts.testq') IS NULL
    SET @q$missing += N' ghosts.testq';
IF OBJECT_ID(N'ghosts.testq_watermark') IS NULL
    SET @q$missing += N' ghosts.testq_watermark';
IF OBJECT_ID(N'ghosts.testq_pending') IS NULL
    SET @q$missing += N' ghosts.testq_pending';
IF TYPE_ID(N'ghosts.testq_batch') IS NULL
    SET @q$missing += N' ghosts.testq_batch';
IF OBJECT_ID(N'ghosts.testq_enqueue') IS NULL
    SET @q$missing += N' ghosts.testq_enqueue';
IF OBJECT_ID(N'ghosts.testq_enqueue_batch') IS NULL
    SET @q$missing += N' ghosts.testq_enqueue_batch';
IF OBJECT_ID(N'ghosts.testq_enqueue_json') IS NULL
    SET @q$missing += N' ghosts.testq_enqueue_json';
IF OBJECT_ID(N'ghosts.testq_watermark_move') IS NULL
    SET @q$missing += N' ghosts.testq_watermark_move';
IF OBJECT_ID(N'ghosts.testq_watermark_correct') IS NULL
    SET @q$missing += N' ghosts.testq_watermark_correct';
IF OBJECT_ID(N'ghosts.testq_dequeue') IS NULL
    SET @q$missing += N' ghosts.testq_dequeue';
IF OBJECT_ID(N'ghosts.testq_metrics') IS NULL
    SET @q$missing += N' ghosts.testq_metrics';
IF OBJECT_ID(N'ghosts.testq_peek') IS NULL
    SET @q$missing += N' ghosts.testq_peek';
IF OBJECT_ID(N'ghosts.testq_purge_batch') IS NULL
    SET @q$missing += N' ghosts.testq_purge_batch';
IF OBJECT_ID(N'ghosts.testq_purge') IS NULL
    SET @q$missing += N' ghosts.testq_purge';
IF OBJECT_ID(N'ghosts.testq_maintain') IS NULL
    SET @q$missing += N' ghosts.testq_maintain';
IF @q$missing <> N''
BEGIN
    DECLARE @q$absent nvarchar(2048) = LEFT(N'qgen: install did not create:' + @q$missing
        + N'. An earlier batch failed: read its error above, fix it and run install.sql again (sqlcmd -b stops at the first error).', 2048);
    THROW 50020, @q$absent, 1;
END;
GO
