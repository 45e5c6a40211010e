#!/bin/sh
# Runs every PostgreSQL test inside ONE throwaway cluster (pg_virtualenv,
# from postgresql-common): test_pg_sync, test_pg_secure, faults.sh and
# secrets.py.
# usage: run.sh TEST_PG_SYNC TEST_PG_SECURE SIMLAB SIMLAB_ANALYZE BUNDLE
#        [QUESTIONNAIRE_BUNDLE [EXPLANATION_BUNDLE]]
if ! command -v pg_virtualenv >/dev/null 2>&1; then
    echo "skipped: pg_virtualenv not found (install postgresql and" \
         "postgresql-common, see scripts/setup.sh)"
    exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
exec pg_virtualenv -t sh "$here/inner.sh" "$@"
