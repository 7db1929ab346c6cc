-- qgen 0.1.0: grants to roles four_producer, four_consumer, four_admin, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "four" TO "four_producer", "four_consumer", "four_admin";
GRANT EXECUTE ON FUNCTION "four"."four_queue_enqueue", "four"."four_queue_enqueue_batch" TO "four_producer";
GRANT USAGE ON TYPE "four"."four_queue_batch" TO "four_producer";
GRANT EXECUTE ON FUNCTION "four"."four_queue_dequeue", "four"."four_queue_complete", "four"."four_queue_fail", "four"."four_queue_extend_lease" TO "four_consumer";
GRANT USAGE ON TYPE "four"."four_queue_dequeue_row" TO "four_consumer";
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON FUNCTION "four"."four_queue_watermark_correct" TO "four_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "four"."four_queue_maintain" TO "four_consumer";
GRANT SELECT ON "four"."four_queue_pending" TO "four_admin";
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON FUNCTION "four"."four_queue_release" TO "four_consumer";
-- Admins run every function (and the worker procedure) qgen created, and nothing else: each by
-- name, never ALL ROUTINES IN SCHEMA, which in a shared schema would reach the application's too.
GRANT EXECUTE ON ROUTINE "four"."four_queue_enqueue" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_enqueue_batch" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_watermark_move" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_watermark_correct" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_dequeue" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_complete" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_fail" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_extend_lease" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_reap" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_worker" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_metrics" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_peek" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_purge_batch" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_purge" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_maintain" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_redrive" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_dead_letters" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_job" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_release" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_pause" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_resume" TO "four_admin";
GRANT EXECUTE ON ROUTINE "four"."four_queue_cancel" TO "four_admin";
