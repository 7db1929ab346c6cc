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
          AND p.proname IN ('rainfall_events', 'rainfall_events_claim_ix', 'rainfall_events_processed_ix', 'rainfall_events_watermark', 'rainfall_events_dead', 'rainfall_events_dead_ix', 'rainfall_events_pending', 'rainfall_events_batch', 'rainfall_events_enqueue', 'rainfall_events_enqueue_batch', 'rainfall_events_watermark_move', 'rainfall_events_watermark_correct', 'rainfall_events_control', 'rainfall_events_dequeue', 'rainfall_transfer', 'rainfall_events_complete', 'rainfall_events_fail', 'rainfall_events_extend_lease', 'rainfall_events_reap', 'rainfall_events_metrics', 'rainfall_events_peek', 'rainfall_events_purge_batch', 'rainfall_events_purge', 'rainfall_events_maintain', 'rainfall_events_redrive', 'rainfall_events_dead_letters', 'rainfall_events_job', 'rainfall_events_release', 'rainfall_events_pause', 'rainfall_events_resume', 'rainfall_events_cancel', 'rainfall_transfer_watermark', 'rainfall_transfer_pending', 'rainfall_transfer_batch', 'rainfall_transfer_enqueue', 'rainfall_transfer_enqueue_batch', 'rainfall_transfer_watermark_move', 'rainfall_transfer_watermark_correct', 'rainfall_transfer_control', 'rainfall_transfer_dequeue', 'rainfall_transfer_metrics', 'rainfall_transfer_peek', 'rainfall_transfer_purge_batch', 'rainfall_transfer_purge', 'rainfall_transfer_maintain', 'rainfall_transfer_job', 'rainfall_transfer_pause', 'rainfall_transfer_resume', 'rainfall_transfer_cancel')
          AND (p.proowner <> '"rainfall_owner"'::pg_catalog.regrole
               OR (p.prosecdef AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) AS c (setting)
                                               WHERE c.setting LIKE 'search\_path=%')))
        UNION ALL
        SELECT c.oid::pg_catalog.regclass::text || ' (owned by ' || c.relowner::pg_catalog.regrole::text || ')'
        FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'rainfall'
          AND c.relkind IN ('r', 'v')
          AND c.relname IN ('rainfall_events', 'rainfall_events_claim_ix', 'rainfall_events_processed_ix', 'rainfall_events_watermark', 'rainfall_events_dead', 'rainfall_events_dead_ix', 'rainfall_events_pending', 'rainfall_events_batch', 'rainfall_events_enqueue', 'rainfall_events_enqueue_batch', 'rainfall_events_watermark_move', 'rainfall_events_watermark_correct', 'rainfall_events_control', 'rainfall_events_dequeue', 'rainfall_transfer', 'rainfall_events_complete', 'rainfall_events_fail', 'rainfall_events_extend_lease', 'rainfall_events_reap', 'rainfall_events_metrics', 'rainfall_events_peek', 'rainfall_events_purge_batch', 'rainfall_events_purge', 'rainfall_events_maintain', 'rainfall_events_redrive', 'rainfall_events_dead_letters', 'rainfall_events_job', 'rainfall_events_release', 'rainfall_events_pause', 'rainfall_events_resume', 'rainfall_events_cancel', 'rainfall_transfer_watermark', 'rainfall_transfer_pending', 'rainfall_transfer_batch', 'rainfall_transfer_enqueue', 'rainfall_transfer_enqueue_batch', 'rainfall_transfer_watermark_move', 'rainfall_transfer_watermark_correct', 'rainfall_transfer_control', 'rainfall_transfer_dequeue', 'rainfall_transfer_metrics', 'rainfall_transfer_peek', 'rainfall_transfer_purge_batch', 'rainfall_transfer_purge', 'rainfall_transfer_maintain', 'rainfall_transfer_job', 'rainfall_transfer_pause', 'rainfall_transfer_resume', 'rainfall_transfer_cancel')
          AND c.relowner <> '"rainfall_owner"'::pg_catalog.regrole
    ) AS x;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020', MESSAGE = 'qgen: wrongly installed in schema rainfall: ' || v$wrong;
    END IF;
    -- And each function is what this install rendered, not an older version left in place (psql
    -- without ON_ERROR_STOP goes on after a CREATE OR REPLACE that failed): md5 of its body without
    -- whitespace (qgen.dialects.postgres.module_fingerprints) against the one rendered.
    SELECT pg_catalog.string_agg(r.name, ', ' ORDER BY r.name) INTO v$wrong
    FROM
    (
        VALUES
            ('rainfall_events_cancel', 'd4757907c6a8c661aaf2dfbec5832229'),
            ('rainfall_events_complete', '5204708ed90f2701c1c7ad89279f22c2'),
            ('rainfall_events_dead_letters', '68b8785c06f75ebb2502747e5e40b3d5'),
            ('rainfall_events_dequeue', '66a9593043e90253ec0f75ea662776ab'),
            ('rainfall_events_enqueue', '6abe0107d437f3a0f56aa2159e195613'),
            ('rainfall_events_enqueue_batch', '8221d9f779e0fda09b0ebf1502bfcea5'),
            ('rainfall_events_extend_lease', '29ef78e76bd1bbf58d27c995f9a58c02'),
            ('rainfall_events_fail', 'd9b2a99528ab9b315d967daec94bbf5e'),
            ('rainfall_events_job', 'f774f326f2f8e8401bdf4611c96601ee'),
            ('rainfall_events_maintain', 'e786eb7852ad621c1ac0dceeaf31c190'),
            ('rainfall_events_metrics', 'bc531bc37d1131e15df72e2ad11cddf3'),
            ('rainfall_events_pause', '91b649a31d714924d16d4e1f6877101e'),
            ('rainfall_events_peek', '9ef3aeed5380b9c8ae7023ac3a1f9f82'),
            ('rainfall_events_purge', 'c80955330414ca79665060c7fe3ea2b7'),
            ('rainfall_events_purge_batch', '752504cc0f1d675a87a8b4aed0c1d3cb'),
            ('rainfall_events_reap', '7031ebef1cce806e1cd0a5924e11ffa2'),
            ('rainfall_events_redrive', '5a74ccb2e9f6729900e932b1693d229c'),
            ('rainfall_events_release', '6eacad4c8493dfbb24670a3eb9d74f00'),
            ('rainfall_events_resume', '674897b0c454d6cc2a2daa10fea552a2'),
            ('rainfall_events_watermark_correct', '95dc7c84fedcd8431d836cbe457113c7'),
            ('rainfall_events_watermark_move', 'aac094a26bdca19bede3070b62ca9e5f'),
            ('rainfall_transfer_cancel', '16e5eb427545dd709f0d545a7602af2d'),
            ('rainfall_transfer_dequeue', '03d9d59738e588cdbc3117470e2b8fff'),
            ('rainfall_transfer_dequeue_guard', '400ca6c66cf0ef5002667862616b9903'),
            ('rainfall_transfer_enqueue', '9e0b36dac3abfdfa685a5ab4c0a82629'),
            ('rainfall_transfer_enqueue_batch', '93aa3150bad48f811316842da265018f'),
            ('rainfall_transfer_job', 'bb6b9cb70540850b09c0625c149f017a'),
            ('rainfall_transfer_maintain', '03d20d545ad8fd56d928b7665a8b4e7f'),
            ('rainfall_transfer_metrics', 'df6082de304383fbd8f34de3c137d6cd'),
            ('rainfall_transfer_pause', '4dbd16a3cf8f2e02de3cc65f8032b38e'),
            ('rainfall_transfer_peek', 'a2ca99f52fb5f60253c51a7c0f52f126'),
            ('rainfall_transfer_purge', '92f7e5bb8e39dc8433d3ee334cddee0f'),
            ('rainfall_transfer_purge_batch', '7203286b38f9aa544fbe6f7c5fc98f75'),
            ('rainfall_transfer_resume', 'b6921d1cff570d7752628d8e45fc85e2'),
            ('rainfall_transfer_watermark_correct', 'cbafd5fb7516bf9ce9786e38274f4d13'),
            ('rainfall_transfer_watermark_move', '8f88d05db6f0a5804997218708396dbb')
    ) AS r (name, fingerprint)
    JOIN pg_catalog.pg_proc AS p ON p.proname = r.name
    JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace AND n.nspname = 'rainfall'
    WHERE pg_catalog.md5(pg_catalog.regexp_replace(p.prosrc, '[[:space:]]', '', 'g')) <> r.fingerprint;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020',
            MESSAGE = 'qgen: installed in schema rainfall, but not as this install rendered it: ' || v$wrong,
            HINT = 'An earlier statement failed and left an older version: read its error, fix it and run install.sql again.';
    END IF;
END
$qgen$;
