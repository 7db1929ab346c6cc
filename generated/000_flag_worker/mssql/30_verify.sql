-- qgen 0.1.0: verify four, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
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
WHERE [s].[name] = N'four'
  AND [o].[name] IN
  (
      N'four_queue',
      N'four_queue_claim_ix',
      N'four_queue_dead',
      N'four_queue_dedupe_ux',
      N'four_queue_lease_ix',
      N'four_queue_processed_ix',
      N'four_queue_watermark',
      N'four_queue_dead_ix',
      N'four_queue_pending',
      N'four_queue_batch',
      N'four_queue_enqueue',
      N'four_queue_enqueue_batch',
      N'four_queue_enqueue_json',
      N'four_queue_watermark_move',
      N'four_queue_watermark_correct',
      N'four_queue_dequeue',
      N'four_queue_complete',
      N'four_queue_fail',
      N'four_queue_extend_lease',
      N'four_queue_reap',
      N'four_queue_worker',
      N'four_queue_metrics',
      N'four_queue_peek',
      N'four_queue_purge_batch',
      N'four_queue_purge',
      N'four_queue_maintain',
      N'four_queue_redrive'
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
IF OBJECT_ID(N'four.four_queue') IS NULL
    SET @q$missing += N' four.four_queue';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'four_queue_claim_ix' AND [object_id] = OBJECT_ID(N'four.four_queue'))
    SET @q$missing += N' four.four_queue_claim_ix';
IF OBJECT_ID(N'four.four_queue_dead') IS NULL
    SET @q$missing += N' four.four_queue_dead';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'four_queue_dedupe_ux' AND [object_id] = OBJECT_ID(N'four.four_queue'))
    SET @q$missing += N' four.four_queue_dedupe_ux';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'four_queue_lease_ix' AND [object_id] = OBJECT_ID(N'four.four_queue'))
    SET @q$missing += N' four.four_queue_lease_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'four_queue_processed_ix' AND [object_id] = OBJECT_ID(N'four.four_queue'))
    SET @q$missing += N' four.four_queue_processed_ix';
IF OBJECT_ID(N'four.four_queue_watermark') IS NULL
    SET @q$missing += N' four.four_queue_watermark';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'four_queue_dead_ix' AND [object_id] = OBJECT_ID(N'four.four_queue_dead'))
    SET @q$missing += N' four.four_queue_dead_ix';
IF OBJECT_ID(N'four.four_queue_pending') IS NULL
    SET @q$missing += N' four.four_queue_pending';
IF TYPE_ID(N'four.four_queue_batch') IS NULL
    SET @q$missing += N' four.four_queue_batch';
IF OBJECT_ID(N'four.four_queue_enqueue') IS NULL
    SET @q$missing += N' four.four_queue_enqueue';
IF OBJECT_ID(N'four.four_queue_enqueue_batch') IS NULL
    SET @q$missing += N' four.four_queue_enqueue_batch';
IF OBJECT_ID(N'four.four_queue_enqueue_json') IS NULL
    SET @q$missing += N' four.four_queue_enqueue_json';
IF OBJECT_ID(N'four.four_queue_watermark_move') IS NULL
    SET @q$missing += N' four.four_queue_watermark_move';
IF OBJECT_ID(N'four.four_queue_watermark_correct') IS NULL
    SET @q$missing += N' four.four_queue_watermark_correct';
IF OBJECT_ID(N'four.four_queue_dequeue') IS NULL
    SET @q$missing += N' four.four_queue_dequeue';
IF OBJECT_ID(N'four.four_queue_complete') IS NULL
    SET @q$missing += N' four.four_queue_complete';
IF OBJECT_ID(N'four.four_queue_fail') IS NULL
    SET @q$missing += N' four.four_queue_fail';
IF OBJECT_ID(N'four.four_queue_extend_lease') IS NULL
    SET @q$missing += N' four.four_queue_extend_lease';
IF OBJECT_ID(N'four.four_queue_reap') IS NULL
    SET @q$missing += N' four.four_queue_reap';
IF OBJECT_ID(N'four.four_queue_worker') IS NULL
    SET @q$missing += N' four.four_queue_worker';
IF OBJECT_ID(N'four.four_queue_metrics') IS NULL
    SET @q$missing += N' four.four_queue_metrics';
IF OBJECT_ID(N'four.four_queue_peek') IS NULL
    SET @q$missing += N' four.four_queue_peek';
IF OBJECT_ID(N'four.four_queue_purge_batch') IS NULL
    SET @q$missing += N' four.four_queue_purge_batch';
IF OBJECT_ID(N'four.four_queue_purge') IS NULL
    SET @q$missing += N' four.four_queue_purge';
IF OBJECT_ID(N'four.four_queue_maintain') IS NULL
    SET @q$missing += N' four.four_queue_maintain';
IF OBJECT_ID(N'four.four_queue_redrive') IS NULL
    SET @q$missing += N' four.four_queue_redrive';
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
WHERE [s].[name] = N'four'
  AND [o].[name] IN
  (
      N'four_queue_maintain'
  )
  AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$owners <> N''
