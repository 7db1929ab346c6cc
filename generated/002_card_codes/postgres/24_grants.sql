-- qgen 0.1.0: grants to roles cards_producer, cards_consumer, cards_admin, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "cards" TO "cards_producer", "cards_consumer", "cards_admin";
GRANT EXECUTE ON FUNCTION "cards"."card_codes_enqueue", "cards"."card_codes_enqueue_batch" TO "cards_producer";
GRANT USAGE ON TYPE "cards"."card_codes_batch" TO "cards_producer";
GRANT EXECUTE ON FUNCTION "cards"."card_codes_dequeue" TO "cards_consumer";
GRANT USAGE ON TYPE "cards"."card_codes_dequeue_row" TO "cards_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "cards"."card_codes_maintain" TO "cards_consumer";
GRANT SELECT ON "cards"."card_codes_pending" TO "cards_admin";
-- Admins run every function (and the worker procedure) qgen created, and nothing else: each by
-- name, never ALL ROUTINES IN SCHEMA, which in a shared schema would reach the application's too.
GRANT EXECUTE ON ROUTINE "cards"."card_codes_enqueue" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_enqueue_batch" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_dequeue" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_metrics" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_peek" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_purge_batch" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_purge" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_maintain" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_dead_letters" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_job" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_pause" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_resume" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_cancel" TO "cards_admin";
