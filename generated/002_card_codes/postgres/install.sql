-- qgen 0.1.0: every object of 002_card_codes.yaml, for PostgreSQL, in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema cards, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- cards_owner owns every object qgen creates here, and cannot log in: the SECURITY DEFINER
-- functions run with its rights (its own tables and nothing else), not with those of whoever ran
-- install. The schema and the role are marked (COMMENT) when install creates them: uninstall drops
-- only what carries the mark.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_owner') THEN
        CREATE ROLE "cards_owner" NOLOGIN;
        COMMENT ON ROLE "cards_owner" IS 'qgen: created by the install of schema cards';
    ELSIF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_owner' AND (rolcanlogin OR rolsuper)) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG022',
            MESSAGE = 'qgen: role cards_owner exists and can log in or is a superuser; qgen''s SECURITY DEFINER functions run as this role',
            HINT = 'Make it NOLOGIN NOSUPERUSER, or drop it and let install create it.';
    END IF;
    -- Whoever installs creates the objects and hands them to the owner (ALTER ... OWNER TO), which
    -- takes membership of it unless it is a superuser.
    IF NOT pg_catalog.pg_has_role(current_user, 'cards_owner', 'MEMBER') THEN
        GRANT "cards_owner" TO CURRENT_USER;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'cards') THEN
        CREATE SCHEMA "cards";
        COMMENT ON SCHEMA "cards" IS 'qgen: created by the install of schema cards';
    END IF;
END
$qgen$;
GRANT USAGE, CREATE ON SCHEMA "cards" TO "cards_owner";

-- qgen 0.1.0: roles cards_producer, cards_consumer, cards_admin (cluster-wide), rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing,
-- and mark the ones install creates (COMMENT): uninstall drops only those, never a role that was
-- there before and that the spec only names.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_producer') THEN
        CREATE ROLE "cards_producer" NOLOGIN;
        COMMENT ON ROLE "cards_producer" IS 'qgen: created by the install of schema cards';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_consumer') THEN
        CREATE ROLE "cards_consumer" NOLOGIN;
        COMMENT ON ROLE "cards_consumer" IS 'qgen: created by the install of schema cards';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'cards_admin') THEN
        CREATE ROLE "cards_admin" NOLOGIN;
        COMMENT ON ROLE "cards_admin" IS 'qgen: created by the install of schema cards';
    END IF;
END
$qgen$;

-- qgen 0.1.0: table cards.card_codes, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Storage fit for a queue table, whose rows are inserted, and deleted all day:
-- autovacuum_vacuum_scale_factor 0.01 (default 0.2): vacuum once 1% of the rows are dead, not 20%:
--   on a queue with a backlog, dead entries at the head of the claim index are what every claim
--   walks through, and 20% of a million-row backlog is 200,000 of them.
-- autovacuum_vacuum_threshold 1000 (default 50): but on a nearly empty queue, not after every 50
--   deleted jobs: a few vacuums a minute at most on a busy small queue.
-- autovacuum_analyze_scale_factor 0.02 (default 0.1): the row count swings with the backlog; keep
--   the statistics the planner sees close to it.
CREATE TABLE IF NOT EXISTS "cards"."card_codes"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "card_number" varchar(32) NOT NULL,
    "card_secret" varchar(64) NOT NULL,
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("id")
)
WITH (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
      autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "cards"."card_codes" OWNER TO "cards_owner";

-- qgen 0.1.0: dead_letter_table cards.card_codes_dead, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: "id" is the job's id, which repeats once the queue's identity is restarted.
CREATE TABLE IF NOT EXISTS "cards"."card_codes_dead"
(
    "entry_id" bigint GENERATED ALWAYS AS IDENTITY,
    "id" bigint NOT NULL,
    "card_number" varchar(32) NOT NULL,
    "card_secret" varchar(64) NOT NULL,
    "enqueued_at" timestamptz NOT NULL,
    "attempts" integer NOT NULL,
    "last_error" varchar(4000) NULL,
    "dead_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("entry_id")
);
ALTER TABLE "cards"."card_codes_dead" OWNER TO "cards_owner";

-- qgen 0.1.0: archive_table cards.card_codes_archive, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Completed jobs, moved here by dequeue and removed by purge after the retention period.
-- Keyed by an identity of its own: "id" is the job's id, which repeats once the queue's identity is
-- restarted (or when a job reaches the archive twice).
CREATE TABLE IF NOT EXISTS "cards"."card_codes_archive"
(
    "entry_id" bigint GENERATED ALWAYS AS IDENTITY,
    "id" bigint NOT NULL,
    "card_number" varchar(32) NOT NULL,
    "card_secret" varchar(64) NOT NULL,
    "enqueued_at" timestamptz NOT NULL,
    "completed_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("entry_id")
);
ALTER TABLE "cards"."card_codes_archive" OWNER TO "cards_owner";

-- qgen 0.1.0: dedupe_index cards.card_codes_dedupe_ux, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row per dedupe key: enqueueing the same item twice finds the row already there.
CREATE UNIQUE INDEX IF NOT EXISTS "card_codes_dedupe_ux"
    ON "cards"."card_codes" ("card_number");
-- dedupe.scope: ever: a finished job keeps its key in card_codes_archive until purge removes it; enqueue looks
-- here, and the index refuses a second job with the key even if something bypassed enqueue.
CREATE UNIQUE INDEX IF NOT EXISTS "card_codes_archive_dedupe_ux"
    ON "cards"."card_codes_archive" ("card_number");

-- qgen 0.1.0: dead_letter_index cards.card_codes_dead_ix, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
CREATE INDEX IF NOT EXISTS "card_codes_dead_ix"
    ON "cards"."card_codes_dead" ("dead_at");
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
CREATE INDEX IF NOT EXISTS "card_codes_dead_id_ix"
    ON "cards"."card_codes_dead" ("id");

-- qgen 0.1.0: archive_index cards.card_codes_archive_ix, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes archived jobs by age: it finds the old ones here instead of scanning the archive.
CREATE INDEX IF NOT EXISTS "card_codes_archive_ix"
    ON "cards"."card_codes_archive" ("completed_at");

-- qgen 0.1.0: pending_view cards.card_codes_pending, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "cards"."card_codes_pending" AS
SELECT "job"."id", "job"."card_number", "job"."card_secret", "job"."enqueued_at"
FROM "cards"."card_codes" AS "job"
WHERE 1 = 1;
ALTER VIEW "cards"."card_codes_pending" OWNER TO "cards_owner";

-- qgen 0.1.0: batch_type cards.card_codes_batch, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) when missing, and the table rejects a missing required column.
-- Its string and decimal fields have no length or scale (m.param_type): reading a job into
-- varchar(n) or numeric(p,s) would cut or round a value past its column before enqueue_batch
-- could refuse it (QG010).
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"cards"."card_codes_batch"') IS NULL THEN
        CREATE TYPE "cards"."card_codes_batch" AS
        (
            "ordinal" integer,
            "card_number" varchar,
            "card_secret" varchar
        );
    END IF;
