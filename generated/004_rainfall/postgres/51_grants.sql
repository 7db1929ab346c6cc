-- qgen 0.1.0: grants to roles rainfall_producer, rainfall_consumer, rainfall_admin, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "rainfall" TO "rainfall_producer", "rainfall_consumer", "rainfall_admin";
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_events_enqueue", "rainfall"."rainfall_events_enqueue_batch" TO "rainfall_producer";
GRANT USAGE ON TYPE "rainfall"."rainfall_events_batch" TO "rainfall_producer";
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_events_dequeue", "rainfall"."rainfall_events_complete", "rainfall"."rainfall_events_fail", "rainfall"."rainfall_events_extend_lease" TO "rainfall_consumer";
GRANT USAGE ON TYPE "rainfall"."rainfall_events_dequeue_row" TO "rainfall_consumer";
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_events_watermark_correct" TO "rainfall_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_events_maintain" TO "rainfall_consumer";
GRANT SELECT ON "rainfall"."rainfall_events_pending" TO "rainfall_admin";
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_events_release" TO "rainfall_consumer";
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_transfer_enqueue", "rainfall"."rainfall_transfer_enqueue_batch" TO "rainfall_producer";
GRANT USAGE ON TYPE "rainfall"."rainfall_transfer_batch" TO "rainfall_producer";
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_transfer_dequeue" TO "rainfall_consumer";
GRANT USAGE ON TYPE "rainfall"."rainfall_transfer_dequeue_row" TO "rainfall_consumer";
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_transfer_watermark_correct" TO "rainfall_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "rainfall"."rainfall_transfer_maintain" TO "rainfall_consumer";
GRANT SELECT ON "rainfall"."rainfall_transfer_pending" TO "rainfall_admin";
-- Admins run every function (and the worker procedure) qgen created, and nothing else: each by
-- name, never ALL ROUTINES IN SCHEMA, which in a shared schema would reach the application's too.
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_enqueue" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_enqueue_batch" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_watermark_move" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_watermark_correct" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_dequeue" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_complete" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_fail" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_extend_lease" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_reap" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_metrics" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_peek" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_purge_batch" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_purge" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_maintain" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_redrive" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_dead_letters" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_job" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_release" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_pause" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_resume" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_events_cancel" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_transfer_enqueue" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_transfer_enqueue_batch" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_transfer_watermark_move" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_transfer_watermark_correct" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_transfer_dequeue" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_transfer_metrics" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_transfer_peek" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_transfer_purge_batch" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_transfer_purge" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_transfer_maintain" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_transfer_job" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_transfer_pause" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_transfer_resume" TO "rainfall_admin";
GRANT EXECUTE ON ROUTINE "rainfall"."rainfall_transfer_cancel" TO "rainfall_admin";
