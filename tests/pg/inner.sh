#!/bin/sh
# Inside pg_virtualenv (PGHOST, PGPORT, PGUSER, PGPASSWORD set): the C
# tests, then the fault tests with the simlab program.
set -u
pgtest=$1; simlab=$2; analyze=$3; bundle=$4; qbundle=${5:-}
export SIMLAB_PG_URL="postgresql://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/$PGDATABASE"
status=0
echo "== test_pg_sync"
"$pgtest" || status=1
# a fresh database for the faults
psql -q -c "DROP DATABASE IF EXISTS faults" -c "CREATE DATABASE faults" ||
    exit 1
export SIMLAB_PG_URL="postgresql://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/faults"
echo "== faults"
sh "$(dirname "$0")/faults.sh" "$simlab" "$analyze" "$bundle" "$qbundle" ||
    status=1
exit $status
