-- qgen 0.1.0: verify rainfall, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Install ends here, and fails loudly if any of qgen's functions or tables is owned by another role
-- than rainfall_owner, or a SECURITY DEFINER function does not pin its search_path: run with its
-- owner's rights, it would resolve names through its caller's path.
DO $qgen$
DECLARE
    v$wrong text;
BEGIN
    SELECT pg_catalog.string_agg(x.what, ', ' ORDER BY x.what) INTO v$wrong
    FROM
    (
        SELECT p.oid::pg_catalog.regprocedure::text
               || CASE WHEN p.proowner <> '"rainfall_owner"'::pg_catalog.regrole THEN ' (owned by ' || p.proowner::pg_catalog.regrole::text || ')'
                       ELSE ' (search_path not pinned)' END AS what
        FROM pg_catalog.pg_proc AS p
        JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
        WHERE n.nspname = 'rainfall'
          AND p.proname IN ('rainfall_events', 'rainfall_events_claim_ix', 'rainfall_events_processed_ix', 'rainfall_events_watermark', 'rainfall_events_dead', 'rainfall_events_dead_ix', 'rainfall_events_pending', 'rainfall_events_batch', 'rainfall_events_enqueue', 'rainfall_events_enqueue_batch', 'rainfall_events_watermark_move', 'rainfall_events_watermark_correct', 'rainfall_events_dequeue', 'rainfall_transfer', 'rainfall_events_complete', 'rainfall_events_fail', 'rainfall_events_extend_lease', 'rainfall_events_reap', 'rainfall_events_metrics', 'rainfall_events_peek', 'rainfall_events_purge_batch', 'rainfall_events_purge', 'rainfall_events_maintain', 'rainfall_events_redrive', 'rainfall_transfer_watermark', 'rainfall_transfer_pending', 'rainfall_transfer_batch', 'rainfall_transfer_enqueue', 'rainfall_transfer_enqueue_batch', 'rainfall_transfer_watermark_move', 'rainfall_transfer_watermark_correct', 'rainfall_transfer_dequeue', 'rainfall_transfer_metrics', 'rainfall_transfer_peek', 'rainfall_transfer_purge_batch', 'rainfall_transfer_purge', 'rainfall_transfer_maintain')
          AND (p.proowner <> '"rainfall_owner"'::pg_catalog.regrole
               OR (p.prosecdef AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) AS c (setting)
                                               WHERE c.setting LIKE 'search\_path=%')))
        UNION ALL
        SELECT c.oid::pg_catalog.regclass::text || ' (owned by ' || c.relowner::pg_catalog.regrole::text || ')'
        FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'rainfall'
          AND c.relkind IN ('r', 'v$v')
          AND c.relname IN ('rainfall_events', 'rainfall_events_claim_ix', 'rainfall_events_processed_ix', 'rainfall_events_watermark', 'rainfall_events_dead', 'rainfall_events_dead_ix', 'rainfall_events_pending', 'rainfall_events_batch', 'rainfall_events_enqueue', 'rainfall_events_enqueue_batch', 'rainfall_events_watermark_move', 'rainfall_events_watermark_correct', 'rainfall_events_dequeue', 'rainfall_transfer', 'rainfall_events_complete', 'rainfall_events_fail', 'rainfall_events_extend_lease', 'rainfall_events_reap', 'rainfall_events_metrics', 'rainfall_events_peek', 'rainfall_events_purge_batch', 'rainfall_events_purge', 'rainfall_events_maintain', 'rainfall_events_redrive', 'rainfall_transfer_watermark', 'rainfall_transfer_pending', 'rainfall_transfer_batch', 'rainfall_transfer_enqueue', 'rainfall_transfer_enqueue_batch', 'rainfall_transfer_watermark_move', 'rainfall_transfer_watermark_correct', 'rainfall_transfer_dequeue', 'rainfall_transfer_metrics', 'rainfall_transfer_peek', 'rainfall_transfer_purge_batch', 'rainfall_transfer_purge', 'rainfall_transfer_maintain')
          AND c.relowner <> '"rainfall_owner"'::pg_catalog.regrole
    ) AS x;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020', MESSAGE = 'qgen: wrongly installed in schema rainfall: ' || v$wrong;
    END IF;
END
$qgen$;
