-- qgen 0.1.0: batch_type rainfall.rainfall_transfer_batch, rendered for PostgreSQL from 004_rainfall.yaml.
-- Do not edit: change the spec or the templates, then run `qgen render`.
-- The shape of one job in enqueue_batch's JSON array (jsonb_populate_recordset reads the array into
-- it). A composite type has no NOT NULL or defaults: enqueue_batch fills ordinal (the array
-- position) when missing, and the table rejects a missing required column.
-- Its string and decimal fields have no length or scale (m.param_type): reading a job into
-- varchar(n) or numeric(p,s) would cut or round a value past its column before enqueue_batch
-- could refuse it (QG010).
DO $qgen$
BEGIN
    IF pg_catalog.to_regtype('"rainfall"."rainfall_transfer_batch"') IS NULL THEN
        CREATE TYPE "rainfall"."rainfall_transfer_batch" AS
        (
            "ordinal" integer,
            "rainfall_id" bigint,
            "summary" varchar
        );
    END IF;
END
$qgen$;
ALTER TYPE "rainfall"."rainfall_transfer_batch" OWNER TO "rainfall_owner";
