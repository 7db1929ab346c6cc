-- qgen 0.1.0: maintenance schedule for 000_flag_worker.yaml, for SQL Server (T-SQL) (not part of install.sql).
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- A SQL Server Agent job that runs maintain on every queue of schema four every 10 seconds (Agent's
-- shortest interval). Each run calls a queue's maintain again while it reports more (a step filled
-- its batch), up to 100 calls per queue per run: a queue with a backlog of expired leases or
-- finished jobs is caught up at the pace of maintain itself, not one batch per 10 s. Agent does not
-- start a run while the last one is still going. When the step fails, Agent writes the failure to
-- the Windows event log (@notify_level_eventlog = 2) and, if @q$operator below names an Agent
-- operator, e-mails it (Database Mail and the operator must exist: msdb.dbo.sp_add_operator).
-- Not needed when the workers run it
-- (qgen.worker.run_worker calls maintain every few seconds) or `qgen maintain --every 5s` runs
-- somewhere; the calls are harmless together (one maintain at a time per queue; the others return
-- at once).
--
-- Run it in the database that holds the queues, as a login that may create Agent jobs (sysadmin, or
-- a member of msdb's SQLAgentUserRole); running it again replaces the job. The job runs as its
-- owner (the login that ran this). To remove it: EXEC msdb.dbo.sp_delete_job @job_name = N'<name>';
--
-- Azure SQL Database has no SQL Server Agent: run the EXEC lines below from an Elastic Job (Azure
-- SQL Elastic Jobs), or let the workers do it (run_worker's built-in maintain, or `qgen maintain
-- --every 5s` from cron, systemd or a Kubernetes CronJob). Azure SQL Managed Instance has Agent:
-- this script works there.
SET NOCOUNT ON;
SET XACT_ABORT ON;
-- The Agent operator e-mailed when the job fails (NULL: the event log only). Set it here.
DECLARE @q$operator sysname = NULL;
DECLARE @q$notify int = CASE WHEN @q$operator IS NULL THEN 0 ELSE 2 END;
IF @q$operator IS NOT NULL AND NOT EXISTS (SELECT 1 FROM msdb.dbo.sysoperators WHERE [name] = @q$operator)
    THROW 50031, N'qgen: the Agent operator named in @q$operator does not exist: create it with msdb.dbo.sp_add_operator, or leave @q$operator NULL.', 1;
DECLARE @q$database sysname = DB_NAME();
DECLARE @q$job sysname = N'qgen maintain ' + @q$database + N'.four';
-- The step runs each queue's maintain in a TRY/CATCH of its own: one that fails (a lock timeout, a
-- deadlock, a dropped procedure) does not skip the queues after it; the step then fails naming
-- every queue that did, so Agent's history shows it. A queue's maintain is called again while it
-- reports more, at most 100 times (a bound, so one queue's backlog cannot keep the others
-- waiting for ever).
DECLARE @q$command nvarchar(max) = N'DECLARE @q$failed nvarchar(max) = N'''', @q$more bit, @q$rounds int;
SET @q$rounds = 0;
BEGIN TRY
    WHILE @q$rounds < 100
    BEGIN
        SET @q$more = 0;
        EXEC [four].[four_queue_maintain] @more = @q$more OUTPUT, @result_set = 0;
        SET @q$rounds += 1;
        IF @q$more = 0 BREAK;
    END;
END TRY
BEGIN CATCH
    IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
    SET @q$failed += N'' four_queue: '' + ERROR_MESSAGE();
END CATCH;
IF @q$failed <> N''''
BEGIN
    DECLARE @q$message nvarchar(2048) = LEFT(N''qgen: maintain failed on'' + @q$failed, 2048);
    THROW 50030, @q$message, 1;
END;';
BEGIN TRANSACTION;
IF EXISTS (SELECT 1 FROM msdb.dbo.sysjobs WHERE [name] = @q$job)
    EXEC msdb.dbo.sp_delete_job @job_name = @q$job;
EXEC msdb.dbo.sp_add_job
    @job_name = @q$job,
    @description = N'qgen: reap expired leases, correct the watermark and purge finished jobs, in bounded batches, while each queue reports more (at most 100 calls per queue per run).',
    @notify_level_eventlog = 2,
    @notify_level_email = @q$notify,
    @notify_email_operator_name = @q$operator;
EXEC msdb.dbo.sp_add_jobstep
    @job_name = @q$job,
    @step_name = N'maintain',
    @subsystem = N'TSQL',
    @database_name = @q$database,
    @command = @q$command;
EXEC msdb.dbo.sp_add_jobschedule
    @job_name = @q$job,
    @name = N'every 10 seconds',
    @freq_type = 4,
    @freq_interval = 1,
    @freq_subday_type = 2,
    @freq_subday_interval = 10;
EXEC msdb.dbo.sp_add_jobserver @job_name = @q$job, @server_name = N'(local)';
COMMIT TRANSACTION;
GO
