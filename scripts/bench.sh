#!/usr/bin/env bash
# Reproduce BENCHMARKS.md: the three runs whose tables and plot it shows, on the local PostgreSQL.
# Writes bench/<run>.txt (the table the command printed), bench/<run>.json and bench/ghosts.png.
# Takes about 10 minutes on a 2-core machine; run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
URL="${QGEN_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/test}"
[ -x .venv/bin/qgen ] || python3 -m venv .venv
.venv/bin/pip install -q -e '.[bench]'
mkdir -p bench
.venv/bin/qgen bench examples/001_watermark.yaml --url "$URL" --experiment ghosts \
    --rows 30000,60000 --workers 4 --json bench/ghosts.json --plot bench/ghosts.png | tee bench/ghosts.txt
.venv/bin/qgen bench examples/001_watermark.yaml --url "$URL" --experiment throughput \
    --batches 1,10,100 --workers 4 --seconds 5 --json bench/throughput.json | tee bench/throughput.txt
.venv/bin/qgen bench examples/004_rainfall.yaml --url "$URL" --producers 2 --workers 4 --jobs 50000 --enqueue-batch 10 \
    --batch 10 --json bench/load.json | tee bench/load.txt
# Workers killed every 3 s and replaced; the database is restarted once only when you say how
# (a database of your own): QGEN_BENCH_RESTART_DB='sudo pg_ctlcluster 15 main restart' bash scripts/bench.sh
.venv/bin/qgen bench examples/004_rainfall.yaml --url "$URL" --producers 2 --workers 4 --jobs 60000 --enqueue-batch 100 \
    --batch 10 --chaos --chaos-every 3 --chaos-seed 1 ${QGEN_BENCH_RESTART_DB:+--chaos-restart-db "$QGEN_BENCH_RESTART_DB"} \
    --json bench/chaos.json | tee bench/chaos.txt
