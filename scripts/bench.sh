#!/usr/bin/env bash
# Reproduce BENCHMARKS.md: the three runs whose tables and plot it shows, on the local PostgreSQL.
# Writes bench/<run>.txt (the table the command printed), bench/<run>.json and bench/<run>.png.
# Takes about 10 minutes on a 2-core machine; run it on an otherwise idle machine.
# The side-by-side run against PgQueuer and procrastinate has a script (and a venv) of its own:
#   bash scripts/bench_peers.sh --rounds 3
set -euo pipefail
cd "$(dirname "$0")/.."
URL="${QGEN_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/test}"
[ -x .venv/bin/qgen ] || python3 -m venv .venv
.venv/bin/pip install -q -e '.[bench]'
mkdir -p bench
.venv/bin/qgen bench examples/001_watermark.yaml --url "$URL" --experiment ghosts \
    --rows 30000,60000 --workers 4 --json bench/ghosts.json --plot bench/ghosts.png | tee bench/ghosts.txt
# What one claim reads as delayed, backed-off, burned-id, lagging-type, in-flight and unvacuumed rows
# grow from 0 to 100,000 behind it (the queue tables' autovacuum off), both modes, batch 1 and 10.
.venv/bin/qgen bench examples/001_watermark.yaml --url "$URL" --experiment claim-cost \
    --json bench/claim_cost.json --plot bench/claim_cost.png | tee bench/claim_cost.txt
# The throughput matrix, with its drain-and-refill cycle, on a PostgreSQL of its own whose settings
# are initdb's defaults (autovacuum on, as production has it; this machine's shared server has it
# off): QGEN_BENCH_AUTOVACUUM_URL points at such a server of yours instead.
if [ -n "${QGEN_BENCH_AUTOVACUUM_URL:-}" ]; then
  TP_URL="$QGEN_BENCH_AUTOVACUUM_URL"
else
  PGBIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
  PGDIR="$(mktemp -d /tmp/qgen-bench-pg-XXXXXX)"
  TP_PORT=5544
  as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
  [ "$(id -u)" -eq 0 ] && chown postgres "$PGDIR"
  as_pg "$PGBIN/initdb" -D "$PGDIR/data" -A trust -U postgres -E UTF8 >/dev/null
  as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w \
    -o "-p $TP_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=''" start >/dev/null
  trap 'as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -m fast stop >/dev/null; rm -rf "$PGDIR"' EXIT
  TP_URL="postgresql://postgres@127.0.0.1:$TP_PORT/postgres"
fi
.venv/bin/qgen bench examples/001_watermark.yaml --url "$TP_URL" --experiment throughput \
    --batches 1,10,100 --workers 4 --seconds 5 --json bench/throughput.json | tee bench/throughput.txt
# Enqueue-to-start latency of idle workers, polling against wake-ups (LISTEN/NOTIFY), and what idle
# workers and NOTIFY cost.
.venv/bin/qgen bench examples/004_rainfall.yaml --url "$URL" --experiment latency --seconds 10 --idle-seconds 10 \
    --json bench/latency.json --plot bench/latency.png | tee bench/latency.txt
.venv/bin/qgen bench examples/004_rainfall.yaml --url "$URL" --producers 2 --workers 4 --jobs 50000 --enqueue-batch 10 \
    --batch 10 --json bench/load.json | tee bench/load.txt
# Workers killed every 3 s and replaced; the database is restarted once only when you say how
# (a database of your own): QGEN_BENCH_RESTART_DB='sudo pg_ctlcluster 15 main restart' bash scripts/bench.sh
.venv/bin/qgen bench examples/004_rainfall.yaml --url "$URL" --producers 2 --workers 4 --jobs 60000 --enqueue-batch 100 \
    --batch 10 --chaos --chaos-every 3 --chaos-seed 1 ${QGEN_BENCH_RESTART_DB:+--chaos-restart-db "$QGEN_BENCH_RESTART_DB"} \
    --json bench/chaos.json | tee bench/chaos.txt