END
$qgen$;
ALTER TYPE "cards"."card_codes_batch" OWNER TO "cards_owner";

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
DECLARE
    v$existing bigint;
BEGIN
    IF pg_catalog.length("card_codes_enqueue"."card_number") > 32 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: card_number is past its column''s limit in cards.card_codes_enqueue; accepted: string(32), at most 32 characters';
    END IF;
    IF pg_catalog.length("card_codes_enqueue"."card_secret") > 64 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: card_secret is past its column''s limit in cards.card_codes_enqueue; accepted: string(64), at most 64 characters';
    END IF;
    -- dedupe.scope: ever: a finished job still holds its key until purge removes it.
    "id" := coalesce((SELECT "f"."id" FROM "cards"."card_codes_archive" AS "f" WHERE "f"."card_number" = "card_codes_enqueue"."card_number"));
    IF "id" IS NOT NULL THEN
        "enqueued" := FALSE;
        RETURN NEXT;
        RETURN;
    END IF;
    -- ON CONFLICT waits for a concurrent insert of the same key to commit or roll back, so two
    -- sessions can never both enqueue it, and no subtransaction is needed to catch the violation.
    -- The existing row can be finished and deleted between the conflict and the lookup: then try again.
    LOOP
        INSERT INTO "cards"."card_codes" AS "job" ("card_number", "card_secret")
            VALUES ("card_codes_enqueue"."card_number", "card_codes_enqueue"."card_secret")
            ON CONFLICT ("card_number") DO NOTHING
            RETURNING "job"."id" INTO "id";
        IF FOUND THEN
            -- The same key may have been moving to the archive or the dead letters while this
            -- insert waited for it on the unique index: then that job holds it, not this one.
            v$existing := coalesce(coalesce((SELECT "f"."id" FROM "cards"."card_codes_archive" AS "f" WHERE "f"."card_number" = "card_codes_enqueue"."card_number")), (SELECT "o"."id" FROM "cards"."card_codes" AS "o" WHERE "o"."card_number" = "card_codes_enqueue"."card_number" AND "o"."id" <> "card_codes_enqueue"."id" LIMIT 1));
            IF v$existing IS NOT NULL THEN
                DELETE FROM "cards"."card_codes" AS "job" WHERE "job"."id" = "card_codes_enqueue"."id";
                "id" := v$existing;
                "enqueued" := FALSE;
                RETURN NEXT;
                RETURN;
            END IF;
            "enqueued" := TRUE;
            RETURN NEXT;
            RETURN;
        END IF;
        SELECT "e"."id" INTO "id"
        FROM "cards"."card_codes" AS "e"
        WHERE "e"."card_number" = "card_codes_enqueue"."card_number";
        IF NOT FOUND THEN
            "id" := coalesce((SELECT "f"."id" FROM "cards"."card_codes_archive" AS "f" WHERE "f"."card_number" = "card_codes_enqueue"."card_number"));
        END IF;
        IF "id" IS NOT NULL THEN
            "enqueued" := FALSE;
            RETURN NEXT;
            RETURN;
        END IF;
    END LOOP;
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_enqueue" OWNER TO "cards_owner";
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
    v$sequence regclass := pg_catalog.pg_get_serial_sequence('"cards"."card_codes"', 'id')::regclass;
    v$over integer;
    v$over_column text;
    v$ordinal integer;
    v$id bigint;
    v$enqueued boolean;
    v$key_1 varchar(32);
    v$existing bigint;
    -- Jobs of this batch withdrawn for a key a finished job turned out to hold, and that job's id.
    v$withdrawn bigint[] := '{}';
    v$instead bigint[] := '{}';
