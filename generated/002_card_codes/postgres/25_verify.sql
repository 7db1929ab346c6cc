-- qgen 0.1.0: verify cards, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Install ends here, and fails loudly if any of qgen's functions or tables is owned by another role
-- than cards_owner, or a SECURITY DEFINER function does not pin its search_path: run with its
-- owner's rights, it would resolve names through its caller's path.
DO $qgen$
DECLARE
    v$wrong text;
BEGIN
    SELECT pg_catalog.string_agg(x.what, ', ' ORDER BY x.what) INTO v$wrong
    FROM
    (
        SELECT p.oid::pg_catalog.regprocedure::text
               || CASE WHEN p.proowner <> '"cards_owner"'::pg_catalog.regrole THEN ' (owned by ' || p.proowner::pg_catalog.regrole::text || ')'
                       ELSE ' (search_path not pinned)' END AS what
        FROM pg_catalog.pg_proc AS p
        JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
        WHERE n.nspname = 'cards'
          AND p.proname IN ('card_codes', 'card_codes_dead', 'card_codes_archive', 'card_codes_dedupe_ux', 'card_codes_dead_ix', 'card_codes_archive_ix', 'card_codes_pending', 'card_codes_batch', 'card_codes_enqueue', 'card_codes_enqueue_batch', 'card_codes_control', 'card_codes_dequeue', 'card_codes_metrics', 'card_codes_peek', 'card_codes_purge_batch', 'card_codes_purge', 'card_codes_maintain', 'card_codes_dead_letters', 'card_codes_job', 'card_codes_pause', 'card_codes_resume', 'card_codes_cancel')
          AND (p.proowner <> '"cards_owner"'::pg_catalog.regrole
               OR (p.prosecdef AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) AS c (setting)
                                               WHERE c.setting LIKE 'search\_path=%')))
        UNION ALL
        SELECT c.oid::pg_catalog.regclass::text || ' (owned by ' || c.relowner::pg_catalog.regrole::text || ')'
        FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'cards'
          AND c.relkind IN ('r', 'v')
          AND c.relname IN ('card_codes', 'card_codes_dead', 'card_codes_archive', 'card_codes_dedupe_ux', 'card_codes_dead_ix', 'card_codes_archive_ix', 'card_codes_pending', 'card_codes_batch', 'card_codes_enqueue', 'card_codes_enqueue_batch', 'card_codes_control', 'card_codes_dequeue', 'card_codes_metrics', 'card_codes_peek', 'card_codes_purge_batch', 'card_codes_purge', 'card_codes_maintain', 'card_codes_dead_letters', 'card_codes_job', 'card_codes_pause', 'card_codes_resume', 'card_codes_cancel')
          AND c.relowner <> '"cards_owner"'::pg_catalog.regrole
    ) AS x;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020', MESSAGE = 'qgen: wrongly installed in schema cards: ' || v$wrong;
    END IF;
    -- And each function is what this install rendered, not an older version left in place (psql
    -- without ON_ERROR_STOP goes on after a CREATE OR REPLACE that failed): md5 of its body without
    -- whitespace (qgen.dialects.postgres.module_fingerprints) against the one rendered.
    SELECT pg_catalog.string_agg(r.name, ', ' ORDER BY r.name) INTO v$wrong
    FROM
    (
        VALUES
            ('card_codes_cancel', 'b0b1ef2a121a57ea06596e71a5463657'),
            ('card_codes_dead_letters', '2f588b3455445bd97d1bb1c5763823a6'),
            ('card_codes_dequeue', 'e3c82b8cd9049ba591b3c2f8268bd601'),
            ('card_codes_dequeue_guard', '3d2e17c46686652c52b68cd24bdb5d8b'),
            ('card_codes_enqueue', '8e93e6a93772d0acd2f92d4188d57558'),
            ('card_codes_enqueue_batch', 'f84e991e0708c00fa070119caa248a9c'),
            ('card_codes_job', '5b4632f3520b2c068ffa7355666a3212'),
            ('card_codes_maintain', 'a7924a9a916207db0f98835923ce9dd1'),
            ('card_codes_metrics', '756e6400b07a216837d4881c9d25260c'),
            ('card_codes_pause', '35a4cd6f31b93bb76e9e398b50fa4f46'),
            ('card_codes_peek', '76c755a31f249bcaee18bd72bdcbc372'),
            ('card_codes_purge', '1b8d6cf795836756c906cd08b01a40d4'),
            ('card_codes_purge_batch', '3fd1822c3fcd41ab6bd1f5a95efd1950'),
            ('card_codes_resume', '5155a86b16656303690213cebad4a0e4')
    ) AS r (name, fingerprint)
    JOIN pg_catalog.pg_proc AS p ON p.proname = r.name
    JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace AND n.nspname = 'cards'
    WHERE pg_catalog.md5(pg_catalog.regexp_replace(p.prosrc, '[[:space:]]', '', 'g')) <> r.fingerprint;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020',
            MESSAGE = 'qgen: installed in schema cards, but not as this install rendered it: ' || v$wrong,
            HINT = 'An earlier statement failed and left an older version: read its error, fix it and run install.sql again.';
    END IF;
END
$qgen$;