BEGIN
    DECLARE @q$impersonate nvarchar(2048) = LEFT(N'qgen: maintain runs WITH EXECUTE AS OWNER, which cannot impersonate its owner, '
        + N'so every call of it fails:' + @q$owners + N'. Give schema [four] to a user, ALTER AUTHORIZATION ON SCHEMA::'
        + N'[four] TO [dbo]; (a procedure given an owner of its own: ALTER AUTHORIZATION ON OBJECT::... TO SCHEMA OWNER;), '
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
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'four.' + [r].[name]), N' '))
FROM
(
    VALUES
        (N'four_queue_complete', 0xDACA577622D0C47EEC6AFEC6348BF9D23392B7CDF73B929907023FE526B4A587),
        (N'four_queue_dequeue', 0x91AE4124C5558BCB59E1E08431ABC4B4F1741620E2EB216DA0B655EA632C4474),
        (N'four_queue_enqueue', 0x059231E3467807E474897CF29957C5C42A7AA559DD6DBD01695F37C5111B3D29),
        (N'four_queue_enqueue_batch', 0x0D869F7C01AF8FBE9174EF39C31C765FE43764A4BB2915DF10B410F2C3A4A684),
        (N'four_queue_enqueue_json', 0xCD194F0F886395BC2A5914106C6FFA1EA8163B9033B31EA7D09F512B5746499B),
        (N'four_queue_extend_lease', 0xB5796A66626D8C595FFAAFC8AFA33A2CA70BA29E18EFD9FE451E72A17F42BAD9),
        (N'four_queue_fail', 0x84262679598B676D0E0357320A1523A00DA9B09DAAE89AE3FA774150E0370383),
        (N'four_queue_maintain', 0x36B183F3124AAA979A4FC0632BAA04BD08BDDBD0D432A253D25B308E29A58149),
        (N'four_queue_metrics', 0xF124048236C42B7F5F42321AB6D79E3CB0146BC7D91E7960A5C5A22AB99C36A5),
        (N'four_queue_peek', 0x3B2F8342CA42E9AB752633EF4512475EC92DD3641C96DB89365C2FFFF16B63B1),
        (N'four_queue_pending', 0xAF925EE75A4A78DC2EA9944F20F585984927539E193D99E8C757607725EBABA0),
        (N'four_queue_purge', 0x6D787816534829DFCEA5353AF3FE1EC0528010F8A6A17F26868345A93404A5A7),
        (N'four_queue_purge_batch', 0x90391FC451F27B25F5C166EDC6558649BBADADAACAED17A1BE653374A3C7337B),
        (N'four_queue_reap', 0x55980B97A75B0E10B3B51E8E1595F4938791188B6298B2C9B5A7C23C8AEF5373),
        (N'four_queue_redrive', 0x6677ACFE498BDAB00C793120E47836AA1DB120DE36F6CFFAB1ECE2DD892E2121),
        (N'four_queue_watermark_correct', 0x6E8062DC48F2E7BEEAA0326134357631CD6547561C14B6ABB730A25720F54529),
        (N'four_queue_watermark_move', 0xFDB5ADD0638ED2F97D1303C795DDBD1AE9A81E8428AC8642B0B50AFF5F5CBCE1),
        (N'four_queue_worker', 0x35914525737F1194714A5ECCA0EB9FB2C57CDA12C0270585B76B52220945586E)
) AS [r]([name], [fingerprint])
INNER JOIN sys.sql_modules AS [sm] ON [sm].[object_id] = OBJECT_ID(N'four.' + [r].[name])
CROSS APPLY (SELECT [sm].[definition] COLLATE Latin1_General_BIN2 AS [text]) AS [d]
WHERE HASHBYTES('SHA2_256', REPLACE(REPLACE(REPLACE(REPLACE(
          SUBSTRING([d].[text], CHARINDEX(N'[four].[' + [r].[name] + N']' COLLATE Latin1_General_BIN2, [d].[text]), LEN([d].[text])),
          NCHAR(32), N''), NCHAR(9), N''), NCHAR(10), N''), NCHAR(13), N'')) <> [r].[fingerprint];
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'four.' + [r].[table] + N'.' + [r].[name]
    + N' (' + COALESCE([shape].[now], N'?') + N', rendered ' + [r].[shape] + N')'), N' '))
FROM
(
    VALUES
        (N'four_queue', N'four_queue_claim_ix', N'(id) include (available_at, deferred, lease_token, processed) where'),
        (N'four_queue', N'four_queue_claim_ix_due', N'(available_at, id) include (deferred) where'),
        (N'four_queue', N'four_queue_dedupe_ux', N'unique (reputation)'),
        (N'four_queue', N'four_queue_lease_ix', N'(lease_token) include (attempts, lease_expires_at) where'),
        (N'four_queue', N'four_queue_processed_ix', N'(processed_at) include (processed) where'),
        (N'four_queue_dead', N'four_queue_dead_dedupe_ux', N'unique (reputation)'),
        (N'four_queue_dead', N'four_queue_dead_id_ix', N'(id)'),
        (N'four_queue_dead', N'four_queue_dead_ix', N'(dead_at)')
) AS [r]([table], [name], [shape])
INNER JOIN sys.indexes AS [i] ON [i].[object_id] = OBJECT_ID(N'four.' + [r].[table]) AND [i].[name] = [r].[name]
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
