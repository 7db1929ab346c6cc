#!/usr/bin/env bash
# The one test command (README, and .ci/run on a clean clone): installs what the tests need, then runs them.
#   bash scripts/test.sh [pytest arguments]
# Installs, when missing: Debian's Mono (runs Microsoft's T-SQL parser), FreeTDS ODBC (the SQL Server
# client path's fallback), Debian's chromium (the dashboard's browser tests), a virtualenv with qgen and its test extras (Microsoft's ODBC Driver 18 from
# PyPI among them). Starts the local PostgreSQL if it is down, and Babelfish for the SQL Server tests.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=()
command -v mono >/dev/null 2>&1 || apt_packages+=(mono-runtime)
command -v mcs >/dev/null 2>&1 || apt_packages+=(mono-mcs)
[ -e /usr/lib/mono/4.5/Facades/netstandard.dll ] || apt_packages+=(mono-devel)
dpkg -s tdsodbc >/dev/null 2>&1 || apt_packages+=(tdsodbc)
dpkg -s unixodbc-dev >/dev/null 2>&1 || apt_packages+=(unixodbc-dev)
# Debian's chromium: tests/behaviour/test_dashboard.py drives it through Playwright (never `playwright install`).
command -v chromium >/dev/null 2>&1 || apt_packages+=(chromium)
# Another apt (unattended upgrades on a fresh machine, a second run of this script) may hold the
# package locks: wait for it, up to 10 minutes, instead of failing at once.
apt_wait=600
wait_for_apt_lists() {
  # apt-get update has no lock timeout of its own: wait while another process holds its lists lock
  # (an fcntl lock, as apt takes it), then try; try again if it was taken in between.
  local deadline=$((SECONDS + apt_wait))
  until $sudo python3 - /var/lib/apt/lists/lock <<'PY'
import fcntl, os, sys
try:
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o640)
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
except OSError:
    sys.exit(1)
PY
  do
    [ $SECONDS -lt $deadline ] || { echo "apt's lists are still locked after ${apt_wait}s" >&2; return 1; }
    echo "== waiting for another apt to finish (lists lock)"; sleep 5
  done
}
if [ ${#apt_packages[@]} -gt 0 ]; then
  echo "== installing Debian packages: ${apt_packages[*]}"
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
  for attempt in 1 2 3; do
    wait_for_apt_lists && $sudo apt-get -o DPkg::Lock::Timeout=$apt_wait update -qq && break
    [ $attempt -lt 3 ] || exit 1
    sleep 5
  done
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=$apt_wait install -y -qq \
    --no-install-recommends "${apt_packages[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  python3 -m venv .venv
fi
echo "== installing qgen and its test dependencies into .venv"
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'

# The local PostgreSQL 15 the live tests use (CI machines run it; start it if it stopped).
if ! .venv/bin/python -c "import psycopg; psycopg.connect('postgresql://postgres@127.0.0.1:5432/postgres', connect_timeout=3).close()" 2>/dev/null; then
  echo "== starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect 15 main start || true
fi

echo "== building Microsoft's T-SQL parser harness (fetched from PyPI, never committed)"
bash tools/tsql_parser/build.sh >/dev/null

echo "== linting (ruff) and type checking (mypy); their settings are in pyproject.toml"
.venv/bin/ruff check .
.venv/bin/mypy

# The SQL Server half of the suites: a server given by QGEN_TEST_MSSQL_URL always wins. Without one,
# Babelfish (a T-SQL engine on PostgreSQL, ../shared/babelfish) is extracted under /tmp, started on
# free ports with a data directory of this run's own, and stopped at the end whatever happened.
# Where it is not there (a user's machine), the SQL Server tests skip, saying why.
babelfish_tarball=../shared/babelfish/babelfish-4.3-pg16.tar.xz
babelfish_root=
stop_babelfish() {
  if [ -n "$babelfish_root" ]; then
    $bbf_sudo "$babelfish_root/babelfish-4.3-pg16/bin/bbf-stop" "$babelfish_root/data" >/dev/null 2>&1 || true
    $bbf_sudo rm -rf "$babelfish_root"
  fi
}
free_port() {
  .venv/bin/python -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1]); s.close()"
}
if [ -n "${QGEN_TEST_MSSQL_URL:-}" ]; then
  echo "== SQL Server tests: the server QGEN_TEST_MSSQL_URL names"
elif [ ! -f "$babelfish_tarball" ]; then
  echo "== SQL Server tests: skipped (no QGEN_TEST_MSSQL_URL, and no Babelfish at $babelfish_tarball)"
else
  if [ "$(id -u)" -eq 0 ]; then bbf_sudo=; else bbf_sudo="sudo -n"; fi
  babelfish_root=$(mktemp -d /tmp/qgen-babelfish.XXXXXX)
  trap stop_babelfish EXIT
  chmod 755 "$babelfish_root"   # the server runs as nobody
  echo "== starting Babelfish (T-SQL engine for the SQL Server tests) in $babelfish_root"
  tar -xJf "$babelfish_tarball" -C "$babelfish_root"
  started=
  for attempt in 1 2 3; do
    # Free ports now; another run may take one before the server binds it: then try others.
    pg_port=$(free_port); tds_port=$(free_port)
    if [ "$pg_port" != "$tds_port" ] && $bbf_sudo "$babelfish_root/babelfish-4.3-pg16/bin/bbf-start" \
        "$babelfish_root/data" "$pg_port" "$tds_port" >"$babelfish_root/start.log" 2>&1; then
      started=1; break
    fi
    $bbf_sudo "$babelfish_root/babelfish-4.3-pg16/bin/bbf-stop" "$babelfish_root/data" >/dev/null 2>&1 || true
    $bbf_sudo rm -rf "$babelfish_root/data"
  done
  if [ -n "$started" ]; then
    tail -1 "$babelfish_root/start.log"
    # No driver= : qgen picks Microsoft's ODBC Driver 18 (qgen[mssql]); Babelfish speaks TDS without TLS.
    export QGEN_TEST_MSSQL_URL="mssql+pyodbc://babelfish_user:12345678@127.0.0.1:$tds_port/master?Encrypt=no"
  else
    cat "$babelfish_root/start.log" >&2
    echo "== Babelfish did not start: the SQL Server tests skip" >&2
  fi
fi

# Two test processes (pytest-xdist), each taking whole modules: most tests wait on a database, so two
# keep both cores busy (a clean-clone run went from 32 to about 20 minutes). Each process is a run of
# its own to the servers (its own token, tests/support/run.py), as tests/test_shared_server.py shows
# two runs can be. QGEN_TEST_PROCESSES=1 runs them in this process; -n in the arguments wins.
parallel=(-n "${QGEN_TEST_PROCESSES:-2}" --dist loadfile)
for arg in "$@"; do
  case "$arg" in -n|-n*|--numprocesses*) parallel=() ;; esac
done
[ "${QGEN_TEST_PROCESSES:-2}" = 1 ] && parallel=()
echo "== running the tests"
status=0
# --durations: the slowest tests, printed at the end, so that a run over its time says where it went.
.venv/bin/python -m pytest ${parallel[@]+"${parallel[@]}"} --durations=40 "$@" || status=$?
exit $status
