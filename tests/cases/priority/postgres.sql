-- qgen 0.1.0: every object of spec.yaml, for PostgreSQL, in dependency order.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- qgen 0.1.0: schema pgs_prio, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- pgs_prio_owner owns every object qgen creates here, and cannot log in: the SECURITY DEFINER
-- functions run with its rights (its own tables and nothing else), not with those of whoever ran
-- install. The schema and the role are marked (COMMENT) when install creates them: uninstall drops
-- only what carries the mark.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_prio_owner') THEN
        CREATE ROLE "pgs_prio_owner" NOLOGIN;
        COMMENT ON ROLE "pgs_prio_owner" IS 'qgen: created by the install of schema pgs_prio';
    ELSIF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_prio_owner' AND (rolcanlogin OR rolsuper)) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG022',
            MESSAGE = 'qgen: role pgs_prio_owner exists and can log in or is a superuser; qgen''s SECURITY DEFINER functions run as this role',
            HINT = 'Make it NOLOGIN NOSUPERUSER, or drop it and let install create it.';
    END IF;
    -- Whoever installs creates the objects and hands them to the owner (ALTER ... OWNER TO), which
    -- takes membership of it unless it is a superuser.
    IF NOT pg_catalog.pg_has_role(current_user, 'pgs_prio_owner', 'MEMBER') THEN
        GRANT "pgs_prio_owner" TO CURRENT_USER;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'pgs_prio') THEN
        CREATE SCHEMA "pgs_prio";
        COMMENT ON SCHEMA "pgs_prio" IS 'qgen: created by the install of schema pgs_prio';
    END IF;
END
$qgen$;
GRANT USAGE, CREATE ON SCHEMA "pgs_prio" TO "pgs_prio_owner";

-- qgen 0.1.0: roles pgs_prio_producer, pgs_prio_consumer, pgs_prio_admin (cluster-wide), rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Producers enqueue, consumers work the queue, admins run maintenance; none of them reads tables
-- directly. Roles belong to the cluster, not the database: create each one only if it is missing,
-- and mark the ones install creates (COMMENT): uninstall drops only those, never a role that was
-- there before and that the spec only names.
DO $qgen$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_prio_producer') THEN
        CREATE ROLE "pgs_prio_producer" NOLOGIN;
        COMMENT ON ROLE "pgs_prio_producer" IS 'qgen: created by the install of schema pgs_prio';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_prio_consumer') THEN
        CREATE ROLE "pgs_prio_consumer" NOLOGIN;
        COMMENT ON ROLE "pgs_prio_consumer" IS 'qgen: created by the install of schema pgs_prio';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'pgs_prio_admin') THEN
        CREATE ROLE "pgs_prio_admin" NOLOGIN;
        COMMENT ON ROLE "pgs_prio_admin" IS 'qgen: created by the install of schema pgs_prio';
    END IF;
END
$qgen$;

