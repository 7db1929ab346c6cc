-- qgen 0.1.0: verify QueueSample, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
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
WHERE [s].[name] = N'QueueSample'
  AND [o].[name] IN
  (
      N'WorkQueue',
      N'WorkQueue_claim_ix',
      N'WorkQueue_claim_order_ix',
      N'WorkQueue_lease_ix',
      N'WorkQueue_processed_ix',
      N'WorkQueue_watermark',
      N'WorkQueue_dead',
      N'WorkQueue_dead_ix',
      N'WorkQueue_Pending',
      N'WorkQueue_batch',
      N'QueueJob',
      N'WorkQueue_enqueue_batch',
      N'WorkQueue_enqueue_json',
      N'WorkQueue_watermark_move',
      N'WorkQueue_watermark_correct',
      N'WorkQueue_control',
      N'GetNextJob',
      N'WorkQueue_complete',
      N'WorkQueue_fail',
      N'WorkQueue_extend_lease',
      N'WorkQueue_reap',
      N'WorkQueue_metrics',
      N'ViewQueue',
      N'WorkQueue_purge_batch',
      N'WorkQueue_purge',
      N'WorkQueue_maintain',
      N'WorkQueue_redrive',
      N'WorkQueue_dead_letters',
      N'WorkQueue_job',
      N'WorkQueue_release',
      N'WorkQueue_pause',
      N'WorkQueue_resume',
      N'WorkQueue_cancel'
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
IF OBJECT_ID(N'QueueSample.WorkQueue') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'WorkQueue_claim_ix' AND [object_id] = OBJECT_ID(N'QueueSample.WorkQueue'))
    SET @q$missing += N' QueueSample.WorkQueue_claim_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'WorkQueue_claim_order_ix' AND [object_id] = OBJECT_ID(N'QueueSample.WorkQueue'))
    SET @q$missing += N' QueueSample.WorkQueue_claim_order_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'WorkQueue_lease_ix' AND [object_id] = OBJECT_ID(N'QueueSample.WorkQueue'))
    SET @q$missing += N' QueueSample.WorkQueue_lease_ix';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'WorkQueue_processed_ix' AND [object_id] = OBJECT_ID(N'QueueSample.WorkQueue'))
    SET @q$missing += N' QueueSample.WorkQueue_processed_ix';
IF OBJECT_ID(N'QueueSample.WorkQueue_watermark') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_watermark';
IF OBJECT_ID(N'QueueSample.WorkQueue_dead') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_dead';
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE [name] = N'WorkQueue_dead_ix' AND [object_id] = OBJECT_ID(N'QueueSample.WorkQueue_dead'))
    SET @q$missing += N' QueueSample.WorkQueue_dead_ix';
IF OBJECT_ID(N'QueueSample.WorkQueue_Pending') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_Pending';
IF TYPE_ID(N'QueueSample.WorkQueue_batch') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_batch';
IF OBJECT_ID(N'QueueSample.QueueJob') IS NULL
    SET @q$missing += N' QueueSample.QueueJob';
IF OBJECT_ID(N'QueueSample.WorkQueue_enqueue_batch') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_enqueue_batch';
IF OBJECT_ID(N'QueueSample.WorkQueue_enqueue_json') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_enqueue_json';
IF OBJECT_ID(N'QueueSample.WorkQueue_watermark_move') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_watermark_move';
IF OBJECT_ID(N'QueueSample.WorkQueue_watermark_correct') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_watermark_correct';
IF OBJECT_ID(N'QueueSample.WorkQueue_control') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_control';
IF OBJECT_ID(N'QueueSample.GetNextJob') IS NULL
    SET @q$missing += N' QueueSample.GetNextJob';
IF OBJECT_ID(N'QueueSample.WorkQueue_complete') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_complete';
IF OBJECT_ID(N'QueueSample.WorkQueue_fail') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_fail';
IF OBJECT_ID(N'QueueSample.WorkQueue_extend_lease') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_extend_lease';
IF OBJECT_ID(N'QueueSample.WorkQueue_reap') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_reap';
IF OBJECT_ID(N'QueueSample.WorkQueue_metrics') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_metrics';
IF OBJECT_ID(N'QueueSample.ViewQueue') IS NULL
    SET @q$missing += N' QueueSample.ViewQueue';
