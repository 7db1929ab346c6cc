-- qgen 0.1.0: every object of spec.yaml, for PostgreSQL, in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema qgreview, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgreview_owner owns every object qgen creates here, and cannot log in: the SECURITY DEFINER
-- functions run with its rights (its own tables and nothing else), not with those of whoever ran
-- install. The schema and the role are marked (COMMENT) when install creates them: uninstall drops
-- only what carries the mark.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'qgreview_owner') THEN
        CREATE ROLE "qgreview_owner" NOLOGIN;
        COMMENT ON ROLE "qgreview_owner" IS 'qgen: created by the install of schema qgreview';
    ELSIF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'qgreview_owner' AND (rolcanlogin OR rolsuper)) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG022',
            MESSAGE = 'qgen: role qgreview_owner exists and can log in or is a superuser; qgen''s SECURITY DEFINER functions run as this role',
            HINT = 'Make it NOLOGIN NOSUPERUSER, or drop it and let install create it.';
    END IF;
    -- Whoever installs creates the objects and hands them to the owner (ALTER ... OWNER TO), which
    -- takes membership of it unless it is a superuser.
    IF NOT pg_catalog.pg_has_role(current_user, 'qgreview_owner', 'MEMBER') THEN
        GRANT "qgreview_owner" TO CURRENT_USER;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'qgreview') THEN
        CREATE SCHEMA "qgreview";
        COMMENT ON SCHEMA "qgreview" IS 'qgen: created by the install of schema qgreview';
    END IF;
END
$qgen$;
GRANT USAGE, CREATE ON SCHEMA "qgreview" TO "qgreview_owner";

-- qgen 0.1.0: roles qgreview_producer, qgreview_consumer, qgreview_admin (cluster-wide), rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing,
-- and mark the ones install creates (COMMENT): uninstall drops only those, never a role that was
-- there before and that the spec only names.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'qgreview_producer') THEN
        CREATE ROLE "qgreview_producer" NOLOGIN;
        COMMENT ON ROLE "qgreview_producer" IS 'qgen: created by the install of schema qgreview';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'qgreview_consumer') THEN
        CREATE ROLE "qgreview_consumer" NOLOGIN;
        COMMENT ON ROLE "qgreview_consumer" IS 'qgen: created by the install of schema qgreview';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'qgreview_admin') THEN
        CREATE ROLE "qgreview_admin" NOLOGIN;
        COMMENT ON ROLE "qgreview_admin" IS 'qgen: created by the install of schema qgreview';
    END IF;
END
$qgen$;

