-- qgen 0.1.0: grants to roles QueueSample_producer, QueueSample_consumer, QueueSample_admin, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "QueueSample" TO "QueueSample_producer", "QueueSample_consumer", "QueueSample_admin";
GRANT EXECUTE ON FUNCTION "QueueSample"."QueueJob", "QueueSample"."WorkQueue_enqueue_batch" TO "QueueSample_producer";
GRANT USAGE ON TYPE "QueueSample"."WorkQueue_batch" TO "QueueSample_producer";
GRANT EXECUTE ON FUNCTION "QueueSample"."GetNextJob", "QueueSample"."WorkQueue_complete", "QueueSample"."WorkQueue_fail", "QueueSample"."WorkQueue_extend_lease" TO "QueueSample_consumer";
GRANT USAGE ON TYPE "QueueSample"."GetNextJob_row" TO "QueueSample_consumer";
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON FUNCTION "QueueSample"."WorkQueue_watermark_correct" TO "QueueSample_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "QueueSample"."WorkQueue_maintain" TO "QueueSample_consumer";
GRANT SELECT ON "QueueSample"."WorkQueue_Pending" TO "QueueSample_admin";
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON FUNCTION "QueueSample"."WorkQueue_release" TO "QueueSample_consumer";
-- Admins run every function (and the worker procedure) qgen created, and nothing else: each by
-- name, never ALL ROUTINES IN SCHEMA, which in a shared schema would reach the application's too.
GRANT EXECUTE ON ROUTINE "QueueSample"."QueueJob" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_enqueue_batch" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_watermark_move" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_watermark_correct" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."GetNextJob" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_complete" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_fail" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_extend_lease" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_reap" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_metrics" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."ViewQueue" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_purge_batch" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_purge" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_maintain" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_redrive" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_dead_letters" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_job" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_release" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_pause" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_resume" TO "QueueSample_admin";
GRANT EXECUTE ON ROUTINE "QueueSample"."WorkQueue_cancel" TO "QueueSample_admin";
