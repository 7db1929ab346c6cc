-- qgen 0.1.0: watermark_correct QueueSample.WorkQueue_watermark_correct, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resets the watermark from the table itself: 50 ids below the lowest unclaimed row, or below the next
-- id when every row is claimed or gone (the table's highest id, or its identity when it is empty).
-- Run it from a periodic job and after a dequeue that found nothing; it repairs a watermark that is
-- wrong either way.
CREATE OR ALTER PROCEDURE [QueueSample].[WorkQueue_watermark_correct]
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    DECLARE @old bigint, @version bigint, @new bigint, @tries int = 0, @written int = 0;
    WHILE @written = 0 AND @tries < 5
    BEGIN
        SET @tries += 1;
        SELECT @old = [id], @version = [version] FROM [QueueSample].[WorkQueue_watermark];
        SET @new = (SELECT MIN([id]) FROM [QueueSample].[WorkQueue] WHERE [lease_token] IS NULL AND [processed] = 0) - 50;
        IF @new IS NULL
            SET @new = (SELECT MAX([id]) + 1 FROM [QueueSample].[WorkQueue]) - 50;
        -- Drained: the next id comes from the identity (NULL if none was ever generated). Left where
        -- it was, a watermark a release had lowered would make every claim walk the drained range.
        IF @new IS NULL
            SET @new = (SELECT CONVERT(bigint, [last_value]) + 1 FROM sys.identity_columns
                        WHERE [object_id] = OBJECT_ID(N'[QueueSample].[WorkQueue]') AND [name] = N'id') - 50;
        IF @new IS NULL
            SET @new = @old;
        IF @new < 0
            SET @new = 0;
        -- Compare-and-set on version: a release that lowered the watermark while we scanned wins,
        -- and we scan again.
        UPDATE [QueueSample].[WorkQueue_watermark] SET [id] = @new, [version] = [version] + 1 WHERE [version] = @version;
        SET @written = @@ROWCOUNT;
    END;
    SELECT @old AS [old_watermark], CASE WHEN @written = 1 THEN @new ELSE @old END AS [new_watermark];
END;
GO
