#!/bin/sh
# Restarting links against `simlab serve` (docs/online.md "Bounded state
# per link"): a fresh database on this machine's disk, IDS participants
# past the consent restarting their links at the per-participant rate
# from ever new browser descriptions (with their keys), strangers
# restarting the same ids without them, made-up ids at the arrival limit
# (bench/serve/restarts.mjs); the server's resident memory and the
# database's size sampled every 10 s, then the rows the run left.
# usage: bench/serve/restarts.sh BUILD_DIR [SECONDS] [IDS] [RATE] [STUDY]
# (defaults 600 s, 20 ids, 20 starts per id and second,
# tests/data/experiment/mini-forward)
set -eu
build=$(cd "${1:-build}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${2:-600}
ids=${3:-20}
rate=${4:-20}
study=${5:-$root/tests/data/experiment/mini-forward}
work=$(mktemp -d "${TMPDIR:-/var/tmp}/simlab-benchrestart.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
"$build/app/simlab" serve "$study" --db "$work/r.db" --port 0 \
    --station restarts >"$work/log" 2>"$work/err" &
pid=$!
i=0
while ! grep -q "listening on" "$work/log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$work/log")
node "$root/bench/serve/restarts.mjs" "http://127.0.0.1:$port/" "$pid" \
    "$work/r.db" "$secs" "$ids" "$rate" >"$work/out.json"
kill -TERM "$pid"
wait "$pid" || true
pid=
cat "$work/out.json"
echo "rows: $(sqlite3 "$work/r.db" "SELECT count(*) FROM participant") participants," \
     "$(sqlite3 "$work/r.db" "SELECT count(*) FROM event WHERE kind = 'online_start'") online_start events," \
     "$(sqlite3 "$work/r.db" "SELECT count(*) FROM event") events in all;" \
     "file $(stat -c %s "$work/r.db") bytes"
