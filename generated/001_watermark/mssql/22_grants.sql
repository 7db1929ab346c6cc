-- qgen 0.1.0: grants to roles ghosts_producer, ghosts_consumer, ghosts_admin, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
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
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue] TO [ghosts_producer];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue_batch] TO [ghosts_producer];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue_json] TO [ghosts_producer];
GRANT EXECUTE ON TYPE::[ghosts].[testq_batch] TO [ghosts_producer];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_dequeue] TO [ghosts_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[ghosts].[testq_watermark_correct] TO [ghosts_consumer];
-- Metadata only (no rows): watermark_correct reads the table's identity from sys.identity_columns,
-- which shows a table only to a login with some permission on it.
GRANT VIEW DEFINITION ON OBJECT::[ghosts].[testq] TO [ghosts_consumer];
GRANT VIEW DEFINITION ON OBJECT::[ghosts].[testq] TO [ghosts_admin];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[ghosts].[testq_maintain] TO [ghosts_consumer];
GRANT SELECT ON OBJECT::[ghosts].[testq_pending] TO [ghosts_admin];
-- The admin role runs every procedure qgen created, and nothing else: each by name, never EXECUTE
-- ON SCHEMA, which in a shared schema (or dbo) would reach every application procedure, present
-- and future (upgrade.sql takes back a schema-wide grant a former version made).
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue_batch] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue_json] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_watermark_move] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_watermark_correct] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_dequeue] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_metrics] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_peek] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_purge_batch] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_purge] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_maintain] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_job] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_pause] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_resume] TO [ghosts_admin];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_cancel] TO [ghosts_admin];
GRANT EXECUTE ON TYPE::[ghosts].[testq_batch] TO [ghosts_admin];
GO
