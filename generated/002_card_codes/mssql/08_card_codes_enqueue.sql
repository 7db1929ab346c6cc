-- qgen 0.1.0: enqueue cards.card_codes_enqueue, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0).
CREATE OR ALTER PROCEDURE [cards].[card_codes_enqueue]
    @card_number nvarchar(32),
    @card_secret nvarchar(64)
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK + HOLDLOCK keep the key range locked until the insert, so two sessions enqueueing
        -- the same key cannot both find it missing.
        DECLARE @existing bigint =
        (
            SELECT [id] FROM [cards].[card_codes] WITH (UPDLOCK, HOLDLOCK)
            WHERE [card_number] = @card_number
        );
        IF @existing IS NOT NULL
        BEGIN
            COMMIT TRANSACTION;
            SELECT @existing AS [id], CAST(0 AS bit) AS [enqueued];
            RETURN;
        END;
        INSERT INTO [cards].[card_codes] ([card_number], [card_secret])
        OUTPUT inserted.[id], CAST(1 AS bit) AS [enqueued]
        VALUES (@card_number, @card_secret);
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
