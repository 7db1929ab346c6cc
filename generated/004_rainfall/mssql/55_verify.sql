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
      N'rainfall_events_control',
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
      N'rainfall_events_dead_letters',
      N'rainfall_events_job',
      N'rainfall_events_release',
      N'rainfall_events_pause',
      N'rainfall_events_resume',
      N'rainfall_events_cancel',
      N'rainfall_transfer_watermark',
      N'rainfall_transfer_pending',
      N'rainfall_transfer_batch',
      N'rainfall_transfer_enqueue',
      N'rainfall_transfer_enqueue_batch',
      N'rainfall_transfer_enqueue_json',
      N'rainfall_transfer_watermark_move',
      N'rainfall_transfer_watermark_correct',
      N'rainfall_transfer_control',
      N'rainfall_transfer_dequeue',
      N'rainfall_transfer_metrics',
      N'rainfall_transfer_peek',
      N'rainfall_transfer_purge_batch',
      N'rainfall_transfer_purge',
      N'rainfall_transfer_maintain',
      N'rainfall_transfer_job',
      N'rainfall_transfer_pause',
      N'rainfall_transfer_resume',
      N'rainfall_transfer_cancel'
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
IF OBJECT_ID(N'rainfall.rainfall_events_control') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_control';
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
IF OBJECT_ID(N'rainfall.rainfall_events_dead_letters') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_dead_letters';
IF OBJECT_ID(N'rainfall.rainfall_events_job') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_job';
IF OBJECT_ID(N'rainfall.rainfall_events_release') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_release';
IF OBJECT_ID(N'rainfall.rainfall_events_pause') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_pause';
IF OBJECT_ID(N'rainfall.rainfall_events_resume') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_resume';
IF OBJECT_ID(N'rainfall.rainfall_events_cancel') IS NULL
    SET @q$missing += N' rainfall.rainfall_events_cancel';
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
IF OBJECT_ID(N'rainfall.rainfall_transfer_control') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_control';
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
IF OBJECT_ID(N'rainfall.rainfall_transfer_job') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_job';
IF OBJECT_ID(N'rainfall.rainfall_transfer_pause') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_pause';
IF OBJECT_ID(N'rainfall.rainfall_transfer_resume') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_resume';
IF OBJECT_ID(N'rainfall.rainfall_transfer_cancel') IS NULL
    SET @q$missing += N' rainfall.rainfall_transfer_cancel';
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
        (N'rainfall_events_cancel', 0x02E739715036CC161A2382F1BC9A1F023F0B7CFB7FABA6B9B529A206C903C65F),
        (N'rainfall_events_complete', 0x081E56B82761CC3ADF93EFFEC31E19CA7EDBC76CD20061C68374EDCAEF8FFED8),
        (N'rainfall_events_dead_letters', 0x08A723DF4FBF75897E26686371023A898F3B6629E09CD4DFA44904DFC854DD97),
        (N'rainfall_events_dequeue', 0xDECD639B7B9EB0AB3514060B27A58B4C19E725D1597C2DF018B3523D938943EF),
        (N'rainfall_events_enqueue', 0x39EB463CD90F9397D8920C9628759D4DACED171E1602EE133CFC2250F1F6D8A0),
        (N'rainfall_events_enqueue_batch', 0x780B67F105E1236820FD858F6C60E36D051FDF6723C7CB9FAE35269F55BCD81F),
        (N'rainfall_events_enqueue_json', 0xB2C718D9E5D12B6EE2F7849C6E36E4CFA091E0D076DDD513CBBA3A2AC8E00769),
        (N'rainfall_events_extend_lease', 0xDD5AC7D59A566725DCF2592DCC8C91029F75715EB66F2AA19F04459E1CFD43E1),
        (N'rainfall_events_fail', 0x09699E10EDA96452CC32760A496AB9D61B3C6BE363EE4C52C96FBFF307B703B6),
        (N'rainfall_events_job', 0x65E3E43E29AFF88B24E116D08449975D95B524398C3532552EEAB9FDEFE77BB2),
        (N'rainfall_events_maintain', 0xD39C5D8F36776267E421CECCB96B07B24A33019D881FD2E3E1320597F17C3316),
        (N'rainfall_events_metrics', 0x15F942387430C1C0659634F01940C7A77D8FDE8BC9AB11501BA2B243EB189A45),
        (N'rainfall_events_pause', 0xE13D234455B80A4F352713CF245BCE93F94A395C9BDF056A1C57D6955B119B4A),
        (N'rainfall_events_peek', 0xF661DE30B0942B5BBD5CD0801883088FA634E96355F774D29CED069D143013BB),
        (N'rainfall_events_pending', 0xF6EE67C154BBDB3C53E903862E24FD050158800BA6AC362A27A68FB91B8B6F33),
        (N'rainfall_events_purge', 0x0A2AA955DA8D9227ED5533F8ED1551FC9D1B3510C230EDA03B35240636B9B1F8),
        (N'rainfall_events_purge_batch', 0xC8CB078914FB4D5A9F5EF73D28EB6FF6867D86132080CEEB0AA875681B40FFC9),
        (N'rainfall_events_reap', 0x9D604EC106B61C2B73595761804C8CEDCC254F0B42D062504E66425D4C02FF52),
        (N'rainfall_events_redrive', 0x6D791A1E847FFD6AE16FCA00B071F0383B8692008057E4FE4B1CA548967929A6),
        (N'rainfall_events_release', 0xB5548477F791788D0CEA2C165F2721D49956BA62FF3050740076843DE5EA5BB1),
        (N'rainfall_events_resume', 0x084D7B7A81FAAD97F55C37907D03842C8812AC954D29639E37BB04B1A49FED78),
        (N'rainfall_events_watermark_correct', 0xD1D03D3D300CF4C1B6F3CF873D0B229F4E93A0C963D85A19E7C77A771DCB10C6),
        (N'rainfall_events_watermark_move', 0xF5869882EB8414873736AE334E2EE03BA5B28C6CFF74A468827E7DB04596F462),
        (N'rainfall_transfer_cancel', 0x9FEB7CFEAA16E835125BE54317AFCC9BEBD82BFDCCBDCAFCC67D832B44C681B4),
        (N'rainfall_transfer_dequeue', 0x3EC955943F07D4301F07E7E99C36EC848E8B46F7EE764042D569D8825B889683),
        (N'rainfall_transfer_enqueue', 0x4D6FC5912A895AD8CDAFD76A83A05DED7AAB754D145C8E1CE37C2C99AF121015),
        (N'rainfall_transfer_enqueue_batch', 0x181750DECA8D6EF0F0E4CAE15000C901F0A6C1152D621F99701889FE13E1F24D),
        (N'rainfall_transfer_enqueue_json', 0x66AE0B4A53B56CB2FD5E7B5279CD2B22DA4A6941FBA6A3B79B9EEE9FFA7C2482),
        (N'rainfall_transfer_job', 0x9AA4523E72AED9CF533831C11DFEA30476CCC77EB56BD1DDC269B2F17B4754FA),
        (N'rainfall_transfer_maintain', 0xB644A41001F4BCA64539E498A866C48CF03E51582944C98C99BEF566447C0F3B),
        (N'rainfall_transfer_metrics', 0xE6B692A0CC2F7C6D9C117F5FE961541E1D19314EEA329C47D2D7FDBE4A512A2E),
        (N'rainfall_transfer_pause', 0x2428594080FCA2FE872BF2E1F1483E9E385B903C97B61EE5C4EA908F1C40E0AF),
        (N'rainfall_transfer_peek', 0xE1F6ADA6EF26617A17C86954F520964B088C8151A7A0D88731C74B5EFD74C0C0),
        (N'rainfall_transfer_pending', 0x2B907C1747578186799C5DC23885950914028F807232A3F7E1C58B18BF8D1D71),
        (N'rainfall_transfer_purge', 0x43BF9D0F0B1BBE34F585A91E4FDFAA236858B2379B8C8EFA6D861DD5D2895E45),
        (N'rainfall_transfer_purge_batch', 0xF5A6E6B3E79F117B55B357EFE8D34DFD16E225DD354C35C32DBDAA43B0C50A7F),
        (N'rainfall_transfer_resume', 0x782863171E3BBAC5413F723C944A9123FBDA778638001C85AA40901C9FEA3E15),
        (N'rainfall_transfer_watermark_correct', 0xDD95FE9587A01C6DD49E6306429C75EBC0373D144C57496D9DC086CDAB543FD1),
        (N'rainfall_transfer_watermark_move', 0xBBD6CFBBC32DFAD228537EC2E2AE77D60E4349EC9AA33464C1908A36C65D3741)
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
