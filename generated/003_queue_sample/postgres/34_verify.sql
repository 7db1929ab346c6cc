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
          AND p.proname IN ('WorkQueue', 'WorkQueue_claim_ix', 'WorkQueue_claim_order_ix', 'WorkQueue_processed_ix', 'WorkQueue_watermark', 'WorkQueue_dead', 'WorkQueue_dead_ix', 'WorkQueue_Pending', 'WorkQueue_batch', 'QueueJob', 'WorkQueue_enqueue_batch', 'WorkQueue_watermark_move', 'WorkQueue_watermark_correct', 'WorkQueue_control', 'GetNextJob', 'WorkQueue_complete', 'WorkQueue_fail', 'WorkQueue_extend_lease', 'WorkQueue_reap', 'WorkQueue_metrics', 'ViewQueue', 'WorkQueue_purge_batch', 'WorkQueue_purge', 'WorkQueue_maintain', 'WorkQueue_redrive', 'WorkQueue_dead_letters', 'WorkQueue_job', 'WorkQueue_release', 'WorkQueue_pause', 'WorkQueue_resume', 'WorkQueue_cancel')
          AND (p.proowner <> '"QueueSample_owner"'::pg_catalog.regrole
               OR (p.prosecdef AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) AS c (setting)
                                               WHERE c.setting LIKE 'search\_path=%')))
        UNION ALL
        SELECT c.oid::pg_catalog.regclass::text || ' (owned by ' || c.relowner::pg_catalog.regrole::text || ')'
        FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'QueueSample'
          AND c.relkind IN ('r', 'v')
          AND c.relname IN ('WorkQueue', 'WorkQueue_claim_ix', 'WorkQueue_claim_order_ix', 'WorkQueue_processed_ix', 'WorkQueue_watermark', 'WorkQueue_dead', 'WorkQueue_dead_ix', 'WorkQueue_Pending', 'WorkQueue_batch', 'QueueJob', 'WorkQueue_enqueue_batch', 'WorkQueue_watermark_move', 'WorkQueue_watermark_correct', 'WorkQueue_control', 'GetNextJob', 'WorkQueue_complete', 'WorkQueue_fail', 'WorkQueue_extend_lease', 'WorkQueue_reap', 'WorkQueue_metrics', 'ViewQueue', 'WorkQueue_purge_batch', 'WorkQueue_purge', 'WorkQueue_maintain', 'WorkQueue_redrive', 'WorkQueue_dead_letters', 'WorkQueue_job', 'WorkQueue_release', 'WorkQueue_pause', 'WorkQueue_resume', 'WorkQueue_cancel')
          AND c.relowner <> '"QueueSample_owner"'::pg_catalog.regrole
    ) AS x;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020', MESSAGE = 'qgen: wrongly installed in schema QueueSample: ' || v$wrong;
    END IF;
    -- And each function is what this install rendered, not an older version left in place (psql
    -- without ON_ERROR_STOP goes on after a CREATE OR REPLACE that failed): md5 of its body without
    -- whitespace (qgen.dialects.postgres.module_fingerprints) against the one rendered.
    SELECT pg_catalog.string_agg(r.name, ', ' ORDER BY r.name) INTO v$wrong
    FROM
    (
        VALUES
            ('GetNextJob', 'd4a84a3aeacc4c3844a071fcc82fc85b'),
            ('QueueJob', 'e3d75f83788c2c2b662aae788b1292ee'),
            ('ViewQueue', '366df28ea10b2685e838b725f2d38829'),
            ('WorkQueue_cancel', '9e0fa7420239c5032aa14f99b7e855d9'),
            ('WorkQueue_complete', '83e30cdc1dac1f9790d8b61ae05bb49d'),
            ('WorkQueue_dead_letters', '7bc60c0d95599d5dc2d22e8e16b95f86'),
            ('WorkQueue_enqueue_batch', 'f59885c4cf8e26183e8f2ebf5dc599df'),
            ('WorkQueue_extend_lease', '2af4c5fc78f8bc82250b658efdd2f20a'),
            ('WorkQueue_fail', '81458216c8819bd961e3d94e0bf7c603'),
            ('WorkQueue_job', '2fe2104c20762cb18ceff03f2e9ce588'),
            ('WorkQueue_maintain', '7cd0bd906b68fc0d8592a127ee118097'),
            ('WorkQueue_metrics', '9d178376e3298cc4e093581326a49749'),
            ('WorkQueue_pause', 'a8b5f34a147ceac32302538aa971b761'),
            ('WorkQueue_purge', 'fa5f2931789091b686e73b2049e02d37'),
            ('WorkQueue_purge_batch', 'd5beb9337560d26c0b88f328a377ee8e'),
            ('WorkQueue_reap', '861108546d90344137b736832497e981'),
            ('WorkQueue_redrive', '4315f5155defd6af143b6d7b040c065d'),
            ('WorkQueue_release', '5312da9dac4b51aa19604100db462e5e'),
            ('WorkQueue_resume', '30da30ecba109cd3d2d31d5647691288'),
            ('WorkQueue_watermark_correct', 'a53ec64df67bfcc1da2ed9f0a9377eeb'),
            ('WorkQueue_watermark_move', '78a3d9a8f2cb6483ff343b96118bb342')
    ) AS r (name, fingerprint)
    JOIN pg_catalog.pg_proc AS p ON p.proname = r.name
    JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace AND n.nspname = 'QueueSample'
    WHERE pg_catalog.md5(pg_catalog.regexp_replace(p.prosrc, '[[:space:]]', '', 'g')) <> r.fingerprint;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020',
            MESSAGE = 'qgen: installed in schema QueueSample, but not as this install rendered it: ' || v$wrong,
            HINT = 'An earlier statement failed and left an older version: read its error, fix it and run install.sql again.';
    END IF;
END
$qgen$;
