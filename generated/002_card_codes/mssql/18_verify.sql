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
GO