BEGIN

    SELECT coalesce("j"."ordinal", "e"."position$"::integer),
           CASE WHEN pg_catalog.length("j"."card_number") > 32 THEN 'card_number; accepted: string(32), at most 32 characters' WHEN pg_catalog.length("j"."card_secret") > 64 THEN 'card_secret; accepted: string(64), at most 64 characters' END
    INTO v$over, v$over_column
    FROM jsonb_array_elements("card_codes_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
    CROSS JOIN LATERAL jsonb_populate_record(NULL::"cards"."card_codes_batch", "e"."job$") AS "j"
    WHERE pg_catalog.length("j"."card_number") > 32 OR pg_catalog.length("j"."card_secret") > 64
    ORDER BY "e"."position$"
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = pg_catalog.format('qgen: job %s of the batch has a value past its column''s limit in cards.card_codes_enqueue_batch: column %s', v$over, v$over_column);
    END IF;
    FOR v$ordinal, v$id, v$enqueued, v$key_1 IN
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "e"."position$"::integer) AS "ordinal",
                   "j"."card_number", "j"."card_secret"
            -- The array position and the new id are qgen's own columns beside the job's: their names
            -- hold a $, which no spec column can.
            FROM jsonb_array_elements("card_codes_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
            CROSS JOIN LATERAL jsonb_populate_record(NULL::"cards"."card_codes_batch", "e"."job$") AS "j"
        ),
        "numbered" AS
        (
            -- A volatile target list runs after ORDER BY, so the ids follow the ordinals.
            SELECT "i".*, nextval(v$sequence) AS "new$id"
            FROM "input" AS "i"
            ORDER BY "i"."ordinal"
        ),
        "inserted" AS
        (
            INSERT INTO "cards"."card_codes" AS "job" ("id", "card_number", "card_secret")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new$id", "n"."card_number", "n"."card_secret"
            FROM "numbered" AS "n"
            -- dedupe.scope: ever: a key a finished job holds is skipped too.
            WHERE coalesce((SELECT "f"."id" FROM "cards"."card_codes_archive" AS "f" WHERE "f"."card_number" = "n"."card_number")) IS NULL
            ORDER BY "n"."ordinal"
            -- A key already queued, or repeated in the batch, is skipped here and reported below.
            ON CONFLICT ("card_number") DO NOTHING
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal",
               CASE WHEN "k"."id" IS NOT NULL THEN "n"."new$id"
                    ELSE coalesce(
                        -- A job queued before this statement ...
                        (SELECT "e"."id" FROM "cards"."card_codes" AS "e" WHERE "e"."card_number" = "n"."card_number"),
                        -- ... or finished (dedupe.scope: ever) ...
                        coalesce((SELECT "f"."id" FROM "cards"."card_codes_archive" AS "f" WHERE "f"."card_number" = "n"."card_number")),
                        -- ... or the first job of this batch with that key.
                        (SELECT min("d"."new$id") FROM "numbered" AS "d" INNER JOIN "inserted" AS "x" ON "x"."id" = "d"."new$id"
                         WHERE "d"."card_number" = "n"."card_number"))
               END,
               "k"."id" IS NOT NULL,
               "n"."card_number"

        FROM "numbered" AS "n"
        LEFT JOIN "inserted" AS "k" ON "k"."id" = "n"."new$id"
        ORDER BY "n"."ordinal"
    LOOP
        IF v$enqueued THEN
            -- The same key may have been moving to the archive or the dead letters while this
            -- insert waited for it on the unique index: then that job holds it, not this one.
            v$existing := coalesce(coalesce((SELECT "f"."id" FROM "cards"."card_codes_archive" AS "f" WHERE "f"."card_number" = v$key_1)), (SELECT "o"."id" FROM "cards"."card_codes" AS "o" WHERE "o"."card_number" = v$key_1 AND "o"."id" <> v$id LIMIT 1));
            IF v$existing IS NOT NULL THEN
                DELETE FROM "cards"."card_codes" AS "job" WHERE "job"."id" = v$id;
                v$withdrawn := v$withdrawn || v$id;
                v$instead := v$instead || v$existing;
                v$id := v$existing;
                v$enqueued := FALSE;
            END IF;
        ELSIF v$id = ANY (v$withdrawn) THEN
            -- A repeat of a key whose first job in this batch was withdrawn above.
            v$id := v$instead[array_position(v$withdrawn, v$id)];
        END IF;
        IF v$id IS NULL THEN
            -- Another session committed this key while the statement ran (ON CONFLICT saw it, the
            -- statement's snapshot did not): a new statement sees it.
            SELECT "e"."id" INTO v$id
            FROM "cards"."card_codes" AS "e"
            WHERE "e"."card_number" = v$key_1;
            IF v$id IS NULL THEN
                v$id := coalesce((SELECT "f"."id" FROM "cards"."card_codes_archive" AS "f" WHERE "f"."card_number" = v$key_1));
            END IF;
        END IF;
        "ordinal" := v$ordinal;
        "id" := v$id;
        "enqueued" := v$enqueued;
        RETURN NEXT;
    END LOOP;
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_enqueue_batch" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: control_table cards.card_codes_control, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which role). Every
-- claim reads it first (a plain read: a pause or resume counts from its commit, and no claim waits
-- on one left open). A missing row (deleted by hand) reads as running.
CREATE TABLE IF NOT EXISTS "cards"."card_codes_control"
(
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    "paused" boolean NOT NULL DEFAULT FALSE,
    "changed_at" timestamptz NULL,
    "changed_by" varchar(128) NULL,
    PRIMARY KEY ("one_row")
);
ALTER TABLE "cards"."card_codes_control" OWNER TO "cards_owner";
INSERT INTO "cards"."card_codes_control" ("paused") VALUES (FALSE) ON CONFLICT DO NOTHING;

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
ALTER TYPE "cards"."card_codes_dequeue_row" OWNER TO "cards_owner";
-- A claim that would commit by itself (no transaction block around it) is refused when the
-- transaction commits, unless the caller said at_most_once: then the claim is the commit. A
-- function cannot see whether the caller opened a transaction block, so dequeue notes its own
-- statement's start time, and this deferred trigger, run at commit, accepts only a commit made
-- while a later statement of the caller's runs (its COMMIT). It refuses a commit made during the
-- claim's own statement (autocommit, or a COMMIT sent in the same query string) and one made
-- while no statement runs: the Sync that ends an extended-protocol message sequence, where a
-- driver's autocommit call, or a pipeline of them, commits (current_query() is NULL there).
CREATE OR REPLACE FUNCTION "cards"."card_codes_dequeue_guard"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
BEGIN
    IF pg_catalog.current_query() IS NULL
       OR pg_catalog.current_setting('qgen.claim_statement', TRUE) = pg_catalog.statement_timestamp()::text THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on cards.card_codes: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass at_most_once => true';
    END IF;
    RETURN NULL;
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_dequeue_guard" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_dequeue_guard" FROM PUBLIC;
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger
                   WHERE tgrelid = '"cards"."card_codes"'::regclass AND tgname = 'card_codes_dequeue_guard') THEN
        -- WHEN is checked as each row is deleted: only a dequeue's own rows queue the check.
        CREATE CONSTRAINT TRIGGER "card_codes_dequeue_guard"
        AFTER DELETE ON "cards"."card_codes"
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW
        WHEN (pg_catalog.current_setting('qgen.claim_statement', TRUE) = pg_catalog.statement_timestamp()::text)
        EXECUTE FUNCTION "cards"."card_codes_dequeue_guard"();
    END IF;
END
$qgen$;
-- Claims up to batch_size jobs by deleting them into the archive, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction block the commit is refused (see above) unless at_most_once is true.
CREATE OR REPLACE FUNCTION "cards"."card_codes_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 1,
    "at_most_once" boolean DEFAULT FALSE
)
RETURNS SETOF "cards"."card_codes_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 1
AS $qgen$
#variable_conflict use_column
DECLARE
    v$want integer;
    v$rows "cards"."card_codes_dequeue_row"[];
    v$dropped bigint;
