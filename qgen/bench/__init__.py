"""qgen bench: load a queue with producer and worker processes and measure it, on a real database.

- load.py: the default run. Installs the spec's queue in a scratch schema, runs M producers and N
  workers as processes through qgen.client, and reports rates, claim latency, re-deliveries,
  deadlock retries and an exactly-once verdict from the ledger the processes write.
- throughput.py (--experiment throughput): drains pre-filled queues at batch sizes 1, 10 and 100,
  in both claim modes, next to reference workloads measured in the same run (R1: a single-row
  UPDATE; R2(b): a naive queue's delete of b rows; a plain INSERT), and reports the ratios.
- ghosts.py (--experiment ghosts): the ghost-row study: drain 30k and 60k rows while a long reader
  keeps every dead row alive, naive claim against qgen with and without the watermark.

- latency.py (--experiment latency): enqueue-to-start latency at a fixed rate and idle workers'
  CPU, polling against wake-ups (`wakeup: notify`), and what NOTIFY costs enqueue throughput.

Everything the database runs comes from templates: the queue's own rendered objects, and
templates/<dialect>/bench/bench.sql.j2 for the references and probes. A database without that
template has no bench yet (only PostgreSQL has one).
"""
