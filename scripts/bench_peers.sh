#!/usr/bin/env bash
# qgen next to PgQueuer, procrastinate, graphile-worker and pg-boss on the local PostgreSQL: writes bench/peers.txt (the
# tables), bench/peers.json (every run) and bench/peers.png (the ratios).
# The Python peers live in a venv of their own (.venv-peers), the Node peers (Node 20) in
# tools/bench_peers/node/node_modules (npm ci, from its package-lock.json): never in qgen's dependencies.
# Arguments go to the bench: --rounds N, --seconds S, --url URL (the maintenance database the
# scratch databases are created from), --quick (tiny sizes, a smoke test), --rate, --rows, --systems.
# With the defaults (3 rounds) it takes about 20 minutes on a 2-core machine; run it on an idle one.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-peers
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q -e '.[bench]' pgqueuer procrastinate asyncpg 'psycopg[binary,pool]'
if command -v npm >/dev/null; then
    (cd tools/bench_peers/node && npm ci --no-audit --no-fund --loglevel=error)
else
    echo "bench_peers.sh: no npm here; graphile-worker and pg-boss need Node 20 (or pass --systems without them)" >&2
fi
mkdir -p bench
"$VENV/bin/python" -m tools.bench_peers --json bench/peers.json --plot bench/peers.png "$@" | tee bench/peers.txt
