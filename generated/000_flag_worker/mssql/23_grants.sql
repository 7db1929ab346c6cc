-- qgen 0.1.0: grants four_consumer, rendered for SQL Server (T-SQL) from 000_flag_worker.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue] TO [four_producer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_enqueue_batch] TO [four_producer];
GRANT EXECUTE ON TYPE::[four].[four_queue_batch] TO [four_producer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_dequeue] TO [four_consumer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_complete] TO [four_consumer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_fail] TO [four_consumer];
GRANT EXECUTE ON OBJECT::[four].[four_queue_extend_lease] TO [four_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[four].[four_queue_watermark_correct] TO [four_consumer];
GRANT SELECT ON OBJECT::[four].[four_queue_pending] TO [four_admin];
GRANT EXECUTE ON SCHEMA::[four] TO [four_admin];
GO
