-- qgen 0.1.0: maintenance schedule for 003_queue_sample.yaml, for PostgreSQL (not part of install.sql).
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Runs maintain on every queue of schema QueueSample every 5 seconds with pg_cron (1.5 or later: second
-- schedules; cron.schedule_in_database needs 1.4). Not needed when the workers run it
-- (qgen.worker.run_worker calls maintain every few seconds) or `qgen maintain --every 5s` runs
-- somewhere; the calls are harmless together (one maintain at a time per queue; the others return
-- at once).
--
-- Run it with psql in the database pg_cron is installed in (cron.database_name, usually postgres),
-- naming the database that holds the queues:
--     psql -d postgres -v qgen_database=YOUR_DATABASE -f schedule.sql
-- Without -v it schedules for the database it runs in (pg_cron installed in the queues' database).
-- The jobs run as the user who runs this script; running it again replaces them. To remove them:
--     SELECT cron.unschedule(jobid) FROM cron.job WHERE jobname LIKE 'qgen maintain QueueSample %';
\if :{?qgen_database}
\else
\set qgen_database :DBNAME
\endif
-- One transaction: a statement that fails (psql without ON_ERROR_STOP goes on) rolls back the
-- unschedules before it, and every queue keeps the job it had.
BEGIN;
SELECT cron.unschedule("j"."jobid") FROM cron.job AS "j" WHERE "j"."jobname" = 'qgen maintain QueueSample WorkQueue ' || :'qgen_database';
SELECT cron.schedule_in_database('qgen maintain QueueSample WorkQueue ' || :'qgen_database', '5 seconds',
    $qgen$SELECT * FROM "QueueSample"."WorkQueue_maintain"()$qgen$, :'qgen_database');
COMMIT;
