-- qgen 0.1.0: every object of 002_card_codes.yaml, for PostgreSQL, in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema cards, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
CREATE SCHEMA IF NOT EXISTS "cards";

-- qgen 0.1.0: roles cards_admin, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_producer') THEN
        CREATE ROLE "cards_producer" NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_consumer') THEN
        CREATE ROLE "cards_consumer" NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_admin') THEN
        CREATE ROLE "cards_admin" NOLOGIN;
    END IF;
END
$qgen$;

-- qgen 0.1.0: table cards.card_codes, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
CREATE TABLE IF NOT EXISTS "cards"."card_codes"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "card_number" varchar(32) NOT NULL,
    "card_secret" varchar(64) NOT NULL,
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("id")
);

-- qgen 0.1.0: claim_index cards.card_codes_claim_ix, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- cards.card_codes_claim_ix: not needed. A delete queue holds only unclaimed rows and claims them
-- in id order, which the primary key already is; a second index on id would only slow every write.

-- qgen 0.1.0: dedupe_index cards.card_codes_dedupe_ux, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there.
CREATE UNIQUE INDEX IF NOT EXISTS "card_codes_dedupe_ux"
    ON "cards"."card_codes" ("card_number");

-- qgen 0.1.0: archive_table cards.card_codes_archive, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Completed jobs, moved here by dequeue and removed by purge after the retention period.
CREATE TABLE IF NOT EXISTS "cards"."card_codes_archive"
(
    "id" bigint NOT NULL,
    "card_number" varchar(32) NOT NULL,
    "card_secret" varchar(64) NOT NULL,
    "enqueued_at" timestamptz NOT NULL,
    "completed_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("id")
);
-- purge deletes by age.
CREATE INDEX IF NOT EXISTS "card_codes_archive_completed_at_ix" ON "cards"."card_codes_archive" ("completed_at");

-- qgen 0.1.0: pending_view cards.card_codes_pending, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "cards"."card_codes_pending" AS
SELECT "job"."id", "job"."card_number", "job"."card_secret", "job"."enqueued_at"
FROM "cards"."card_codes" AS "job"
WHERE 1 = 1;

-- qgen 0.1.0: batch_type cards.card_codes_batch, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) when missing, and the table rejects a missing required column.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"cards"."card_codes_batch"') IS NULL THEN
        CREATE TYPE "cards"."card_codes_batch" AS
        (
            "ordinal" integer,
            "card_number" varchar(32),
            "card_secret" varchar(64)
        );
    END IF;
END
$qgen$;

