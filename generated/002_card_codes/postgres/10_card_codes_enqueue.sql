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
