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
          AND p.proname IN ('four_queue', 'four_queue_claim_ix', 'four_queue_dead', 'four_queue_dedupe_ux', 'four_queue_processed_ix', 'four_queue_watermark', 'four_queue_dead_ix', 'four_queue_pending', 'four_queue_batch', 'four_queue_enqueue', 'four_queue_enqueue_batch', 'four_queue_watermark_move', 'four_queue_watermark_correct', 'four_queue_control', 'four_queue_dequeue', 'four_queue_complete', 'four_queue_fail', 'four_queue_extend_lease', 'four_queue_reap', 'four_queue_worker', 'four_queue_metrics', 'four_queue_peek', 'four_queue_purge_batch', 'four_queue_purge', 'four_queue_maintain', 'four_queue_redrive', 'four_queue_dead_letters', 'four_queue_job', 'four_queue_release', 'four_queue_pause', 'four_queue_resume', 'four_queue_cancel')
          AND (p.proowner <> '"four_owner"'::pg_catalog.regrole
               OR (p.prosecdef AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) AS c (setting)
                                               WHERE c.setting LIKE 'search\_path=%')))
        UNION ALL
        SELECT c.oid::pg_catalog.regclass::text || ' (owned by ' || c.relowner::pg_catalog.regrole::text || ')'
        FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'four'
          AND c.relkind IN ('r', 'v')
          AND c.relname IN ('four_queue', 'four_queue_claim_ix', 'four_queue_dead', 'four_queue_dedupe_ux', 'four_queue_processed_ix', 'four_queue_watermark', 'four_queue_dead_ix', 'four_queue_pending', 'four_queue_batch', 'four_queue_enqueue', 'four_queue_enqueue_batch', 'four_queue_watermark_move', 'four_queue_watermark_correct', 'four_queue_control', 'four_queue_dequeue', 'four_queue_complete', 'four_queue_fail', 'four_queue_extend_lease', 'four_queue_reap', 'four_queue_worker', 'four_queue_metrics', 'four_queue_peek', 'four_queue_purge_batch', 'four_queue_purge', 'four_queue_maintain', 'four_queue_redrive', 'four_queue_dead_letters', 'four_queue_job', 'four_queue_release', 'four_queue_pause', 'four_queue_resume', 'four_queue_cancel')
          AND c.relowner <> '"four_owner"'::pg_catalog.regrole
    ) AS x;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020', MESSAGE = 'qgen: wrongly installed in schema four: ' || v$wrong;
    END IF;
    -- And each function is what this install rendered, not an older version left in place (psql
    -- without ON_ERROR_STOP goes on after a CREATE OR REPLACE that failed): md5 of its body without
    -- whitespace (qgen.dialects.postgres.module_fingerprints) against the one rendered.
    SELECT pg_catalog.string_agg(r.name, ', ' ORDER BY r.name) INTO v$wrong
    FROM
    (
        VALUES
            ('four_queue_cancel', 'c581d63ed68954f2d81cc65e5ec78875'),
            ('four_queue_complete', '291807f0bd6f380225252e002973797c'),
            ('four_queue_dead_letters', 'ecf49bb836d4b9876b989f96303bf9ed'),
            ('four_queue_dequeue', '960359390cd84dfed6c340774a3c7f19'),
            ('four_queue_enqueue', '527f40174da3eb423f79a9c3cf1274ee'),
            ('four_queue_enqueue_batch', 'e22e7bbfc7ec34fd42c8b9e53fc2ab77'),
            ('four_queue_extend_lease', '47e652a07c1105442404659b300bfc3c'),
            ('four_queue_fail', '292edded62e2233d7856bc7e6659d7cf'),
            ('four_queue_job', '5dd798b5bbc18aff8034a57f2599ccb1'),
            ('four_queue_maintain', 'ba4490a3d632371a9a1bc9f2be6bc73c'),
            ('four_queue_metrics', 'fb6fc87d35d61e04e2e91c12ea364380'),
            ('four_queue_pause', 'f0e63de2363a0ab8906fb10752850c25'),
            ('four_queue_peek', '3235181cdcb5e87155662fa90c046a3e'),
            ('four_queue_purge', 'bbfdda4dcbeba703885bd271be9c06ef'),
            ('four_queue_purge_batch', '8e2e1e126b3ff8c5570c0893b5b8ab30'),
            ('four_queue_reap', '9ea100783032832386cf53dc6ae4422e'),
            ('four_queue_redrive', '6ec599ea117b850cdb228ba2e5b9a666'),
            ('four_queue_release', 'b7b6c952683f871b12244118fb0c9c04'),
            ('four_queue_resume', 'dc78af48ea309ff18df78f1c8715ac27'),
            ('four_queue_watermark_correct', '11ebc95b6f5f35c5755c647ff8b66a6f'),
            ('four_queue_watermark_move', 'ea938a13a08b9c07963d9bcb42975f93'),
            ('four_queue_worker', 'cdcc164b813324f2263dca4134f80ace')
    ) AS r (name, fingerprint)
    JOIN pg_catalog.pg_proc AS p ON p.proname = r.name
    JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace AND n.nspname = 'four'
    WHERE pg_catalog.md5(pg_catalog.regexp_replace(p.prosrc, '[[:space:]]', '', 'g')) <> r.fingerprint;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020',
            MESSAGE = 'qgen: installed in schema four, but not as this install rendered it: ' || v$wrong,
            HINT = 'An earlier statement failed and left an older version: read its error, fix it and run install.sql again.';
    END IF;
END
$qgen$;
