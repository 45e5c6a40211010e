#!/bin/sh
# Runs bench_sync inside a throwaway PostgreSQL cluster (pg_virtualenv).
# usage: bench/sync/run.sh BUILD_DIR [STATIONS] [RESPONSES] [ENROLL]
# (defaults 50 stations, 1000000 responses, 20 enrollments per station)
# With OLD_BENCH=PATH (bench_sync built from an earlier simlab, which takes
# the server's URL as its third argument), that one pushes the same rows
# first, in the same cluster, and the secured push is given as a ratio to
# its push too.
set -eu
build=${1:-build}; shift || true
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/simlab-benchsync.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench=$(cd "$build" && pwd)/bench/bench_sync
# -t: a temporary cluster under /tmp (never beside the system's);
# max_connections: one per station plus the reference's
export PGOPTIONS="-c client_min_messages=warning"
pg_virtualenv -t -o max_connections=200 -o shared_buffers=256MB sh -c '
  bench=$1 bundle=$2 work=$3 n=$4 rows=$5 enroll=$6 old=${OLD_BENCH:-}
  if [ -n "$old" ]; then
    psql -X -q -c "CREATE DATABASE bench_today"
    mkdir "$work/today"
    "$old" "$bundle" "$work/today" \
      "postgresql://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/bench_today" \
      "$n" "$rows" 1 | tee "$work/today.txt" | grep -E "bare|sync push"
    rm -rf "$work/today"
  fi
  "$bench" "$bundle" "$work" "$n" "$rows" "$enroll" | tee "$work/new.txt"
  if [ -n "$old" ]; then
    sed -n "s/^sync push.*= *\([0-9]*\) rows\/s.*/\1/p" "$work/today.txt" \
      >"$work/old_rate"
    grep "station roles, RLS" "$work/new.txt" | awk -v old="$(cat "$work/old_rate")" \
      "{ for (i = 1; i <= NF; i++) if (\$i == \"rows/s\") r = \$(i - 1);
         s += r; k++ }
       END { printf \"station roles (mean of %d) / the earlier simlab = %.2f\\n\", k, s / k / old }"
  fi' sh "$bench" "$root/assets/studies/text-forward" "$work" "${1:-50}" \
  "${2:-1000000}" "${3:-20}"
