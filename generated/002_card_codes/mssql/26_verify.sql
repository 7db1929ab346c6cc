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
      N'card_codes_dead',
      N'card_codes_archive',
      N'card_codes_dedupe_ux',
      N'card_codes_dead_ix',
      N'card_codes_archive_ix',
      N'card_codes_pending',
      N'card_codes_batch',
      N'card_codes_enqueue',
      N'card_codes_enqueue_batch',
      N'card_codes_enqueue_json',
      N'card_codes_control',
      N'card_codes_dequeue',
      N'card_codes_metrics',
      N'card_codes_peek',
      N'card_codes_purge_batch',
      N'card_codes_purge',
      N'card_codes_maintain',
      N'card_codes_dead_letters',
      N'card_codes_job',
      N'card_codes_pause',
      N'card_codes_resume',
      N'card_codes_cancel'
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
IF OBJECT_ID(N'cards.card_codes_dead') IS NULL
    SET @q$missing += N' cards.card_codes_dead';
IF OBJECT_ID(N'cards.card_codes_archive') IS NULL
    SET @q$missing += N' cards.card_codes_archive';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'card_codes_dedupe_ux' AND [object_id] = OBJECT_ID(N'cards.card_codes'))
    SET @q$missing += N' cards.card_codes_dedupe_ux';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'card_codes_dead_ix' AND [object_id] = OBJECT_ID(N'cards.card_codes_dead'))
    SET @q$missing += N' cards.card_codes_dead_ix';
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
IF OBJECT_ID(N'cards.card_codes_control') IS NULL
    SET @q$missing += N' cards.card_codes_control';
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
IF OBJECT_ID(N'cards.card_codes_dead_letters') IS NULL
    SET @q$missing += N' cards.card_codes_dead_letters';
IF OBJECT_ID(N'cards.card_codes_job') IS NULL
    SET @q$missing += N' cards.card_codes_job';
IF OBJECT_ID(N'cards.card_codes_pause') IS NULL
    SET @q$missing += N' cards.card_codes_pause';
IF OBJECT_ID(N'cards.card_codes_resume') IS NULL
    SET @q$missing += N' cards.card_codes_resume';
IF OBJECT_ID(N'cards.card_codes_cancel') IS NULL
    SET @q$missing += N' cards.card_codes_cancel';
IF @q$missing <> N''
BEGIN
    DECLARE @q$absent nvarchar(2048) = LEFT(N'qgen: install did not create:' + @q$missing
        + N'. An earlier batch failed: read its error above, fix it and run install.sql again (sqlcmd -b stops at the first error).', 2048);
    THROW 50020, @q$absent, 1;
END;
-- And maintain can run: it runs WITH EXECUTE AS OWNER, as its owner (its schema's, unless it was given
-- one of its own), and only a user can be impersonated. A schema given to a role after install (or
-- installed into by a qgen that did not refuse one, see the schema's batch) fails every call of
-- maintain (error 15517) while every other procedure works.
DECLARE @q$owners nvarchar(max) = N'';
SELECT @q$owners = @q$owners + N' ' + QUOTENAME([s].[name]) + N'.' + QUOTENAME([o].[name]) + N' (owned by '
    + QUOTENAME([p].[name]) + N', ' + [p].[type_desc] + N')'
FROM sys.objects AS [o]
INNER JOIN sys.schemas AS [s] ON [s].[schema_id] = [o].[schema_id]
INNER JOIN sys.database_principals AS [p] ON [p].[principal_id] = COALESCE([o].[principal_id], [s].[principal_id])
WHERE [s].[name] = N'cards'
  AND [o].[name] IN
  (
      N'card_codes_maintain'
  )
  AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$owners <> N''
BEGIN
    DECLARE @q$impersonate nvarchar(2048) = LEFT(N'qgen: maintain runs WITH EXECUTE AS OWNER, which cannot impersonate its owner, '
        + N'so every call of it fails:' + @q$owners + N'. Give schema [cards] to a user, ALTER AUTHORIZATION ON SCHEMA::'
        + N'[cards] TO [dbo]; (a procedure given an owner of its own: ALTER AUTHORIZATION ON OBJECT::... TO SCHEMA OWNER;), '
        + N'then run install.sql again.', 2048);
    THROW 50020, @q$impersonate, 1;
END;
-- And each is what this install rendered, not an older version left in place: a CREATE OR ALTER
-- that failed (sqlcmd without -b goes on) keeps the old procedure, and IF NOT EXISTS ... CREATE
-- INDEX keeps any index already under that name. A procedure or view: a SHA2_256 of its text from
-- its name on, without spaces, tabs or line breaks (qgen.dialects.mssql.module_fingerprints), against
-- the one rendered. An index: its uniqueness, key columns (in order, with DESC), included columns
-- and whether it has a filter, against the rendered CREATE INDEX (the filter's text is not
-- compared: SQL Server stores it rewritten).
DECLARE @q$stale nvarchar(max) = N'';
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'cards.' + [r].[name]), N' '))
FROM
(
    VALUES
        (N'card_codes_cancel', 0x829F3E5FA3EB12807A86CEDCF740EB14CCA1C4DC0F30D282B434680C0F7CAB1D),
        (N'card_codes_dead_letters', 0xE45B7BAA2E02622B1230D539C2AE6CBD206E4068E61F8DA25D62A05804F27098),
        (N'card_codes_dequeue', 0x554A129C25991618382EBB3AC9B7F4AFC619905D6A571850CD9DB2626EFFE2DF),
        (N'card_codes_enqueue', 0x9B172B62FC1734986FC168C56EF0EE5025BB0FA393FCA770DED9F4E333369C74),
        (N'card_codes_enqueue_batch', 0xC195CD211672DFC581B9D2621244A41260A140A066A5A617609AA682E9F4134B),
        (N'card_codes_enqueue_json', 0xC765D36F2F16054C660249DA0B900E0EA8D53EFE0B018AF7608C1F1C156B2CE2),
        (N'card_codes_job', 0x2D2F51E87457AD9235EF77C814E789AE72DAD827F85C03A06C2DE2257A426293),
        (N'card_codes_maintain', 0x30C97B1B24C8ACC3708D0160545676F90AC8ABD1E7EC8F217827E583BA0DA8DD),
        (N'card_codes_metrics', 0x38EA2296F9437739449EA697F450D4F59B160915579F7C3C6954A8DF8D0E9FFE),
        (N'card_codes_pause', 0x4E1922BC3DC5D9E32137E2425650B4AF40CA26FAE228DEF6169BBC385BD84AFD),
        (N'card_codes_peek', 0x01512C2852CCB61306B7277D9ABB615A76E78DED74AB3456AFC9CFBD83743E88),
        (N'card_codes_pending', 0xC154F8B7C894C23422DDACD3008A27385F7A7EB17C08DEC4E05FE658539AEC78),
        (N'card_codes_purge', 0x1C5329C8E442740BA355111F8AA182E9D66BCC9515180683C391DC33EEE65FB6),
        (N'card_codes_purge_batch', 0xE3BCC7363BB82E0F54890F54C50F5CA020071B5D71CC2D6D0972389E63DBBE8A),
        (N'card_codes_resume', 0xBC64C440EEB8B6B54BD780EA853375394082CDE75897BD5EA53F5A29AB086153)
) AS [r]([name], [fingerprint])
INNER JOIN sys.sql_modules AS [sm] ON [sm].[object_id] = OBJECT_ID(N'cards.' + [r].[name])
CROSS APPLY (SELECT [sm].[definition] COLLATE Latin1_General_BIN2 AS [text]) AS [d]
WHERE HASHBYTES('SHA2_256', REPLACE(REPLACE(REPLACE(REPLACE(
          SUBSTRING([d].[text], CHARINDEX(N'[cards].[' + [r].[name] + N']' COLLATE Latin1_General_BIN2, [d].[text]), LEN([d].[text])),
          NCHAR(32), N''), NCHAR(9), N''), NCHAR(10), N''), NCHAR(13), N'')) <> [r].[fingerprint];
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'cards.' + [r].[table] + N'.' + [r].[name]
    + N' (' + COALESCE([shape].[now], N'?') + N', rendered ' + [r].[shape] + N')'), N' '))
