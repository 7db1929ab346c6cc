-- qgen 0.1.0: grants to roles rainfall_producer, rainfall_consumer, rainfall_admin, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
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
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue_batch] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue_json] TO [rainfall_producer];
GRANT EXECUTE ON TYPE::[rainfall].[rainfall_events_batch] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_dequeue] TO [rainfall_consumer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_complete] TO [rainfall_consumer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_fail] TO [rainfall_consumer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_extend_lease] TO [rainfall_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_watermark_correct] TO [rainfall_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[rainfall].[rainfall_events] TO [rainfall_consumer];
GRANT VIEW DEFINITION ON OBJECT::[rainfall].[rainfall_events] TO [rainfall_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_maintain] TO [rainfall_consumer];
GRANT SELECT ON OBJECT::[rainfall].[rainfall_events_pending] TO [rainfall_admin];
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_release] TO [rainfall_consumer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue_batch] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue_json] TO [rainfall_producer];
GRANT EXECUTE ON TYPE::[rainfall].[rainfall_transfer_batch] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_dequeue] TO [rainfall_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_watermark_correct] TO [rainfall_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[rainfall].[rainfall_transfer] TO [rainfall_consumer];
GRANT VIEW DEFINITION ON OBJECT::[rainfall].[rainfall_transfer] TO [rainfall_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_maintain] TO [rainfall_consumer];
GRANT SELECT ON OBJECT::[rainfall].[rainfall_transfer_pending] TO [rainfall_admin];
-- The admin role runs every procedure qgen created, and nothing else: each by name, never EXECUTE
-- ON SCHEMA, which in a shared schema (or dbo) would reach every application procedure, present
-- and future (upgrade.sql takes back a schema-wide grant a former version made).
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue_batch] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue_json] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_watermark_move] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_watermark_correct] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_dequeue] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_complete] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_fail] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_extend_lease] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_reap] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_metrics] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_peek] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_purge_batch] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_purge] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_maintain] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_redrive] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_dead_letters] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_job] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_release] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_pause] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_resume] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_cancel] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue_batch] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue_json] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_watermark_move] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_watermark_correct] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_dequeue] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_metrics] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_peek] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_purge_batch] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_purge] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_maintain] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_job] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_pause] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_resume] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_cancel] TO [rainfall_admin];
GRANT EXECUTE ON TYPE::[rainfall].[rainfall_events_batch] TO [rainfall_admin];
GRANT EXECUTE ON TYPE::[rainfall].[rainfall_transfer_batch] TO [rainfall_admin];
GO
