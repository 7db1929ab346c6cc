-- qgen 0.1.0: verify ghosts, rendered for PostgreSQL from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Install ends here, and fails loudly if any of qgen's functions or tables is owned by another role
-- than ghosts_owner, or a SECURITY DEFINER function does not pin its search_path: run with its
-- owner's rights, it would resolve names through its caller's path.
DO $qgen$
DECLARE
    v$wrong text;
BEGIN
    SELECT pg_catalog.string_agg(x.what, ', ' ORDER BY x.what) INTO v$wrong
    FROM
    (
        SELECT p.oid::pg_catalog.regprocedure::text
               || CASE WHEN p.proowner <> '"ghosts_owner"'::pg_catalog.regrole THEN ' (owned by ' || p.proowner::pg_catalog.regrole::text || ')'
                       ELSE ' (search_path not pinned)' END AS what
        FROM pg_catalog.pg_proc AS p
        JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
        WHERE n.nspname = 'ghosts'
          AND p.proname IN ('testq', 'testq_watermark', 'testq_pending', 'testq_batch', 'testq_enqueue', 'testq_enqueue_batch', 'testq_watermark_move', 'testq_watermark_correct', 'testq_control', 'testq_dequeue', 'testq_metrics', 'testq_peek', 'testq_purge_batch', 'testq_purge', 'testq_maintain', 'testq_job', 'testq_pause', 'testq_resume', 'testq_cancel')
          AND (p.proowner <> '"ghosts_owner"'::pg_catalog.regrole
               OR (p.prosecdef AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) AS c (setting)
                                               WHERE c.setting LIKE 'search\_path=%')))
        UNION ALL
        SELECT c.oid::pg_catalog.regclass::text || ' (owned by ' || c.relowner::pg_catalog.regrole::text || ')'
        FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'ghosts'
          AND c.relkind IN ('r', 'v')
          AND c.relname IN ('testq', 'testq_watermark', 'testq_pending', 'testq_batch', 'testq_enqueue', 'testq_enqueue_batch', 'testq_watermark_move', 'testq_watermark_correct', 'testq_control', 'testq_dequeue', 'testq_metrics', 'testq_peek', 'testq_purge_batch', 'testq_purge', 'testq_maintain', 'testq_job', 'testq_pause', 'testq_resume', 'testq_cancel')
          AND c.relowner <> '"ghosts_owner"'::pg_catalog.regrole
    ) AS x;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020', MESSAGE = 'qgen: wrongly installed in schema ghosts: ' || v$wrong;
    END IF;
    -- And each function is what this install rendered, not an older version left in place (psql
    -- without ON_ERROR_STOP goes on after a CREATE OR REPLACE that failed): md5 of its body without
    -- whitespace (qgen.dialects.postgres.module_fingerprints) against the one rendered.
    SELECT pg_catalog.string_agg(r.name, ', ' ORDER BY r.name) INTO v$wrong
    FROM
    (
        VALUES
            ('testq_cancel', '29a5cf5ac415599d38be6d88afc4810b'),
            ('testq_dequeue', '770df47794ddb87b638ac1ea0f65fad5'),
            ('testq_dequeue_guard', 'bca34982717e7e69fc0e1621f05c9e61'),
            ('testq_enqueue', '0e8974c30dd19a558b7ac27c602ccbd3'),
            ('testq_enqueue_batch', 'ea2610563d872f37eb2922226fea76e1'),
            ('testq_job', 'a3c637fc956d75f0b50681d54610e513'),
            ('testq_maintain', '4897190e0a6187786dca8f2e52539b51'),
            ('testq_metrics', 'ea5c03a808bddc7d57e53250433446f3'),
            ('testq_pause', '4b5b14bda11c6047ccc4b94e87e22cb2'),
            ('testq_peek', '46abce391f8aca6abd6ad3cb70511ec9'),
            ('testq_purge', '1f267331f210ca4bfb818d69455228f4'),
            ('testq_purge_batch', '0a0214fd0eb7326f01264e5b340ef671'),
            ('testq_resume', '57d4a6c79a0a7167987ffe5bc0e49318'),
            ('testq_watermark_correct', '98ab134a5dda6292254bf92f6476ed44'),
            ('testq_watermark_move', 'b8f6eeb462acd15867df7f0b75b98fa0')
    ) AS r (name, fingerprint)
    JOIN pg_catalog.pg_proc AS p ON p.proname = r.name
    JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace AND n.nspname = 'ghosts'
    WHERE pg_catalog.md5(pg_catalog.regexp_replace(p.prosrc, '[[:space:]]', '', 'g')) <> r.fingerprint;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020',
            MESSAGE = 'qgen: installed in schema ghosts, but not as this install rendered it: ' || v$wrong,
            HINT = 'An earlier statement failed and left an older version: read its error, fix it and run install.sql again.';
    END IF;
END
$qgen$;
