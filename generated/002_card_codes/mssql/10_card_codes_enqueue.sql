-- qgen 0.1.0: enqueue cards.card_codes_enqueue, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0). A value past its column's
-- limit is refused with error 50010, never cut or rounded: its parameter is one wider (m.param_type).
CREATE OR ALTER PROCEDURE [cards].[card_codes_enqueue]
    @card_number nvarchar(33),
    @card_secret nvarchar(65)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF DATALENGTH(@card_number) > 64
        THROW 50010, N'qgen: @card_number is past its column''s limit in cards.card_codes_enqueue; accepted: string(32), at most 32 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    IF DATALENGTH(@card_secret) > 128
        THROW 50010, N'qgen: @card_secret is past its column''s limit in cards.card_codes_enqueue; accepted: string(64), at most 64 characters (UTF-16 code units: one outside the Basic Multilingual Plane counts two).', 1;
    DECLARE @q$new TABLE ([id] bigint NOT NULL);
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK + HOLDLOCK keep the key range locked until the insert, so two sessions enqueueing
        -- the same key cannot both find it missing; a locking read, so it sees current rows also
        -- under READ_COMMITTED_SNAPSHOT.
        DECLARE @q$existing bigint =
        (
            SELECT [id] FROM [cards].[card_codes] WITH (UPDLOCK, HOLDLOCK)
            WHERE [card_number] = @card_number

        );
        -- dedupe.scope: ever: a finished job holds its key until purge removes it. Read after the
        -- queue table, the order a completion or dead-lettering locks them in: a job moving there
        -- now is waited for above, then found here. A plain locking read of the key, no range lock:
        -- the queue table's range lock above already keeps every claim, completion and failure of
        -- this key out until this transaction ends (each moves a queue row of the key there), and a
        -- range lock held here would stall every claim that archives a key after this one (seed
        -- 002: an import in one transaction stalled every sale; docs/api.md).
        IF @q$existing IS NULL
            SET @q$existing = (SELECT [id] FROM [cards].[card_codes_archive] WITH (READCOMMITTEDLOCK)
                             WHERE [card_number] = @card_number);
        IF @q$existing IS NOT NULL
        BEGIN
            COMMIT TRANSACTION;
            SELECT @q$existing AS [id], CAST(0 AS bit) AS [enqueued];
            RETURN;
        END;
        INSERT INTO [cards].[card_codes] ([card_number], [card_secret])
        -- OUTPUT INTO a table variable: a bare OUTPUT fails once someone adds a trigger to the table (error 334).
        OUTPUT inserted.[id] INTO @q$new ([id])
        VALUES (@card_number, @card_secret);
        COMMIT TRANSACTION;
        SELECT [id], CAST(1 AS bit) AS [enqueued] FROM @q$new;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
