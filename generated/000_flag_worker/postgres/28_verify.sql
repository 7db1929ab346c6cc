-- qgen 0.1.0: verify four, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Install ends here, and fails loudly if any of qgen's functions or tables is owned by another role
-- than four_owner, or a SECURITY DEFINER function does not pin its search_path: run with its
-- owner's rights, it would resolve names through its caller's path.
DO $qgen$
DECLARE
    v$wrong text;
BEGIN
    SELECT pg_catalog.string_agg(x.what, ', ' ORDER BY x.what) INTO v$wrong
    FROM
    (
        SELECT p.oid::pg_catalog.regprocedure::text
               || CASE WHEN p.proowner <> '"four_owner"'::pg_catalog.regrole THEN ' (owned by ' || p.proowner::pg_catalog.regrole::text || ')'
                       ELSE ' (search_path not pinned)' END AS what
        FROM pg_catalog.pg_proc AS p
        JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
        WHERE n.nspname = 'four'
          AND p.proname IN ('four_queue', 'four_queue_claim_ix', 'four_queue_dead', 'four_queue_dedupe_ux', 'four_queue_processed_ix', 'four_queue_watermark', 'four_queue_dead_ix', 'four_queue_pending', 'four_queue_batch', 'four_queue_enqueue', 'four_queue_enqueue_batch', 'four_queue_watermark_move', 'four_queue_watermark_correct', 'four_queue_dequeue', 'four_queue_complete', 'four_queue_fail', 'four_queue_extend_lease', 'four_queue_reap', 'four_queue_worker', 'four_queue_metrics', 'four_queue_peek', 'four_queue_purge_batch', 'four_queue_purge', 'four_queue_maintain', 'four_queue_redrive')
          AND (p.proowner <> '"four_owner"'::pg_catalog.regrole
               OR (p.prosecdef AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) AS c (setting)
                                               WHERE c.setting LIKE 'search\_path=%')))
        UNION ALL
        SELECT c.oid::pg_catalog.regclass::text || ' (owned by ' || c.relowner::pg_catalog.regrole::text || ')'
        FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'four'
          AND c.relkind IN ('r', 'v$v')
          AND c.relname IN ('four_queue', 'four_queue_claim_ix', 'four_queue_dead', 'four_queue_dedupe_ux', 'four_queue_processed_ix', 'four_queue_watermark', 'four_queue_dead_ix', 'four_queue_pending', 'four_queue_batch', 'four_queue_enqueue', 'four_queue_enqueue_batch', 'four_queue_watermark_move', 'four_queue_watermark_correct', 'four_queue_dequeue', 'four_queue_complete', 'four_queue_fail', 'four_queue_extend_lease', 'four_queue_reap', 'four_queue_worker', 'four_queue_metrics', 'four_queue_peek', 'four_queue_purge_batch', 'four_queue_purge', 'four_queue_maintain', 'four_queue_redrive')
          AND c.relowner <> '"four_owner"'::pg_catalog.regrole
    ) AS x;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020', MESSAGE = 'qgen: wrongly installed in schema four: ' || v$wrong;
    END IF;
END
$qgen$;
