#!/bin/sh
# Inside pg_virtualenv (PGHOST, PGPORT, PGUSER, PGPASSWORD set): the C
# tests, then the fault tests and the secrets test (no password in any output) with the simlab program.
set -u
pgtest=$1; pgsecure=$2; simlab=$3; analyze=$4; bundle=$5; qbundle=${6:-}; ebundle=${7:-}
here=$(dirname "$0")
export SIMLAB_PG_URL="postgresql://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/$PGDATABASE"
status=0
echo "== test_pg_sync (a server set up the old way)"
"$pgtest" || status=1
echo "== test_pg_secure (station roles and policies)"
"$pgsecure" || status=1
# a fresh database for the faults
psql -q -c "DROP DATABASE IF EXISTS faults" -c "CREATE DATABASE faults" ||
    exit 1
export SIMLAB_PG_URL="postgresql://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/faults"
echo "== faults"
sh "$here/faults.sh" "$simlab" "$analyze" "$bundle" "$qbundle" "$ebundle" || status=1
echo "== secrets"
python3 "$here/secrets.py" "$simlab" "$analyze" "$bundle" || status=1
exit $status
