-- qgen 0.1.0: enqueue four.four_queue_enqueue, rendered for PostgreSQL from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Adds one job; returns its id. With a dedupe key, a job already queued returns the existing id
-- (enqueued = false).
CREATE OR REPLACE FUNCTION "four"."four_queue_enqueue"
(
    "reputation" integer
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
    -- dedupe.scope: ever: a finished job still holds its key until purge removes it.
    "id" := coalesce((SELECT "f"."id" FROM "four"."four_queue_dead" AS "f" WHERE "f"."reputation" = "four_queue_enqueue"."reputation"));
    IF "id" IS NOT NULL THEN
        "enqueued" := FALSE;
        RETURN NEXT;
        RETURN;
    END IF;
    -- ON CONFLICT waits for a concurrent insert of the same key to commit or roll back, so two
    -- sessions can never both enqueue it, and no subtransaction is needed to catch the violation.
    -- The existing row can be finished and deleted between the conflict and the lookup: then try again.
    LOOP
        INSERT INTO "four"."four_queue" AS "job" ("reputation")
            VALUES ("four_queue_enqueue"."reputation")
            ON CONFLICT ("reputation") DO NOTHING
            RETURNING "job"."id" INTO "id";
        IF FOUND THEN
            -- The same key may have been moving to the archive or the dead letters while this
            -- insert waited for it on the unique index: then that job holds it, not this one.
            v$existing := coalesce(coalesce((SELECT "f"."id" FROM "four"."four_queue_dead" AS "f" WHERE "f"."reputation" = "four_queue_enqueue"."reputation")), (SELECT "o"."id" FROM "four"."four_queue" AS "o" WHERE "o"."reputation" = "four_queue_enqueue"."reputation" AND "o"."id" <> "four_queue_enqueue"."id" LIMIT 1));
            IF v$existing IS NOT NULL THEN
                DELETE FROM "four"."four_queue" AS "job" WHERE "job"."id" = "four_queue_enqueue"."id";
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
        FROM "four"."four_queue" AS "e"
        WHERE "e"."reputation" = "four_queue_enqueue"."reputation";
        IF NOT FOUND THEN
            "id" := coalesce((SELECT "f"."id" FROM "four"."four_queue_dead" AS "f" WHERE "f"."reputation" = "four_queue_enqueue"."reputation"));
        END IF;
        IF "id" IS NOT NULL THEN
            "enqueued" := FALSE;
            RETURN NEXT;
            RETURN;
        END IF;
    END LOOP;
END
$qgen$;
ALTER FUNCTION "four"."four_queue_enqueue" OWNER TO "four_owner";
REVOKE ALL ON FUNCTION "four"."four_queue_enqueue" FROM PUBLIC;
