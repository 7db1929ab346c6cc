-- qgen 0.1.0: dequeue cards.card_codes_dequeue, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Claims up to @batch_size jobs by deleting them into the archive, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction the claim would commit at once (at-most-once delivery): refused unless
-- the caller says so with @at_most_once = 1. A caller with IMPLICIT_TRANSACTIONS ON is inside one:
-- the claim opens it, and the caller's COMMIT or ROLLBACK ends it.
-- @owner is accepted and unused here (the claim deletes the row: nothing records it), as on
-- PostgreSQL, so one call works in either claim mode.
CREATE OR ALTER PROCEDURE [cards].[card_codes_dequeue]
    @owner nvarchar(129) = NULL,
    @batch_size int = 1,
    @at_most_once bit = 0,
    @wait_ms int = 0
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @batch_size IS NULL OR @batch_size < 1 OR @batch_size > 1000
    BEGIN
        DECLARE @q$error nvarchar(2048) = CONCAT(N'qgen: batch_size ', COALESCE(CAST(@batch_size AS nvarchar(11)), N'NULL'),
            N' is out of range for cards.card_codes_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size).');
        THROW 50003, @q$error, 1;
    END;
    IF DATALENGTH(@owner) > 256
        THROW 50010, N'qgen: @owner is past its column''s limit in cards.card_codes_dequeue; accepted: string(128), at most 128 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF NOT (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2) AND ISNULL(@at_most_once, 0) = 0
        THROW 50005, N'qgen: refused on cards.card_codes: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass @at_most_once = 1', 1;
    IF @wait_ms IS NULL OR @wait_ms < 0 OR @wait_ms > 20000
        THROW 50003, N'qgen: @wait_ms is out of range; accepted: 0 to 20000 milliseconds.', 1;
    IF @wait_ms > 0 AND (@@TRANCOUNT > 0 OR (@@OPTIONS & 2) = 2)
        THROW 50005, N'qgen: refused on cards.card_codes: dequeue waits for work (@wait_ms) only outside a transaction, with IMPLICIT_TRANSACTIONS OFF: inside one it would hold that transaction open while it waits; pass @wait_ms = 0, or claim with @at_most_once = 1', 1;
    DECLARE @q$began datetime2(7) = SYSUTCDATETIME();
    DECLARE @q$now datetime2(3) = SYSUTCDATETIME();
    DECLARE @q$claimed TABLE
    (
        [id] bigint NOT NULL PRIMARY KEY,
        [card_number] nvarchar(32) NOT NULL,
        [card_secret] nvarchar(64) NOT NULL,
        [enqueued_at] datetime2(3) NOT NULL
    );
    -- What the claim has left to fill, and the jobs of the last round kept back (see keep_duplicates_back).
    DECLARE @q$want int, @q$dropped int;
    DECLARE @q$duplicates TABLE ([id] bigint NOT NULL PRIMARY KEY);
    BEGIN TRY
        -- @wait_ms: each attempt to claim starts here, in a transaction of its own (see the wait block below).
    q$attempt:
        BEGIN TRANSACTION;
        -- Paused (pause, resume): claim nothing; a claim waiting with @wait_ms keeps waiting.
        IF NOT EXISTS (SELECT 1 FROM [cards].[card_codes_control] WITH (READPAST, READCOMMITTEDLOCK) WHERE [paused] = 0)
            GOTO q$paused;
        -- A job the archive already holds is kept back, and as many again are claimed in its place
        -- (each round takes rows out of the queue, so it ends).
        SET @q$want = @batch_size;
        WHILE @q$want > 0
        BEGIN
            ;WITH [next_job] AS
            (
                SELECT TOP (@q$want) [id], [card_number], [card_secret], [enqueued_at]
                -- The one reference to the table: these hints hold for every row the claim reads.
                FROM [cards].[card_codes] WITH (ROWLOCK, READPAST, UPDLOCK)
                WHERE 1 = 1
                ORDER BY [id]
            )
            DELETE FROM [next_job]
            OUTPUT deleted.[id], deleted.[card_number], deleted.[card_secret], deleted.[enqueued_at]
            INTO @q$claimed ([id], [card_number], [card_secret], [enqueued_at])
            -- Planned for one row, whatever @q$want the first call sniffed: a seek in queue order.
            OPTION (OPTIMIZE FOR (@q$want = 1));
            DELETE FROM @q$duplicates;
            INSERT INTO @q$duplicates ([id])
            SELECT [c].[id] FROM @q$claimed AS [c]
            WHERE EXISTS (SELECT 1 FROM [cards].[card_codes_archive] AS [a] WITH (READCOMMITTEDLOCK)
                          WHERE [a].[card_number] = [c].[card_number]);
            SET @q$dropped = @@ROWCOUNT;
            IF @q$dropped > 0
            BEGIN
                INSERT INTO [cards].[card_codes_dead] ([id], [card_number], [card_secret], [enqueued_at], [attempts], [last_error])
                SELECT [c].[id], [c].[card_number], [c].[card_secret], [c].[enqueued_at], 0,
                       N'qgen: not handed out: the archive already holds this dedupe key (card_number), so it was handed out before (a row loaded past enqueue?); kept here instead'
                FROM @q$claimed AS [c]
                WHERE [c].[id] IN (SELECT [d].[id] FROM @q$duplicates AS [d]);
                DELETE FROM @q$claimed WHERE [id] IN (SELECT [d].[id] FROM @q$duplicates AS [d]);
            END;
            IF @q$dropped = 0 BREAK;
            SET @q$want = @batch_size - (SELECT COUNT(*) FROM @q$claimed);
        END;
        INSERT INTO [cards].[card_codes_archive] ([id], [card_number], [card_secret], [enqueued_at], [completed_at])
        SELECT [id], [card_number], [card_secret], [enqueued_at], @q$now FROM @q$claimed;
    q$paused:
        COMMIT TRANSACTION;
        -- ---- wait block: no job yet, and a whole step fits before @wait_ms: sleep, then claim again ----
        IF @wait_ms > 0 AND NOT EXISTS (SELECT 1 FROM @q$claimed)
            AND DATEDIFF(millisecond, @q$began, SYSUTCDATETIME()) + 50 < @wait_ms
        BEGIN
            WAITFOR DELAY '00:00:00.050';
            -- No claim starts after the deadline, even when the sleep overran it.
            IF DATEDIFF(millisecond, @q$began, SYSUTCDATETIME()) < @wait_ms
            BEGIN
                SET @q$now = SYSUTCDATETIME();
                GOTO q$attempt;
            END;
        END;
        -- ---- end of the wait block ----
        SELECT [id], [card_number], [card_secret], [enqueued_at]
        FROM @q$claimed
        ORDER BY [id];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
