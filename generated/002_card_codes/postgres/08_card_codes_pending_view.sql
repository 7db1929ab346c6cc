-- qgen 0.1.0: pending_view cards.card_codes_pending, rendered for PostgreSQL from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR REPLACE VIEW "cards"."card_codes_pending" AS
SELECT "job"."id", "job"."card_number", "job"."card_secret", "job"."enqueued_at"
FROM "cards"."card_codes" AS "job"
WHERE 1 = 1;
ALTER VIEW "cards"."card_codes_pending" OWNER TO "cards_owner";
