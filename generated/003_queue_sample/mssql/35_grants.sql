-- qgen 0.1.0: grants to roles QueueSample_producer, QueueSample_consumer, QueueSample_admin, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The SET options filtered indexes need, and that procedures and views keep from the session that
-- creates them. sqlcmd runs with QUOTED_IDENTIFIER OFF unless given -I: a filtered index then
-- fails (Msg 1934), and a procedure created there fails on every call once a filtered index exists.
-- ANSI_NULLS and QUOTED_IDENTIFIER are fixed when a batch is parsed: hence a batch of their own.
SET ANSI_NULLS, QUOTED_IDENTIFIER, ANSI_PADDING, ANSI_WARNINGS, ARITHABORT, CONCAT_NULL_YIELDS_NULL ON;
SET NUMERIC_ROUNDABORT OFF;
GO
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[QueueSample].[QueueJob] TO [QueueSample_producer];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_enqueue_batch] TO [QueueSample_producer];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_enqueue_json] TO [QueueSample_producer];
GRANT EXECUTE ON TYPE::[QueueSample].[WorkQueue_batch] TO [QueueSample_producer];
GRANT EXECUTE ON OBJECT::[QueueSample].[GetNextJob] TO [QueueSample_consumer];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_complete] TO [QueueSample_consumer];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_fail] TO [QueueSample_consumer];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_extend_lease] TO [QueueSample_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_watermark_correct] TO [QueueSample_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[QueueSample].[WorkQueue] TO [QueueSample_consumer];
GRANT VIEW DEFINITION ON OBJECT::[QueueSample].[WorkQueue] TO [QueueSample_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_maintain] TO [QueueSample_consumer];
GRANT SELECT ON OBJECT::[QueueSample].[WorkQueue_Pending] TO [QueueSample_admin];
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_release] TO [QueueSample_consumer];
-- The admin role runs every procedure qgen created, and nothing else: each by name, never EXECUTE
-- ON SCHEMA, which in a shared schema (or dbo) would reach every application procedure, present
-- and future (upgrade.sql takes back a schema-wide grant a former version made).
GRANT EXECUTE ON OBJECT::[QueueSample].[QueueJob] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_enqueue_batch] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_enqueue_json] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_watermark_move] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_watermark_correct] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[GetNextJob] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_complete] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_fail] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_extend_lease] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_reap] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_metrics] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[ViewQueue] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_purge_batch] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_purge] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_maintain] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_redrive] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_dead_letters] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_job] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_release] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_pause] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_resume] TO [QueueSample_admin];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_cancel] TO [QueueSample_admin];
GRANT EXECUTE ON TYPE::[QueueSample].[WorkQueue_batch] TO [QueueSample_admin];
GO
