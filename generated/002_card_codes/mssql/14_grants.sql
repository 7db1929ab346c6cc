-- qgen 0.1.0: grants cards_consumer, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue] TO [cards_producer];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_enqueue_batch] TO [cards_producer];
GRANT EXECUTE ON TYPE::[cards].[card_codes_batch] TO [cards_producer];
GRANT EXECUTE ON OBJECT::[cards].[card_codes_dequeue] TO [cards_consumer];
GRANT SELECT ON OBJECT::[cards].[card_codes_pending] TO [cards_admin];
GRANT EXECUTE ON SCHEMA::[cards] TO [cards_admin];
GO
