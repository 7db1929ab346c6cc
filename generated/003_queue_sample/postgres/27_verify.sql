-- qgen 0.1.0: verify QueueSample, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Install ends here, and fails loudly if any of qgen's functions or tables is owned by another role
-- than QueueSample_owner, or a SECURITY DEFINER function does not pin its search_path: run with its
-- owner's rights, it would resolve names through its caller's path.
DO $qgen$
DECLARE
    v$wrong text;
BEGIN
    SELECT pg_catalog.string_agg(x.what, ', ' ORDER BY x.what) INTO v$wrong
    FROM
    (
        SELECT p.oid::pg_catalog.regprocedure::text
               || CASE WHEN p.proowner <> '"QueueSample_owner"'::pg_catalog.regrole THEN ' (owned by ' || p.proowner::pg_catalog.regrole::text || ')'
                       ELSE ' (search_path not pinned)' END AS what
        FROM pg_catalog.pg_proc AS p
        JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
        WHERE n.nspname = 'QueueSample'
          AND p.proname IN ('WorkQueue', 'WorkQueue_claim_ix', 'WorkQueue_claim_order_ix', 'WorkQueue_processed_ix', 'WorkQueue_watermark', 'WorkQueue_dead', 'WorkQueue_dead_ix', 'WorkQueue_Pending', 'WorkQueue_batch', 'QueueJob', 'WorkQueue_enqueue_batch', 'WorkQueue_watermark_move', 'WorkQueue_watermark_correct', 'GetNextJob', 'WorkQueue_complete', 'WorkQueue_fail', 'WorkQueue_extend_lease', 'WorkQueue_reap', 'WorkQueue_metrics', 'ViewQueue', 'WorkQueue_purge_batch', 'WorkQueue_purge', 'WorkQueue_maintain', 'WorkQueue_redrive')
          AND (p.proowner <> '"QueueSample_owner"'::pg_catalog.regrole
               OR (p.prosecdef AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) AS c (setting)
                                               WHERE c.setting LIKE 'search\_path=%')))
        UNION ALL
        SELECT c.oid::pg_catalog.regclass::text || ' (owned by ' || c.relowner::pg_catalog.regrole::text || ')'
        FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'QueueSample'
          AND c.relkind IN ('r', 'v$v')
          AND c.relname IN ('WorkQueue', 'WorkQueue_claim_ix', 'WorkQueue_claim_order_ix', 'WorkQueue_processed_ix', 'WorkQueue_watermark', 'WorkQueue_dead', 'WorkQueue_dead_ix', 'WorkQueue_Pending', 'WorkQueue_batch', 'QueueJob', 'WorkQueue_enqueue_batch', 'WorkQueue_watermark_move', 'WorkQueue_watermark_correct', 'GetNextJob', 'WorkQueue_complete', 'WorkQueue_fail', 'WorkQueue_extend_lease', 'WorkQueue_reap', 'WorkQueue_metrics', 'ViewQueue', 'WorkQueue_purge_batch', 'WorkQueue_purge', 'WorkQueue_maintain', 'WorkQueue_redrive')
          AND c.relowner <> '"QueueSample_owner"'::pg_catalog.regrole
    ) AS x;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020', MESSAGE = 'qgen: wrongly installed in schema QueueSample: ' || v$wrong;
    END IF;
END
$qgen$;
