#!/bin/sh
# Runs bench_sync inside a throwaway PostgreSQL cluster (pg_virtualenv).
# usage: bench/sync/run.sh BUILD_DIR [STATIONS] [RESPONSES] [ENROLL]
# (defaults 50 stations, 1000000 responses, 20 enrollments per station)
set -eu
build=${1:-build}; shift || true
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/simlab-benchsync.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench=$(cd "$build" && pwd)/bench/bench_sync
# max_connections: one per station plus the reference's
pg_virtualenv -o max_connections=200 -o shared_buffers=256MB sh -c '
  "$0" "$1" "$2" "postgresql://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/$PGDATABASE" "$3" "$4" "$5"' \
  "$bench" "$root/assets/studies/text-forward" "$work" "${1:-50}" "${2:-1000000}" "${3:-20}"