-- qgen 0.1.0: table qgreview.prio, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Storage fit for a queue table, whose rows are inserted, updated (leased, released) and deleted all day:
-- fillfactor 85: room on each page, so that a release or a retry can put the new row version next
--   to the old one.
-- autovacuum_vacuum_scale_factor 0.01 (default 0.2): vacuum once 1% of the rows are dead, not 20%:
--   on a queue with a backlog, dead entries at the head of the claim index are what every claim
--   walks through, and 20% of a million-row backlog is 200,000 of them.
-- autovacuum_vacuum_threshold 1000 (default 50): but on a nearly empty queue, not after every 50
--   deleted jobs: a few vacuums a minute at most on a busy small queue.
-- autovacuum_analyze_scale_factor 0.02 (default 0.1): the row count swings with the backlog; keep
--   the statistics the planner sees close to it.
CREATE TABLE IF NOT EXISTS "qgreview"."prio"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "n" integer NOT NULL,
    "priority" integer NOT NULL DEFAULT 0,
    "available_at" timestamptz NOT NULL DEFAULT now(),
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    "attempts" integer NOT NULL DEFAULT 0,
    "lease_token" uuid NULL,
    "lease_owner" varchar(128) NULL,
    "lease_expires_at" timestamptz NULL,
    "last_error" varchar(4000) NULL,
    PRIMARY KEY ("id")
)
WITH (fillfactor = 85, autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
      autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "qgreview"."prio" OWNER TO "qgreview_owner";

-- qgen 0.1.0: claim_index qgreview.prio_claim_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
CREATE INDEX IF NOT EXISTS "prio_claim_ix"
    ON "qgreview"."prio" ("priority" DESC, "id")
    WHERE "lease_token" IS NULL
    ;

-- qgen 0.1.0: lease_index qgreview.prio_lease_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
CREATE INDEX IF NOT EXISTS "prio_lease_ix"
    ON "qgreview"."prio" ("lease_token") INCLUDE ("lease_expires_at", "attempts")
    WHERE "lease_token" IS NOT NULL;

-- qgen 0.1.0: priority_marks qgreview.prio_marks, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: a priority queue's claim marks, the watermark of each priority. In the priority
-- "priorities[k]", no job below the id "ids[k]" needs a claim's look: each was claimed or is gone
-- (completed, deleted), and the rescan finds what a mark passed (see dequeue). A claim seeks the
-- claim index at (priority, mark) instead of walking the dead index entries that claimed and
-- completed rows leave at the head of each priority until VACUUM. A priority without a mark is
-- claimed from its first id. Sorted by priority, highest first, as claims visit them.
CREATE TABLE IF NOT EXISTS "qgreview"."prio_marks"
(
    "priorities" integer[] NOT NULL DEFAULT '{}',
    "ids" bigint[] NOT NULL DEFAULT '{}',
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    -- When the table was last searched below the marks (by a dequeue's rescan): a dequeue rescans
    -- when this is watermark.rescan (2 s) old.
    "corrected_at" timestamptz NOT NULL DEFAULT '-infinity',
    PRIMARY KEY ("one_row")
);
ALTER TABLE "qgreview"."prio_marks" OWNER TO "qgreview_owner";
INSERT INTO "qgreview"."prio_marks" ("one_row") VALUES (TRUE) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dead_letter_table qgreview.prio_dead, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs that used up their attempts, kept with their last error until purged. Keyed by an identity
-- of its own: "id" is the job's id, which repeats once the queue's identity is restarted.
CREATE TABLE IF NOT EXISTS "qgreview"."prio_dead"
(
    "entry_id" bigint GENERATED ALWAYS AS IDENTITY,
    "id" bigint NOT NULL,
    "n" integer NOT NULL,
    "priority" integer NOT NULL,
    "enqueued_at" timestamptz NOT NULL,
    "attempts" integer NOT NULL,
    "last_error" varchar(4000) NULL,
    "dead_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("entry_id")
);
ALTER TABLE "qgreview"."prio_dead" OWNER TO "qgreview_owner";

-- qgen 0.1.0: dead_letter_index qgreview.prio_dead_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes dead letters by age: it finds the old ones here instead of scanning the table.
CREATE INDEX IF NOT EXISTS "prio_dead_ix"
    ON "qgreview"."prio_dead" ("dead_at");
-- redrive by ids names jobs by their id: it seeks them here instead of scanning every dead letter
-- (under UPDLOCK on SQL Server, which would lock its way through the whole table).
CREATE INDEX IF NOT EXISTS "prio_dead_id_ix"
    ON "qgreview"."prio_dead" ("id");

-- qgen 0.1.0: pending_view qgreview.prio_pending, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "qgreview"."prio_pending" AS
SELECT "job"."id", "job"."n", "job"."priority", "job"."available_at", "job"."enqueued_at", "job"."attempts", "job"."last_error"
FROM "qgreview"."prio" AS "job"
WHERE "job"."lease_token" IS NULL;
ALTER VIEW "qgreview"."prio_pending" OWNER TO "qgreview_owner";

-- qgen 0.1.0: batch_type qgreview.prio_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) and priority (0) when missing, and the table rejects a missing required column.
-- Its string and decimal fields have no length or scale (m.param_type): reading a job into
-- varchar(n) or numeric(p,s) would cut or round a value past its column before enqueue_batch
-- could refuse it (QG010).
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"qgreview"."prio_batch"') IS NULL THEN
        CREATE TYPE "qgreview"."prio_batch" AS
        (
            "ordinal" integer,
            "n" integer,
            "priority" integer
        );
    END IF;
END
$qgen$;
ALTER TYPE "qgreview"."prio_batch" OWNER TO "qgreview_owner";

-- qgen 0.1.0: enqueue qgreview.prio_enqueue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "qgreview"."prio_enqueue"
(
    "n" integer,
    "priority" integer DEFAULT 0
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        INSERT INTO "qgreview"."prio" AS "job" ("n", "priority")
        VALUES ("prio_enqueue"."n", "prio_enqueue"."priority")
        RETURNING "job"."id", TRUE;
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_enqueue" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_enqueue" FROM PUBLIC;

-- qgen 0.1.0: enqueue_batch qgreview.prio_enqueue_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job.
CREATE OR REPLACE FUNCTION "qgreview"."prio_enqueue_batch"
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
    v$sequence regclass := pg_catalog.pg_get_serial_sequence('"qgreview"."prio"', 'id')::regclass;
BEGIN

    RETURN QUERY
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "e"."position$"::integer) AS "ordinal",
                   "j"."n", coalesce("j"."priority", 0) AS "priority"
            -- The array position and the new id are qgen's own columns beside the job's: their names
            -- hold a $, which no spec column can.
            FROM jsonb_array_elements("prio_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
            CROSS JOIN LATERAL jsonb_populate_record(NULL::"qgreview"."prio_batch", "e"."job$") AS "j"
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
            INSERT INTO "qgreview"."prio" AS "job" ("id", "n", "priority")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new$id", "n"."n", "n"."priority"
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal", "n"."new$id", TRUE
        FROM "numbered" AS "n"
        ORDER BY "n"."ordinal";
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_enqueue_batch" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: control_table qgreview.prio_control, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which role). Every
-- claim reads it first (a plain read: a pause or resume counts from its commit, and no claim waits
-- on one left open). A missing row (deleted by hand) reads as running.
CREATE TABLE IF NOT EXISTS "qgreview"."prio_control"
(
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    "paused" boolean NOT NULL DEFAULT FALSE,
    "changed_at" timestamptz NULL,
    "changed_by" varchar(128) NULL,
    PRIMARY KEY ("one_row")
);
ALTER TABLE "qgreview"."prio_control" OWNER TO "qgreview_owner";
INSERT INTO "qgreview"."prio_control" ("paused") VALUES (FALSE) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dequeue qgreview.prio_dequeue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"qgreview"."prio_dequeue_row"') IS NULL THEN
        CREATE TYPE "qgreview"."prio_dequeue_row" AS
        (
            "id" bigint,
            "n" integer,
            "priority" integer,
            "attempts" integer,
            "lease_token" uuid,
            "lease_expires_at" timestamptz
        );
    END IF;
END
$qgen$;
ALTER TYPE "qgreview"."prio_dequeue_row" OWNER TO "qgreview_owner";
-- Claims up to batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With complete_lease_token it first completes that lease's jobs as complete(token) does, in the
-- same transaction: one commit per batch instead of two. A token that holds no job raises QG001
-- and nothing is claimed.
CREATE OR REPLACE FUNCTION "qgreview"."prio_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 5,
    "lease_seconds" integer DEFAULT 60,
    "complete_lease_token" uuid DEFAULT NULL
)
RETURNS SETOF "qgreview"."prio_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 5
AS $qgen$
#variable_conflict use_column
DECLARE
    v$token uuid := gen_random_uuid();
    v$completed integer;
    v$job "qgreview"."prio_dequeue_row";
    -- The marks (priorities highest first, and each one's mark), read as the dequeue starts.
    v$prios integer[];
    v$marks bigint[];
    v$rescan boolean;
    v$searched timestamptz;
    v$count integer;
    v$left integer := "prio_dequeue"."batch_size";
    -- The segment claimed from: priorities v$lowest_band to v$highest_band, ids from v$from.
    v$lowest_band integer;
    v$highest_band integer;
    v$lowest_wide bigint;
    v$highest_wide bigint;
    v$from bigint;
    -- The priorities claimed from, and the highest id claimed in each (jobs come back in queue
    -- order): v$claimed of them.
    v$bands integer[];
    v$tops bigint[];
    v$claimed integer := 0;
    v$band integer;
    v$top bigint;
    v$cur bigint;
    v$lowest bigint;
BEGIN
    IF "prio_dequeue"."batch_size" IS NULL OR "prio_dequeue"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for qgreview.prio_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("prio_dequeue"."batch_size"::text, 'NULL'));
    END IF;
    IF pg_catalog.length("prio_dequeue"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in qgreview.prio_dequeue; accepted: string(128), at most 128 characters';
    END IF;
    IF "prio_dequeue"."lease_seconds" IS NULL OR "prio_dequeue"."lease_seconds" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: lease_seconds ' || coalesce("prio_dequeue"."lease_seconds"::text, 'NULL') || ' is out of range; accepted: 1 or more seconds';
    END IF;
    IF "prio_dequeue"."complete_lease_token" IS NOT NULL THEN
        DELETE FROM "qgreview"."prio" AS "job"
        WHERE "job"."lease_token" = "prio_dequeue"."complete_lease_token";
        GET DIAGNOSTICS v$completed = ROW_COUNT;
        IF v$completed = 0 THEN
            RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgreview.prio: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
        END IF;
    END IF;
    -- Paused (pause, resume): complete what was asked, claim nothing.
    IF NOT EXISTS (SELECT 1 FROM "qgreview"."prio_control" AS "c" WHERE NOT "c"."paused") THEN
        RETURN;
    END IF;
    -- Read the marks; every 2 s, look below them first for jobs they passed (see the macro marks_start).
    SELECT "w"."priorities", "w"."ids", "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 2) INTO v$prios, v$marks, v$rescan FROM "qgreview"."prio_marks" AS "w";
    IF NOT FOUND THEN
        INSERT INTO "qgreview"."prio_marks" ("one_row") VALUES (TRUE) ON CONFLICT DO NOTHING;
    ELSIF v$rescan AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        SELECT pg_catalog.clock_timestamp() INTO v$searched
        FROM "qgreview"."prio_marks" AS "w" WHERE "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 2) FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            -- A statement of its own: its snapshot is taken after the lock (see postgres__watermark_start).
            UPDATE "qgreview"."prio_marks" AS "w"
            SET "corrected_at" = v$searched,
                "ids" = coalesce((SELECT pg_catalog.array_agg(CASE WHEN "s"."lowest" IS NULL THEN "u"."id"
                                                                   ELSE least("u"."id", greatest("s"."lowest" - 2, 0)) END
                                                              ORDER BY "u"."k")
                                  FROM ROWS FROM (pg_catalog.unnest("w"."priorities"), pg_catalog.unnest("w"."ids")) WITH ORDINALITY AS "u"("priority", "id", "k")
                                  LEFT JOIN LATERAL (SELECT min("job"."id") AS "lowest"
                                                     FROM "qgreview"."prio" AS "job"
                                                     WHERE "job"."priority" = "u"."priority" AND "job"."id" < "u"."id"
                                                       AND "job"."lease_token" IS NULL) AS "s" ON TRUE), '{}')
            RETURNING "w"."priorities", "w"."ids" INTO v$prios, v$marks;
        END IF;
    END IF;
    v$count := coalesce(pg_catalog.cardinality(v$prios), 0);
    FOR v$segment IN 0 .. 2 * v$count LOOP
        EXIT WHEN v$left <= 0;
        IF v$segment % 2 = 1 THEN
            v$lowest_band := v$prios[(v$segment + 1) / 2];
            v$highest_band := v$lowest_band;
            v$from := v$marks[(v$segment + 1) / 2];
        ELSE
            -- Bigint arithmetic: a mark at the integer's end leaves an empty run beside it.
            v$lowest_wide := CASE WHEN v$segment = 2 * v$count THEN -2147483648 ELSE v$prios[v$segment / 2 + 1]::bigint + 1 END;
            v$highest_wide := CASE WHEN v$segment = 0 THEN 2147483647 ELSE v$prios[v$segment / 2]::bigint - 1 END;
            CONTINUE WHEN v$lowest_wide > v$highest_wide;
            v$lowest_band := v$lowest_wide;
            v$highest_band := v$highest_wide;
            v$from := 0;
        END IF;
        FOR v$job IN
            WITH "claimed" AS
            (
                UPDATE "qgreview"."prio" AS "job"
                SET "lease_token" = v$token,
                    "lease_owner" = "prio_dequeue"."owner",
                    "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "prio_dequeue"."lease_seconds"),
                    "attempts" = "job"."attempts" + 1
                -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
                -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
                WHERE "job"."id" = ANY (ARRAY
                (
                    SELECT "next"."id"
                    FROM "qgreview"."prio" AS "next"
                    WHERE "next"."lease_token" IS NULL AND "next"."available_at" <= now()
                      -- A run of priorities as a range on the claim index's priority key, inclusive at both ends:
                      -- the index seeks (priority, from) where the run is one priority (its mark).
                      AND "next"."priority" >= v$lowest_band
                      AND "next"."priority" <= v$highest_band
                      -- Below the priority's mark every row is claimed or gone: start the index range there.
                      AND "next"."id" >= v$from
                    ORDER BY "next"."priority" DESC, "next"."id"
                    LIMIT v$left
                    FOR UPDATE SKIP LOCKED
                ))
                RETURNING "job"."id", "job"."n", "job"."priority", "job"."attempts", "job"."lease_token", "job"."lease_expires_at"
            )
            SELECT "c"."id", "c"."n", "c"."priority", "c"."attempts", "c"."lease_token", "c"."lease_expires_at"
            FROM "claimed" AS "c"
            ORDER BY "c"."priority" DESC, "c"."id"
        LOOP
            IF v$job."priority" IS DISTINCT FROM v$bands[v$claimed] THEN
                v$claimed := v$claimed + 1;
                v$bands[v$claimed] := v$job."priority";
            END IF;
            v$tops[v$claimed] := v$job."id";
            v$left := v$left - 1;
            RETURN NEXT v$job;
        END LOOP;
    END LOOP;
    FOR v$k IN 1 .. v$claimed LOOP
        v$band := v$bands[v$k];
        v$top := v$tops[v$k];
        v$cur := coalesce(v$marks[pg_catalog.array_position(v$prios, v$band)], 0);
        IF v$top - v$cur >= 12 AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted')
           AND NOT EXISTS (SELECT 1 FROM "qgreview"."prio" AS "job"
                           WHERE "job"."id" = v$cur AND "job"."priority" = v$band AND "job"."lease_token" IS NULL) THEN
            SELECT coalesce("w"."ids"[pg_catalog.array_position("w"."priorities", v$band)], 0) INTO v$cur
            FROM "qgreview"."prio_marks" AS "w" FOR UPDATE SKIP LOCKED;
            IF FOUND AND v$cur < v$top - 2 THEN
                SELECT min("job"."id") INTO v$lowest
                FROM "qgreview"."prio" AS "job"
                WHERE "job"."priority" = v$band AND "job"."id" >= v$cur AND "job"."id" < v$top - 2
                  AND "job"."lease_token" IS NULL;
                UPDATE "qgreview"."prio_marks" AS "w"
                SET ("priorities", "ids") =
                    (SELECT pg_catalog.array_agg("x"."priority" ORDER BY "x"."priority" DESC),
                            pg_catalog.array_agg("x"."id" ORDER BY "x"."priority" DESC)
                     FROM (SELECT "u"."priority",
                                  CASE WHEN "u"."priority" = v$band
                                       THEN greatest("u"."id", coalesce(v$lowest, v$top - 2)) ELSE "u"."id" END
                           FROM ROWS FROM (pg_catalog.unnest("w"."priorities"), pg_catalog.unnest("w"."ids")) AS "u"("priority", "id")
                           UNION ALL
                           SELECT v$band, coalesce(v$lowest, v$top - 2)
                           WHERE pg_catalog.array_position("w"."priorities", v$band) IS NULL) AS "x"("priority", "id"));
            END IF;
        END IF;
    END LOOP;
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_dequeue" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_dequeue" FROM PUBLIC;

-- qgen 0.1.0: complete qgreview.prio_complete, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: deletes them. With id, only that job; without, every job of
-- the lease. The token is the fence: a worker whose lease was released or taken over gets QG001.
CREATE OR REPLACE FUNCTION "qgreview"."prio_complete"
(
    "lease_token" uuid,
    "id" bigint DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$completed integer;
BEGIN
    IF "prio_complete"."id" IS NULL THEN
        DELETE FROM "qgreview"."prio" AS "job"
        WHERE "job"."lease_token" = "prio_complete"."lease_token";
        GET DIAGNOSTICS v$completed = ROW_COUNT;
    ELSE
        DELETE FROM "qgreview"."prio" AS "job"
        WHERE "job"."id" = "prio_complete"."id" AND "job"."lease_token" = "prio_complete"."lease_token";
        GET DIAGNOSTICS v$completed = ROW_COUNT;
    END IF;
    IF v$completed = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgreview.prio: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$completed;
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_complete" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_complete" FROM PUBLIC;

-- qgen 0.1.0: fail qgreview.prio_fail, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 5) and retry it is released for
-- another try after a backoff (returns 0); otherwise it goes to the dead-letter table (returns 1).
CREATE OR REPLACE FUNCTION "qgreview"."prio_fail"
(
    "lease_token" uuid,
    "id" bigint,
    "error" varchar(4000) DEFAULT NULL,
    "retry" boolean DEFAULT TRUE
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    -- The error text is cut to its column's 4000 characters here, on purpose and never
    -- refused: a worker reports an exception whose text it does not control (a stack trace runs to
    -- many thousands), and a failure that could not be recorded would leave the job leased until
    -- its lease ran out, to be retried with no error kept (docs/api.md, "Values past a column's
    -- limit"). PostgreSQL ignores the parameter's declared length; the insert into varchar(4000)
    -- would refuse a longer text (22001) and cut trailing spaces past it.
    v$error text := pg_catalog.left("prio_fail"."error", 4000);
    v$gone integer;
    v$band integer;
BEGIN
    -- NULL is not "no retry": refused, so a caller passing an unset flag does not dead-letter the job.
    IF "prio_fail"."retry" IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: retry NULL is out of range; accepted: true or false';
    END IF;
    IF "prio_fail"."retry" THEN
        UPDATE "qgreview"."prio" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL,
            "last_error" = v$error,
            "available_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => least(3600::float8, 10 * power(2::float8, least("job"."attempts" - 1, 60))))
        WHERE "job"."id" = "prio_fail"."id" AND "job"."lease_token" = "prio_fail"."lease_token"
          AND "job"."attempts" < 5
        RETURNING "job"."priority" INTO v$band;
        IF FOUND THEN
            -- The job is claimable again: its priority's mark must not stay above it.
            IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
                FOR v$try IN 1 .. 5 LOOP
                    PERFORM 1 FROM "qgreview"."prio_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$band)] > "prio_fail"."id" FOR UPDATE SKIP LOCKED;
                    IF FOUND THEN
                        UPDATE "qgreview"."prio_marks" AS "w" SET "ids"[pg_catalog.array_position("w"."priorities", v$band)] = "prio_fail"."id"
                        WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$band)] > "prio_fail"."id";
                        EXIT;
                    END IF;
                    -- Not taken: either nothing to lower, or another transaction holds the row.
                    EXIT WHEN NOT EXISTS (SELECT 1 FROM "qgreview"."prio_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$band)] > "prio_fail"."id");
                    PERFORM pg_catalog.pg_sleep(0.01);
                END LOOP;
            END IF;
            RETURN 0;
        END IF;
    END IF;
    -- No retry (asked, or attempts used up), or the token does not hold the job: then nothing matches.
    WITH "gone" AS
    (
        DELETE FROM "qgreview"."prio" AS "job"
        WHERE "job"."id" = "prio_fail"."id" AND "job"."lease_token" = "prio_fail"."lease_token"
        RETURNING "job".*
    )
    INSERT INTO "qgreview"."prio_dead" ("id", "n", "priority", "enqueued_at", "attempts", "last_error", "dead_at")
    SELECT "g"."id", "g"."n", "g"."priority", "g"."enqueued_at", "g"."attempts", v$error, pg_catalog.clock_timestamp()
    FROM "gone" AS "g";
    GET DIAGNOSTICS v$gone = ROW_COUNT;
    IF v$gone = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgreview.prio: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN 1;
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_fail" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_fail" FROM PUBLIC;

-- qgen 0.1.0: extend_lease qgreview.prio_extend_lease, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire lease_seconds from now.
CREATE OR REPLACE FUNCTION "qgreview"."prio_extend_lease"
(
    "lease_token" uuid,
    "lease_seconds" integer DEFAULT 60,
    "id" bigint DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$extended integer;
BEGIN
    IF "prio_extend_lease"."lease_seconds" IS NULL OR "prio_extend_lease"."lease_seconds" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: lease_seconds ' || coalesce("prio_extend_lease"."lease_seconds"::text, 'NULL') || ' is out of range; accepted: 1 or more seconds';
    END IF;
    IF "prio_extend_lease"."id" IS NULL THEN
        UPDATE "qgreview"."prio" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "prio_extend_lease"."lease_seconds")
        WHERE "job"."lease_token" = "prio_extend_lease"."lease_token";
    ELSE
        UPDATE "qgreview"."prio" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "prio_extend_lease"."lease_seconds")
        WHERE "job"."id" = "prio_extend_lease"."id" AND "job"."lease_token" = "prio_extend_lease"."lease_token";
    END IF;
    GET DIAGNOSTICS v$extended = ROW_COUNT;
    IF v$extended = 0 THEN
        IF "prio_extend_lease"."id" IS NOT NULL AND EXISTS (SELECT 1 FROM "qgreview"."prio_dead" AS "d"
                                                          WHERE "d"."id" = "prio_extend_lease"."id" AND "d"."last_error" = 'cancelled') THEN
            RAISE EXCEPTION USING ERRCODE = 'QG006',
                MESSAGE = 'qgen: job cancelled on qgreview.prio: cancel took it out of the queue while its lease ran; stop working on it (its complete and fail are refused)';
        END IF;
RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgreview.prio: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$extended;
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_extend_lease" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_extend_lease" FROM PUBLIC;

-- qgen 0.1.0: reap qgreview.prio_reap, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- batch_size per call: those with attempts left become claimable again, with their old token
-- cleared so the late worker is fenced off; the rest are dead-lettered.
CREATE OR REPLACE FUNCTION "qgreview"."prio_reap"
(
    "batch_size" integer DEFAULT 1000
)
RETURNS TABLE ("released" integer, "dead_lettered" integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$lowest bigint;
    -- Each priority that had jobs released, and its lowest released id.
    v$bands integer[];
    v$lows bigint[];
BEGIN
    IF "prio_reap"."batch_size" IS NULL OR "prio_reap"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for qgreview.prio_reap; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("prio_reap"."batch_size"::text, 'NULL'));
    END IF;
    WITH "expired" AS
    (
        -- SKIP LOCKED: a job being completed right now is locked by its worker; leave it to finish.
        SELECT "job"."id", "job"."attempts"
        FROM "qgreview"."prio" AS "job"
        WHERE "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < pg_catalog.clock_timestamp()
        LIMIT "prio_reap"."batch_size"
        FOR UPDATE SKIP LOCKED
    ),
    "freed" AS
    (
        UPDATE "qgreview"."prio" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
            "last_error" = 'qgen: lease expired before the job was completed'
        FROM "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" < 5
        RETURNING "job"."id", "job"."priority"
    ),
    "gone" AS
    (
        DELETE FROM "qgreview"."prio" AS "job"
        USING "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" >= 5
        RETURNING "job".*
    ),
    "buried" AS
    (
        INSERT INTO "qgreview"."prio_dead" ("id", "n", "priority", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."n", "g"."priority", "g"."enqueued_at", "g"."attempts", 'qgen: lease expired on the last attempt', pg_catalog.clock_timestamp()
        FROM "gone" AS "g"
    )
    SELECT (SELECT count(*) FROM "freed"), (SELECT count(*) FROM "gone"), (SELECT min("f"."id") FROM "freed" AS "f"),
           (SELECT pg_catalog.array_agg("b"."priority" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b"),
           (SELECT pg_catalog.array_agg("b"."id" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b")
    INTO "released", "dead_lettered", v$lowest, v$bands, v$lows;
    -- Released jobs are claimable again: no priority's mark may stay above them.
    FOR v$k IN 1 .. coalesce(pg_catalog.cardinality(v$bands), 0) LOOP
        IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
            FOR v$try IN 1 .. 5 LOOP
                PERFORM 1 FROM "qgreview"."prio_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k] FOR UPDATE SKIP LOCKED;
                IF FOUND THEN
                    UPDATE "qgreview"."prio_marks" AS "w" SET "ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] = v$lows[v$k]
                    WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k];
                    EXIT;
                END IF;
                -- Not taken: either nothing to lower, or another transaction holds the row.
                EXIT WHEN NOT EXISTS (SELECT 1 FROM "qgreview"."prio_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k]);
                PERFORM pg_catalog.pg_sleep(0.01);
            END LOOP;
        END IF;
    END LOOP;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_reap" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_reap" FROM PUBLIC;

-- qgen 0.1.0: metrics qgreview.prio_metrics, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "qgreview"."prio_metrics"()
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
        count(*) FILTER (WHERE "job"."lease_token" IS NULL AND "job"."available_at" <= now()),
        count(*) FILTER (WHERE "job"."lease_token" IS NULL AND "job"."available_at" > now()),
        count(*) FILTER (WHERE "job"."lease_token" IS NOT NULL),
        count(*) FILTER (WHERE "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < now()),
        0::bigint,
        (SELECT count(*) FROM "qgreview"."prio_dead"),
        0::bigint,
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."available_at" <= now())))::bigint, 0),
        NULL::bigint,
        min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL),
        -- on_complete: delete leaves no trace of a completion to count.
        NULL::bigint,
        NULL::bigint,
        NOT EXISTS (SELECT 1 FROM "qgreview"."prio_control" AS "c" WHERE NOT "c"."paused")
    FROM "qgreview"."prio" AS "job";
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_metrics" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek qgreview.prio_peek, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "qgreview"."prio_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "qgreview"."prio_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "prio_peek"."limit" IS NULL OR "prio_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for qgreview.prio_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "qgreview"."prio_pending" AS "p"
    ORDER BY "p"."priority" DESC, "p"."id"
    LIMIT "prio_peek"."limit";
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_peek" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_peek" FROM PUBLIC;

-- qgen 0.1.0: purge_batch qgreview.prio_purge_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds: at most batch_size rows (1000 by default, refused above 4000) over all
-- those tables together, in the caller's transaction. purge (a procedure) calls it in a loop and
-- commits after each batch; a client can call it in a loop of its own, one transaction per call.
CREATE OR REPLACE FUNCTION "qgreview"."prio_purge_batch"
(
    "older_than_seconds" integer DEFAULT 604800,
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
    v$left integer := "prio_purge_batch"."batch_size";
    v$deleted integer;
BEGIN
    IF "prio_purge_batch"."batch_size" IS NULL OR "prio_purge_batch"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("prio_purge_batch"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF "prio_purge_batch"."older_than_seconds" IS NULL OR "prio_purge_batch"."older_than_seconds" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: older_than_seconds ' || coalesce("prio_purge_batch"."older_than_seconds"::text, 'NULL') || ' is out of range; accepted: 0 or more';
    END IF;
    v$cutoff := now() - pg_catalog.make_interval(secs => "prio_purge_batch"."older_than_seconds");
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    IF v$left > 0 THEN
        DELETE FROM "qgreview"."prio_dead" AS "x"
        WHERE "x"."entry_id" = ANY (ARRAY(
            SELECT "y"."entry_id" FROM "qgreview"."prio_dead" AS "y"
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
ALTER FUNCTION "qgreview"."prio_purge_batch" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_purge_batch" FROM PUBLIC;

-- qgen 0.1.0: purge qgreview.prio_purge, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds, one batch of at most batch_size rows at a time, and COMMITs after each batch:
-- no transaction holds more than one batch, and vacuum can clean up behind it while it runs.
-- Rows that finish while it runs (a second after it began) are left for the next purge, so it ends.
-- A procedure that commits cannot be SECURITY DEFINER nor have a SET clause: it runs with its
-- caller's rights and reaches the tables only through prio_purge_batch (EXECUTE on that is all it
-- needs); every name in it is schema-qualified. CALL it outside a transaction block (inside one,
-- PostgreSQL refuses its COMMIT: invalid transaction termination, 2D000); there call
-- prio_purge_batch instead.
CREATE OR REPLACE PROCEDURE "qgreview"."prio_purge"
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
    "prio_purge"."archived" := 0;
    "prio_purge"."processed" := 0;
    "prio_purge"."dead" := 0;
    LOOP
        -- Each batch is a new transaction with a later now(): widen the age by the whole seconds
        -- spent so far, so the cutoff stays within a second of where it was when the call began.
        SELECT * INTO v$batch
        FROM "qgreview"."prio_purge_batch"(
            "prio_purge"."older_than_seconds" + pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - v$started))::integer,
            "prio_purge"."batch_size");
        "prio_purge"."archived" := "prio_purge"."archived" + v$batch."archived";
        "prio_purge"."processed" := "prio_purge"."processed" + v$batch."processed";
        "prio_purge"."dead" := "prio_purge"."dead" + v$batch."dead";
        COMMIT;
        -- A short batch: nothing older is left (or what is left is locked: the next purge takes it).
        EXIT WHEN v$batch."archived" + v$batch."processed" + v$batch."dead" < "prio_purge"."batch_size";
    END LOOP;
END
$qgen$;
ALTER PROCEDURE "qgreview"."prio_purge" OWNER TO "qgreview_owner";
REVOKE ALL ON PROCEDURE "qgreview"."prio_purge" FROM PUBLIC;

-- qgen 0.1.0: maintain qgreview.prio_maintain, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- batch_size finished jobs older than the retention (604800 s), releases up to batch_size expired
-- leases (reap), in that order, in one transaction. Only one runs at a
-- time per queue: a caller that finds another one running returns at once with skipped = true.
-- more = true when a step filled its batch: call again (qgen maintain does) to do the rest.
-- Granted to the consumer role, so any worker can run it (run_worker does, every few seconds).
CREATE OR REPLACE FUNCTION "qgreview"."prio_maintain"
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
    IF "prio_maintain"."batch_size" IS NULL OR "prio_maintain"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("prio_maintain"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    "released" := 0;
    "dead_lettered" := 0;
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    -- One at a time (see the macro maintain_lock). The lock is the transaction's: it goes with the
    -- commit or the rollback, whatever happens.
    BEGIN
        LOCK TABLE "qgreview"."prio" IN SHARE UPDATE EXCLUSIVE MODE NOWAIT;
    EXCEPTION WHEN lock_not_available THEN
        "skipped" := TRUE;
        "more" := FALSE;
        RETURN NEXT;
        RETURN;
    END;
    "skipped" := FALSE;
    -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
    SELECT "p"."archived", "p"."processed", "p"."dead" INTO "archived", "processed", "dead"
    FROM "qgreview"."prio_purge_batch"(604800, "prio_maintain"."batch_size") AS "p";
    SELECT "r"."released", "r"."dead_lettered" INTO "released", "dead_lettered"
    -- reap takes at most the queue's max_batch_size (1000).
    FROM "qgreview"."prio_reap"(least("prio_maintain"."batch_size", 1000)) AS "r";
    "more" := "archived" + "processed" + "dead" >= "prio_maintain"."batch_size"
              OR "released" + "dead_lettered" >= least("prio_maintain"."batch_size", 1000);
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_maintain" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_maintain" FROM PUBLIC;

-- qgen 0.1.0: redrive qgreview.prio_redrive, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Puts dead-lettered jobs back into the queue as new jobs: a new id, attempts 0, available now,
-- their last error kept. Either the dead jobs with these ids, or (redrive_all) every dead job
-- after after_id, in the order they died; at most batch_size per call: last_id is the last
-- dead-letter entry looked at (its entry_id: a job id can repeat there), to pass as after_id to
-- the next call. Each job is inserted and removed from the dead-letter
-- table in this one transaction, so it is redriven once: a second call finds nothing, and a
-- concurrent one waits and then finds it gone.
CREATE OR REPLACE FUNCTION "qgreview"."prio_redrive"
(
    "ids" bigint[] DEFAULT NULL,
    "redrive_all" boolean DEFAULT FALSE,
    "after_id" bigint DEFAULT 0,
    "batch_size" integer DEFAULT 1000
)
RETURNS TABLE ("redriven" integer, "skipped_duplicates" integer, "last_id" bigint)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$dead record;
BEGIN
    IF "prio_redrive"."batch_size" IS NULL OR "prio_redrive"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("prio_redrive"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF ("prio_redrive"."ids" IS NOT NULL) = coalesce("prio_redrive"."redrive_all", FALSE) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: redrive takes either ids or redrive_all => true, not both and not neither';
    END IF;
    "redriven" := 0;
    "skipped_duplicates" := 0;
    FOR v$dead IN
        SELECT "x".*
        FROM "qgreview"."prio_dead" AS "x"
        WHERE ("prio_redrive"."redrive_all" AND "x"."entry_id" > coalesce("prio_redrive"."after_id", 0))
           OR "x"."id" = ANY ("prio_redrive"."ids")
        ORDER BY "x"."entry_id"
        LIMIT "prio_redrive"."batch_size"
        FOR UPDATE OF "x"
    LOOP
        "last_id" := v$dead."entry_id";
        INSERT INTO "qgreview"."prio" ("n", "priority", "attempts", "available_at", "last_error")
        VALUES (v$dead."n", v$dead."priority", 0, now(), v$dead."last_error");
        IF FOUND THEN
            DELETE FROM "qgreview"."prio_dead" AS "x" WHERE "x"."entry_id" = v$dead."entry_id";
            "redriven" := "redriven" + 1;
        ELSE
            "skipped_duplicates" := "skipped_duplicates" + 1;
        END IF;
    END LOOP;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_redrive" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_redrive" FROM PUBLIC;

-- qgen 0.1.0: dead_letters qgreview.prio_dead_letters, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The dead letters, newest first (the order they arrived in: the key backwards, which stops after
-- "limit" rows), with the error each died of: at most "limit" rows (1 to 1000). Reads only: a plain snapshot read, which takes no row lock, never waits on
-- one and makes no fail, reap, redrive or purge wait. "limit" is a reserved word: by name it is
-- passed as "limit" => n.
CREATE OR REPLACE FUNCTION "qgreview"."prio_dead_letters"
(
    "limit" integer DEFAULT 100
)
RETURNS TABLE
(
    "id" bigint,
    "n" integer,
    "priority" integer,
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
    IF "prio_dead_letters"."limit" IS NULL OR "prio_dead_letters"."limit" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit ' || coalesce("prio_dead_letters"."limit"::text, 'NULL') || ' is out of range for qgreview.prio_dead_letters; accepted: 1 to 1000 rows';
    END IF;
    RETURN QUERY
    SELECT "x"."id", "x"."n", "x"."priority", "x"."enqueued_at", "x"."attempts", "x"."dead_at",
        "x"."last_error"::text
    FROM "qgreview"."prio_dead" AS "x"
    ORDER BY "x"."entry_id" DESC
    LIMIT "prio_dead_letters"."limit";
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_dead_letters" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_dead_letters" FROM PUBLIC;

-- qgen 0.1.0: job qgreview.prio_job, rendered for PostgreSQL from spec.yaml.
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
CREATE OR REPLACE FUNCTION "qgreview"."prio_job"
(
    "job_id" bigint
)
RETURNS TABLE
(
    "id" bigint,
    "state" text,
    "enqueued_at" timestamptz,
    "available_at" timestamptz,
    "attempts" integer,
    "lease_owner" text,
    "lease_expires_at" timestamptz,
    "last_error" text,
    "finished_at" timestamptz
)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    IF "prio_job"."job_id" IS NULL OR "prio_job"."job_id" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: job_id ' || coalesce("prio_job"."job_id"::text, 'NULL') || ' is out of range for qgreview.prio_job; accepted: a job id, 1 or more';
    END IF;
    RETURN QUERY
    SELECT "j"."id", CASE WHEN "j"."lease_token" IS NOT NULL THEN 'in_flight' WHEN "j"."available_at" > now() THEN 'scheduled' ELSE 'queued' END,
        "j"."enqueued_at", "j"."available_at",
        "j"."attempts", "j"."lease_owner"::text, "j"."lease_expires_at",
        "j"."last_error"::text, NULL::timestamptz
    FROM "qgreview"."prio" AS "j"
    WHERE "j"."id" = "prio_job"."job_id";
    IF FOUND THEN
        RETURN;
    END IF;
    -- The newest entry: a job id repeats in the dead letters once the queue's identity is restarted.
    RETURN QUERY
    SELECT "x"."id", 'dead'::text, "x"."enqueued_at", NULL::timestamptz, "x"."attempts", NULL::text, NULL::timestamptz,
        "x"."last_error"::text, "x"."dead_at"
    FROM "qgreview"."prio_dead" AS "x"
    WHERE "x"."id" = "prio_job"."job_id"
    ORDER BY "x"."entry_id" DESC
    LIMIT 1;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "prio_job"."job_id", 'not_found'::text, NULL::timestamptz, NULL::timestamptz, NULL::integer, NULL::text, NULL::timestamptz,
        NULL::text, NULL::timestamptz;
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_job" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_job" FROM PUBLIC;

-- qgen 0.1.0: release qgreview.prio_release, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With id, that
-- job; without, every job of the lease. The token is the fence: a
-- job whose lease was released, taken over or finished gets QG001. last_error is kept (no failure happened).
CREATE OR REPLACE FUNCTION "qgreview"."prio_release"
(
    "lease_token" uuid,
    "id" bigint DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
DECLARE
    v$released integer;
    v$lowest bigint;
    -- Each priority that had jobs released, and its lowest released id.
    v$bands integer[];
    v$lows bigint[];
BEGIN
    IF "prio_release"."id" IS NOT NULL THEN
        WITH "freed" AS
        (
            UPDATE "qgreview"."prio" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."id" = "prio_release"."id" AND "job"."lease_token" = "prio_release"."lease_token"
            RETURNING "job"."id", "job"."priority"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f"),
               (SELECT pg_catalog.array_agg("b"."priority" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b"),
               (SELECT pg_catalog.array_agg("b"."id" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b")
        INTO v$released, v$lowest, v$bands, v$lows;
    ELSE
        WITH "freed" AS
        (
            UPDATE "qgreview"."prio" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."lease_token" = "prio_release"."lease_token"
            RETURNING "job"."id", "job"."priority"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f"),
               (SELECT pg_catalog.array_agg("b"."priority" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b"),
               (SELECT pg_catalog.array_agg("b"."id" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b")
        INTO v$released, v$lowest, v$bands, v$lows;
    END IF;
    IF v$released = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on qgreview.prio: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    -- Released jobs are claimable again: no priority's mark may stay above them.
    FOR v$k IN 1 .. coalesce(pg_catalog.cardinality(v$bands), 0) LOOP
        IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
            FOR v$try IN 1 .. 5 LOOP
                PERFORM 1 FROM "qgreview"."prio_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k] FOR UPDATE SKIP LOCKED;
                IF FOUND THEN
                    UPDATE "qgreview"."prio_marks" AS "w" SET "ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] = v$lows[v$k]
                    WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k];
                    EXIT;
                END IF;
                -- Not taken: either nothing to lower, or another transaction holds the row.
                EXIT WHEN NOT EXISTS (SELECT 1 FROM "qgreview"."prio_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k]);
                PERFORM pg_catalog.pg_sleep(0.01);
            END LOOP;
        END IF;
    END LOOP;
    RETURN v$released;
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_release" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_release" FROM PUBLIC;

-- qgen 0.1.0: pause qgreview.prio_pause, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job. Enqueues go on, and leases already granted run to their end (complete, fail,
-- extend_lease, release and reap work as before). Returns 1 when this call paused the queue, 0
-- when it was paused already.
CREATE OR REPLACE FUNCTION "qgreview"."prio_pause"()
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
    SELECT "c"."paused" INTO v$was FROM "qgreview"."prio_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "qgreview"."prio_control" ("paused", "changed_at", "changed_by")
        VALUES (TRUE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "qgreview"."prio_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = TRUE THEN
        RETURN 0;
    END IF;
    UPDATE "qgreview"."prio_control" AS "c"
    SET "paused" = TRUE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgreview.prio: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_pause" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_pause" FROM PUBLIC;

-- qgen 0.1.0: resume qgreview.prio_resume, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again. Returns 1 when this call
-- resumed the queue, 0 when it was not paused.
CREATE OR REPLACE FUNCTION "qgreview"."prio_resume"()
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
    SELECT "c"."paused" INTO v$was FROM "qgreview"."prio_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "qgreview"."prio_control" ("paused", "changed_at", "changed_by")
        VALUES (FALSE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "qgreview"."prio_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = FALSE THEN
        RETURN 0;
    END IF;
    UPDATE "qgreview"."prio_control" AS "c"
    SET "paused" = FALSE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgreview.prio: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_resume" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_resume" FROM PUBLIC;

-- qgen 0.1.0: cancel qgreview.prio_cancel, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (ids; at most 4000): each job still in the queue leaves it at once, in
-- this one statement, into the dead-letter table with last_error 'cancelled', and never runs.
-- One row per distinct id, in id order, "outcome":
--   cancelled: it was waiting (queued, delayed, or backing off after a failure);
--   cancelled_in_flight: it held a lease: its worker's complete, fail and extend_lease get QG001 (the
--     token fences them off, so nothing it does commits with the job); a row a completion holds at
--     that moment is waited for (a short lock), then cancelled or found finished;
--   not_queued: finished, dead, purged or never enqueued: nothing done.
-- The rows are locked in id order, as every other statement that locks several jobs does, so cancel
-- deadlocks with none of them; a row a completion or a claim holds is waited for, at most 5 s (then
-- refused, QG002: nothing done). At REPEATABLE READ or SERIALIZABLE it is refused (QG002): it would
-- answer from the transaction's snapshot, which does not show a job enqueued since, and say
-- not_queued of a job that then runs.
CREATE OR REPLACE FUNCTION "qgreview"."prio_cancel"
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
    IF "prio_cancel"."ids" IS NULL OR EXISTS (SELECT 1 FROM pg_catalog.unnest("prio_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NULL OR "a"."id" < 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: ids must be an array of job ids (whole numbers from 1)';
    END IF;
    IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgreview.prio: cancel at REPEATABLE READ or SERIALIZABLE would answer from the transaction''s snapshot, which does not show a job enqueued since (it would say not_queued of a job that then runs); run it at READ COMMITTED';
    END IF;
    IF (SELECT count(DISTINCT "a"."id") FROM pg_catalog.unnest("prio_cancel"."ids") AS "a" ("id")) > 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: ids lists more than 4000 jobs; accepted: 1 to 4000 per call';
    END IF;
    RETURN QUERY
    WITH "asked" AS
    (
        SELECT DISTINCT "a"."id" FROM pg_catalog.unnest("prio_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NOT NULL
    ),
    "found" AS
    (
        -- The rows by their id, locked (waiting for a completion's short lock).
        SELECT "job"."id"
        FROM "qgreview"."prio" AS "job"
        WHERE "job"."id" IN (SELECT "a"."id" FROM "asked" AS "a")
        ORDER BY "job"."id"
        FOR UPDATE
    ),
    "gone" AS
    (
        DELETE FROM "qgreview"."prio" AS "job"
        USING "found" AS "f"
        WHERE "job"."id" = "f"."id"
        RETURNING "job".*
    ),
    "dead" AS
    (
        INSERT INTO "qgreview"."prio_dead" ("id", "n", "priority", "enqueued_at", "attempts", "last_error", "dead_at")
        SELECT "g"."id", "g"."n", "g"."priority", "g"."enqueued_at", "g"."attempts", 'cancelled', pg_catalog.clock_timestamp()
        FROM "gone" AS "g"
    )
    SELECT "a"."id",
        CASE
             WHEN "g"."lease_token" IS NOT NULL THEN 'cancelled_in_flight'
             WHEN "g"."id" IS NOT NULL THEN 'cancelled'
             ELSE 'not_queued' END
    FROM "asked" AS "a"
    -- What the DELETE took out: the outcome is what happened, not what was found.
    LEFT JOIN "gone" AS "g" ON "g"."id" = "a"."id"
    ORDER BY "a"."id";
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgreview.prio: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again';
END
$qgen$;
ALTER FUNCTION "qgreview"."prio_cancel" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."prio_cancel" FROM PUBLIC;

-- qgen 0.1.0: table qgreview.priod, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Storage fit for a queue table, whose rows are inserted, and deleted all day:
-- autovacuum_vacuum_scale_factor 0.01 (default 0.2): vacuum once 1% of the rows are dead, not 20%:
--   on a queue with a backlog, dead entries at the head of the claim index are what every claim
--   walks through, and 20% of a million-row backlog is 200,000 of them.
-- autovacuum_vacuum_threshold 1000 (default 50): but on a nearly empty queue, not after every 50
--   deleted jobs: a few vacuums a minute at most on a busy small queue.
-- autovacuum_analyze_scale_factor 0.02 (default 0.1): the row count swings with the backlog; keep
--   the statistics the planner sees close to it.
CREATE TABLE IF NOT EXISTS "qgreview"."priod"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "n" integer NOT NULL,
    "priority" integer NOT NULL DEFAULT 0,
    "enqueued_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("id")
)
WITH (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
      autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "qgreview"."priod" OWNER TO "qgreview_owner";

-- qgen 0.1.0: claim_index qgreview.priod_claim_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A delete queue holds only unclaimed rows, so the primary key already is id order; this index
-- serves the job-type filter and priority order.
CREATE INDEX IF NOT EXISTS "priod_claim_ix"
    ON "qgreview"."priod" ("priority" DESC, "id")
    ;

-- qgen 0.1.0: priority_marks qgreview.priod_marks, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: a priority queue's claim marks, the watermark of each priority. In the priority
-- "priorities[k]", no job below the id "ids[k]" needs a claim's look: each was claimed or is gone
-- (completed, deleted), and the rescan finds what a mark passed (see dequeue). A claim seeks the
-- claim index at (priority, mark) instead of walking the dead index entries that claimed and
-- completed rows leave at the head of each priority until VACUUM. A priority without a mark is
-- claimed from its first id. Sorted by priority, highest first, as claims visit them.
CREATE TABLE IF NOT EXISTS "qgreview"."priod_marks"
(
    "priorities" integer[] NOT NULL DEFAULT '{}',
    "ids" bigint[] NOT NULL DEFAULT '{}',
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    -- When the table was last searched below the marks (by a dequeue's rescan): a dequeue rescans
    -- when this is watermark.rescan (2 s) old.
    "corrected_at" timestamptz NOT NULL DEFAULT '-infinity',
    PRIMARY KEY ("one_row")
);
ALTER TABLE "qgreview"."priod_marks" OWNER TO "qgreview_owner";
INSERT INTO "qgreview"."priod_marks" ("one_row") VALUES (TRUE) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: pending_view qgreview.priod_pending, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "qgreview"."priod_pending" AS
SELECT "job"."id", "job"."n", "job"."priority", "job"."enqueued_at"
FROM "qgreview"."priod" AS "job"
WHERE 1 = 1;
ALTER VIEW "qgreview"."priod_pending" OWNER TO "qgreview_owner";

-- qgen 0.1.0: batch_type qgreview.priod_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) and priority (0) when missing, and the table rejects a missing required column.
-- Its string and decimal fields have no length or scale (m.param_type): reading a job into
-- varchar(n) or numeric(p,s) would cut or round a value past its column before enqueue_batch
-- could refuse it (QG010).
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"qgreview"."priod_batch"') IS NULL THEN
        CREATE TYPE "qgreview"."priod_batch" AS
        (
            "ordinal" integer,
            "n" integer,
            "priority" integer
        );
    END IF;
END
$qgen$;
ALTER TYPE "qgreview"."priod_batch" OWNER TO "qgreview_owner";

-- qgen 0.1.0: enqueue qgreview.priod_enqueue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "qgreview"."priod_enqueue"
(
    "n" integer,
    "priority" integer DEFAULT 0
)
RETURNS TABLE ("id" bigint, "enqueued" boolean)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        INSERT INTO "qgreview"."priod" AS "job" ("n", "priority")
        VALUES ("priod_enqueue"."n", "priod_enqueue"."priority")
        RETURNING "job"."id", TRUE;
END
$qgen$;
ALTER FUNCTION "qgreview"."priod_enqueue" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."priod_enqueue" FROM PUBLIC;

-- qgen 0.1.0: enqueue_batch qgreview.priod_enqueue_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job.
CREATE OR REPLACE FUNCTION "qgreview"."priod_enqueue_batch"
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
    v$sequence regclass := pg_catalog.pg_get_serial_sequence('"qgreview"."priod"', 'id')::regclass;
BEGIN

    RETURN QUERY
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "e"."position$"::integer) AS "ordinal",
                   "j"."n", coalesce("j"."priority", 0) AS "priority"
            -- The array position and the new id are qgen's own columns beside the job's: their names
            -- hold a $, which no spec column can.
            FROM jsonb_array_elements("priod_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
            CROSS JOIN LATERAL jsonb_populate_record(NULL::"qgreview"."priod_batch", "e"."job$") AS "j"
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
            INSERT INTO "qgreview"."priod" AS "job" ("id", "n", "priority")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new$id", "n"."n", "n"."priority"
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal", "n"."new$id", TRUE
        FROM "numbered" AS "n"
        ORDER BY "n"."ordinal";
END
$qgen$;
ALTER FUNCTION "qgreview"."priod_enqueue_batch" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."priod_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: control_table qgreview.priod_control, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which role). Every
-- claim reads it first (a plain read: a pause or resume counts from its commit, and no claim waits
-- on one left open). A missing row (deleted by hand) reads as running.
CREATE TABLE IF NOT EXISTS "qgreview"."priod_control"
(
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    "paused" boolean NOT NULL DEFAULT FALSE,
    "changed_at" timestamptz NULL,
    "changed_by" varchar(128) NULL,
    PRIMARY KEY ("one_row")
);
ALTER TABLE "qgreview"."priod_control" OWNER TO "qgreview_owner";
INSERT INTO "qgreview"."priod_control" ("paused") VALUES (FALSE) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dequeue qgreview.priod_dequeue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"qgreview"."priod_dequeue_row"') IS NULL THEN
        CREATE TYPE "qgreview"."priod_dequeue_row" AS
        (
            "id" bigint,
            "n" integer,
            "priority" integer,
            "enqueued_at" timestamptz
        );
    END IF;
END
$qgen$;
ALTER TYPE "qgreview"."priod_dequeue_row" OWNER TO "qgreview_owner";
-- A claim that would commit by itself (no transaction block around it) is refused when the
-- transaction commits, unless the caller said at_most_once: then the claim is the commit. A
-- function cannot see whether the caller opened a transaction block, so dequeue notes its own
-- statement's start time, and this deferred trigger, run at commit, accepts only a commit made
-- while a later statement of the caller's runs (its COMMIT). It refuses a commit made during the
-- claim's own statement (autocommit, or a COMMIT sent in the same query string) and one made
-- while no statement runs: the Sync that ends an extended-protocol message sequence, where a
-- driver's autocommit call, or a pipeline of them, commits (current_query() is NULL there).
CREATE OR REPLACE FUNCTION "qgreview"."priod_dequeue_guard"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
BEGIN
    IF pg_catalog.current_query() IS NULL
       OR pg_catalog.current_setting('qgen.claim_statement', TRUE) = pg_catalog.statement_timestamp()::text THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgreview.priod: a delete-mode dequeue outside a transaction would commit its claim at once (at-most-once delivery); run it inside a transaction and commit when the work is done, or pass at_most_once => true';
    END IF;
    RETURN NULL;
END
$qgen$;
ALTER FUNCTION "qgreview"."priod_dequeue_guard" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."priod_dequeue_guard" FROM PUBLIC;
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger
                   WHERE tgrelid = '"qgreview"."priod"'::regclass AND tgname = 'priod_dequeue_guard') THEN
        -- WHEN is checked as each row is deleted: only a dequeue's own rows queue the check.
        CREATE CONSTRAINT TRIGGER "priod_dequeue_guard"
        AFTER DELETE ON "qgreview"."priod"
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW
        WHEN (pg_catalog.current_setting('qgen.claim_statement', TRUE) = pg_catalog.statement_timestamp()::text)
        EXECUTE FUNCTION "qgreview"."priod_dequeue_guard"();
    END IF;
END
$qgen$;
-- Claims up to batch_size jobs by deleting them, and returns them. It runs inside the
-- caller's transaction: commit once the jobs are handled; a rollback puts them back in the queue.
-- Outside a transaction block the commit is refused (see above) unless at_most_once is true.
CREATE OR REPLACE FUNCTION "qgreview"."priod_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 5,
    "at_most_once" boolean DEFAULT FALSE
)
RETURNS SETOF "qgreview"."priod_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 5
AS $qgen$
#variable_conflict use_column
DECLARE
    v$job "qgreview"."priod_dequeue_row";
    -- The marks (priorities highest first, and each one's mark), read as the dequeue starts.
    v$prios integer[];
    v$marks bigint[];
    v$rescan boolean;
    v$searched timestamptz;
    v$count integer;
    v$left integer := "priod_dequeue"."batch_size";
    -- The segment claimed from: priorities v$lowest_band to v$highest_band, ids from v$from.
    v$lowest_band integer;
    v$highest_band integer;
    v$lowest_wide bigint;
    v$highest_wide bigint;
    v$from bigint;
    -- The priorities claimed from, and the highest id claimed in each (jobs come back in queue
    -- order): v$claimed of them.
    v$bands integer[];
    v$tops bigint[];
    v$claimed integer := 0;
    v$band integer;
    v$top bigint;
    v$cur bigint;
    v$lowest bigint;
BEGIN
    IF "priod_dequeue"."batch_size" IS NULL OR "priod_dequeue"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for qgreview.priod_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("priod_dequeue"."batch_size"::text, 'NULL'));
    END IF;
    IF pg_catalog.length("priod_dequeue"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in qgreview.priod_dequeue; accepted: string(128), at most 128 characters';
    END IF;
    -- Read by the guard trigger at commit; at_most_once clears it.
    PERFORM pg_catalog.set_config('qgen.claim_statement',
                                  CASE WHEN "priod_dequeue"."at_most_once" THEN '' ELSE pg_catalog.statement_timestamp()::text END, TRUE);
    -- The guard's check belongs at the commit: a caller's SET CONSTRAINTS ALL IMMEDIATE would run it
    -- at the end of this statement instead, and refuse a claim its transaction was about to commit.
    SET CONSTRAINTS "qgreview"."priod_dequeue_guard" DEFERRED;
    -- Paused (pause, resume): complete what was asked, claim nothing.
    IF NOT EXISTS (SELECT 1 FROM "qgreview"."priod_control" AS "c" WHERE NOT "c"."paused") THEN
        RETURN;
    END IF;
    -- Read the marks; every 2 s, look below them first for jobs they passed (see the macro marks_start).
    SELECT "w"."priorities", "w"."ids", "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 2) INTO v$prios, v$marks, v$rescan FROM "qgreview"."priod_marks" AS "w";
    IF NOT FOUND THEN
        INSERT INTO "qgreview"."priod_marks" ("one_row") VALUES (TRUE) ON CONFLICT DO NOTHING;
    ELSIF v$rescan AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        SELECT pg_catalog.clock_timestamp() INTO v$searched
        FROM "qgreview"."priod_marks" AS "w" WHERE "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 2) FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            -- A statement of its own: its snapshot is taken after the lock (see postgres__watermark_start).
            UPDATE "qgreview"."priod_marks" AS "w"
            SET "corrected_at" = v$searched,
                "ids" = coalesce((SELECT pg_catalog.array_agg(CASE WHEN "s"."lowest" IS NULL THEN "u"."id"
                                                                   ELSE least("u"."id", greatest("s"."lowest" - 2, 0)) END
                                                              ORDER BY "u"."k")
                                  FROM ROWS FROM (pg_catalog.unnest("w"."priorities"), pg_catalog.unnest("w"."ids")) WITH ORDINALITY AS "u"("priority", "id", "k")
                                  LEFT JOIN LATERAL (SELECT min("job"."id") AS "lowest"
                                                     FROM "qgreview"."priod" AS "job"
                                                     WHERE "job"."priority" = "u"."priority" AND "job"."id" < "u"."id"
                                                       AND 1 = 1) AS "s" ON TRUE), '{}')
            RETURNING "w"."priorities", "w"."ids" INTO v$prios, v$marks;
        END IF;
    END IF;
    v$count := coalesce(pg_catalog.cardinality(v$prios), 0);
    FOR v$segment IN 0 .. 2 * v$count LOOP
        EXIT WHEN v$left <= 0;
        IF v$segment % 2 = 1 THEN
            v$lowest_band := v$prios[(v$segment + 1) / 2];
            v$highest_band := v$lowest_band;
            v$from := v$marks[(v$segment + 1) / 2];
        ELSE
            -- Bigint arithmetic: a mark at the integer's end leaves an empty run beside it.
            v$lowest_wide := CASE WHEN v$segment = 2 * v$count THEN -2147483648 ELSE v$prios[v$segment / 2 + 1]::bigint + 1 END;
            v$highest_wide := CASE WHEN v$segment = 0 THEN 2147483647 ELSE v$prios[v$segment / 2]::bigint - 1 END;
            CONTINUE WHEN v$lowest_wide > v$highest_wide;
            v$lowest_band := v$lowest_wide;
            v$highest_band := v$highest_wide;
            v$from := 0;
        END IF;
        FOR v$job IN
            WITH "claimed" AS
            (
                DELETE FROM "qgreview"."priod" AS "job"
                -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
                -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
                WHERE "job"."id" = ANY (ARRAY
                (
                    SELECT "next"."id"
                    FROM "qgreview"."priod" AS "next"
                    WHERE 1 = 1
                      -- A run of priorities as a range on the claim index's priority key, inclusive at both ends:
                      -- the index seeks (priority, from) where the run is one priority (its mark).
                      AND "next"."priority" >= v$lowest_band
                      AND "next"."priority" <= v$highest_band
                      -- Below the priority's mark every row is claimed or gone: start the index range there.
                      AND "next"."id" >= v$from
                    ORDER BY "next"."priority" DESC, "next"."id"
                    LIMIT v$left
                    FOR UPDATE SKIP LOCKED
                ))
                RETURNING "job".*
            )
            SELECT "c"."id", "c"."n", "c"."priority", "c"."enqueued_at"
            FROM "claimed" AS "c"
            ORDER BY "c"."priority" DESC, "c"."id"
        LOOP
            IF v$job."priority" IS DISTINCT FROM v$bands[v$claimed] THEN
                v$claimed := v$claimed + 1;
                v$bands[v$claimed] := v$job."priority";
            END IF;
            v$tops[v$claimed] := v$job."id";
            v$left := v$left - 1;
            RETURN NEXT v$job;
        END LOOP;
    END LOOP;
    FOR v$k IN 1 .. v$claimed LOOP
        v$band := v$bands[v$k];
        v$top := v$tops[v$k];
        v$cur := coalesce(v$marks[pg_catalog.array_position(v$prios, v$band)], 0);
        IF v$top - v$cur >= 12 AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted')
           AND NOT EXISTS (SELECT 1 FROM "qgreview"."priod" AS "job"
                           WHERE "job"."id" = v$cur AND "job"."priority" = v$band AND 1 = 1) THEN
            SELECT coalesce("w"."ids"[pg_catalog.array_position("w"."priorities", v$band)], 0) INTO v$cur
            FROM "qgreview"."priod_marks" AS "w" FOR UPDATE SKIP LOCKED;
            IF FOUND AND v$cur < v$top - 2 THEN
                SELECT min("job"."id") INTO v$lowest
                FROM "qgreview"."priod" AS "job"
                WHERE "job"."priority" = v$band AND "job"."id" >= v$cur AND "job"."id" < v$top - 2
                  AND 1 = 1;
                UPDATE "qgreview"."priod_marks" AS "w"
                SET ("priorities", "ids") =
                    (SELECT pg_catalog.array_agg("x"."priority" ORDER BY "x"."priority" DESC),
                            pg_catalog.array_agg("x"."id" ORDER BY "x"."priority" DESC)
                     FROM (SELECT "u"."priority",
                                  CASE WHEN "u"."priority" = v$band
                                       THEN greatest("u"."id", coalesce(v$lowest, v$top - 2)) ELSE "u"."id" END
                           FROM ROWS FROM (pg_catalog.unnest("w"."priorities"), pg_catalog.unnest("w"."ids")) AS "u"("priority", "id")
                           UNION ALL
                           SELECT v$band, coalesce(v$lowest, v$top - 2)
                           WHERE pg_catalog.array_position("w"."priorities", v$band) IS NULL) AS "x"("priority", "id"));
            END IF;
        END IF;
    END LOOP;
END
$qgen$;
ALTER FUNCTION "qgreview"."priod_dequeue" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."priod_dequeue" FROM PUBLIC;

-- qgen 0.1.0: metrics qgreview.priod_metrics, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "qgreview"."priod_metrics"()
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
        0::bigint,
        0::bigint,
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE 1 = 1)))::bigint, 0),
        NULL::bigint,
        min("job"."id") FILTER (WHERE 1 = 1),
        -- on_complete: delete leaves no trace of a completion to count.
        NULL::bigint,
        NULL::bigint,
        NOT EXISTS (SELECT 1 FROM "qgreview"."priod_control" AS "c" WHERE NOT "c"."paused")
    FROM "qgreview"."priod" AS "job";
END
$qgen$;
ALTER FUNCTION "qgreview"."priod_metrics" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."priod_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek qgreview.priod_peek, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "qgreview"."priod_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "qgreview"."priod_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "priod_peek"."limit" IS NULL OR "priod_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for qgreview.priod_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "qgreview"."priod_pending" AS "p"
    ORDER BY "p"."priority" DESC, "p"."id"
    LIMIT "priod_peek"."limit";
END
$qgen$;
ALTER FUNCTION "qgreview"."priod_peek" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."priod_peek" FROM PUBLIC;

-- qgen 0.1.0: purge_batch qgreview.priod_purge_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds: at most batch_size rows (1000 by default, refused above 4000) over all
-- those tables together, in the caller's transaction. purge (a procedure) calls it in a loop and
-- commits after each batch; a client can call it in a loop of its own, one transaction per call.
CREATE OR REPLACE FUNCTION "qgreview"."priod_purge_batch"
(
    "older_than_seconds" integer DEFAULT 604800,
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
    v$left integer := "priod_purge_batch"."batch_size";
    v$deleted integer;
BEGIN
    IF "priod_purge_batch"."batch_size" IS NULL OR "priod_purge_batch"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("priod_purge_batch"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF "priod_purge_batch"."older_than_seconds" IS NULL OR "priod_purge_batch"."older_than_seconds" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: older_than_seconds ' || coalesce("priod_purge_batch"."older_than_seconds"::text, 'NULL') || ' is out of range; accepted: 0 or more';
    END IF;
    v$cutoff := now() - pg_catalog.make_interval(secs => "priod_purge_batch"."older_than_seconds");
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "qgreview"."priod_purge_batch" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."priod_purge_batch" FROM PUBLIC;

-- qgen 0.1.0: purge qgreview.priod_purge, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds, one batch of at most batch_size rows at a time, and COMMITs after each batch:
-- no transaction holds more than one batch, and vacuum can clean up behind it while it runs.
-- Rows that finish while it runs (a second after it began) are left for the next purge, so it ends.
-- A procedure that commits cannot be SECURITY DEFINER nor have a SET clause: it runs with its
-- caller's rights and reaches the tables only through priod_purge_batch (EXECUTE on that is all it
-- needs); every name in it is schema-qualified. CALL it outside a transaction block (inside one,
-- PostgreSQL refuses its COMMIT: invalid transaction termination, 2D000); there call
-- priod_purge_batch instead.
CREATE OR REPLACE PROCEDURE "qgreview"."priod_purge"
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
    "priod_purge"."archived" := 0;
    "priod_purge"."processed" := 0;
    "priod_purge"."dead" := 0;
    LOOP
        -- Each batch is a new transaction with a later now(): widen the age by the whole seconds
        -- spent so far, so the cutoff stays within a second of where it was when the call began.
        SELECT * INTO v$batch
        FROM "qgreview"."priod_purge_batch"(
            "priod_purge"."older_than_seconds" + pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - v$started))::integer,
            "priod_purge"."batch_size");
        "priod_purge"."archived" := "priod_purge"."archived" + v$batch."archived";
        "priod_purge"."processed" := "priod_purge"."processed" + v$batch."processed";
        "priod_purge"."dead" := "priod_purge"."dead" + v$batch."dead";
        COMMIT;
        -- A short batch: nothing older is left (or what is left is locked: the next purge takes it).
        EXIT WHEN v$batch."archived" + v$batch."processed" + v$batch."dead" < "priod_purge"."batch_size";
    END LOOP;
END
$qgen$;
ALTER PROCEDURE "qgreview"."priod_purge" OWNER TO "qgreview_owner";
REVOKE ALL ON PROCEDURE "qgreview"."priod_purge" FROM PUBLIC;

-- qgen 0.1.0: maintain qgreview.priod_maintain, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- batch_size finished jobs older than the retention (604800 s), in that order, in one transaction. Only one runs at a
-- time per queue: a caller that finds another one running returns at once with skipped = true.
-- more = true when a step filled its batch: call again (qgen maintain does) to do the rest.
-- Granted to the consumer role, so any worker can run it (run_worker does, every few seconds).
CREATE OR REPLACE FUNCTION "qgreview"."priod_maintain"
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
    IF "priod_maintain"."batch_size" IS NULL OR "priod_maintain"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("priod_maintain"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    "released" := 0;
    "dead_lettered" := 0;
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    -- One at a time (see the macro maintain_lock). The lock is the transaction's: it goes with the
    -- commit or the rollback, whatever happens.
    BEGIN
        LOCK TABLE "qgreview"."priod" IN SHARE UPDATE EXCLUSIVE MODE NOWAIT;
    EXCEPTION WHEN lock_not_available THEN
        "skipped" := TRUE;
        "more" := FALSE;
        RETURN NEXT;
        RETURN;
    END;
    "skipped" := FALSE;
    -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
    SELECT "p"."archived", "p"."processed", "p"."dead" INTO "archived", "processed", "dead"
    FROM "qgreview"."priod_purge_batch"(604800, "priod_maintain"."batch_size") AS "p";
    "more" := "archived" + "processed" + "dead" >= "priod_maintain"."batch_size"
              OR "released" + "dead_lettered" >= least("priod_maintain"."batch_size", 1000);
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "qgreview"."priod_maintain" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."priod_maintain" FROM PUBLIC;

-- qgen 0.1.0: job qgreview.priod_job, rendered for PostgreSQL from spec.yaml.
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
CREATE OR REPLACE FUNCTION "qgreview"."priod_job"
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
    IF "priod_job"."job_id" IS NULL OR "priod_job"."job_id" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: job_id ' || coalesce("priod_job"."job_id"::text, 'NULL') || ' is out of range for qgreview.priod_job; accepted: a job id, 1 or more';
    END IF;
    RETURN QUERY
    SELECT "j"."id", 'queued'::text,
        "j"."enqueued_at",
        NULL::integer,
        NULL::text, NULL::timestamptz
    FROM "qgreview"."priod" AS "j"
    WHERE "j"."id" = "priod_job"."job_id";
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "priod_job"."job_id", 'not_found'::text, NULL::timestamptz, NULL::integer,
        NULL::text, NULL::timestamptz;
END
$qgen$;
ALTER FUNCTION "qgreview"."priod_job" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."priod_job" FROM PUBLIC;

-- qgen 0.1.0: pause qgreview.priod_pause, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job. Enqueues go on, and leases already granted run to their end (complete, fail,
-- extend_lease, release and reap work as before). Returns 1 when this call paused the queue, 0
-- when it was paused already.
CREATE OR REPLACE FUNCTION "qgreview"."priod_pause"()
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
    SELECT "c"."paused" INTO v$was FROM "qgreview"."priod_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "qgreview"."priod_control" ("paused", "changed_at", "changed_by")
        VALUES (TRUE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "qgreview"."priod_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = TRUE THEN
        RETURN 0;
    END IF;
    UPDATE "qgreview"."priod_control" AS "c"
    SET "paused" = TRUE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgreview.priod: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "qgreview"."priod_pause" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."priod_pause" FROM PUBLIC;

-- qgen 0.1.0: resume qgreview.priod_resume, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again. Returns 1 when this call
-- resumed the queue, 0 when it was not paused.
CREATE OR REPLACE FUNCTION "qgreview"."priod_resume"()
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
    SELECT "c"."paused" INTO v$was FROM "qgreview"."priod_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "qgreview"."priod_control" ("paused", "changed_at", "changed_by")
        VALUES (FALSE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "qgreview"."priod_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = FALSE THEN
        RETURN 0;
    END IF;
    UPDATE "qgreview"."priod_control" AS "c"
    SET "paused" = FALSE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgreview.priod: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "qgreview"."priod_resume" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."priod_resume" FROM PUBLIC;

-- qgen 0.1.0: cancel qgreview.priod_cancel, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (ids; at most 4000): each job still in the queue leaves it at once, in
-- this one statement, deleted (this queue keeps no dead letters), and never runs.
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
CREATE OR REPLACE FUNCTION "qgreview"."priod_cancel"
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
    IF "priod_cancel"."ids" IS NULL OR EXISTS (SELECT 1 FROM pg_catalog.unnest("priod_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NULL OR "a"."id" < 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: ids must be an array of job ids (whole numbers from 1)';
    END IF;
    IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgreview.priod: cancel at REPEATABLE READ or SERIALIZABLE would answer from the transaction''s snapshot, which does not show a job enqueued since (it would say not_queued of a job that then runs); run it at READ COMMITTED';
    END IF;
    IF (SELECT count(DISTINCT "a"."id") FROM pg_catalog.unnest("priod_cancel"."ids") AS "a" ("id")) > 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: ids lists more than 4000 jobs; accepted: 1 to 4000 per call';
    END IF;
    RETURN QUERY
    WITH "asked" AS
    (
        SELECT DISTINCT "a"."id" FROM pg_catalog.unnest("priod_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NOT NULL
    ),
    "found" AS
    (
        -- The rows by their id, locked (SKIP LOCKED: a claim's open transaction is never waited for).
        SELECT "job"."id"
        FROM "qgreview"."priod" AS "job"
        WHERE "job"."id" IN (SELECT "a"."id" FROM "asked" AS "a")
        ORDER BY "job"."id"
        FOR UPDATE SKIP LOCKED
    ),
    "gone" AS
    (
        DELETE FROM "qgreview"."priod" AS "job"
        USING "found" AS "f"
        WHERE "job"."id" = "f"."id"
        RETURNING "job".*
    )
    SELECT "a"."id",
        CASE
             WHEN "g"."id" IS NOT NULL THEN 'cancelled'
             -- Skipped above: another open transaction holds it.
             WHEN EXISTS (SELECT 1 FROM "qgreview"."priod" AS "job" WHERE "job"."id" = "a"."id") THEN 'held'
             ELSE 'not_queued' END
    FROM "asked" AS "a"
    -- What the DELETE took out: the outcome is what happened, not what was found.
    LEFT JOIN "gone" AS "g" ON "g"."id" = "a"."id"
    ORDER BY "a"."id";
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on qgreview.priod: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again';
END
$qgen$;
ALTER FUNCTION "qgreview"."priod_cancel" OWNER TO "qgreview_owner";
REVOKE ALL ON FUNCTION "qgreview"."priod_cancel" FROM PUBLIC;

-- qgen 0.1.0: grants to roles qgreview_producer, qgreview_consumer, qgreview_admin, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "qgreview" TO "qgreview_producer", "qgreview_consumer", "qgreview_admin";
GRANT EXECUTE ON FUNCTION "qgreview"."prio_enqueue", "qgreview"."prio_enqueue_batch" TO "qgreview_producer";
GRANT USAGE ON TYPE "qgreview"."prio_batch" TO "qgreview_producer";
GRANT EXECUTE ON FUNCTION "qgreview"."prio_dequeue", "qgreview"."prio_complete", "qgreview"."prio_fail", "qgreview"."prio_extend_lease" TO "qgreview_consumer";
GRANT USAGE ON TYPE "qgreview"."prio_dequeue_row" TO "qgreview_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "qgreview"."prio_maintain" TO "qgreview_consumer";
GRANT SELECT ON "qgreview"."prio_pending" TO "qgreview_admin";
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON FUNCTION "qgreview"."prio_release" TO "qgreview_consumer";
GRANT EXECUTE ON FUNCTION "qgreview"."priod_enqueue", "qgreview"."priod_enqueue_batch" TO "qgreview_producer";
GRANT USAGE ON TYPE "qgreview"."priod_batch" TO "qgreview_producer";
GRANT EXECUTE ON FUNCTION "qgreview"."priod_dequeue" TO "qgreview_consumer";
GRANT USAGE ON TYPE "qgreview"."priod_dequeue_row" TO "qgreview_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "qgreview"."priod_maintain" TO "qgreview_consumer";
GRANT SELECT ON "qgreview"."priod_pending" TO "qgreview_admin";
-- Admins run every function (and the worker procedure) qgen created, and nothing else: each by
-- name, never ALL ROUTINES IN SCHEMA, which in a shared schema would reach the application's too.
GRANT EXECUTE ON ROUTINE "qgreview"."prio_enqueue" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_enqueue_batch" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_dequeue" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_complete" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_fail" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_extend_lease" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_reap" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_metrics" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_peek" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_purge_batch" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_purge" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_maintain" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_redrive" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_dead_letters" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_job" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_release" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_pause" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_resume" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."prio_cancel" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."priod_enqueue" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."priod_enqueue_batch" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."priod_dequeue" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."priod_metrics" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."priod_peek" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."priod_purge_batch" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."priod_purge" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."priod_maintain" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."priod_job" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."priod_pause" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."priod_resume" TO "qgreview_admin";
GRANT EXECUTE ON ROUTINE "qgreview"."priod_cancel" TO "qgreview_admin";

-- qgen 0.1.0: verify qgreview, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Install ends here, and fails loudly if any of qgen's functions or tables is owned by another role
-- than qgreview_owner, or a SECURITY DEFINER function does not pin its search_path: run with its
-- owner's rights, it would resolve names through its caller's path.
DO $qgen$
DECLARE
    v$wrong text;
BEGIN
    SELECT pg_catalog.string_agg(x.what, ', ' ORDER BY x.what) INTO v$wrong
    FROM
    (
        SELECT p.oid::pg_catalog.regprocedure::text
               || CASE WHEN p.proowner <> '"qgreview_owner"'::pg_catalog.regrole THEN ' (owned by ' || p.proowner::pg_catalog.regrole::text || ')'
                       ELSE ' (search_path not pinned)' END AS what
        FROM pg_catalog.pg_proc AS p
        JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
        WHERE n.nspname = 'qgreview'
          AND p.proname IN ('prio', 'prio_claim_ix', 'prio_lease_ix', 'prio_marks', 'prio_dead', 'prio_dead_ix', 'prio_pending', 'prio_batch', 'prio_enqueue', 'prio_enqueue_batch', 'prio_control', 'prio_dequeue', 'prio_complete', 'prio_fail', 'prio_extend_lease', 'prio_reap', 'prio_metrics', 'prio_peek', 'prio_purge_batch', 'prio_purge', 'prio_maintain', 'prio_redrive', 'prio_dead_letters', 'prio_job', 'prio_release', 'prio_pause', 'prio_resume', 'prio_cancel', 'priod', 'priod_claim_ix', 'priod_marks', 'priod_pending', 'priod_batch', 'priod_enqueue', 'priod_enqueue_batch', 'priod_control', 'priod_dequeue', 'priod_metrics', 'priod_peek', 'priod_purge_batch', 'priod_purge', 'priod_maintain', 'priod_job', 'priod_pause', 'priod_resume', 'priod_cancel')
          AND (p.proowner <> '"qgreview_owner"'::pg_catalog.regrole
               OR (p.prosecdef AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) AS c (setting)
                                               WHERE c.setting LIKE 'search\_path=%')))
        UNION ALL
        SELECT c.oid::pg_catalog.regclass::text || ' (owned by ' || c.relowner::pg_catalog.regrole::text || ')'
        FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'qgreview'
          AND c.relkind IN ('r', 'v')
          AND c.relname IN ('prio', 'prio_claim_ix', 'prio_lease_ix', 'prio_marks', 'prio_dead', 'prio_dead_ix', 'prio_pending', 'prio_batch', 'prio_enqueue', 'prio_enqueue_batch', 'prio_control', 'prio_dequeue', 'prio_complete', 'prio_fail', 'prio_extend_lease', 'prio_reap', 'prio_metrics', 'prio_peek', 'prio_purge_batch', 'prio_purge', 'prio_maintain', 'prio_redrive', 'prio_dead_letters', 'prio_job', 'prio_release', 'prio_pause', 'prio_resume', 'prio_cancel', 'priod', 'priod_claim_ix', 'priod_marks', 'priod_pending', 'priod_batch', 'priod_enqueue', 'priod_enqueue_batch', 'priod_control', 'priod_dequeue', 'priod_metrics', 'priod_peek', 'priod_purge_batch', 'priod_purge', 'priod_maintain', 'priod_job', 'priod_pause', 'priod_resume', 'priod_cancel')
          AND c.relowner <> '"qgreview_owner"'::pg_catalog.regrole
    ) AS x;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020', MESSAGE = 'qgen: wrongly installed in schema qgreview: ' || v$wrong;
    END IF;
    -- And each function is what this install rendered, not an older version left in place (psql
    -- without ON_ERROR_STOP goes on after a CREATE OR REPLACE that failed): md5 of its body without
    -- whitespace (qgen.dialects.postgres.module_fingerprints) against the one rendered.
    SELECT pg_catalog.string_agg(r.name, ', ' ORDER BY r.name) INTO v$wrong
    FROM
    (
        VALUES
            ('prio_cancel', '673094b572b54de95882bc1229d6da2e'),
            ('prio_complete', '809351fcf3a80a4536b91f3ad629ce02'),
            ('prio_dead_letters', 'df6d06a2e98ec24243a309f32e8c3780'),
            ('prio_dequeue', '0e6b62129e2c50ac5a9341bdd81afd0a'),
            ('prio_enqueue', '6c51718f4be81434a32a500d5b25acdf'),
            ('prio_enqueue_batch', '4c473ab476de62858142ee1b89893206'),
            ('prio_extend_lease', '56d5e68bbbecd02c99b9c5793978d823'),
            ('prio_fail', '98234958e6914919d2431d4e7e2117ab'),
            ('prio_job', 'd2d04e6f6f8a12bdbc7dc887760e51c5'),
            ('prio_maintain', '4c07fe408f186f0260b0cdd9e6c83971'),
            ('prio_metrics', 'eba16a37a40e4f6d3e7ead71b52408a1'),
            ('prio_pause', '71ea6b30575b993a732d7f1ceeec6fef'),
            ('prio_peek', 'e42f74ccdf76b215209f9853c6c3da56'),
            ('prio_purge', '84905303daa4c3218ea4a84e1ec7b528'),
            ('prio_purge_batch', '962d9ac9f4fb59ce70e350d1dbd0c864'),
            ('prio_reap', 'f34105ac096267045c2be9cc6cc66ddd'),
            ('prio_redrive', '2c0532501056f109f7fbff794b06b3cd'),
            ('prio_release', 'de6a3a9d34fac9b0ffc7f6513f4acc78'),
            ('prio_resume', '8fb10abfcdffaaf3fa49295606d6f3a0'),
            ('priod_cancel', 'b8501ffbaab8df2f5352764eab32219e'),
            ('priod_dequeue', '4ff854f3710d1f128dbbbaedac545787'),
            ('priod_dequeue_guard', 'db6f3744ff381777efa7666d2fad41ed'),
            ('priod_enqueue', '47e43d55af52462090836dd3fe952494'),
            ('priod_enqueue_batch', '18077b702672c9d7f5a10d3e2589de28'),
            ('priod_job', '58fe19f72bb2c5a7a3f22021ba0cecf4'),
            ('priod_maintain', 'a960b883bd871c4099b332f406d09ad4'),
            ('priod_metrics', '0f6ad6719718232c6547aff550b635b6'),
            ('priod_pause', '849b1aed3dc3f7196d5c477df2d1ac90'),
            ('priod_peek', 'c65080f1ca11dab2cc01ff8e77a623ae'),
            ('priod_purge', 'f57e6ba64feb1930f045d31860cf2ba9'),
            ('priod_purge_batch', 'cab239720285ec704e705fabebb957a3'),
            ('priod_resume', '081f818f49af057535dc8abc8dd9e233')
    ) AS r (name, fingerprint)
    JOIN pg_catalog.pg_proc AS p ON p.proname = r.name
    JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace AND n.nspname = 'qgreview'
    WHERE pg_catalog.md5(pg_catalog.regexp_replace(p.prosrc, '[[:space:]]', '', 'g')) <> r.fingerprint;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020',
            MESSAGE = 'qgen: installed in schema qgreview, but not as this install rendered it: ' || v$wrong,
            HINT = 'An earlier statement failed and left an older version: read its error, fix it and run install.sql again.';
    END IF;
END
$qgen$;