FROM
(
    VALUES
        (N'card_codes', N'card_codes_dedupe_ux', N'unique (card_number)'),
        (N'card_codes_archive', N'card_codes_archive_dedupe_ux', N'unique (card_number)'),
        (N'card_codes_archive', N'card_codes_archive_ix', N'(completed_at)'),
        (N'card_codes_dead', N'card_codes_dead_id_ix', N'(id)'),
        (N'card_codes_dead', N'card_codes_dead_ix', N'(dead_at)')
) AS [r]([table], [name], [shape])
INNER JOIN sys.indexes AS [i] ON [i].[object_id] = OBJECT_ID(N'cards.' + [r].[table]) AND [i].[name] = [r].[name]
CROSS APPLY
(
    SELECT CONCAT(CASE WHEN [i].[is_unique] = 1 THEN N'unique ' END,
        N'(', (SELECT STRING_AGG(CONCAT([c].[name], CASE WHEN [ic].[is_descending_key] = 1 THEN N' desc' END), N', ')
                      WITHIN GROUP (ORDER BY [ic].[key_ordinal])
               FROM sys.index_columns AS [ic]
               INNER JOIN sys.columns AS [c] ON [c].[object_id] = [ic].[object_id] AND [c].[column_id] = [ic].[column_id]
               WHERE [ic].[object_id] = [i].[object_id] AND [ic].[index_id] = [i].[index_id] AND [ic].[key_ordinal] > 0), N')',
        (SELECT N' include (' + STRING_AGG([c].[name], N', ') WITHIN GROUP (ORDER BY UPPER([c].[name]) COLLATE Latin1_General_BIN2) + N')'
               FROM sys.index_columns AS [ic]
               INNER JOIN sys.columns AS [c] ON [c].[object_id] = [ic].[object_id] AND [c].[column_id] = [ic].[column_id]
               WHERE [ic].[object_id] = [i].[object_id] AND [ic].[index_id] = [i].[index_id] AND [ic].[is_included_column] = 1),
        CASE WHEN [i].[has_filter] = 1 THEN N' where' END) AS [now]
) AS [shape]
WHERE [shape].[now] <> [r].[shape];
IF @q$stale <> N''
BEGIN
    DECLARE @q$older nvarchar(2048) = LEFT(N'qgen: installed, but not as this install rendered it:' + @q$stale
        + N'. An earlier batch failed and left an older version (read its error above, fix it and run install.sql again), '
        + N'or an index of that name was already there: drop it and run install.sql again.', 2048);
    THROW 50020, @q$older, 1;
END;
GO

-- An install the schema's batch refused set NOEXEC ON, so that sqlcmd and SSMS, which go on to the
-- next batch after an error, ran nothing more: give the session back as it was.
SET NOEXEC OFF;
GO