BEGIN
    IF "card_codes_dequeue"."batch_size" IS NULL OR "card_codes_dequeue"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for cards.card_codes_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("card_codes_dequeue"."batch_size"::text, 'NULL'));
    END IF;
    IF pg_catalog.length("card_codes_dequeue"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in cards.card_codes_dequeue; accepted: string(128), at most 128 characters';
    END IF;
    -- Read by the guard trigger at commit; at_most_once clears it.
    PERFORM pg_catalog.set_config('qgen.claim_statement',
                                  CASE WHEN "card_codes_dequeue"."at_most_once" THEN '' ELSE pg_catalog.statement_timestamp()::text END, TRUE);
    -- The guard's check belongs at the commit: a caller's SET CONSTRAINTS ALL IMMEDIATE would run it
    -- at the end of this statement instead, and refuse a claim its transaction was about to commit.
    SET CONSTRAINTS "cards"."card_codes_dequeue_guard" DEFERRED;
    -- Paused (pause, resume): complete what was asked, claim nothing.
    IF NOT EXISTS (SELECT 1 FROM "cards"."card_codes_control" AS "c" WHERE NOT "c"."paused") THEN
        RETURN;
    END IF;
    -- Jobs kept back are claimed again in their place (each round takes rows out of the queue, so it ends).
    v$want := "card_codes_dequeue"."batch_size";
    LOOP
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
                LIMIT v$want
                FOR UPDATE SKIP LOCKED
            ))
            RETURNING "job".*
        ),
        "archived" AS
        (
            INSERT INTO "cards"."card_codes_archive" AS "kept" ("id", "card_number", "card_secret", "enqueued_at", "completed_at")
            SELECT "c"."id", "c"."card_number", "c"."card_secret", "c"."enqueued_at", pg_catalog.clock_timestamp()
            FROM "claimed" AS "c"
            -- dedupe.scope: ever (issue 24, item 4): the archive's unique index finds a claimed job whose key
            -- it already holds: one handed out before (a row loaded past enqueue, a hand insert). It is not
            -- archived, nor handed out (see "kept_back"). No claim waits on another here: the check waits
            -- only for an uncommitted row of the same key, and a claim holds its queue row's key, which the
            -- queue's unique index keeps from every other queued row.
            ON CONFLICT DO NOTHING
            RETURNING "kept"."id"
        ),
        -- ... it goes to the dead letters with the reason as its last_error, and dequeue claims another in
        -- its place.
        "kept_back" AS
        (
            INSERT INTO "cards"."card_codes_dead" ("id", "card_number", "card_secret", "enqueued_at", "attempts", "last_error")
            SELECT "c"."id", "c"."card_number", "c"."card_secret", "c"."enqueued_at", 0,
                   'qgen: not handed out: the archive already holds this dedupe key (card_number), so it was handed out before (a row loaded past enqueue?); kept here instead'
            FROM "claimed" AS "c"
            WHERE NOT EXISTS (SELECT 1 FROM "archived" AS "a" WHERE "a"."id" = "c"."id")
        )
        SELECT coalesce(pg_catalog.array_agg(ROW("c"."id", "c"."card_number", "c"."card_secret", "c"."enqueued_at")::"cards"."card_codes_dequeue_row" ORDER BY "c"."id")
                        FILTER (WHERE "a"."id" IS NOT NULL), '{}'),
               count(*) FILTER (WHERE "a"."id" IS NULL)
        INTO v$rows, v$dropped
        FROM "claimed" AS "c"
        LEFT JOIN "archived" AS "a" ON "a"."id" = "c"."id";
        RETURN QUERY SELECT * FROM pg_catalog.unnest(v$rows);
        v$want := v$want - pg_catalog.cardinality(v$rows);
        EXIT WHEN v$dropped = 0 OR v$want <= 0;
    END LOOP;
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_dequeue" OWNER TO "cards_owner";
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
    "lowest_pending_id" bigint,
    "completed_last_minute" bigint,
    "watermark_lag" bigint,
    "paused" boolean
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
        (SELECT count(*) FROM "cards"."card_codes_dead"),
        (SELECT count(*) FROM "cards"."card_codes_archive"),
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE 1 = 1)))::bigint, 0),
        NULL::bigint,
        min("job"."id") FILTER (WHERE 1 = 1),
        (SELECT count(*) FROM "cards"."card_codes_archive" AS "a" WHERE "a"."completed_at" >= now() - interval '1 minute'),
        NULL::bigint,
        NOT EXISTS (SELECT 1 FROM "cards"."card_codes_control" AS "c" WHERE NOT "c"."paused")
    FROM "cards"."card_codes" AS "job";
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_metrics" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek cards.card_codes_peek, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
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
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "card_codes_peek"."limit" IS NULL OR "card_codes_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for cards.card_codes_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "cards"."card_codes_pending" AS "p"
    ORDER BY "p"."id"
    LIMIT "card_codes_peek"."limit";
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_peek" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_peek" FROM PUBLIC;