-- qgen 0.1.0: enqueue cards.card_codes_enqueue, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "cards"."card_codes_enqueue"
(
    "card_number" varchar(32),
    "card_secret" varchar(64)
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- ON CONFLICT waits for a concurrent insert of the same key to commit or roll back, so two
    -- sessions can never both enqueue it, and no subtransaction is needed to catch the violation.
    -- The existing row can be finished and deleted between the conflict and the lookup: then try again.
    LOOP
        INSERT INTO "cards"."card_codes" AS "job" ("card_number", "card_secret")
            VALUES ("card_codes_enqueue"."card_number", "card_codes_enqueue"."card_secret")
            ON CONFLICT ("card_number") DO NOTHING
            RETURNING "job"."id" INTO "id";
        IF FOUND THEN
            "enqueued" := TRUE;
            RETURN NEXT;
            RETURN;
        END IF;
        SELECT "e"."id" INTO "id"
        FROM "cards"."card_codes" AS "e"
        WHERE "e"."card_number" = "card_codes_enqueue"."card_number";
        IF FOUND THEN
            "enqueued" := FALSE;
            RETURN NEXT;
            RETURN;
        END IF;
    END LOOP;
END
$qgen$;
REVOKE ALL ON FUNCTION "cards"."card_codes_enqueue" FROM PUBLIC;

-- qgen 0.1.0: enqueue_batch cards.card_codes_enqueue_batch, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job: a job already
-- queued, or repeated earlier in the batch, returns that id with enqueued = false.
CREATE OR REPLACE FUNCTION "cards"."card_codes_enqueue_batch"
(
    "jobs" jsonb
)
RETURNS TABLE ("ordinal" integer, "id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    -- The ids are drawn before the insert, so each input job knows its id whether or not it is inserted.
    v_sequence regclass := pg_catalog.pg_get_serial_sequence('"cards"."card_codes"', 'id')::regclass;
    v_ordinal integer;
    v_id bigint;
    v_enqueued boolean;
    v_key_1 varchar(32);
BEGIN
    FOR v_ordinal, v_id, v_enqueued, v_key_1 IN
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "j"."ordinality"::integer) AS "ordinal",
                   "j"."card_number", "j"."card_secret"
            FROM jsonb_populate_recordset(NULL::"cards"."card_codes_batch", "card_codes_enqueue_batch"."jobs") WITH ORDINALITY AS "j"
        ),
        "numbered" AS
        (
            -- A volatile target list runs after ORDER BY, so the ids follow the ordinals.
            SELECT "i".*, nextval(v_sequence) AS "new_id"
            FROM "input" AS "i"
            ORDER BY "i"."ordinal"
        ),
        "inserted" AS
        (
            INSERT INTO "cards"."card_codes" AS "job" ("id", "card_number", "card_secret")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new_id", "n"."card_number", "n"."card_secret"
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            -- A key already queued, or repeated in the batch, is skipped here and reported below.
            ON CONFLICT ("card_number") DO NOTHING
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal",
               CASE WHEN "k"."id" IS NOT NULL THEN "n"."new_id"
                    ELSE coalesce(
                        -- A job queued before this statement ...
                        (SELECT "e"."id" FROM "cards"."card_codes" AS "e" WHERE "e"."card_number" = "n"."card_number"),
                        -- ... or the first job of this batch with that key.
                        (SELECT min("d"."new_id") FROM "numbered" AS "d" INNER JOIN "inserted" AS "x" ON "x"."id" = "d"."new_id"
                         WHERE "d"."card_number" = "n"."card_number"))
               END,
               "k"."id" IS NOT NULL,
               "n"."card_number"
        FROM "numbered" AS "n"
        LEFT JOIN "inserted" AS "k" ON "k"."id" = "n"."new_id"
        ORDER BY "n"."ordinal"
    LOOP
        IF v_id IS NULL THEN
            -- Another session committed this key while the statement ran (ON CONFLICT saw it, the
            -- statement's snapshot did not): a new statement sees it.
            SELECT "e"."id" INTO v_id
            FROM "cards"."card_codes" AS "e"
            WHERE "e"."card_number" = v_key_1;
        END IF;
        "ordinal" := v_ordinal;
        "id" := v_id;
        "enqueued" := v_enqueued;
        RETURN NEXT;
    END LOOP;
END
$qgen$;
REVOKE ALL ON FUNCTION "cards"."card_codes_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: dequeue cards.card_codes_dequeue, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"cards"."card_codes_dequeue_row"') IS NULL THEN
        CREATE TYPE "cards"."card_codes_dequeue_row" AS
        (
            "id" bigint,
            "card_number" varchar(32),
            "card_secret" varchar(64),
            "enqueued_at" timestamptz
        );
    END IF;
END
$qgen$;
-- Claims up to batch_size jobs by deleting them into the archive, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
CREATE OR REPLACE FUNCTION "cards"."card_codes_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 1
)
RETURNS SETOF "cards"."card_codes_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 1
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        WITH "claimed" AS
        (
            DELETE FROM "cards"."card_codes" AS "job"
            -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
            -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
            WHERE "job"."id" = ANY (ARRAY
            (
                SELECT "next"."id"
                FROM "cards"."card_codes" AS "next"
                WHERE 1 = 1
                ORDER BY "next"."id"
                LIMIT "card_codes_dequeue"."batch_size"
                FOR UPDATE SKIP LOCKED
            ))
            RETURNING "job".*
        ),
        "archived" AS
        (
            INSERT INTO "cards"."card_codes_archive" ("id", "card_number", "card_secret", "enqueued_at", "completed_at")
            SELECT "c"."id", "c"."card_number", "c"."card_secret", "c"."enqueued_at", now()
            FROM "claimed" AS "c"
        )
        SELECT "c"."id", "c"."card_number", "c"."card_secret", "c"."enqueued_at"
        FROM "claimed" AS "c"
        ORDER BY "c"."id";
END
$qgen$;
REVOKE ALL ON FUNCTION "cards"."card_codes_dequeue" FROM PUBLIC;

-- qgen 0.1.0: metrics cards.card_codes_metrics, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "cards"."card_codes_metrics"()
RETURNS TABLE
(
    "ready" bigint,
    "scheduled" bigint,
    "in_flight" bigint,
    "expired" bigint,
    "processed" bigint,
    "dead" bigint,
    "archived" bigint,
    "oldest_ready_age_seconds" bigint,
    "watermark" bigint,
    "lowest_pending_id" bigint
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT
        count(*) FILTER (WHERE 1 = 1),
        0::bigint,
        0::bigint,
        0::bigint,
        0::bigint,
        0::bigint,
        (SELECT count(*) FROM "cards"."card_codes_archive"),
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE 1 = 1)))::bigint, 0),
        NULL::bigint,
        min("job"."id") FILTER (WHERE 1 = 1)
    FROM "cards"."card_codes" AS "job";
