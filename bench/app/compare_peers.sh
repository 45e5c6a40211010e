#!/bin/sh
# RT accuracy of simlab and jsPsych 8 in Chromium, side by side, with the
# same XTest presses under one Xvfb. Usage:
#   bench/app/compare_peers.sh BUILD_DIR [REPEATS] [TRIALS]
# Installs Debian's chromium with apt-get when it is missing (needs root or
# sudo) and jsPsych from the npm registry, pinned, into a temporary folder
# that is removed afterwards (never committed). For each repetition, simlab
# (`bench_app rt`, the text forward study) and jsPsych
# (bench/app/jspsych_trial.html, `bench_app jspsych`) answer TRIALS
# predictions 120-320 ms after the true onset: the first damage event
# (XDamage) on the screen after the previous press, i.e. when the X server
# changed the window's pixels. RT error = recorded RT - true RT (ms).
# PsychoPy is not compared: it is not packaged in Debian 12 and the Python
# package index is not reachable from the build machines (docs/runner.md).
# Needs xvfb (Xvfb), python3 and npm.
# The last line is one JSON object with the medians over the repetitions:
#   {"simlab": {"n", "median_ms", "sd_ms", "p99_ms"}, "jspsych": {...}}
# ("n" counts the trials of all repetitions). The line before it gives each
# run and "simlab_watch": simlab with SDL's event-watch stamps of the same
# presses, the reference from the same run.
set -eu
build=$(cd "${1:?build directory}" && pwd)
reps=${2:-3}
trials=${3:-64}
JSPSYCH_VERSION=8.2.3
PLUGIN_VERSION=2.1.0
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/simlab-peers-XXXXXX")
trap 'rm -rf "$out"' EXIT

if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    echo "## installing chromium (Debian package)" >&2
    $SUDO apt-get install -y --no-install-recommends chromium >&2
fi
echo "## jsPsych $JSPSYCH_VERSION, plugin-html-keyboard-response $PLUGIN_VERSION (npm, into $out/web)" >&2
mkdir -p "$out/web"
(cd "$out/web" && npm install --silent --no-audit --no-fund --no-save \
    "jspsych@$JSPSYCH_VERSION" \
    "@jspsych/plugin-html-keyboard-response@$PLUGIN_VERSION" >&2)
cp "$src/bench/app/jspsych_trial.html" "$out/web/index.html"

shared=${SIMLAB_SHARED_DIR:-$src/../shared}
if [ -d "$shared/data/hase2020/text" ]; then
    cp -r "$src/examples/hase2020/text-forward" "$out/bundle"
    cp -r "$shared/data/hase2020/text/data/HIT-data-public-final" "$out/bundle/data"
else
    cp -r "$src/assets/studies/text-forward" "$out/bundle"
fi

# One Xvfb per tool and run (1920x1080x24, no window manager). With
# SIMLAB_PEERS_XVFB_RT=1 the X server runs SCHED_FIFO (root): on a loaded
# machine it is otherwise the one that delivers presses late, for every tool.
start_x() {
    rm -f "$out/dpy"
    Xvfb -displayfd 5 -screen 0 1920x1080x24 -nolisten tcp 5>"$out/dpy" \
        2>/dev/null &
    xpid=$!
    for _ in $(seq 1 100); do
        [ -s "$out/dpy" ] && break
        sleep 0.1
    done
    DISPLAY=":$(cat "$out/dpy")"
    export DISPLAY
    if [ "${SIMLAB_PEERS_XVFB_RT:-0}" = 1 ]; then
        chrt -f -p 20 "$xpid" >&2
    fi
}
stop_x() {
    kill "$xpid" 2>/dev/null || true
    wait "$xpid" 2>/dev/null || true
}
for i in $(seq 1 "$reps"); do
    echo "## run $i: simlab" >&2
    start_x
    "$build/bench/bench_app" rt "$build/app/simlab" "$out/bundle" "$out" p \
        "$trials" >"$out/simlab-$i.txt" || { cat "$out/simlab-$i.txt" >&2; stop_x; exit 1; }
    stop_x
    cat "$out/simlab-$i.txt" >&2
    echo "## run $i: jsPsych in Chromium" >&2
    rm -rf "$out/profile"
    start_x
    chromium --no-sandbox --user-data-dir="$out/profile" --no-first-run \
        --disable-gpu --disable-extensions --disable-background-networking \
        --disable-features=Translate --window-position=0,0 \
        --window-size=1280,720 --app="file://$out/web/index.html?n=$trials" \
        --enable-logging=stderr --v=0 2>"$out/console-$i.log" &
    bpid=$!
    rc=0
    "$build/bench/bench_app" jspsych "$out/console-$i.log" "$trials" \
        >"$out/jspsych-$i.txt" || rc=$?
    kill "$bpid" 2>/dev/null || true
    wait "$bpid" 2>/dev/null || true
    stop_x
    cat "$out/jspsych-$i.txt" >&2
    [ "$rc" -eq 0 ] || exit 1
done
# The per-run tables of simlab's runs, as medians over the runs.
for i in $(seq 1 "$reps"); do cat "$out/simlab-$i.txt"; done >"$out/all.txt"
python3 "$src/bench/app/peers_table.py" "$out/all.txt"
# Medians over the repetitions of each figure; the last line of each run's
# output is its JSON.
python3 - "$out" "$reps" <<'EOP'
import json, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
runs = {"simlab": [], "simlab_watch": [], "jspsych": []}
for i in range(1, reps + 1):
    s = json.loads(open(f"{out}/simlab-{i}.txt").read().strip().splitlines()[-1])
    j = json.loads(open(f"{out}/jspsych-{i}.txt").read().strip().splitlines()[-1])
    runs["simlab"].append(s["simlab"])
    runs["simlab_watch"].append(s["watch"])
    runs["jspsych"].append(j["jspsych"])
res = {}
for k, rs in runs.items():
    res[k] = {"n": sum(r["n"] for r in rs)}
    for f in ("median_ms", "sd_ms", "p99_ms"):
        res[k][f] = round(statistics.median(r[f] for r in rs), 3)
    res[k]["runs"] = rs
keys = ("n", "median_ms", "sd_ms", "p99_ms")
print("details:", json.dumps({"repeats": reps, "runs": {k: v["runs"] for k, v in res.items()},
      "simlab_watch": {k: res["simlab_watch"][k] for k in keys}}))
print(json.dumps({"simlab": {k: res["simlab"][k] for k in keys},
                  "jspsych": {k: res["jspsych"][k] for k in keys}}))
EOP
