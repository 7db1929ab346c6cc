#!/bin/sh
# Render a spec, then install twice, uninstall twice, install again into a scratch database (dropped after).
# usage: install_cycle.sh SPEC DBNAME
set -e
spec=$1; db=$2; out=/tmp/pgsmoke/$db
export PGOPTIONS="-c client_min_messages=warning"
PSQL="psql -h 127.0.0.1 -U postgres -X -q -v ON_ERROR_STOP=1"
PYTHONPATH=$(dirname "$0")/../.. python3 "$(dirname "$0")/render_pg.py" "$spec" "$out" >/dev/null
$PSQL -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
$PSQL -d "$db" -f "$out/install.sql"
$PSQL -d "$db" -f "$out/install.sql"
$PSQL -d "$db" -f "$out/uninstall.sql"
left=$($PSQL -d "$db" -Atc "select count(*) from pg_namespace where nspname not in ('public','information_schema') and nspname not like 'pg\_%'")
[ "$left" = 0 ] || { echo "uninstall left schemas behind"; exit 1; }
$PSQL -d "$db" -f "$out/uninstall.sql"
$PSQL -d "$db" -f "$out/install.sql"
# Roles belong to the cluster: uninstall drops them before the scratch database goes.
$PSQL -d "$db" -f "$out/uninstall.sql"
$PSQL -d postgres -c "DROP DATABASE $db"
echo "$spec: install x2, uninstall x2, install, uninstall: ok"
