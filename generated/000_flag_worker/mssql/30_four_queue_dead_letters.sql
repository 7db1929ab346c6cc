-- qgen 0.1.0: dead_letters four.four_queue_dead_letters, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- The dead letters, newest first, with the error each died of: at most @limit rows (1 to
-- 1000). Reads only. WITH (READPAST, READCOMMITTEDLOCK), as metrics reads: a locking
-- read at READ COMMITTED (also under READ_COMMITTED_SNAPSHOT) that never waits on a row another
-- transaction holds and skips it instead (a dead letter fail or reap is writing, or redrive or
-- purge is taking away, right now: it is on its way in or out), and holds each shared lock only
-- while it reads that row, so fail, reap, redrive and purge never wait on it. Not NOLOCK: a
-- fail rolled back with its caller's transaction would be listed as dead. READPAST skips row and
-- page locks only: a table lock (escalated, uninstall's TABLOCKX) still makes it wait.
CREATE OR ALTER PROCEDURE [four].[four_queue_dead_letters]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SET ANSI_WARNINGS, ANSI_PADDING, CONCAT_NULL_YIELDS_NULL, ARITHABORT ON;
    SET NUMERIC_ROUNDABORT OFF;
    IF @limit IS NULL OR @limit < 1 OR @limit > 1000
    BEGIN
        DECLARE @q$error nvarchar(2048) = CONCAT(N'qgen: limit ', COALESCE(CAST(@limit AS nvarchar(11)), N'NULL'),
            N' is out of range for four.four_queue_dead_letters; accepted: 1 to 1000 rows.');
        THROW 50003, @q$error, 1;
    END;
    -- Newest first, in the order they arrived: the clustered key backwards, which stops after @limit rows.
    SELECT TOP (@limit) [x].[id], [x].[reputation], [x].[enqueued_at], [x].[attempts],
        [x].[dead_at], [x].[last_error]
    FROM [four].[four_queue_dead] AS [x] WITH (READPAST, READCOMMITTEDLOCK)
    ORDER BY [x].[entry_id] DESC
    OPTION (RECOMPILE);
END;
GO
