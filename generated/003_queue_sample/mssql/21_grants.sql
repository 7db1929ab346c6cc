-- qgen 0.1.0: grants QueueSample_consumer, rendered for SQL Server (T-SQL) from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[QueueSample].[QueueJob] TO [QueueSample_producer];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_enqueue_batch] TO [QueueSample_producer];
GRANT EXECUTE ON TYPE::[QueueSample].[WorkQueue_batch] TO [QueueSample_producer];
GRANT EXECUTE ON OBJECT::[QueueSample].[GetNextJob] TO [QueueSample_consumer];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_complete] TO [QueueSample_consumer];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_fail] TO [QueueSample_consumer];
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_extend_lease] TO [QueueSample_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[QueueSample].[WorkQueue_watermark_correct] TO [QueueSample_consumer];
GRANT SELECT ON OBJECT::[QueueSample].[WorkQueue_Pending] TO [QueueSample_admin];
GRANT EXECUTE ON SCHEMA::[QueueSample] TO [QueueSample_admin];
GO