IF OBJECT_ID(N'QueueSample.WorkQueue_purge_batch') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_purge_batch';
IF OBJECT_ID(N'QueueSample.WorkQueue_purge') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_purge';
IF OBJECT_ID(N'QueueSample.WorkQueue_maintain') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_maintain';
IF OBJECT_ID(N'QueueSample.WorkQueue_redrive') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_redrive';
IF OBJECT_ID(N'QueueSample.WorkQueue_dead_letters') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_dead_letters';
IF OBJECT_ID(N'QueueSample.WorkQueue_job') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_job';
IF OBJECT_ID(N'QueueSample.WorkQueue_release') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_release';
IF OBJECT_ID(N'QueueSample.WorkQueue_pause') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_pause';
IF OBJECT_ID(N'QueueSample.WorkQueue_resume') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_resume';
IF OBJECT_ID(N'QueueSample.WorkQueue_cancel') IS NULL
    SET @q$missing += N' QueueSample.WorkQueue_cancel';
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
WHERE [s].[name] = N'QueueSample'
  AND [o].[name] IN
  (
      N'WorkQueue_maintain'
  )
  AND [p].[type] NOT IN ('S', 'U', 'E');
IF @q$owners <> N''
BEGIN
    DECLARE @q$impersonate nvarchar(2048) = LEFT(N'qgen: maintain runs WITH EXECUTE AS OWNER, which cannot impersonate its owner, '
        + N'so every call of it fails:' + @q$owners + N'. Give schema [QueueSample] to a user, ALTER AUTHORIZATION ON SCHEMA::'
        + N'[QueueSample] TO [dbo]; (a procedure given an owner of its own: ALTER AUTHORIZATION ON OBJECT::... TO SCHEMA OWNER;), '
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
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'QueueSample.' + [r].[name]), N' '))
FROM
(
    VALUES
        (N'GetNextJob', 0x91424EA95886BF3542BCE000350E48477FA08B9EA793991306CD689EBC2C9A16),
        (N'QueueJob', 0xC5F589E31A60CD42C081563AD4F4B6E14C59024C8C5032976D68D0EF3F826B90),
        (N'ViewQueue', 0x0FE9F0C38EB14D1961AD9F5B0CCD53AFF6BEFCE58DE8C09D3AB5E53B86963A97),
        (N'WorkQueue_cancel', 0x34DA9C82B05BE34881FD5845C56A18B5B04577F6114E64232ADF4A49CC36C954),
        (N'WorkQueue_complete', 0xA2475A9CBB377294042E7CB590C0858D52FDAAF1F70D4984C5747C60C1C70AC3),
        (N'WorkQueue_dead_letters', 0xA3A8A801B2B04ABD70C8D8093932C7A6F4550D0232760DE3C65CB0954A84E3AA),
        (N'WorkQueue_enqueue_batch', 0xDBEC74169770E19408B4B2CCAE5CBB2D9A2A3251E40F295BDB04789591F01B1B),
        (N'WorkQueue_enqueue_json', 0x0BF064318377EE10240BBBDD066BE9A366BDB5A77C91052EEB93387BB92FE25F),
        (N'WorkQueue_extend_lease', 0x6EDA853DA99AE179A56C2CC3465364D8F42BB9A0E31F7153E18A0E27E01B1081),
        (N'WorkQueue_fail', 0x0532C60BA2C64A85C68AAD005FAE5253E2FCB4C4B1EA2999322B67C0B7AEE103),
        (N'WorkQueue_job', 0x2DF037E1EC65650E90315A6D7885975E5CC306EDA3649B443CAF9DE4982F6F45),
        (N'WorkQueue_maintain', 0x4BFFF7FDA8727D2DCB7F07D30EE27DB54D40F702EA417C2A118ED772E9440D78),
        (N'WorkQueue_metrics', 0xE35468057019731DF7E018D7F2F1DE3052C4E5F9606A6317904FE8CA951FE991),
        (N'WorkQueue_pause', 0xCCE2F0838F0D3327169DC0848CAC79B8195C3050452CFC0C056D9B85A8C50B8E),
        (N'WorkQueue_Pending', 0xDBAED29D66EB5B39891C84BFB50D5A14C7FE14FED5AF3B2FC1D79F6F0A4E13A7),
        (N'WorkQueue_purge', 0x4DC086F614C4954E7898EC207D46FC77E11DC23F67C49550C05CCB99E614F7A3),
        (N'WorkQueue_purge_batch', 0x2AFCE8BD449473B226A7CA92D4B55FF7A8EF790D397F4A96F39C482F48DDD617),
        (N'WorkQueue_reap', 0xC9327C533510C56137DAED03ECEA47EC8B6D0A806A3F52C8709BCF01A763A322),
        (N'WorkQueue_redrive', 0xB97D8AA467D8655AB06EA43CE28A10044C8207D2259FA10077594FEA3AFEA2AB),
        (N'WorkQueue_release', 0xA8430E0EC6DCEF2599969E76756ED56753E59091E84DC9036C720AEC2CAECE0C),
        (N'WorkQueue_resume', 0x469BE012AB759E60FDBC082A7FB9C0DB4D924AE2ABD7693F98A5DCBCE50CD2F2),
        (N'WorkQueue_watermark_correct', 0xA64AF930A0341A498A240C369461EC65A2AA61C7175BBA5282D0E90CB6A364AC),
        (N'WorkQueue_watermark_move', 0xF6966448869D7E90E52474769C991AAC6BB7A885888719391CED8DD04CDD70CF)
) AS [r]([name], [fingerprint])
INNER JOIN sys.sql_modules AS [sm] ON [sm].[object_id] = OBJECT_ID(N'QueueSample.' + [r].[name])
CROSS APPLY (SELECT [sm].[definition] COLLATE Latin1_General_BIN2 AS [text]) AS [d]
WHERE HASHBYTES('SHA2_256', REPLACE(REPLACE(REPLACE(REPLACE(
          SUBSTRING([d].[text], CHARINDEX(N'[QueueSample].[' + [r].[name] + N']' COLLATE Latin1_General_BIN2, [d].[text]), LEN([d].[text])),
          NCHAR(32), N''), NCHAR(9), N''), NCHAR(10), N''), NCHAR(13), N'')) <> [r].[fingerprint];