-- qgen 0.1.0: purge_batch cards.card_codes_purge_batch, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds: at most batch_size rows (1000 by default, refused above 4000) over all
-- those tables together, in the caller's transaction. purge (a procedure) calls it in a loop and
-- commits after each batch; a client can call it in a loop of its own, one transaction per call.
CREATE OR REPLACE FUNCTION "cards"."card_codes_purge_batch"
(
    "older_than_seconds" integer DEFAULT 31536000,
    "batch_size" integer DEFAULT 1000
)
RETURNS TABLE ("archived" integer, "processed" integer, "dead" integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$cutoff timestamptz;
    v$left integer := "card_codes_purge_batch"."batch_size";
    v$deleted integer;
BEGIN
    IF "card_codes_purge_batch"."batch_size" IS NULL OR "card_codes_purge_batch"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("card_codes_purge_batch"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF "card_codes_purge_batch"."older_than_seconds" IS NULL OR "card_codes_purge_batch"."older_than_seconds" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: older_than_seconds ' || coalesce("card_codes_purge_batch"."older_than_seconds"::text, 'NULL') || ' is out of range; accepted: 0 or more';
    END IF;
    v$cutoff := now() - pg_catalog.make_interval(secs => "card_codes_purge_batch"."older_than_seconds");
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    IF v$left > 0 THEN
        DELETE FROM "cards"."card_codes_archive" AS "x"
        WHERE "x"."entry_id" = ANY (ARRAY(
            SELECT "y"."entry_id" FROM "cards"."card_codes_archive" AS "y"
            WHERE "y"."completed_at" < v$cutoff
            LIMIT v$left
            FOR UPDATE SKIP LOCKED));
        GET DIAGNOSTICS v$deleted = ROW_COUNT;
        "archived" := v$deleted;
        v$left := v$left - v$deleted;
    END IF;
    IF v$left > 0 THEN
        DELETE FROM "cards"."card_codes_dead" AS "x"
        WHERE "x"."entry_id" = ANY (ARRAY(
            SELECT "y"."entry_id" FROM "cards"."card_codes_dead" AS "y"
            WHERE "y"."dead_at" < v$cutoff
            LIMIT v$left
            FOR UPDATE SKIP LOCKED));
        GET DIAGNOSTICS v$deleted = ROW_COUNT;
        "dead" := v$deleted;
        v$left := v$left - v$deleted;
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_purge_batch" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_purge_batch" FROM PUBLIC;

-- qgen 0.1.0: purge cards.card_codes_purge, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds, one batch of at most batch_size rows at a time, and COMMITs after each batch:
-- no transaction holds more than one batch, and vacuum can clean up behind it while it runs.
-- Rows that finish while it runs (a second after it began) are left for the next purge, so it ends.
-- A procedure that commits cannot be SECURITY DEFINER nor have a SET clause: it runs with its
-- caller's rights and reaches the tables only through card_codes_purge_batch (EXECUTE on that is all it
-- needs); every name in it is schema-qualified. CALL it outside a transaction block (inside one,
-- PostgreSQL refuses its COMMIT: invalid transaction termination, 2D000); there call
-- card_codes_purge_batch instead.
CREATE OR REPLACE PROCEDURE "cards"."card_codes_purge"
(
    "older_than_seconds" integer DEFAULT 31536000,
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
    "card_codes_purge"."archived" := 0;
    "card_codes_purge"."processed" := 0;
    "card_codes_purge"."dead" := 0;
    LOOP
        -- Each batch is a new transaction with a later now(): widen the age by the whole seconds
        -- spent so far, so the cutoff stays within a second of where it was when the call began.
        SELECT * INTO v$batch
        FROM "cards"."card_codes_purge_batch"(
            "card_codes_purge"."older_than_seconds" + pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - v$started))::integer,
            "card_codes_purge"."batch_size");
        "card_codes_purge"."archived" := "card_codes_purge"."archived" + v$batch."archived";
        "card_codes_purge"."processed" := "card_codes_purge"."processed" + v$batch."processed";
        "card_codes_purge"."dead" := "card_codes_purge"."dead" + v$batch."dead";
        COMMIT;
        -- A short batch: nothing older is left (or what is left is locked: the next purge takes it).
        EXIT WHEN v$batch."archived" + v$batch."processed" + v$batch."dead" < "card_codes_purge"."batch_size";
    END LOOP;