END
$qgen$;
REVOKE ALL ON FUNCTION "cards"."card_codes_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek cards.card_codes_peek, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue). Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "cards"."card_codes_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "cards"."card_codes_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT "p".*
    FROM "cards"."card_codes_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "card_codes_peek"."limit";
END
$qgen$;
REVOKE ALL ON FUNCTION "cards"."card_codes_peek" FROM PUBLIC;

-- qgen 0.1.0: purge cards.card_codes_purge, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes finished jobs (archived, processed, dead-lettered) older than older_than_seconds, in
-- batches of batch_size. A function cannot commit, so all batches share the caller's transaction:
-- batches bound each statement, not the transaction.
CREATE OR REPLACE FUNCTION "cards"."card_codes_purge"
(
    "older_than_seconds" integer DEFAULT 31536000,
    "batch_size" integer DEFAULT 10000
)
RETURNS TABLE ("archived" integer, "processed" integer, "dead" integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v_cutoff timestamptz := now() - pg_catalog.make_interval(secs => "card_codes_purge"."older_than_seconds");
    v_deleted integer;
BEGIN
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    LOOP
        DELETE FROM "cards"."card_codes_archive" AS "x"
        WHERE "x"."id" IN (SELECT "y"."id" FROM "cards"."card_codes_archive" AS "y" WHERE "y"."completed_at" < v_cutoff LIMIT "card_codes_purge"."batch_size");
        GET DIAGNOSTICS v_deleted = ROW_COUNT;
        "archived" := "archived" + v_deleted;
        EXIT WHEN v_deleted < "card_codes_purge"."batch_size" OR v_deleted = 0;
    END LOOP;
    RETURN NEXT;
END
$qgen$;
REVOKE ALL ON FUNCTION "cards"."card_codes_purge" FROM PUBLIC;

-- qgen 0.1.0: grants cards_consumer, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "cards" TO "cards_producer", "cards_consumer", "cards_admin";
GRANT EXECUTE ON FUNCTION "cards"."card_codes_enqueue", "cards"."card_codes_enqueue_batch" TO "cards_producer";
GRANT USAGE ON TYPE "cards"."card_codes_batch" TO "cards_producer";
GRANT EXECUTE ON FUNCTION "cards"."card_codes_dequeue" TO "cards_consumer";
GRANT USAGE ON TYPE "cards"."card_codes_dequeue_row" TO "cards_consumer";
GRANT SELECT ON "cards"."card_codes_pending" TO "cards_admin";
-- Admins run everything in the schema (the worker is a procedure: ROUTINES covers both).
GRANT EXECUTE ON ALL ROUTINES IN SCHEMA "cards" TO "cards_admin";
