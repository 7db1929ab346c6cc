-- qgen 0.1.0: grants to roles cards_producer, cards_consumer, cards_admin, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
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
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue] TO [cards_producer];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue_batch] TO [cards_producer];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue_json] TO [cards_producer];
GRANT EXECUTE ON TYPE::[cards].[card_codes_batch] TO [cards_producer];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_dequeue] TO [cards_consumer];
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON OBJECT::[cards].[card_codes_maintain] TO [cards_consumer];
GRANT SELECT ON OBJECT::[cards].[card_codes_pending] TO [cards_admin];
-- The admin role runs every procedure qgen created, and nothing else: each by name, never EXECUTE
-- ON SCHEMA, which in a shared schema (or dbo) would reach every application procedure, present
-- and future (upgrade.sql takes back a schema-wide grant a former version made).
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue_batch] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue_json] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_dequeue] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_metrics] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_peek] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_purge_batch] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_purge] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_maintain] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_dead_letters] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_job] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_pause] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_resume] TO [cards_admin];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_cancel] TO [cards_admin];
GRANT EXECUTE ON TYPE::[cards].[card_codes_batch] TO [cards_admin];
GO