END
$qgen$;
ALTER PROCEDURE "cards"."card_codes_purge" OWNER TO "cards_owner";
REVOKE ALL ON PROCEDURE "cards"."card_codes_purge" FROM PUBLIC;

-- qgen 0.1.0: maintain cards.card_codes_maintain, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- batch_size finished jobs older than the retention (31536000 s), in that order, in one transaction. Only one runs at a
-- time per queue: a caller that finds another one running returns at once with skipped = true.
-- more = true when a step filled its batch: call again (qgen maintain does) to do the rest.
-- Granted to the consumer role, so any worker can run it (run_worker does, every few seconds).
CREATE OR REPLACE FUNCTION "cards"."card_codes_maintain"
(
    "batch_size" integer DEFAULT 1000
)
RETURNS TABLE
(
    "skipped" boolean,
    "released" integer,
    "dead_lettered" integer,
    "old_watermark" bigint,
    "new_watermark" bigint,
    "archived" integer,
    "processed" integer,
    "dead" integer,
    "more" boolean
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "card_codes_maintain"."batch_size" IS NULL OR "card_codes_maintain"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("card_codes_maintain"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    "released" := 0;
    "dead_lettered" := 0;
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    -- One at a time (see the macro maintain_lock). The lock is the transaction's: it goes with the
    -- commit or the rollback, whatever happens.
    BEGIN
        LOCK TABLE "cards"."card_codes" IN SHARE UPDATE EXCLUSIVE MODE NOWAIT;
    EXCEPTION WHEN lock_not_available THEN
        "skipped" := TRUE;
        "more" := FALSE;
        RETURN NEXT;
        RETURN;
    END;
    "skipped" := FALSE;
    -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
    SELECT "p"."archived", "p"."processed", "p"."dead" INTO "archived", "processed", "dead"
    FROM "cards"."card_codes_purge_batch"(31536000, "card_codes_maintain"."batch_size") AS "p";
    "more" := "archived" + "processed" + "dead" >= "card_codes_maintain"."batch_size"
              OR "released" + "dead_lettered" >= least("card_codes_maintain"."batch_size", 1000);
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_maintain" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_maintain" FROM PUBLIC;

-- qgen 0.1.0: dead_letters cards.card_codes_dead_letters, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first (the order they arrived in: the key backwards, which stops after
-- "limit" rows), with the error each died of: at most "limit" rows (1 to 1000). Reads only: a plain snapshot read, which takes no row lock, never waits on
-- one and makes no fail, reap, redrive or purge wait. "limit" is a reserved word: by name it is
-- passed as "limit" => n.
CREATE OR REPLACE FUNCTION "cards"."card_codes_dead_letters"
(
    "limit" integer DEFAULT 100
)
RETURNS TABLE
(
    "id" bigint,
    "card_number" varchar(32),
    "card_secret" varchar(64),
    "enqueued_at" timestamptz,
    "attempts" integer,
    "dead_at" timestamptz,
    "last_error" text
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "card_codes_dead_letters"."limit" IS NULL OR "card_codes_dead_letters"."limit" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit ' || coalesce("card_codes_dead_letters"."limit"::text, 'NULL') || ' is out of range for cards.card_codes_dead_letters; accepted: 1 to 1000 rows';
    END IF;
    RETURN QUERY
    SELECT "x"."id", "x"."card_number", "x"."card_secret", "x"."enqueued_at", "x"."attempts", "x"."dead_at",
        "x"."last_error"::text
    FROM "cards"."card_codes_dead" AS "x"
    ORDER BY "x"."entry_id" DESC
    LIMIT "card_codes_dead_letters"."limit";
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_dead_letters" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_dead_letters" FROM PUBLIC;

-- qgen 0.1.0: job cards.card_codes_job, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One job's state by id, wherever it is: queued, scheduled (delayed, or backing off after a failure),
-- in_flight (leased: lease_expires_at, lease_owner), processed (on_complete: mark), archived, dead (with
-- last_error), or not_found. Reads only, one row always: plain snapshot reads, which take no row
-- lock, never wait on one and make no worker wait. It looks where a job goes in the order it goes
-- there (the queue table, then the dead letters, then the archive), one statement each: a job that
-- moves meanwhile is found where it arrived (each statement's snapshot is at least as new as the
-- one before), never missed. A job a delete-mode claim holds in an open transaction is still
-- queued here (the last committed state). The archive has no index on id (every completion would
-- pay for one): it is read from its newest entry back.
CREATE OR REPLACE FUNCTION "cards"."card_codes_job"
(
    "job_id" bigint
)
RETURNS TABLE
(
    "id" bigint,
    "state" text,
    "enqueued_at" timestamptz,
    "attempts" integer,
    "last_error" text,
    "finished_at" timestamptz
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "card_codes_job"."job_id" IS NULL OR "card_codes_job"."job_id" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: job_id ' || coalesce("card_codes_job"."job_id"::text, 'NULL') || ' is out of range for cards.card_codes_job; accepted: a job id, 1 or more';
    END IF;
    RETURN QUERY
    SELECT "j"."id", 'queued'::text,
        "j"."enqueued_at",
        NULL::integer,
        NULL::text, NULL::timestamptz
    FROM "cards"."card_codes" AS "j"
    WHERE "j"."id" = "card_codes_job"."job_id";
    IF FOUND THEN
        RETURN;
    END IF;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is restarted.
    RETURN QUERY
    SELECT "x"."id", 'dead'::text, "x"."enqueued_at", "x"."attempts",
        "x"."last_error"::text, "x"."dead_at"
    FROM "cards"."card_codes_dead" AS "x"
    WHERE "x"."id" = "card_codes_job"."job_id"
    ORDER BY "x"."entry_id" DESC
    LIMIT 1;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "a"."id", 'archived'::text, "a"."enqueued_at", NULL::integer,
        NULL::text, "a"."completed_at"
    FROM "cards"."card_codes_archive" AS "a"
    WHERE "a"."id" = "card_codes_job"."job_id"
    ORDER BY "a"."entry_id" DESC
    LIMIT 1;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "card_codes_job"."job_id", 'not_found'::text, NULL::timestamptz, NULL::integer,
        NULL::text, NULL::timestamptz;
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_job" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_job" FROM PUBLIC;

-- qgen 0.1.0: pause cards.card_codes_pause, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job. Enqueues go on, and leases already granted run to their end (complete, fail,
-- extend_lease, release and reap work as before). Returns 1 when this call paused the queue, 0
-- when it was paused already.
CREATE OR REPLACE FUNCTION "cards"."card_codes_pause"()
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '5s'
AS $qgen$
#variable_conflict use_column
DECLARE
    v$was boolean;
BEGIN
    SELECT "c"."paused" INTO v$was FROM "cards"."card_codes_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "cards"."card_codes_control" ("paused", "changed_at", "changed_by")
        VALUES (TRUE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "cards"."card_codes_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = TRUE THEN
        RETURN 0;
    END IF;
    UPDATE "cards"."card_codes_control" AS "c"
    SET "paused" = TRUE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on cards.card_codes: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_pause" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_pause" FROM PUBLIC;

-- qgen 0.1.0: resume cards.card_codes_resume, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again. Returns 1 when this call
-- resumed the queue, 0 when it was not paused.
CREATE OR REPLACE FUNCTION "cards"."card_codes_resume"()
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '5s'
AS $qgen$
#variable_conflict use_column
DECLARE
    v$was boolean;
BEGIN
    SELECT "c"."paused" INTO v$was FROM "cards"."card_codes_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "cards"."card_codes_control" ("paused", "changed_at", "changed_by")
        VALUES (FALSE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "cards"."card_codes_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = FALSE THEN
        RETURN 0;
    END IF;
    UPDATE "cards"."card_codes_control" AS "c"
    SET "paused" = FALSE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on cards.card_codes: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_resume" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_resume" FROM PUBLIC;

-- qgen 0.1.0: cancel cards.card_codes_cancel, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (ids; at most 4000): each job still in the queue leaves it at once, in
-- this one statement, into the dead-letter table with last_error 'cancelled', and never runs.
-- One row per distinct id, in id order, "outcome":
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   held: another open transaction holds it (a claim, or another cancel): SKIP LOCKED never waits
--     for it, nothing is done. If that transaction rolls back the job is queued again, and can be
--     cancelled then;
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order, as every other statement that locks several jobs does, so cancel
-- deadlocks with none of them, at most 5 s (then
-- refused, QG002: nothing done). At REPEATABLE READ or SERIALIZABLE it is refused (QG002): it would
-- answer from the transaction's snapshot, which does not show a job enqueued since, and say
-- not_queued of a job that then runs.
CREATE OR REPLACE FUNCTION "cards"."card_codes_cancel"
(
    "ids" bigint[]
)
RETURNS TABLE ("id" bigint, "outcome" text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '5s'
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "card_codes_cancel"."ids" IS NULL OR EXISTS (SELECT 1 FROM pg_catalog.unnest("card_codes_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NULL OR "a"."id" < 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: ids must be an array of job ids (whole numbers from 1)';
    END IF;
    IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on cards.card_codes: cancel at REPEATABLE READ or SERIALIZABLE would answer from the transaction''s snapshot, which does not show a job enqueued since (it would say not_queued of a job that then runs); run it at READ COMMITTED';
    END IF;
    IF (SELECT count(DISTINCT "a"."id") FROM pg_catalog.unnest("card_codes_cancel"."ids") AS "a" ("id")) > 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: ids lists more than 4000 jobs; accepted: 1 to 4000 per call';
    END IF;
    RETURN QUERY
    WITH "asked" AS
    (
        SELECT DISTINCT "a"."id" FROM pg_catalog.unnest("card_codes_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NOT NULL
    ),
    "found" AS
    (
        -- The rows by their id, locked (SKIP LOCKED: a claim's open transaction is never waited for).
        SELECT "job"."id"
        FROM "cards"."card_codes" AS "job"
        WHERE "job"."id" IN (SELECT "a"."id" FROM "asked" AS "a")
        ORDER BY "job"."id"
        FOR UPDATE SKIP LOCKED
    ),
    "gone" AS
    (
        DELETE FROM "cards"."card_codes" AS "job"
        USING "found" AS "f"
        WHERE "job"."id" = "f"."id"
        RETURNING "job".*
    ),
    "dead" AS
    (
        INSERT INTO "cards"."card_codes_dead" ("id", "card_number", "card_secret", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."card_number", "g"."card_secret", "g"."enqueued_at", 0, 'cancelled', pg_catalog.clock_timestamp()
        FROM "gone" AS "g"
    )
    SELECT "a"."id",
        CASE
             WHEN "g"."id" IS NOT NULL THEN 'cancelled'
             -- Skipped above: another open transaction holds it.
             WHEN EXISTS (SELECT 1 FROM "cards"."card_codes" AS "job" WHERE "job"."id" = "a"."id") THEN 'held'
             ELSE 'not_queued' END
    FROM "asked" AS "a"
    -- What the DELETE took out: the outcome is what happened, not what was found.
    LEFT JOIN "gone" AS "g" ON "g"."id" = "a"."id"
    ORDER BY "a"."id";
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on cards.card_codes: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again';
END
$qgen$;
ALTER FUNCTION "cards"."card_codes_cancel" OWNER TO "cards_owner";
REVOKE ALL ON FUNCTION "cards"."card_codes_cancel" FROM PUBLIC;

-- qgen 0.1.0: grants to roles cards_producer, cards_consumer, cards_admin, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "cards" TO "cards_producer", "cards_consumer", "cards_admin";
GRANT EXECUTE ON FUNCTION "cards"."card_codes_enqueue", "cards"."card_codes_enqueue_batch" TO "cards_producer";
GRANT USAGE ON TYPE "cards"."card_codes_batch" TO "cards_producer";
GRANT EXECUTE ON FUNCTION "cards"."card_codes_dequeue" TO "cards_consumer";
GRANT USAGE ON TYPE "cards"."card_codes_dequeue_row" TO "cards_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "cards"."card_codes_maintain" TO "cards_consumer";
GRANT SELECT ON "cards"."card_codes_pending" TO "cards_admin";
-- Admins run every function (and the worker procedure) qgen created, and nothing else: each by
-- name, never ALL ROUTINES IN SCHEMA, which in a shared schema would reach the application's too.
GRANT EXECUTE ON ROUTINE "cards"."card_codes_enqueue" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_enqueue_batch" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_dequeue" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_metrics" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_peek" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_purge_batch" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_purge" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_maintain" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_dead_letters" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_job" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_pause" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_resume" TO "cards_admin";
GRANT EXECUTE ON ROUTINE "cards"."card_codes_cancel" TO "cards_admin";

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
