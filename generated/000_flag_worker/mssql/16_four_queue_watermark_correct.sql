-- qgen 0.1.0: watermark_correct four.four_queue_watermark_correct, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty;
-- unchanged only when no id was ever generated), never below 0. It repairs a watermark that is wrong
-- either way; dequeue's rescan already finds jobs the watermark passed, so this is for raising it
-- after a drain (run it after a dequeue that found nothing) and for a watermark set by hand.
CREATE OR ALTER PROCEDURE [four].[four_queue_watermark_correct]
    -- maintain reads the result here (OUTPUT) and asks for no result set (see reap).
    @old_watermark bigint = NULL OUTPUT,
    @new_watermark bigint = NULL OUTPUT,
    @result_set bit = 1
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET IMPLICIT_TRANSACTIONS OFF;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    DECLARE @q$old bigint, @q$new bigint;
    BEGIN TRY
        BEGIN TRANSACTION;
        -- Take the watermark row first and keep it (HOLDLOCK: also the empty range when the row was
        -- deleted by hand): a mover skips it meanwhile, and a release (fail, reap), which locks its
        -- job row and then this row, waits and lowers the watermark after this write. The scan below
        -- never waits on a job row (NOLOCK), so there is no cycle, and nothing to retry.
        SELECT @q$old = [id] FROM [four].[four_queue_watermark] WITH (UPDLOCK, HOLDLOCK, ROWLOCK);
        -- NOLOCK also sees a job whose insert is not yet committed, so the watermark does not pass it.
        SET @q$new = (SELECT MIN([id]) FROM [four].[four_queue] WITH (NOLOCK) WHERE [lease_token] IS NULL AND [processed] = 0 AND [deferred] = 0) - 50;
        IF @q$new IS NULL
            SET @q$new = (SELECT MAX([id]) + 1 FROM [four].[four_queue] WITH (NOLOCK)) - 50;
        -- Drained: the next id comes from the identity (NULL if none was ever generated). Left where
        -- it was, a watermark a release had lowered would make every claim walk the drained range.
        -- sys.identity_columns is metadata, which ownership chaining does not open: a login sees it
        -- only with a permission on the table, so qgen's roles that may run this procedure get VIEW
        -- DEFINITION on it (metadata only, no rows; grants.sql). IDENT_CURRENT has the same limit
        -- and returns the seed for a table never inserted into, and MAX(id) of the archive or dead
        -- letters could be above the identity after a reseed. Without the permission @q$new stays
        -- NULL and the watermark is left where it was: never past a row, only slower to claim from.
        IF @q$new IS NULL
            SET @q$new = (SELECT CONVERT(bigint, [last_value]) + 1 FROM sys.identity_columns
                        WHERE [object_id] = OBJECT_ID(N'[four].[four_queue]') AND [name] = N'id') - 50;
        IF @q$new IS NULL
            SET @q$new = COALESCE(@q$old, 0);
        IF @q$new < 0
            SET @q$new = 0;
        -- corrected_at: this search counts as a dequeue's rescan (watermark.rescan).
        IF @q$old IS NULL
            INSERT INTO [four].[four_queue_watermark] ([id], [corrected_at]) VALUES (@q$new, SYSUTCDATETIME());
        ELSE
            UPDATE [four].[four_queue_watermark] SET [id] = @q$new, [version] = [version] + 1, [corrected_at] = SYSUTCDATETIME();
        COMMIT TRANSACTION;
        SELECT @old_watermark = @q$old, @new_watermark = @q$new;
        IF @result_set = 1
            SELECT @q$old AS [old_watermark], @q$new AS [new_watermark];
    END TRY
    BEGIN CATCH
        IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
        THROW;
    END CATCH;
END;
GO
