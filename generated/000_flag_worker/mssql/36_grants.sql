-- qgen 0.1.0: grants to roles four_producer, four_consumer, four_admin, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
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
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue] TO [four_producer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue_batch] TO [four_producer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue_json] TO [four_producer];
GRANT EXECUTE ON TYPE::[four].[four_queue_batch] TO [four_producer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_dequeue] TO [four_consumer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_complete] TO [four_consumer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_fail] TO [four_consumer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_extend_lease] TO [four_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[four].[four_queue_watermark_correct] TO [four_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[four].[four_queue] TO [four_consumer];
GRANT VIEW DEFINITION ON OBJECT::[four].[four_queue] TO [four_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[four].[four_queue_maintain] TO [four_consumer];
GRANT SELECT ON OBJECT::[four].[four_queue_pending] TO [four_admin];
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON OBJECT::[four].[four_queue_release] TO [four_consumer];
-- The admin role runs every procedure qgen created, and nothing else: each by name, never EXECUTE
-- ON SCHEMA, which in a shared schema (or dbo) would reach every application procedure, present
-- and future (upgrade.sql takes back a schema-wide grant a former version made).
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue_batch] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue_json] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_watermark_move] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_watermark_correct] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_dequeue] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_complete] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_fail] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_extend_lease] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_reap] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_worker] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_metrics] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_peek] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_purge_batch] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_purge] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_maintain] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_redrive] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_dead_letters] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_job] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_release] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_pause] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_resume] TO [four_admin];
GRANT EXECUTE ON OBJECT::[four].[four_queue_cancel] TO [four_admin];
GRANT EXECUTE ON TYPE::[four].[four_queue_batch] TO [four_admin];
GO
