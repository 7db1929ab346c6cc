-- qgen 0.1.0: grants to roles ghosts_producer, ghosts_consumer, ghosts_admin, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "ghosts" TO "ghosts_producer", "ghosts_consumer", "ghosts_admin";
GRANT EXECUTE ON FUNCTION "ghosts"."testq_enqueue", "ghosts"."testq_enqueue_batch" TO "ghosts_producer";
GRANT USAGE ON TYPE "ghosts"."testq_batch" TO "ghosts_producer";
GRANT EXECUTE ON FUNCTION "ghosts"."testq_dequeue" TO "ghosts_consumer";
GRANT USAGE ON TYPE "ghosts"."testq_dequeue_row" TO "ghosts_consumer";
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON FUNCTION "ghosts"."testq_watermark_correct" TO "ghosts_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "ghosts"."testq_maintain" TO "ghosts_consumer";
GRANT SELECT ON "ghosts"."testq_pending" TO "ghosts_admin";
-- Admins run every function (and the worker procedure) qgen created, and nothing else: each by
-- name, never ALL ROUTINES IN SCHEMA, which in a shared schema would reach the application's too.
GRANT EXECUTE ON ROUTINE "ghosts"."testq_enqueue" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_enqueue_batch" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_watermark_move" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_watermark_correct" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_dequeue" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_metrics" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_peek" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_purge_batch" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_purge" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_maintain" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_job" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_pause" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_resume" TO "ghosts_admin";
GRANT EXECUTE ON ROUTINE "ghosts"."testq_cancel" TO "ghosts_admin";
