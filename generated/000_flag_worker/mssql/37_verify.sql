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
      N'four_queue_control',
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
      N'four_queue_redrive',
      N'four_queue_dead_letters',
      N'four_queue_job',
      N'four_queue_release',
      N'four_queue_pause',
      N'four_queue_resume',
      N'four_queue_cancel'
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
IF OBJECT_ID(N'four.four_queue_control') IS NULL
    SET @q$missing += N' four.four_queue_control';
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
IF OBJECT_ID(N'four.four_queue_dead_letters') IS NULL
    SET @q$missing += N' four.four_queue_dead_letters';
IF OBJECT_ID(N'four.four_queue_job') IS NULL
    SET @q$missing += N' four.four_queue_job';
IF OBJECT_ID(N'four.four_queue_release') IS NULL
    SET @q$missing += N' four.four_queue_release';
IF OBJECT_ID(N'four.four_queue_pause') IS NULL
    SET @q$missing += N' four.four_queue_pause';
IF OBJECT_ID(N'four.four_queue_resume') IS NULL
    SET @q$missing += N' four.four_queue_resume';
IF OBJECT_ID(N'four.four_queue_cancel') IS NULL
    SET @q$missing += N' four.four_queue_cancel';
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
        (N'four_queue_cancel', 0x84D0C6B470339F9A91502ACE282ADA521AB2816B9A5AAB298B3B41D841A9C6D4),
        (N'four_queue_complete', 0xC6D5E4BCB8C453E7ADA1F224451B69CC6C4BE145133B0CB3DD32AC9DD89F94C9),
        (N'four_queue_dead_letters', 0x8377E6B34DF45FFE8BA4E4D4441DC7AB4E1869C877F312A4DC49064890352BED),
        (N'four_queue_dequeue', 0x830489B1DB27BFC8F3782F01DC5BFE8A64B0424F1DF7DB5046B163BE2815DB7E),
        (N'four_queue_enqueue', 0xB9B503EB8C08CE29535CAC02A089D504C77BA938EA1D7FBBFB887C8BCEC9FC43),
        (N'four_queue_enqueue_batch', 0x1271BAD2278EF511C98D21C6BA1F59841AD059274AF17E34527AF2D6CFE038C5),
        (N'four_queue_enqueue_json', 0x3775AB3DFBB387C6CE364D57625BFC37FE00946E8A3F230D053085546F57C532),
        (N'four_queue_extend_lease', 0xBF5A9A25A96AD52EF93809A92BD0C18FE47EB92743262A8A3649190683485C40),
        (N'four_queue_fail', 0x32FF0FD960ED779AA7D2B40C985ED33FA36479BF5FF4D90B014A4F706F1D09B9),
        (N'four_queue_job', 0x8AC18EF4CD37FFBB0C5994C0FE16CD792E89A43EB8AC3B6D6DFE0A5F56FBACA1),
        (N'four_queue_maintain', 0x4098AA75B4E28419FC3FA526E0C9EACE2998EF4223648FF9A323508529F356B5),
        (N'four_queue_metrics', 0x99334E2D23674CE3934AF96B02E84226D5DFB0F866ACB68863322AE6BD247391),
        (N'four_queue_pause', 0x99DBF42A92F60182640F0336AE848BE9CD46B7C57736A03282E630314E5006BA),
        (N'four_queue_peek', 0xADD33894121D0A58A1D8B4AC44B7A5FDF971FB7317BDDA43D3B609D3F122A866),
        (N'four_queue_pending', 0xAF925EE75A4A78DC2EA9944F20F585984927539E193D99E8C757607725EBABA0),
        (N'four_queue_purge', 0xC8AE32737A1B473A9437D487919E4A70A3432EF44ABFA6CDEF972BD39F544AB6),
        (N'four_queue_purge_batch', 0x768584AA8613BF926D010D78D82DC8A1608D5D88CC35AF638B10A80BB3308350),
        (N'four_queue_reap', 0x92B8469B9E18AB95FB1386CFED26E1F8D447DE4D96E9335DEBAB25BCB9D07F9A),
        (N'four_queue_redrive', 0x1757DA770CEBBCF9416AF450099D0981CB0D476494D232BF863CF4C98FF1EEB9),
        (N'four_queue_release', 0xEF3DBD44C08E15AED3864ABE249FE2BF2510E6EBFE19B0E6A9EB5E4A1DBDA58C),
        (N'four_queue_resume', 0xC1F706D93AF299D737DF5876731FC60701D9AD120897CB119B2E337AF94EBFB6),
        (N'four_queue_watermark_correct', 0x0CDB7B8572A3F50BDE821C11312B5C7E57CA07E90FAD1FD2579C455EFCF4BEBF),
        (N'four_queue_watermark_move', 0x9AF47F995274ADF4A8F227017185E758818BBAFF8237561DAD3EEB6E7EF37B76),
        (N'four_queue_worker', 0x56E57E9AB9F9E650D332A30993E4C65762D8DCAFB8584FE3097D9D7A9BD21C9B)
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