-- qgen 0.1.0: table pgs_prio.urgent, rendered for PostgreSQL from spec.yaml.
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
CREATE TABLE IF NOT EXISTS "pgs_prio"."urgent"
(
    -- Ever-increasing: claims walk the id in order, and the watermark is an id.
    "id" bigint GENERATED ALWAYS AS IDENTITY,
    "msg" text NOT NULL,
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
ALTER TABLE "pgs_prio"."urgent" OWNER TO "pgs_prio_owner";

-- qgen 0.1.0: claim_index pgs_prio.urgent_claim_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only claimable rows are indexed, in claim order; a claim seeks here instead of walking leased or done rows.
CREATE INDEX IF NOT EXISTS "urgent_claim_ix"
    ON "pgs_prio"."urgent" ("priority" DESC, "id")
    WHERE "lease_token" IS NULL
    ;

-- qgen 0.1.0: lease_index pgs_prio.urgent_lease_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Only leased rows (the jobs in flight), so complete-by-token, extend and reap find them without a scan.
CREATE INDEX IF NOT EXISTS "urgent_lease_ix"
    ON "pgs_prio"."urgent" ("lease_token") INCLUDE ("lease_expires_at", "attempts")
    WHERE "lease_token" IS NOT NULL;

-- qgen 0.1.0: priority_marks pgs_prio.urgent_marks, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: a priority queue's claim marks, the watermark of each priority. In the priority
-- "priorities[k]", no job below the id "ids[k]" needs a claim's look: each was claimed or is gone
-- (completed, deleted), and the rescan finds what a mark passed (see dequeue). A claim seeks the
-- claim index at (priority, mark) instead of walking the dead index entries that claimed and
-- completed rows leave at the head of each priority until VACUUM. A priority without a mark is
-- claimed from its first id. Sorted by priority, highest first, as claims visit them.
CREATE TABLE IF NOT EXISTS "pgs_prio"."urgent_marks"
(
    "priorities" integer[] NOT NULL DEFAULT '{}',
    "ids" bigint[] NOT NULL DEFAULT '{}',
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    -- When the table was last searched below the marks (by a dequeue's rescan): a dequeue rescans
    -- when this is watermark.rescan (10 s) old.
    "corrected_at" timestamptz NOT NULL DEFAULT '-infinity',
    PRIMARY KEY ("one_row")
);
ALTER TABLE "pgs_prio"."urgent_marks" OWNER TO "pgs_prio_owner";
INSERT INTO "pgs_prio"."urgent_marks" ("one_row") VALUES (TRUE) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: archive_table pgs_prio.urgent_archive, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Completed jobs, moved here by complete and removed by purge after the retention period.
-- Keyed by an identity of its own: "id" is the job's id, which repeats once the queue's identity is
-- restarted (or when a job reaches the archive twice).
CREATE TABLE IF NOT EXISTS "pgs_prio"."urgent_archive"
(
    "entry_id" bigint GENERATED ALWAYS AS IDENTITY,
    "id" bigint NOT NULL,
    "msg" text NOT NULL,
    "priority" integer NOT NULL,
    "enqueued_at" timestamptz NOT NULL,
    "attempts" integer NOT NULL,
    "completed_at" timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY ("entry_id")
);
ALTER TABLE "pgs_prio"."urgent_archive" OWNER TO "pgs_prio_owner";

-- qgen 0.1.0: archive_index pgs_prio.urgent_archive_ix, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- purge deletes archived jobs by age: it finds the old ones here instead of scanning the archive.
CREATE INDEX IF NOT EXISTS "urgent_archive_ix"
    ON "pgs_prio"."urgent_archive" ("completed_at");

-- qgen 0.1.0: pending_view pgs_prio.urgent_pending, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "pgs_prio"."urgent_pending" AS
SELECT "job"."id", "job"."msg", "job"."priority", "job"."available_at", "job"."enqueued_at", "job"."attempts", "job"."last_error"
FROM "pgs_prio"."urgent" AS "job"
WHERE "job"."lease_token" IS NULL;
ALTER VIEW "pgs_prio"."urgent_pending" OWNER TO "pgs_prio_owner";

-- qgen 0.1.0: batch_type pgs_prio.urgent_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) and priority (0) when missing, and the table rejects a missing required column.
-- Its string and decimal fields have no length or scale (m.param_type): reading a job into
-- varchar(n) or numeric(p,s) would cut or round a value past its column before enqueue_batch
-- could refuse it (QG010).
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"pgs_prio"."urgent_batch"') IS NULL THEN
        CREATE TYPE "pgs_prio"."urgent_batch" AS
        (
            "ordinal" integer,
            "msg" text,
            "priority" integer
        );
    END IF;
END
$qgen$;
ALTER TYPE "pgs_prio"."urgent_batch" OWNER TO "pgs_prio_owner";

-- qgen 0.1.0: enqueue pgs_prio.urgent_enqueue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_enqueue"
(
    "msg" text,
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
        INSERT INTO "pgs_prio"."urgent" AS "job" ("msg", "priority")
        VALUES ("urgent_enqueue"."msg", "urgent_enqueue"."priority")
        RETURNING "job"."id", TRUE;
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_enqueue" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_enqueue" FROM PUBLIC;

-- qgen 0.1.0: enqueue_batch pgs_prio.urgent_enqueue_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds many jobs in one statement; ids are assigned in ordinal order (a job's "ordinal" key, else
-- its position in the array). Returns (ordinal, id, enqueued) for every input job.
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_enqueue_batch"
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
    v$sequence regclass := pg_catalog.pg_get_serial_sequence('"pgs_prio"."urgent"', 'id')::regclass;
BEGIN

    RETURN QUERY
        WITH "input" AS
        (
            SELECT coalesce("j"."ordinal", "e"."position$"::integer) AS "ordinal",
                   "j"."msg", coalesce("j"."priority", 0) AS "priority"
            -- The array position and the new id are qgen's own columns beside the job's: their names
            -- hold a $, which no spec column can.
            FROM jsonb_array_elements("urgent_enqueue_batch"."jobs") WITH ORDINALITY AS "e"("job$", "position$")
            CROSS JOIN LATERAL jsonb_populate_record(NULL::"pgs_prio"."urgent_batch", "e"."job$") AS "j"
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
            INSERT INTO "pgs_prio"."urgent" AS "job" ("id", "msg", "priority")
            OVERRIDING SYSTEM VALUE
            SELECT "n"."new$id", "n"."msg", "n"."priority"
            FROM "numbered" AS "n"
            ORDER BY "n"."ordinal"
            RETURNING "job"."id"
        )
        SELECT "n"."ordinal", "n"."new$id", TRUE
        FROM "numbered" AS "n"
        ORDER BY "n"."ordinal";
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_enqueue_batch" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_enqueue_batch" FROM PUBLIC;

-- qgen 0.1.0: control_table pgs_prio.urgent_control, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row: whether the queue is paused, and the last pause or resume (when, by which role). Every
-- claim reads it first (a plain read: a pause or resume counts from its commit, and no claim waits
-- on one left open). A missing row (deleted by hand) reads as running.
CREATE TABLE IF NOT EXISTS "pgs_prio"."urgent_control"
(
    "one_row" boolean NOT NULL DEFAULT TRUE CHECK ("one_row"),
    "paused" boolean NOT NULL DEFAULT FALSE,
    "changed_at" timestamptz NULL,
    "changed_by" varchar(128) NULL,
    PRIMARY KEY ("one_row")
);
ALTER TABLE "pgs_prio"."urgent_control" OWNER TO "pgs_prio_owner";
INSERT INTO "pgs_prio"."urgent_control" ("paused") VALUES (FALSE) ON CONFLICT DO NOTHING;

-- qgen 0.1.0: dequeue pgs_prio.urgent_dequeue, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The rows dequeue returns. A composite type rather than RETURNS TABLE: its columns may share a
-- name with a parameter (the job type column and the job_type filter), which RETURNS TABLE forbids.
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"pgs_prio"."urgent_dequeue_row"') IS NULL THEN
        CREATE TYPE "pgs_prio"."urgent_dequeue_row" AS
        (
            "id" bigint,
            "msg" text,
            "priority" integer,
            "attempts" integer,
            "lease_token" uuid,
            "lease_expires_at" timestamptz
        );
    END IF;
END
$qgen$;
ALTER TYPE "pgs_prio"."urgent_dequeue_row" OWNER TO "pgs_prio_owner";
-- Claims up to batch_size jobs under one new lease token and returns them. The lease is a soft
-- lock: no transaction stays open while the worker runs, and reap releases it if the worker dies.
-- With complete_lease_token it first completes that lease's jobs as complete(token) does, in the
-- same transaction: one commit per batch instead of two. A token that holds no job raises QG001
-- and nothing is claimed.
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_dequeue"
(
    "owner" varchar(128) DEFAULT NULL,
    "batch_size" integer DEFAULT 10,
    "lease_seconds" integer DEFAULT 300,
    "complete_lease_token" uuid DEFAULT NULL
)
RETURNS SETOF "pgs_prio"."urgent_dequeue_row"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
ROWS 10
AS $qgen$
#variable_conflict use_column
DECLARE
    v$token uuid := gen_random_uuid();
    v$completed integer;
    v$job "pgs_prio"."urgent_dequeue_row";
    -- The marks (priorities highest first, and each one's mark), read as the dequeue starts.
    v$prios integer[];
    v$marks bigint[];
    v$rescan boolean;
    v$searched timestamptz;
    v$count integer;
    v$left integer := "urgent_dequeue"."batch_size";
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
    IF "urgent_dequeue"."batch_size" IS NULL OR "urgent_dequeue"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for pgs_prio.urgent_dequeue; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("urgent_dequeue"."batch_size"::text, 'NULL'));
    END IF;
    IF pg_catalog.length("urgent_dequeue"."owner") > 128 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG010',
            MESSAGE = 'qgen: owner is past its column''s limit in pgs_prio.urgent_dequeue; accepted: string(128), at most 128 characters';
    END IF;
    IF "urgent_dequeue"."lease_seconds" IS NULL OR "urgent_dequeue"."lease_seconds" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: lease_seconds ' || coalesce("urgent_dequeue"."lease_seconds"::text, 'NULL') || ' is out of range; accepted: 1 or more seconds';
    END IF;
    IF "urgent_dequeue"."complete_lease_token" IS NOT NULL THEN
        WITH "done" AS
        (
            DELETE FROM "pgs_prio"."urgent" AS "job"
            WHERE "job"."lease_token" = "urgent_dequeue"."complete_lease_token"
            RETURNING "job".*
        ),
        "archived" AS
        (
            INSERT INTO "pgs_prio"."urgent_archive" ("id", "msg", "priority", "enqueued_at", "attempts", "completed_at")
            SELECT "d"."id", "d"."msg", "d"."priority", "d"."enqueued_at", "d"."attempts", pg_catalog.clock_timestamp()
            FROM "done" AS "d"
        )
        SELECT count(*) INTO v$completed FROM "done";
        IF v$completed = 0 THEN
            RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_prio.urgent: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
        END IF;
    END IF;
    -- Paused (pause, resume): complete what was asked, claim nothing.
    IF NOT EXISTS (SELECT 1 FROM "pgs_prio"."urgent_control" AS "c" WHERE NOT "c"."paused") THEN
        RETURN;
    END IF;
    -- Read the marks; every 10 s, look below them first for jobs they passed (see the macro marks_start).
    SELECT "w"."priorities", "w"."ids", "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) INTO v$prios, v$marks, v$rescan FROM "pgs_prio"."urgent_marks" AS "w";
    IF NOT FOUND THEN
        INSERT INTO "pgs_prio"."urgent_marks" ("one_row") VALUES (TRUE) ON CONFLICT DO NOTHING;
    ELSIF v$rescan AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
        SELECT pg_catalog.clock_timestamp() INTO v$searched
        FROM "pgs_prio"."urgent_marks" AS "w" WHERE "w"."corrected_at" <= pg_catalog.clock_timestamp() - pg_catalog.make_interval(secs => 10) FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            -- A statement of its own: its snapshot is taken after the lock (see postgres__watermark_start).
            UPDATE "pgs_prio"."urgent_marks" AS "w"
            SET "corrected_at" = v$searched,
                "ids" = coalesce((SELECT pg_catalog.array_agg(CASE WHEN "s"."lowest" IS NULL THEN "u"."id"
                                                                   ELSE least("u"."id", greatest("s"."lowest" - 50, 0)) END
                                                              ORDER BY "u"."k")
                                  FROM ROWS FROM (pg_catalog.unnest("w"."priorities"), pg_catalog.unnest("w"."ids")) WITH ORDINALITY AS "u"("priority", "id", "k")
                                  LEFT JOIN LATERAL (SELECT min("job"."id") AS "lowest"
                                                     FROM "pgs_prio"."urgent" AS "job"
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
                UPDATE "pgs_prio"."urgent" AS "job"
                SET "lease_token" = v$token,
                    "lease_owner" = "urgent_dequeue"."owner",
                    "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "urgent_dequeue"."lease_seconds"),
                    "attempts" = "job"."attempts" + 1
                -- = ANY(ARRAY(...)): the picked ids are an InitPlan, so the update is a primary-key lookup
                -- whatever LIMIT estimate the plan was made with (see postgres__definer: plans are generic).
                WHERE "job"."id" = ANY (ARRAY
                (
                    SELECT "next"."id"
                    FROM "pgs_prio"."urgent" AS "next"
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
                RETURNING "job"."id", "job"."msg", "job"."priority", "job"."attempts", "job"."lease_token", "job"."lease_expires_at"
            )
            SELECT "c"."id", "c"."msg", "c"."priority", "c"."attempts", "c"."lease_token", "c"."lease_expires_at"
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
        IF v$top - v$cur >= 150 AND pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted')
           AND NOT EXISTS (SELECT 1 FROM "pgs_prio"."urgent" AS "job"
                           WHERE "job"."id" = v$cur AND "job"."priority" = v$band AND "job"."lease_token" IS NULL) THEN
            SELECT coalesce("w"."ids"[pg_catalog.array_position("w"."priorities", v$band)], 0) INTO v$cur
            FROM "pgs_prio"."urgent_marks" AS "w" FOR UPDATE SKIP LOCKED;
            IF FOUND AND v$cur < v$top - 50 THEN
                SELECT min("job"."id") INTO v$lowest
                FROM "pgs_prio"."urgent" AS "job"
                WHERE "job"."priority" = v$band AND "job"."id" >= v$cur AND "job"."id" < v$top - 50
                  AND "job"."lease_token" IS NULL;
                UPDATE "pgs_prio"."urgent_marks" AS "w"
                SET ("priorities", "ids") =
                    (SELECT pg_catalog.array_agg("x"."priority" ORDER BY "x"."priority" DESC),
                            pg_catalog.array_agg("x"."id" ORDER BY "x"."priority" DESC)
                     FROM (SELECT "u"."priority",
                                  CASE WHEN "u"."priority" = v$band
                                       THEN greatest("u"."id", coalesce(v$lowest, v$top - 50)) ELSE "u"."id" END
                           FROM ROWS FROM (pg_catalog.unnest("w"."priorities"), pg_catalog.unnest("w"."ids")) AS "u"("priority", "id")
                           UNION ALL
                           SELECT v$band, coalesce(v$lowest, v$top - 50)
                           WHERE pg_catalog.array_position("w"."priorities", v$band) IS NULL) AS "x"("priority", "id"));
            END IF;
        END IF;
    END LOOP;
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_dequeue" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_dequeue" FROM PUBLIC;

-- qgen 0.1.0: complete pgs_prio.urgent_complete, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Finishes jobs held by a lease: moves them to the archive. With id, only that job; without, every job of
-- the lease. The token is the fence: a worker whose lease was released or taken over gets QG001.
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_complete"
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
    IF "urgent_complete"."id" IS NULL THEN
        WITH "done" AS
        (
            DELETE FROM "pgs_prio"."urgent" AS "job"
            WHERE "job"."lease_token" = "urgent_complete"."lease_token"
            RETURNING "job".*
        ),
        "archived" AS
        (
            INSERT INTO "pgs_prio"."urgent_archive" ("id", "msg", "priority", "enqueued_at", "attempts", "completed_at")
            SELECT "d"."id", "d"."msg", "d"."priority", "d"."enqueued_at", "d"."attempts", pg_catalog.clock_timestamp()
            FROM "done" AS "d"
        )
        SELECT count(*) INTO v$completed FROM "done";
    ELSE
        WITH "done" AS
        (
            DELETE FROM "pgs_prio"."urgent" AS "job"
            WHERE "job"."id" = "urgent_complete"."id" AND "job"."lease_token" = "urgent_complete"."lease_token"
            RETURNING "job".*
        ),
        "archived" AS
        (
            INSERT INTO "pgs_prio"."urgent_archive" ("id", "msg", "priority", "enqueued_at", "attempts", "completed_at")
            SELECT "d"."id", "d"."msg", "d"."priority", "d"."enqueued_at", "d"."attempts", pg_catalog.clock_timestamp()
            FROM "done" AS "d"
        )
        SELECT count(*) INTO v$completed FROM "done";
    END IF;
    IF v$completed = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_prio.urgent: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$completed;
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_complete" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_complete" FROM PUBLIC;

-- qgen 0.1.0: fail pgs_prio.urgent_fail, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- A worker could not finish a job. With attempts left (at most 2) and retry it is released for
-- another try after a backoff (returns 0); otherwise it is deleted (dead_letter: false) (returns 1).
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_fail"
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
    v$error text := pg_catalog.left("urgent_fail"."error", 4000);
    v$gone integer;
    v$band integer;
BEGIN
    -- NULL is not "no retry": refused, so a caller passing an unset flag does not dead-letter the job.
    IF "urgent_fail"."retry" IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: retry NULL is out of range; accepted: true or false';
    END IF;
    IF "urgent_fail"."retry" THEN
        UPDATE "pgs_prio"."urgent" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL,
            "last_error" = v$error,
            "available_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => least(3600::float8, 10 * power(2::float8, least("job"."attempts" - 1, 60))))
        WHERE "job"."id" = "urgent_fail"."id" AND "job"."lease_token" = "urgent_fail"."lease_token"
          AND "job"."attempts" < 2
        RETURNING "job"."priority" INTO v$band;
        IF FOUND THEN
            -- The job is claimable again: its priority's mark must not stay above it.
            IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
                FOR v$try IN 1 .. 5 LOOP
                    PERFORM 1 FROM "pgs_prio"."urgent_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$band)] > "urgent_fail"."id" FOR UPDATE SKIP LOCKED;
                    IF FOUND THEN
                        UPDATE "pgs_prio"."urgent_marks" AS "w" SET "ids"[pg_catalog.array_position("w"."priorities", v$band)] = "urgent_fail"."id"
                        WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$band)] > "urgent_fail"."id";
                        EXIT;
                    END IF;
                    -- Not taken: either nothing to lower, or another transaction holds the row.
                    EXIT WHEN NOT EXISTS (SELECT 1 FROM "pgs_prio"."urgent_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$band)] > "urgent_fail"."id");
                    PERFORM pg_catalog.pg_sleep(0.01);
                END LOOP;
            END IF;
            RETURN 0;
        END IF;
    END IF;
    -- No retry (asked, or attempts used up), or the token does not hold the job: then nothing matches.
    DELETE FROM "pgs_prio"."urgent" AS "job"
    WHERE "job"."id" = "urgent_fail"."id" AND "job"."lease_token" = "urgent_fail"."lease_token";
    GET DIAGNOSTICS v$gone = ROW_COUNT;
    IF v$gone = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_prio.urgent: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN 1;
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_fail" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_fail" FROM PUBLIC;

-- qgen 0.1.0: extend_lease pgs_prio.urgent_extend_lease, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Keeps a lease alive while a worker is still busy: its jobs expire lease_seconds from now.
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_extend_lease"
(
    "lease_token" uuid,
    "lease_seconds" integer DEFAULT 300,
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
    IF "urgent_extend_lease"."lease_seconds" IS NULL OR "urgent_extend_lease"."lease_seconds" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: lease_seconds ' || coalesce("urgent_extend_lease"."lease_seconds"::text, 'NULL') || ' is out of range; accepted: 1 or more seconds';
    END IF;
    IF "urgent_extend_lease"."id" IS NULL THEN
        UPDATE "pgs_prio"."urgent" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "urgent_extend_lease"."lease_seconds")
        WHERE "job"."lease_token" = "urgent_extend_lease"."lease_token";
    ELSE
        UPDATE "pgs_prio"."urgent" AS "job"
        SET "lease_expires_at" = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => "urgent_extend_lease"."lease_seconds")
        WHERE "job"."id" = "urgent_extend_lease"."id" AND "job"."lease_token" = "urgent_extend_lease"."lease_token";
    END IF;
    GET DIAGNOSTICS v$extended = ROW_COUNT;
    IF v$extended = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_prio.urgent: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    RETURN v$extended;
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_extend_lease" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_extend_lease" FROM PUBLIC;

-- qgen 0.1.0: reap pgs_prio.urgent_reap, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Releases jobs whose lease expired (a worker died or overran its allotted time), at most
-- batch_size per call: those with attempts left become claimable again, with their old token
-- cleared so the late worker is fenced off; the rest are deleted.
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_reap"
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
    IF "urgent_reap"."batch_size" IS NULL OR "urgent_reap"."batch_size" NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = pg_catalog.format('qgen: batch_size %s is out of range for pgs_prio.urgent_reap; accepted: 1 to 1000 (the queue''s max_batch_size)',
                                        coalesce("urgent_reap"."batch_size"::text, 'NULL'));
    END IF;
    WITH "expired" AS
    (
        -- SKIP LOCKED: a job being completed right now is locked by its worker; leave it to finish.
        SELECT "job"."id", "job"."attempts"
        FROM "pgs_prio"."urgent" AS "job"
        WHERE "job"."lease_token" IS NOT NULL AND "job"."lease_expires_at" < pg_catalog.clock_timestamp()
        LIMIT "urgent_reap"."batch_size"
        FOR UPDATE SKIP LOCKED
    ),
    "freed" AS
    (
        UPDATE "pgs_prio"."urgent" AS "job"
        SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
            "last_error" = 'qgen: lease expired before the job was completed'
        FROM "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" < 2
        RETURNING "job"."id", "job"."priority"
    ),
    "gone" AS
    (
        DELETE FROM "pgs_prio"."urgent" AS "job"
        USING "expired" AS "e"
        WHERE "job"."id" = "e"."id" AND "e"."attempts" >= 2
        RETURNING "job".*
    )
    SELECT (SELECT count(*) FROM "freed"), (SELECT count(*) FROM "gone"), (SELECT min("f"."id") FROM "freed" AS "f"),
           (SELECT pg_catalog.array_agg("b"."priority" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b"),
           (SELECT pg_catalog.array_agg("b"."id" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b")
    INTO "released", "dead_lettered", v$lowest, v$bands, v$lows;
    -- Released jobs are claimable again: no priority's mark may stay above them.
    FOR v$k IN 1 .. coalesce(pg_catalog.cardinality(v$bands), 0) LOOP
        IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
            FOR v$try IN 1 .. 5 LOOP
                PERFORM 1 FROM "pgs_prio"."urgent_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k] FOR UPDATE SKIP LOCKED;
                IF FOUND THEN
                    UPDATE "pgs_prio"."urgent_marks" AS "w" SET "ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] = v$lows[v$k]
                    WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k];
                    EXIT;
                END IF;
                -- Not taken: either nothing to lower, or another transaction holds the row.
                EXIT WHEN NOT EXISTS (SELECT 1 FROM "pgs_prio"."urgent_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k]);
                PERFORM pg_catalog.pg_sleep(0.01);
            END LOOP;
        END IF;
    END LOOP;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_reap" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_reap" FROM PUBLIC;

-- qgen 0.1.0: metrics pgs_prio.urgent_metrics, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- One row describing the queue now. Counts scan the table: for dashboards and alerts, not hot paths.
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_metrics"()
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
        0::bigint,
        (SELECT count(*) FROM "pgs_prio"."urgent_archive"),
        coalesce(floor(extract(epoch FROM now() - min("job"."enqueued_at") FILTER (WHERE "job"."lease_token" IS NULL AND "job"."available_at" <= now())))::bigint, 0),
        NULL::bigint,
        min("job"."id") FILTER (WHERE "job"."lease_token" IS NULL),
        (SELECT count(*) FROM "pgs_prio"."urgent_archive" AS "a" WHERE "a"."completed_at" >= now() - interval '1 minute'),
        NULL::bigint,
        NOT EXISTS (SELECT 1 FROM "pgs_prio"."urgent_control" AS "c" WHERE NOT "c"."paused")
    FROM "pgs_prio"."urgent" AS "job";
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_metrics" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_metrics" FROM PUBLIC;

-- qgen 0.1.0: peek pgs_prio.urgent_peek, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them. Returns the
-- pending view's rows. "limit" is a reserved word: by name it is passed as "limit" => n.
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_peek"
(
    "limit" integer DEFAULT 100
)
RETURNS SETOF "pgs_prio"."urgent_pending"
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $qgen$
#variable_conflict use_column
BEGIN
    -- NULL (LIMIT NULL: every row) or negative is refused as the other argument checks are.
    IF "urgent_peek"."limit" IS NULL OR "urgent_peek"."limit" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: limit is out of range for pgs_prio.urgent_peek; accepted: 0 or more rows';
    END IF;
    RETURN QUERY
    SELECT "p".*
    FROM "pgs_prio"."urgent_pending" AS "p"
    ORDER BY "p"."priority" DESC, "p"."id"
    LIMIT "urgent_peek"."limit";
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_peek" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_peek" FROM PUBLIC;

-- qgen 0.1.0: purge_batch pgs_prio.urgent_purge_batch, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes ONE batch of finished jobs (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds: at most batch_size rows (1000 by default, refused above 4000) over all
-- those tables together, in the caller's transaction. purge (a procedure) calls it in a loop and
-- commits after each batch; a client can call it in a loop of its own, one transaction per call.
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_purge_batch"
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
    v$left integer := "urgent_purge_batch"."batch_size";
    v$deleted integer;
BEGIN
    IF "urgent_purge_batch"."batch_size" IS NULL OR "urgent_purge_batch"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("urgent_purge_batch"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    IF "urgent_purge_batch"."older_than_seconds" IS NULL OR "urgent_purge_batch"."older_than_seconds" < 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: older_than_seconds ' || coalesce("urgent_purge_batch"."older_than_seconds"::text, 'NULL') || ' is out of range; accepted: 0 or more';
    END IF;
    v$cutoff := now() - pg_catalog.make_interval(secs => "urgent_purge_batch"."older_than_seconds");
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    IF v$left > 0 THEN
        DELETE FROM "pgs_prio"."urgent_archive" AS "x"
        WHERE "x"."entry_id" = ANY (ARRAY(
            SELECT "y"."entry_id" FROM "pgs_prio"."urgent_archive" AS "y"
            WHERE "y"."completed_at" < v$cutoff
            LIMIT v$left
            FOR UPDATE SKIP LOCKED));
        GET DIAGNOSTICS v$deleted = ROW_COUNT;
        "archived" := v$deleted;
        v$left := v$left - v$deleted;
    END IF;
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_purge_batch" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_purge_batch" FROM PUBLIC;

-- qgen 0.1.0: purge pgs_prio.urgent_purge, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Removes every finished job (archived, processed, dead-lettered) finished longer ago than
-- older_than_seconds, one batch of at most batch_size rows at a time, and COMMITs after each batch:
-- no transaction holds more than one batch, and vacuum can clean up behind it while it runs.
-- Rows that finish while it runs (a second after it began) are left for the next purge, so it ends.
-- A procedure that commits cannot be SECURITY DEFINER nor have a SET clause: it runs with its
-- caller's rights and reaches the tables only through urgent_purge_batch (EXECUTE on that is all it
-- needs); every name in it is schema-qualified. CALL it outside a transaction block (inside one,
-- PostgreSQL refuses its COMMIT: invalid transaction termination, 2D000); there call
-- urgent_purge_batch instead.
CREATE OR REPLACE PROCEDURE "pgs_prio"."urgent_purge"
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
    "urgent_purge"."archived" := 0;
    "urgent_purge"."processed" := 0;
    "urgent_purge"."dead" := 0;
    LOOP
        -- Each batch is a new transaction with a later now(): widen the age by the whole seconds
        -- spent so far, so the cutoff stays within a second of where it was when the call began.
        SELECT * INTO v$batch
        FROM "pgs_prio"."urgent_purge_batch"(
            "urgent_purge"."older_than_seconds" + pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - v$started))::integer,
            "urgent_purge"."batch_size");
        "urgent_purge"."archived" := "urgent_purge"."archived" + v$batch."archived";
        "urgent_purge"."processed" := "urgent_purge"."processed" + v$batch."processed";
        "urgent_purge"."dead" := "urgent_purge"."dead" + v$batch."dead";
        COMMIT;
        -- A short batch: nothing older is left (or what is left is locked: the next purge takes it).
        EXIT WHEN v$batch."archived" + v$batch."processed" + v$batch."dead" < "urgent_purge"."batch_size";
    END LOOP;
END
$qgen$;
ALTER PROCEDURE "pgs_prio"."urgent_purge" OWNER TO "pgs_prio_owner";
REVOKE ALL ON PROCEDURE "pgs_prio"."urgent_purge" FROM PUBLIC;

-- qgen 0.1.0: maintain pgs_prio.urgent_maintain, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Looks after the queue, one bounded batch of each, so a call returns quickly: purges up to
-- batch_size finished jobs older than the retention (604800 s), releases up to batch_size expired
-- leases (reap), in that order, in one transaction. Only one runs at a
-- time per queue: a caller that finds another one running returns at once with skipped = true.
-- more = true when a step filled its batch: call again (qgen maintain does) to do the rest.
-- Granted to the consumer role, so any worker can run it (run_worker does, every few seconds).
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_maintain"
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
    IF "urgent_maintain"."batch_size" IS NULL OR "urgent_maintain"."batch_size" NOT BETWEEN 1 AND 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: batch_size ' || coalesce("urgent_maintain"."batch_size"::text, 'NULL') || ' is out of range; accepted: 1 to 4000';
    END IF;
    "released" := 0;
    "dead_lettered" := 0;
    "archived" := 0;
    "processed" := 0;
    "dead" := 0;
    -- One at a time (see the macro maintain_lock). The lock is the transaction's: it goes with the
    -- commit or the rollback, whatever happens.
    BEGIN
        LOCK TABLE "pgs_prio"."urgent" IN SHARE UPDATE EXCLUSIVE MODE NOWAIT;
    EXCEPTION WHEN lock_not_available THEN
        "skipped" := TRUE;
        "more" := FALSE;
        RETURN NEXT;
        RETURN;
    END;
    "skipped" := FALSE;
    -- Purge first and correct the watermark last: the watermark row stays locked for the least time.
    SELECT "p"."archived", "p"."processed", "p"."dead" INTO "archived", "processed", "dead"
    FROM "pgs_prio"."urgent_purge_batch"(604800, "urgent_maintain"."batch_size") AS "p";
    SELECT "r"."released", "r"."dead_lettered" INTO "released", "dead_lettered"
    -- reap takes at most the queue's max_batch_size (1000).
    FROM "pgs_prio"."urgent_reap"(least("urgent_maintain"."batch_size", 1000)) AS "r";
    "more" := "archived" + "processed" + "dead" >= "urgent_maintain"."batch_size"
              OR "released" + "dead_lettered" >= least("urgent_maintain"."batch_size", 1000);
    RETURN NEXT;
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_maintain" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_maintain" FROM PUBLIC;

-- qgen 0.1.0: job pgs_prio.urgent_job, rendered for PostgreSQL from spec.yaml.
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
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_job"
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
    IF "urgent_job"."job_id" IS NULL OR "urgent_job"."job_id" < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: job_id ' || coalesce("urgent_job"."job_id"::text, 'NULL') || ' is out of range for pgs_prio.urgent_job; accepted: a job id, 1 or more';
    END IF;
    RETURN QUERY
    SELECT "j"."id", CASE WHEN "j"."lease_token" IS NOT NULL THEN 'in_flight' WHEN "j"."available_at" > now() THEN 'scheduled' ELSE 'queued' END,
        "j"."enqueued_at", "j"."available_at",
        "j"."attempts", "j"."lease_owner"::text, "j"."lease_expires_at",
        "j"."last_error"::text, NULL::timestamptz
    FROM "pgs_prio"."urgent" AS "j"
    WHERE "j"."id" = "urgent_job"."job_id";
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "a"."id", 'archived'::text, "a"."enqueued_at", NULL::timestamptz, "a"."attempts", NULL::text, NULL::timestamptz,
        NULL::text, "a"."completed_at"
    FROM "pgs_prio"."urgent_archive" AS "a"
    WHERE "a"."id" = "urgent_job"."job_id"
    ORDER BY "a"."entry_id" DESC
    LIMIT 1;
    IF FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT "urgent_job"."job_id", 'not_found'::text, NULL::timestamptz, NULL::timestamptz, NULL::integer, NULL::text, NULL::timestamptz,
        NULL::text, NULL::timestamptz;
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_job" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_job" FROM PUBLIC;

-- qgen 0.1.0: release pgs_prio.urgent_release, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Hands leased jobs back unstarted: claimable again at once, their claim not counted as an attempt
-- (a worker that stops, SIGTERM, gives back the jobs of its batch it did not begin). With id, that
-- job; without, every job of the lease. The token is the fence: a
-- job whose lease was released, taken over or finished gets QG001. last_error is kept (no failure happened).
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_release"
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
    IF "urgent_release"."id" IS NOT NULL THEN
        WITH "freed" AS
        (
            UPDATE "pgs_prio"."urgent" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."id" = "urgent_release"."id" AND "job"."lease_token" = "urgent_release"."lease_token"
            RETURNING "job"."id", "job"."priority"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f"),
               (SELECT pg_catalog.array_agg("b"."priority" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b"),
               (SELECT pg_catalog.array_agg("b"."id" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b")
        INTO v$released, v$lowest, v$bands, v$lows;
    ELSE
        WITH "freed" AS
        (
            UPDATE "pgs_prio"."urgent" AS "job"
            SET "lease_token" = NULL, "lease_owner" = NULL, "lease_expires_at" = NULL, "available_at" = pg_catalog.clock_timestamp(),
                "attempts" = greatest("job"."attempts" - 1, 0)
            WHERE "job"."lease_token" = "urgent_release"."lease_token"
            RETURNING "job"."id", "job"."priority"
        )
        SELECT (SELECT count(*) FROM "freed"), (SELECT min("f"."id") FROM "freed" AS "f"),
               (SELECT pg_catalog.array_agg("b"."priority" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b"),
               (SELECT pg_catalog.array_agg("b"."id" ORDER BY "b"."priority") FROM (SELECT "f"."priority", min("f"."id") AS "id" FROM "freed" AS "f" GROUP BY "f"."priority") AS "b")
        INTO v$released, v$lowest, v$bands, v$lows;
    END IF;
    IF v$released = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG001',
            MESSAGE = 'qgen: lease lost on pgs_prio.urgent: the lease token does not hold this job (it expired and was released or taken over, or the job is already finished)';
    END IF;
    -- Released jobs are claimable again: no priority's mark may stay above them.
    FOR v$k IN 1 .. coalesce(pg_catalog.cardinality(v$bands), 0) LOOP
        IF pg_catalog.current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') THEN
            FOR v$try IN 1 .. 5 LOOP
                PERFORM 1 FROM "pgs_prio"."urgent_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k] FOR UPDATE SKIP LOCKED;
                IF FOUND THEN
                    UPDATE "pgs_prio"."urgent_marks" AS "w" SET "ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] = v$lows[v$k]
                    WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k];
                    EXIT;
                END IF;
                -- Not taken: either nothing to lower, or another transaction holds the row.
                EXIT WHEN NOT EXISTS (SELECT 1 FROM "pgs_prio"."urgent_marks" AS "w" WHERE "w"."ids"[pg_catalog.array_position("w"."priorities", v$bands[v$k])] > v$lows[v$k]);
                PERFORM pg_catalog.pg_sleep(0.01);
            END LOOP;
        END IF;
    END LOOP;
    RETURN v$released;
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_release" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_release" FROM PUBLIC;

-- qgen 0.1.0: pause pgs_prio.urgent_pause, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Pauses the queue: from this call's commit every claim (dequeue, the in-database worker) returns
-- no job. Enqueues go on, and leases already granted run to their end (complete, fail,
-- extend_lease, release and reap work as before). Returns 1 when this call paused the queue, 0
-- when it was paused already.
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_pause"()
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
    SELECT "c"."paused" INTO v$was FROM "pgs_prio"."urgent_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "pgs_prio"."urgent_control" ("paused", "changed_at", "changed_by")
        VALUES (TRUE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "pgs_prio"."urgent_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = TRUE THEN
        RETURN 0;
    END IF;
    UPDATE "pgs_prio"."urgent_control" AS "c"
    SET "paused" = TRUE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_prio.urgent: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_pause" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_pause" FROM PUBLIC;

-- qgen 0.1.0: resume pgs_prio.urgent_resume, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Resumes a paused queue: from this call's commit claims take jobs again. Returns 1 when this call
-- resumed the queue, 0 when it was not paused.
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_resume"()
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
    SELECT "c"."paused" INTO v$was FROM "pgs_prio"."urgent_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
    IF NOT FOUND THEN
        -- A missing row (deleted by hand) read as paused: put back, as this call leaves the queue
        -- (a concurrent call that put it back first is read again, locked).
        INSERT INTO "pgs_prio"."urgent_control" ("paused", "changed_at", "changed_by")
        VALUES (FALSE, pg_catalog.clock_timestamp(), session_user::text)
        ON CONFLICT DO NOTHING;
        IF FOUND THEN
            v$was := TRUE;
        ELSE
            SELECT "c"."paused" INTO v$was FROM "pgs_prio"."urgent_control" AS "c" WHERE "c"."one_row" FOR UPDATE;
        END IF;
    END IF;
    IF v$was = FALSE THEN
        RETURN 0;
    END IF;
    UPDATE "pgs_prio"."urgent_control" AS "c"
    SET "paused" = FALSE, "changed_at" = pg_catalog.clock_timestamp(), "changed_by" = session_user::text
    WHERE "c"."one_row";
    RETURN 1;
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_prio.urgent: another session holds the queue''s control row (a pause or resume not yet committed): commit or roll it back, then call again';
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_resume" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_resume" FROM PUBLIC;

-- qgen 0.1.0: cancel pgs_prio.urgent_cancel, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Cancels jobs by id (ids; at most 4000): each job still in the queue leaves it at once, in
-- this one statement, deleted (this queue keeps no dead letters), and never runs.
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
CREATE OR REPLACE FUNCTION "pgs_prio"."urgent_cancel"
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
    IF "urgent_cancel"."ids" IS NULL OR EXISTS (SELECT 1 FROM pg_catalog.unnest("urgent_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NULL OR "a"."id" < 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003', MESSAGE = 'qgen: ids must be an array of job ids (whole numbers from 1)';
    END IF;
    IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'QG002',
            MESSAGE = 'qgen: refused on pgs_prio.urgent: cancel at REPEATABLE READ or SERIALIZABLE would answer from the transaction''s snapshot, which does not show a job enqueued since (it would say not_queued of a job that then runs); run it at READ COMMITTED';
    END IF;
    IF (SELECT count(DISTINCT "a"."id") FROM pg_catalog.unnest("urgent_cancel"."ids") AS "a" ("id")) > 4000 THEN
        RAISE EXCEPTION USING ERRCODE = 'QG003',
            MESSAGE = 'qgen: ids lists more than 4000 jobs; accepted: 1 to 4000 per call';
    END IF;
    RETURN QUERY
    WITH "asked" AS
    (
        SELECT DISTINCT "a"."id" FROM pg_catalog.unnest("urgent_cancel"."ids") AS "a" ("id") WHERE "a"."id" IS NOT NULL
    ),
    "found" AS
    (
        -- The rows by their id, locked (waiting for a completion's short lock).
        SELECT "job"."id"
        FROM "pgs_prio"."urgent" AS "job"
        WHERE "job"."id" IN (SELECT "a"."id" FROM "asked" AS "a")
        ORDER BY "job"."id"
        FOR UPDATE
    ),
    "gone" AS
    (
        DELETE FROM "pgs_prio"."urgent" AS "job"
        USING "found" AS "f"
        WHERE "job"."id" = "f"."id"
        RETURNING "job".*
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
            MESSAGE = 'qgen: refused on pgs_prio.urgent: cancel waited 5 s for a job another transaction holds (a completion inside a long transaction?): nothing was cancelled; call again';
END
$qgen$;
ALTER FUNCTION "pgs_prio"."urgent_cancel" OWNER TO "pgs_prio_owner";
REVOKE ALL ON FUNCTION "pgs_prio"."urgent_cancel" FROM PUBLIC;

-- qgen 0.1.0: grants to roles pgs_prio_producer, pgs_prio_consumer, pgs_prio_admin, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the functions run as their owner (SECURITY DEFINER), so no role can read or change
-- a queue table directly. USAGE on the schema lets the roles name the functions.
GRANT USAGE ON SCHEMA "pgs_prio" TO "pgs_prio_producer", "pgs_prio_consumer", "pgs_prio_admin";
GRANT EXECUTE ON FUNCTION "pgs_prio"."urgent_enqueue", "pgs_prio"."urgent_enqueue_batch" TO "pgs_prio_producer";
GRANT USAGE ON TYPE "pgs_prio"."urgent_batch" TO "pgs_prio_producer";
GRANT EXECUTE ON FUNCTION "pgs_prio"."urgent_dequeue", "pgs_prio"."urgent_complete", "pgs_prio"."urgent_fail", "pgs_prio"."urgent_extend_lease" TO "pgs_prio_consumer";
GRANT USAGE ON TYPE "pgs_prio"."urgent_dequeue_row" TO "pgs_prio_consumer";
-- Any worker may look after the queue: maintain reaps, corrects the watermark and purges, one batch each.
GRANT EXECUTE ON FUNCTION "pgs_prio"."urgent_maintain" TO "pgs_prio_consumer";
GRANT SELECT ON "pgs_prio"."urgent_pending" TO "pgs_prio_admin";
-- A stopping worker hands back the jobs it did not start (release: the attempt not counted).
GRANT EXECUTE ON FUNCTION "pgs_prio"."urgent_release" TO "pgs_prio_consumer";
-- Admins run every function (and the worker procedure) qgen created, and nothing else: each by
-- name, never ALL ROUTINES IN SCHEMA, which in a shared schema would reach the application's too.
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_enqueue" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_enqueue_batch" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_dequeue" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_complete" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_fail" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_extend_lease" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_reap" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_metrics" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_peek" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_purge_batch" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_purge" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_maintain" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_job" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_release" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_pause" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_resume" TO "pgs_prio_admin";
GRANT EXECUTE ON ROUTINE "pgs_prio"."urgent_cancel" TO "pgs_prio_admin";

-- qgen 0.1.0: verify pgs_prio, rendered for PostgreSQL from spec.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Install ends here, and fails loudly if any of qgen's functions or tables is owned by another role
-- than pgs_prio_owner, or a SECURITY DEFINER function does not pin its search_path: run with its
-- owner's rights, it would resolve names through its caller's path.
DO $qgen$
DECLARE
    v$wrong text;
BEGIN
    SELECT pg_catalog.string_agg(x.what, ', ' ORDER BY x.what) INTO v$wrong
    FROM
    (
        SELECT p.oid::pg_catalog.regprocedure::text
               || CASE WHEN p.proowner <> '"pgs_prio_owner"'::pg_catalog.regrole THEN ' (owned by ' || p.proowner::pg_catalog.regrole::text || ')'
                       ELSE ' (search_path not pinned)' END AS what
        FROM pg_catalog.pg_proc AS p
        JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
        WHERE n.nspname = 'pgs_prio'
          AND p.proname IN ('urgent', 'urgent_claim_ix', 'urgent_lease_ix', 'urgent_marks', 'urgent_archive', 'urgent_archive_ix', 'urgent_pending', 'urgent_batch', 'urgent_enqueue', 'urgent_enqueue_batch', 'urgent_control', 'urgent_dequeue', 'urgent_complete', 'urgent_fail', 'urgent_extend_lease', 'urgent_reap', 'urgent_metrics', 'urgent_peek', 'urgent_purge_batch', 'urgent_purge', 'urgent_maintain', 'urgent_job', 'urgent_release', 'urgent_pause', 'urgent_resume', 'urgent_cancel')
          AND (p.proowner <> '"pgs_prio_owner"'::pg_catalog.regrole
               OR (p.prosecdef AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) AS c (setting)
                                               WHERE c.setting LIKE 'search\_path=%')))
        UNION ALL
        SELECT c.oid::pg_catalog.regclass::text || ' (owned by ' || c.relowner::pg_catalog.regrole::text || ')'
        FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'pgs_prio'
          AND c.relkind IN ('r', 'v')
          AND c.relname IN ('urgent', 'urgent_claim_ix', 'urgent_lease_ix', 'urgent_marks', 'urgent_archive', 'urgent_archive_ix', 'urgent_pending', 'urgent_batch', 'urgent_enqueue', 'urgent_enqueue_batch', 'urgent_control', 'urgent_dequeue', 'urgent_complete', 'urgent_fail', 'urgent_extend_lease', 'urgent_reap', 'urgent_metrics', 'urgent_peek', 'urgent_purge_batch', 'urgent_purge', 'urgent_maintain', 'urgent_job', 'urgent_release', 'urgent_pause', 'urgent_resume', 'urgent_cancel')
          AND c.relowner <> '"pgs_prio_owner"'::pg_catalog.regrole
    ) AS x;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020', MESSAGE = 'qgen: wrongly installed in schema pgs_prio: ' || v$wrong;
    END IF;
    -- And each function is what this install rendered, not an older version left in place (psql
    -- without ON_ERROR_STOP goes on after a CREATE OR REPLACE that failed): md5 of its body without
    -- whitespace (qgen.dialects.postgres.module_fingerprints) against the one rendered.
    SELECT pg_catalog.string_agg(r.name, ', ' ORDER BY r.name) INTO v$wrong
    FROM
    (
        VALUES
            ('urgent_cancel', 'f5398beef16e5bb01432e642de8c6030'),
            ('urgent_complete', 'c825a909452fa739dff04a851874547e'),
            ('urgent_dequeue', 'c2706c77cedf351601db2609bff2de87'),
            ('urgent_enqueue', '70d5d29686a0ff65a4424ce5f6317b00'),
            ('urgent_enqueue_batch', 'd6f116f7be2ed4064a581d31b2fb90b4'),
            ('urgent_extend_lease', 'c25784318c92e0dcb59de7edb32e9bfc'),
            ('urgent_fail', '1a08a2eb8bc93f0d3e7a7241c42eec0f'),
            ('urgent_job', 'c6fee031502bc306458d2c9202a5bfcc'),
            ('urgent_maintain', 'd58941cb2d6c227129fdb32be7c36d7d'),
            ('urgent_metrics', 'a3ef1ee4f6fbe2d7b9961aafe7088742'),
            ('urgent_pause', '2d35e0d4654936ad0881cf397a81c94f'),
            ('urgent_peek', 'b3ca2e673463957d9fd8d8214f08871c'),
            ('urgent_purge', '72a19c6793e3552af9c8a61356f66035'),
            ('urgent_purge_batch', '26c2202a47a51808af355fc9639b233a'),
            ('urgent_reap', '4143cb18a1dcdb217998f1326a13bd53'),
            ('urgent_release', '4cf9c1a390b1d526176d5e9d07aa84ba'),
            ('urgent_resume', '1e695f661f225951d574a5dc9172d6ed')
    ) AS r (name, fingerprint)
    JOIN pg_catalog.pg_proc AS p ON p.proname = r.name
    JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace AND n.nspname = 'pgs_prio'
    WHERE pg_catalog.md5(pg_catalog.regexp_replace(p.prosrc, '[[:space:]]', '', 'g')) <> r.fingerprint;
    IF v$wrong IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'QG020',
            MESSAGE = 'qgen: installed in schema pgs_prio, but not as this install rendered it: ' || v$wrong,
            HINT = 'An earlier statement failed and left an older version: read its error, fix it and run install.sql again.';
    END IF;
END
$qgen$;
