-- qgen 0.1.0: schema QueueSample, rendered for PostgreSQL from 003_queue_sample.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
CREATE SCHEMA IF NOT EXISTS "QueueSample";
