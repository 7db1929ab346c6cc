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
      N'testq_control',
      N'testq_dequeue',
      N'testq_metrics',
      N'testq_peek',
      N'testq_purge_batch',
      N'testq_purge',
      N'testq_maintain',
      N'testq_job',
      N'testq_pause',
      N'testq_resume',
      N'testq_cancel'
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
IF OBJECT_ID(N'ghosts.testq_control') IS NULL
    SET @q$missing += N' ghosts.testq_control';
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
IF OBJECT_ID(N'ghosts.testq_job') IS NULL
    SET @q$missing += N' ghosts.testq_job';
IF OBJECT_ID(N'ghosts.testq_pause') IS NULL
    SET @q$missing += N' ghosts.testq_pause';
IF OBJECT_ID(N'ghosts.testq_resume') IS NULL
    SET @q$missing += N' ghosts.testq_resume';
IF OBJECT_ID(N'ghosts.testq_cancel') IS NULL
    SET @q$missing += N' ghosts.testq_cancel';
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
WHERE [s].[name] = N'ghosts'
  AND [o].[name] IN
  (
      N'testq_maintain'
  )
  AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$owners <> N''
BEGIN
    DECLARE @q$impersonate nvarchar(2048) = LEFT(N'qgen: maintain runs WITH EXECUTE AS OWNER, which cannot impersonate its owner, '
        + N'so every call of it fails:' + @q$owners + N'. Give schema [ghosts] to a user, ALTER AUTHORIZATION ON SCHEMA::'
        + N'[ghosts] TO [dbo]; (a procedure given an owner of its own: ALTER AUTHORIZATION ON OBJECT::... TO SCHEMA OWNER;), '
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
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'ghosts.' + [r].[name]), N' '))
FROM
(
    VALUES
        (N'testq_cancel', 0x2B169B9C137C59D7F97CE833220FE5899116C05A9CF9B8C780BF0D4F9F962688),
        (N'testq_dequeue', 0x0DD074F2519C363F45E9D169668A56E673E8CF6BE8AE7D848AC28289A38600A0),
        (N'testq_enqueue', 0x2BD195AB033AEE4B7100EFD1394D12ED932AD3D3C463846CDD85540B8A2A1B3C),
        (N'testq_enqueue_batch', 0x742B9936B3149FB7070360E160C8B18D20A736D5F0EA72AC71E198C2AD5EAFBD),
        (N'testq_enqueue_json', 0xECD6308E33FD703428EA010A994E211260097CADE8FA7182AAF94D2F50C92010),
        (N'testq_job', 0xEDEA7704E493F200902751D29730D7082E37341C0B5919AC959DFA76B0FB88FE),
        (N'testq_maintain', 0xBBC793CDD035691620B9B729E04D862EA1F0C703104C2A6E07F21ECF9280DF86),
        (N'testq_metrics', 0xB0396D78493DCF4817B84191EDEB820363484B4A2BA3FAAE80175618F4E598FC),
        (N'testq_pause', 0x0C2FDBAC96605A1FD41406BE52DC03455CA4D6FDBEF0960D8F01FC2DA4196AE6),
        (N'testq_peek', 0x8DDECD9D2E3BA612F074D4BF658649249113792B7ECE410A3D19498C1AACD7B8),
        (N'testq_pending', 0x391E7FAD831E24CA1CBE89AB1E4666E1DE0D7ADF80A03EB7D3E92BB7917CCEE4),
        (N'testq_purge', 0xDFC495F7023C12884C725F6AA08BB18C8E54E530A9A014D4718852427AE4A23C),
        (N'testq_purge_batch', 0xF58C8090A17B368F66F71160CE8F53B45A7E037E123FFEA9CC460130F8AAA1EE),
        (N'testq_resume', 0xC7C717E516808B92FC5EF8148DC5092C60DEBB796B4FBA6B41BEFEE82724B41E),
        (N'testq_watermark_correct', 0x36B4801DE45561D04F7554C50BE3ECABC381A908D5EE0E301490BDA99396FC4C),
        (N'testq_watermark_move', 0x2602A2672D1D9F968C47993477498E39E71B1C85DF0C1B8BE674ACE7CC0C0986)
) AS [r]([name], [fingerprint])
INNER JOIN sys.sql_modules AS [sm] ON [sm].[object_id] = OBJECT_ID(N'ghosts.' + [r].[name])
CROSS APPLY (SELECT [sm].[definition] COLLATE Latin1_General_BIN2 AS [text]) AS [d]
WHERE HASHBYTES('SHA2_256', REPLACE(REPLACE(REPLACE(REPLACE(
          SUBSTRING([d].[text], CHARINDEX(N'[ghosts].[' + [r].[name] + N']' COLLATE Latin1_General_BIN2, [d].[text]), LEN([d].[text])),
          NCHAR(32), N''), NCHAR(9), N''), NCHAR(10), N''), NCHAR(13), N'')) <> [r].[fingerprint];
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
