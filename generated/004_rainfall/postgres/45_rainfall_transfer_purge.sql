-- qgen 0.1.0: purge rainfall.rainfall_transfer_purge, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds, one batch of at most batch_size rows at a time, and COMMITs after each batch:
-- no transaction holds more than one batch, and vacuum can clean up behind it while it runs.
-- Rows that finish while it runs (a second after it began) are left for the next purge, so it ends.
-- A procedure that commits cannot be SECURITY DEFINER nor have a SET clause: it runs with its
-- caller's rights and reaches the tables only through rainfall_transfer_purge_batch (EXECUTE on that is all it
-- needs); every name in it is schema-qualified. CALL it outside a transaction block (inside one,
-- PostgreSQL refuses its COMMIT: invalid transaction termination, 2D000); there call
-- rainfall_transfer_purge_batch instead.
CREATE OR REPLACE PROCEDURE "rainfall"."rainfall_transfer_purge"
(
    "older_than_seconds" integer DEFAULT 604800,
    "batch_size" integer DEFAULT 1000,
    INOUT "archived" bigint DEFAULT NULL,
    INOUT "processed" bigint DEFAULT NULL,
    INOUT "dead" bigint DEFAULT NULL
)
LANGUAGE plpgsql
AS $qgen$
#variable_conflict use_column
DECLARE
    v$started timestamptz := pg_catalog.clock_timestamp();
    v$batch record;
BEGIN
    "rainfall_transfer_purge"."archived" := 0;
    "rainfall_transfer_purge"."processed" := 0;
    "rainfall_transfer_purge"."dead" := 0;
    LOOP
        -- Each batch is a new transaction with a later now(): widen the age by the whole seconds
        -- spent so far, so the cutoff stays within a second of where it was when the call began.
        SELECT * INTO v$batch
        FROM "rainfall"."rainfall_transfer_purge_batch"(
            "rainfall_transfer_purge"."older_than_seconds" + pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - v$started))::integer,
            "rainfall_transfer_purge"."batch_size");
        "rainfall_transfer_purge"."archived" := "rainfall_transfer_purge"."archived" + v$batch."archived";
        "rainfall_transfer_purge"."processed" := "rainfall_transfer_purge"."processed" + v$batch."processed";
        "rainfall_transfer_purge"."dead" := "rainfall_transfer_purge"."dead" + v$batch."dead";
        COMMIT;
        -- A short batch: nothing older is left (or what is left is locked: the next purge takes it).
        EXIT WHEN v$batch."archived" + v$batch."processed" + v$batch."dead" < "rainfall_transfer_purge"."batch_size";
    END LOOP;
END
$qgen$;
ALTER PROCEDURE "rainfall"."rainfall_transfer_purge" OWNER TO "rainfall_owner";
REVOKE ALL ON PROCEDURE "rainfall"."rainfall_transfer_purge" FROM PUBLIC;
