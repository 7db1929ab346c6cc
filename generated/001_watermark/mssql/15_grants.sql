-- qgen 0.1.0: grants ghosts_consumer, rendered for SQL Server (T-SQL) from 001_watermark.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- EXECUTE only: the procedures reach the tables through ownership chaining, so no role can read or
-- change a queue table directly.
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue] TO [ghosts_producer];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_enqueue_batch] TO [ghosts_producer];
GRANT EXECUTE ON TYPE::[ghosts].[testq_batch] TO [ghosts_producer];
GRANT EXECUTE ON OBJECT::[ghosts].[testq_dequeue] TO [ghosts_consumer];
-- A worker whose dequeue comes back empty corrects the watermark before it concludes the queue is empty.
GRANT EXECUTE ON OBJECT::[ghosts].[testq_watermark_correct] TO [ghosts_consumer];
GRANT SELECT ON OBJECT::[ghosts].[testq_pending] TO [ghosts_admin];
GRANT EXECUTE ON SCHEMA::[ghosts] TO [ghosts_admin];
GO
