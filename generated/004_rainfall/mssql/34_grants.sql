-- qgen 0.1.0: grants rainfall_consumer, rendered for SQL Server (T-SQL) from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_enqueue_batch] TO [rainfall_producer];
GRANT EXECUTE ON TYPE::[rainfall].[rainfall_events_batch] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_dequeue] TO [rainfall_consumer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_complete] TO [rainfall_consumer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_fail] TO [rainfall_consumer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_extend_lease] TO [rainfall_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_events_watermark_correct] TO [rainfall_consumer];
GRANT SELECT ON OBJECT::[rainfall].[rainfall_events_pending] TO [rainfall_admin];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_enqueue_batch] TO [rainfall_producer];
GRANT EXECUTE ON TYPE::[rainfall].[rainfall_transfer_batch] TO [rainfall_producer];
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_dequeue] TO [rainfall_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[rainfall].[rainfall_transfer_watermark_correct] TO [rainfall_consumer];
GRANT SELECT ON OBJECT::[rainfall].[rainfall_transfer_pending] TO [rainfall_admin];
GRANT EXECUTE ON SCHEMA::[rainfall] TO [rainfall_admin];
GO