SELECT @q$stale = CONCAT(@q$stale, N' ' + STRING_AGG(CONVERT(nvarchar(max), N'QueueSample.' + [r].[table] + N'.' + [r].[name]
    + N' (' + COALESCE([shape].[now], N'?') + N', rendered ' + [r].[shape] + N')'), N' '))
FROM
(
    VALUES
        (N'WorkQueue', N'WorkQueue_claim_ix', N'(JobType, id) include (available_at, deferred, lease_token, processed) where'),
        (N'WorkQueue', N'WorkQueue_claim_ix_due', N'(available_at, id) include (deferred, JobType) where'),
        (N'WorkQueue', N'WorkQueue_claim_order_ix', N'(id) include (available_at, deferred, lease_token, processed) where'),
        (N'WorkQueue', N'WorkQueue_lease_ix', N'(lease_token) include (attempts, lease_expires_at) where'),
        (N'WorkQueue', N'WorkQueue_processed_ix', N'(processed_at) include (processed) where'),
        (N'WorkQueue_dead', N'WorkQueue_dead_id_ix', N'(id)'),
        (N'WorkQueue_dead', N'WorkQueue_dead_ix', N'(dead_at)')
) AS [r]([table], [name], [shape])
INNER JOIN sys.indexes AS [i] ON [i].[object_id] = OBJECT_ID(N'QueueSample.' + [r].[table]) AND [i].[name] = [r].[name]
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
