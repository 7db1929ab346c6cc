#!/usr/bin/env bash
# Before/after throughput on a machine whose speed drifts: the same `qgen bench --experiment
# throughput` run from several checkouts (each with its own .venv, made by
# `python3 -m venv .venv && .venv/bin/pip install -e '.[bench]'`), round after round, the checkouts
# interleaved within each round, the load average noted before each run.
#   scripts/bench_compare.sh OUT_DIR ROUNDS BATCHES LABEL=CHECKOUT [LABEL=CHECKOUT ...]
#   e.g. scripts/bench_compare.sh /tmp/cmp 2 1,10,100 before=/tmp/qgen-main after=.
# Writes OUT_DIR/<label>-<round>.{json,txt,load}; `python -m qgen.bench.compare OUT_DIR` prints the
# table (jobs/s per run, means, after/before, ratios to R1 and R2). QGEN_BENCH_URL: the server
# (default: the shared one; BENCHMARKS.md's throughput runs use an initdb-default server, autovacuum on).
# QGEN_BENCH_ARGS: more options for the bench (e.g. --lease-only, which an older checkout may not have).
set -euo pipefail
OUT="$1"; ROUNDS="$2"; BATCHES="$3"; shift 3
URL="${QGEN_BENCH_URL:-postgresql://postgres@127.0.0.1:5432/test}"
SECONDS_PER="${QGEN_BENCH_SECONDS:-5}"
mkdir -p "$OUT"
for round in $(seq 1 "$ROUNDS"); do
  for pair in "$@"; do
    label="${pair%%=*}"; dir="${pair#*=}"
    cut -d' ' -f1-3 /proc/loadavg > "$OUT/$label-$round.load"
    ( cd "$dir" && .venv/bin/qgen bench examples/001_watermark.yaml --url "$URL" --experiment throughput \
        --batches "$BATCHES" --workers 4 --seconds "$SECONDS_PER" --refill-rows 0 --quiet \
        --schema "qgen_cmp_$label" --replace ${QGEN_BENCH_ARGS:-} --json "$OUT/$label-$round.json" ) > "$OUT/$label-$round.txt"
    cut -d' ' -f1-3 /proc/loadavg >> "$OUT/$label-$round.load"
  done
done
