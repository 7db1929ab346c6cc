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
WHERE [s].[name] = N'rainfall'
  AND [o].[name] IN
  (
      N'rainfall_events_maintain',
      N'rainfall_transfer_maintain'
  )
  AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$owners <> N''
BEGIN
    DECLARE @q$impersonate nvarchar(2048) = LEFT(N'qgen: maintain runs WITH EXECUTE AS OWNER, which cannot impersonate its owner, '
        + N'so every call of it fails:' + @q$owners + N'. Give schema [rainfall] to a user, ALTER AUTHORIZATION ON SCHEMA::'
        + N'[rainfall] TO [dbo]; (a procedure given an owner of its own: ALTER AUTHORIZATION ON OBJECT::... TO SCHEMA OWNER;), '
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
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'rainfall.' + [r].[name]), N' '))
FROM
(
    VALUES
        (N'rainfall_events_complete', 0x731AFC28A02CEE7415F6ECDD2E769211A562BC5E811E49F6C5C417E086A439B4),
        (N'rainfall_events_dequeue', 0x3FD391C2A4E4853461CD74FE09F8A0A310AFDECDACB091977FDF2067A44DA8FE),
        (N'rainfall_events_enqueue', 0xC69D6A3F1D22F98C1FBF70255F10398D86EA4A0C5C41176BFD01FDF35368413A),
        (N'rainfall_events_enqueue_batch', 0x792C96DA060D177667F39CBB610728B484533A4E268C91131BCABF565073E869),
        (N'rainfall_events_enqueue_json', 0x2AA0CF67AD8FC9A9586324A07F6973E9AB0B3BAF76B544B9A05177AFEE49B13C),
        (N'rainfall_events_extend_lease', 0x88AD76F014E23F1399345299F8797042ED6163D3340610229AD512725D66EF59),
        (N'rainfall_events_fail', 0x2ED5FE38571DD71738BBCD9765347C9D12A1B790557EC18CAEFC02A77E7D66C8),
        (N'rainfall_events_maintain', 0xC7652A1C549FB241FB66C1D1E82361A3D1B80E5A3F3490C5443FC415BA51D692),
        (N'rainfall_events_metrics', 0x4A5D4F8D63CFB4AB3C3B79321A2A300E943AE9606AC7544597062729CBA67618),
        (N'rainfall_events_peek', 0x09FBE6FD062826D61AF4344B313A63C1BC031558EFD6AABCC97BABFD115D8ABB),
        (N'rainfall_events_pending', 0xF6EE67C154BBDB3C53E903862E24FD050158800BA6AC362A27A68FB91B8B6F33),
        (N'rainfall_events_purge', 0x229A838AB8BEB59C777119F397FE1A53E3E007C021CD34E344FAF6E42EAFAE12),
        (N'rainfall_events_purge_batch', 0x2C87AF9D0E4B65ADBFC0A6EDF89A49F8A78F0408012C84E5A445EC31107BB35A),
        (N'rainfall_events_reap', 0x26D0E0C91838D0C9037D0000D3BA100680159CAD0E743D3F7AD47C5CA0BEA9AC),
        (N'rainfall_events_redrive', 0xFD0BC2E51D50DA32B432481DD2194ED9B126942FAD8E440D8911B4A370712F7A),
        (N'rainfall_events_watermark_correct', 0x252D2E5A42156A7046C869B27044736C5B6BE309D238BB408C11E1B0222F3CD3),
        (N'rainfall_events_watermark_move', 0xD60E28BA65531236D1F43891E78B33292337A81D481CA9D1DC80A8E29E9FF498),
        (N'rainfall_transfer_dequeue', 0x15AC541F51B4CB24C08E5A4D3245C23B2D622438FA375BF401AB9E5E0ECCD54A),
        (N'rainfall_transfer_enqueue', 0x9D56D77E16E667008980140F01D9A620424150FDF3BE7AF31A3F611CA5B677CF),
        (N'rainfall_transfer_enqueue_batch', 0x637B7F4D45C63B6F0F12007A5C6494111CAA27237A9AD96D030CABA044E75209),
        (N'rainfall_transfer_enqueue_json', 0x8D3654F7F149D046A3566707341CA3C821DF715062A4297D994E6A34911C6954),
        (N'rainfall_transfer_maintain', 0xF4B2376CE598CD93697E760AB2A0343A157115A4F7365E71F9899CF034584B9C),
        (N'rainfall_transfer_metrics', 0x59E7DA520C13EF55CDDFBF65EFD810DF5CFB1CD1583027057A673ABDB2980A93),
        (N'rainfall_transfer_peek', 0xF5940CC1FCAEED87255AEF32628B3518AB4B84701C6970F2C57E96FD0442D3A4),
        (N'rainfall_transfer_pending', 0x2B907C1747578186799C5DC23885950914028F807232A3F7E1C58B18BF8D1D71),
        (N'rainfall_transfer_purge', 0xA0443AEC5A2A8C001CF08854FC78E5D01205D40EACBC2F0AFAEE013AD4649C58),
        (N'rainfall_transfer_purge_batch', 0xF25BD36EDD03B55D7DBE1F07D3F08DCC9B022F0A31FFE09F5C673A9245B36893),
        (N'rainfall_transfer_watermark_correct', 0x20A6B1A6DF4FF21FD8775F3EAC16C138978A0A4C37E083F9829CD5B1BF6DF49E),
        (N'rainfall_transfer_watermark_move', 0xEFEC1A2E82DC312EE27BEFAD4D80D53D0A70C17DC786772B99B94D99AF8087AE)
) AS [r]([name], [fingerprint])
INNER JOIN sys.sql_modules AS [sm] ON [sm].[object_id] = OBJECT_ID(N'rainfall.' + [r].[name])
CROSS APPLY (SELECT [sm].[definition] COLLATE Latin1_General_BIN2 AS [text]) AS [d]
WHERE HASHBYTES('SHA2_256', REPLACE(REPLACE(REPLACE(REPLACE(
          SUBSTRING([d].[text], CHARINDEX(N'[rainfall].[' + [r].[name] + N']' COLLATE Latin1_General_BIN2, [d].[text]), LEN([d].[text])),
          NCHAR(32), N''), NCHAR(9), N''), NCHAR(10), N''), NCHAR(13), N'')) <> [r].[fingerprint];
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'rainfall.' + [r].[table] + N'.' + [r].[name]
    + N' (' + COALESCE([shape].[now], N'?') + N', rendered ' + [r].[shape] + N')'), N' '))
FROM
(
    VALUES
        (N'rainfall_events', N'rainfall_events_claim_ix', N'(id) include (available_at, deferred, lease_token, processed) where'),
        (N'rainfall_events', N'rainfall_events_claim_ix_due', N'(available_at, id) include (deferred) where'),
        (N'rainfall_events', N'rainfall_events_lease_ix', N'(lease_token) include (attempts, lease_expires_at) where'),
        (N'rainfall_events', N'rainfall_events_processed_ix', N'(processed_at) include (processed) where'),
        (N'rainfall_events_dead', N'rainfall_events_dead_id_ix', N'(id)'),
        (N'rainfall_events_dead', N'rainfall_events_dead_ix', N'(dead_at)')
) AS [r]([table], [name], [shape])
INNER JOIN sys.indexes AS [i] ON [i].[object_id] = OBJECT_ID(N'rainfall.' + [r].[table]) AND [i].[name] = [r].[name]
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
