-- qgen 0.1.0: pending_view cards.card_codes_pending, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- Jobs waiting to be claimed (delayed ones included, with their available_at).
CREATE OR ALTER VIEW [cards].[card_codes_pending]
AS
SELECT [id], [card_number], [card_secret], [enqueued_at]
FROM [cards].[card_codes]
WHERE 1 = 1;
GO
