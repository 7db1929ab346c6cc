#!/usr/bin/env bash
# qgen next to PgQueuer and procrastinate on the local PostgreSQL: writes bench/peers.txt (the
# tables), bench/peers.json (every run) and bench/peers.png (the ratios).
# The peers live in a venv of their own (.venv-peers), never in qgen's dependencies.
# Arguments go to the bench: --rounds N, --seconds S, --url URL (the maintenance database the
# scratch databases are created from), --quick (tiny sizes, a smoke test), --rate, --rows, --systems.
# With the defaults (3 rounds) it takes about 12 minutes on a 2-core machine; run it on an idle one.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-peers
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q -e '.[bench]' pgqueuer procrastinate asyncpg 'psycopg[binary,pool]'
mkdir -p bench
"$VENV/bin/python" -m tools.bench_peers --json bench/peers.json --plot bench/peers.png "$@" | tee bench/peers.txt
