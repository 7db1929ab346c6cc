-- qgen 0.1.0: enqueue four.four_queue_enqueue, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = 0).
CREATE OR ALTER PROCEDURE [four].[four_queue_enqueue]
    @reputation int
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- UPDLOCK + HOLDLOCK keep the key range locked until the insert, so two sessions enqueueing
        -- the same key cannot both find it missing.
        DECLARE @existing bigint =
        (
            SELECT [id] FROM [four].[four_queue] WITH (UPDLOCK, HOLDLOCK)
            WHERE [reputation] = @reputation
        );
        IF @existing IS NOT NULL
        BEGIN
            COMMIT TRANSACTION;
            SELECT @existing AS [id], CAST(0 AS bit) AS [enqueued];
            RETURN;
        END;
        INSERT INTO [four].[four_queue] ([reputation])
        OUTPUT inserted.[id], CAST(1 AS bit) AS [enqueued]
        VALUES (@reputation);
        COMMIT TRANSACTION;
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
