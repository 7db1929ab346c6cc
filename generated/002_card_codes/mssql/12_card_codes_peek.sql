-- qgen 0.1.0: peek cards.card_codes_peek, rendered for SQL Server (T-SQL) from 002_card_codes.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The next pending jobs, in queue order, without claiming them (seed 003's ViewQueue).
CREATE OR ALTER PROCEDURE [cards].[card_codes_peek]
    @limit int = 100
AS
BEGIN
    SET NOCOUNT, XACT_ABORT ON;
    SELECT TOP (@limit) [id], [card_number], [card_secret], [enqueued_at]
    FROM [cards].[card_codes_pending]
    ORDER BY [id];
END;
GO
