#!/bin/sh
# Load benchmark of `simlab serve` (docs/online.md "Scale"): starts the
# server on a fresh database (durable commits: WAL, synchronous=FULL) on
# this machine's disk, drives it with bench/serve/load.mjs (K simulated
# web participants, each answering every INTERVAL ms), then checks that
# every step the clients saw acknowledged is in the database exactly once.
# usage: bench/serve/run.sh BUILD_DIR [K] [SECONDS] [INTERVAL_MS] [STUDY]
# (defaults 500 participants, 60 s, 2000 ms, tests/data/experiment/mini-forward)
set -eu
build=$(cd "${1:-build}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
k=${2:-500}
secs=${3:-60}
interval=${4:-2000}
study=${5:-$root/tests/data/experiment/mini-forward}
work=$(mktemp -d "${TMPDIR:-/var/tmp}/simlab-benchserve.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
"$build/app/simlab" serve "$study" --db "$work/load.db" --port 0 \
    --station load --enroll-rate 200 >"$work/log" 2>"$work/err" &
pid=$!
i=0
while ! grep -q "listening on" "$work/log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$work/log")
ulimit -n 8192 2>/dev/null || true
node "$root/bench/serve/load.mjs" "http://127.0.0.1:$port/" "$k" "$secs" "$interval" >"$work/out.json"
cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' "/proc/$pid/stat")
kill -TERM "$pid"
wait "$pid" || true
pid=
cat "$work/out.json"
steps=$(sqlite3 "$work/load.db" "SELECT count(*) FROM response WHERE done=1")
dupes=$(sqlite3 "$work/load.db" "SELECT count(*) FROM (SELECT participant, seq FROM response GROUP BY 1, 2 HAVING count(*) > 1)")
acked=$(sed -n 's/.*"steps_committed":\([0-9]*\).*/\1/p' "$work/out.json")
echo "database: $steps steps answered (clients saw $acked acknowledged), $dupes doubled; server CPU ${cpu}s"
[ "$steps" -ge "$acked" ] && [ "$dupes" -eq 0 ] || { echo "LOST OR DOUBLED RESPONSES"; exit 1; }
