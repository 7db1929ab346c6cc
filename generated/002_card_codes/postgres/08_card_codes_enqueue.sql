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
