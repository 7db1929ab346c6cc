-- qgen 0.1.0: cancel cards.card_codes_cancel, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Cancels jobs by id (@ids: a JSON array of whole numbers from 1, e.g. N'[3, 7]'; at most 1988): each job still
-- in the queue leaves it at once, in this one transaction, into the dead-letter table with last_error N'cancelled', and
-- never runs. One row per distinct id, in id order, [outcome]:
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   held: another open transaction holds it (a claim, or another cancel): READPAST never waits for
--     it, nothing is done. If that transaction rolls back the job is queued again, and can be
--     cancelled then;
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order (the clustered key, FORCESEEK from the ordered list of ids), as
-- every other statement that locks several jobs does, so cancel deadlocks with none of them, at most 5 s (then refused, 50005: nothing done).
CREATE OR ALTER PROCEDURE [cards].[card_codes_cancel]
    @ids nvarchar(max)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    SET LOCK_TIMEOUT 5000;
    IF @ids IS NULL OR ISJSON(@ids) = 0
        OR EXISTS (SELECT 1 FROM OPENJSON(@ids) AS [j]
                   WHERE TRY_CAST([j].[key] AS int) IS NULL OR [j].[type] <> 2 OR [j].[value] LIKE N'%[.eE]%'
                      OR TRY_CAST([j].[value] AS bigint) IS NULL OR TRY_CAST([j].[value] AS bigint) < 1)
        THROW 50003, N'qgen: @ids must be a JSON array of job ids (whole numbers from 1), e.g. N''[3, 7]''.', 1;
    IF (SELECT COUNT(*) FROM OPENJSON(@ids)) > 1988
        THROW 50003, N'qgen: @ids lists more than 1988 jobs; accepted: 1 to 1988 per call (a bigger one could escalate to a table lock).', 1;
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$asked TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$found TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$held TABLE ([id] bigint NOT NULL PRIMARY KEY);
    DECLARE @q$probe bigint;
    -- What the DELETE took out (its OUTPUT): the outcome is what happened, not what was found.
    DECLARE @q$dead TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [card_number] nvarchar(32) NOT NULL,
        [card_secret] nvarchar(64) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL
    );
    INSERT INTO @q$asked ([id])
    SELECT DISTINCT CAST([j].[value] AS bigint) FROM OPENJSON(@ids) AS [j];
    BEGIN TRY
        BEGIN TRANSACTION;
        INSERT INTO @q$found ([id])
        SELECT [job].[id]
        FROM [cards].[card_codes] AS [job] WITH (UPDLOCK, ROWLOCK, READPAST, INDEX(1), FORCESEEK)
        WHERE [job].[id] IN (SELECT [a].[id] FROM @q$asked AS [a]);
        DELETE FROM [cards].[card_codes]
        OUTPUT deleted.[id], deleted.[card_number], deleted.[card_secret], deleted.[enqueued_at]
        INTO @q$dead ([id], [card_number], [card_secret], [enqueued_at])
        WHERE [id] IN (SELECT [f].[id] FROM @q$found AS [f]);
        -- Through a table variable, not OUTPUT ... INTO the dead-letter table (see the macro kept_table).
        INSERT INTO [cards].[card_codes_dead] ([id], [card_number], [card_secret], [enqueued_at], [attempts], [last_error], [dead_at])
        SELECT [id], [card_number], [card_secret], [enqueued_at], 0, N'cancelled', @q$now FROM @q$dead;
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        IF ERROR_NUMBER() = 1222
            THROW 50005, N'qgen: refused on cards.card_codes: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again', 1;
        THROW;
    END CATCH;
    -- Each id READPAST skipped (or that is gone): held by an open transaction, or not in the queue?
    -- NOLOCK cannot tell (a claim's uncommitted delete hides the row): a read that waits for nothing
    -- (LOCK_TIMEOUT 0) and raises 1222 where a lock is held, as a statement's error only (XACT_ABORT
    -- OFF for it, so no transaction is doomed).
    SET LOCK_TIMEOUT 0;
    SET XACT_ABORT OFF;
    SELECT @q$probe = MIN([a].[id]) FROM @q$asked AS [a] WHERE NOT EXISTS (SELECT 1 FROM @q$dead AS [g] WHERE [g].[id] = [a].[id]);
    WHILE @q$probe IS NOT NULL
    BEGIN
        BEGIN TRY
            IF EXISTS (SELECT 1 FROM [cards].[card_codes] WITH (READCOMMITTEDLOCK) WHERE [id] = @q$probe)
                INSERT INTO @q$held ([id]) VALUES (@q$probe);
        END TRY
        BEGIN CATCH
            IF ERROR_NUMBER() <> 1222
                THROW;
            INSERT INTO @q$held ([id]) VALUES (@q$probe);
        END CATCH;
        SELECT @q$probe = MIN([a].[id]) FROM @q$asked AS [a]
        WHERE [a].[id] > @q$probe AND NOT EXISTS (SELECT 1 FROM @q$dead AS [g] WHERE [g].[id] = [a].[id]);
    END;
    SET XACT_ABORT ON;
    SELECT [a].[id],
        CASE
             WHEN [g].[id] IS NOT NULL THEN N'cancelled'
             WHEN EXISTS (SELECT 1 FROM @q$held AS [h] WHERE [h].[id] = [a].[id]) THEN N'held'
             ELSE N'not_queued' END AS [outcome]
    FROM @q$asked AS [a]
    LEFT JOIN @q$dead AS [g] ON [g].[id] = [a].[id]
    ORDER BY [a].[id];
END;
GO
