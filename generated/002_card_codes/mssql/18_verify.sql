-- qgen 0.1.0: verify cards, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
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
WHERE [s].[name] = N'cards'
  AND [o].[name] IN
  (
      N'card_codes',
      N'card_codes_archive',
      N'card_codes_dedupe_ux',
      N'card_codes_archive_ix',
      N'card_codes_pending',
      N'card_codes_batch',
      N'card_codes_enqueue',
      N'card_codes_enqueue_batch',
      N'card_codes_enqueue_json',
      N'card_codes_dequeue',
      N'card_codes_metrics',
      N'card_codes_peek',
      N'card_codes_purge_batch',
      N'card_codes_purge',
      N'card_codes_maintain'
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
IF OBJECT_ID(N'cards.card_codes') IS NULL
    SET @q$missing += N' cards.card_codes';
IF OBJECT_ID(N'cards.card_codes_archive') IS NULL
    SET @q$missing += N' cards.card_codes_archive';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'card_codes_dedupe_ux' AND [object_id] = OBJECT_ID(N'cards.card_codes'))
    SET @q$missing += N' cards.card_codes_dedupe_ux';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'card_codes_archive_ix' AND [object_id] = OBJECT_ID(N'cards.card_codes_archive'))
    SET @q$missing += N' cards.card_codes_archive_ix';
IF OBJECT_ID(N'cards.card_codes_pending') IS NULL
    SET @q$missing += N' cards.card_codes_pending';
IF TYPE_ID(N'cards.card_codes_batch') IS NULL
    SET @q$missing += N' cards.card_codes_batch';
IF OBJECT_ID(N'cards.card_codes_enqueue') IS NULL
    SET @q$missing += N' cards.card_codes_enqueue';
IF OBJECT_ID(N'cards.card_codes_enqueue_batch') IS NULL
    SET @q$missing += N' cards.card_codes_enqueue_batch';
IF OBJECT_ID(N'cards.card_codes_enqueue_json') IS NULL
    SET @q$missing += N' cards.card_codes_enqueue_json';
IF OBJECT_ID(N'cards.card_codes_dequeue') IS NULL
    SET @q$missing += N' cards.card_codes_dequeue';
IF OBJECT_ID(N'cards.card_codes_metrics') IS NULL
    SET @q$missing += N' cards.card_codes_metrics';
IF OBJECT_ID(N'cards.card_codes_peek') IS NULL
    SET @q$missing += N' cards.card_codes_peek';
IF OBJECT_ID(N'cards.card_codes_purge_batch') IS NULL
    SET @q$missing += N' cards.card_codes_purge_batch';
IF OBJECT_ID(N'cards.card_codes_purge') IS NULL
    SET @q$missing += N' cards.card_codes_purge';
IF OBJECT_ID(N'cards.card_codes_maintain') IS NULL
    SET @q$missing += N' cards.card_codes_maintain';
IF @q$missing <> N''
BEGIN
    DECLARE @q$absent nvarchar(2048) = LEFT(N'qgen: install did not create:' + @q$missing
        + N'. An earlier batch failed: read its error above, fix it and run install.sql again (sqlcmd -b stops at the first error).', 2048);
    THROW 50020, @q$absent, 1;
END;
GO
