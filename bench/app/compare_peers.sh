#!/bin/sh
# RT accuracy of simlab, simlab serve's page in Chromium and jsPsych 8 in
# Chromium, side by side, with the same XTest presses under one Xvfb. Usage:
#   bench/app/compare_peers.sh BUILD_DIR [REPEATS] [TRIALS]
# Installs Debian's chromium with apt-get when it is missing (needs root or
# sudo) and jsPsych from the npm registry, pinned, into a temporary folder
# that is removed afterwards (never committed). For each repetition, simlab
# (`bench_app rt`, the text forward study) and jsPsych
# (bench/app/jspsych_trial.html, `bench_app jspsych`) answer TRIALS
# predictions 120-320 ms after the true onset; so does `simlab serve`
# (`bench_app web`: the same sentences as a consent and two prediction
# blocks of the text forward study, in a Chromium app window of the same
# size, RTs read from the server's database): the first damage event
# (XDamage) on the screen after the previous press, i.e. when the X server
# changed the window's pixels. RT error = recorded RT - true RT (ms).
# PsychoPy is not compared: it is not packaged in Debian 12 and the Python
# package index is not reachable from the build machines (docs/runner.md).
# Needs xvfb (Xvfb), python3 and npm.
#
# Environment:
#   SIMLAB_PEERS_TOOLS="simlab web jspsych"  which tools to run (simlab
#       alone needs neither chromium nor npm; web needs chromium)
#   SIMLAB_PEERS_RUSH=off|on|both  simlab without `--rush` (default), with
#       it, or both in every repetition (in alternating order)
#   SIMLAB_PEERS_LOAD=1  a background load while measuring: two busy
#       processes (`yes`, one per core of the 2-core development machine)
#       and a writer of 64 MB files with fsync, in a loop
#   SIMLAB_PEERS_XVFB_RT=1  the X server SCHED_FIFO 20 (root); on by
#       default under SIMLAB_PEERS_LOAD, as the instrument is real-time too
#       (SCHED_FIFO 30, above simlab's threads)
#
# Prints, per simlab mode, the per-run tables as medians over the runs
# (peers_table.py), a Markdown table of the medians over the runs of
# simlab's own share (recorded stamp - the X server's delivery of the press
# to the instrument), the press side in total (recorded stamp - injection)
# and the RT error; then a line "details: {...}" with every run, and last
# one JSON object with the medians over the repetitions:
#   {"simlab": {"n", "median_ms", "sd_ms", "p99_ms"}, "web": {...},
#    "jspsych": {...},
#    "simlab_rush": {...}, "share": {...}, "share_rush": {...}}
# ("n" counts the trials of all repetitions; a key is there when its tool
# and mode ran).
set -eu
build=$(cd "${1:?build directory}" && pwd)
reps=${2:-3}
trials=${3:-64}
tools=${SIMLAB_PEERS_TOOLS:-simlab web jspsych}
rush=${SIMLAB_PEERS_RUSH:-off}
load=${SIMLAB_PEERS_LOAD:-0}
xrt=${SIMLAB_PEERS_XVFB_RT:-$load}
case "$rush" in
off) modes="plain" ;;
on) modes="rush" ;;
both) modes="plain rush" ;;
*)
    echo "SIMLAB_PEERS_RUSH must be off, on or both" >&2
    exit 2
    ;;
esac
JSPSYCH_VERSION=8.2.3
PLUGIN_VERSION=2.1.0
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/simlab-peers-XXXXXX")
loadpids=""
xpid=""
cleanup() {
    rm -f "$out/load.on"
    for p in $loadpids $xpid; do
        kill "$p" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
has_tool() {
    case " $tools " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

if has_tool jspsych || has_tool web; then
    if ! command -v chromium >/dev/null 2>&1; then
        if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
        echo "## installing chromium (Debian package)" >&2
        $SUDO apt-get install -y --no-install-recommends chromium >&2
    fi
fi
if has_tool jspsych; then
    echo "## jsPsych $JSPSYCH_VERSION, plugin-html-keyboard-response $PLUGIN_VERSION (npm, into $out/web)" >&2
    mkdir -p "$out/web"
    (cd "$out/web" && npm install --silent --no-audit --no-fund --no-save \
        "jspsych@$JSPSYCH_VERSION" \
        "@jspsych/plugin-html-keyboard-response@$PLUGIN_VERSION" >&2)
    cp "$src/bench/app/jspsych_trial.html" "$out/web/index.html"
fi

shared=${SIMLAB_SHARED_DIR:-$src/../shared}
if [ -d "$shared/data/hase2020/text" ]; then
    cp -r "$src/examples/hase2020/text-forward" "$out/bundle"
    cp -r "$shared/data/hase2020/text/data/HIT-data-public-final" "$out/bundle/data"
else
    cp -r "$src/assets/studies/text-forward" "$out/bundle"
fi

# simlab serve's bundle: the text forward study's sentences as a consent
# and two blocks of predictions (the second the first's items again)
if has_tool web; then
    cp -r "$src/assets/studies/text-forward" "$out/webbundle"
    python3 - "$out/webbundle/study.json" "$trials" <<'EOP'
import json, sys
p, n = sys.argv[1], int(sys.argv[2])
s = json.load(open(p))
for k in ("protocol", "pages", "quiz", "assignment", "screening", "simulation"):
    s.pop(k, None)
half = max(1, min(32, (n + 1) // 2))
s["blocks"] = [
    {"kind": "consent", "text": "Press Enter to start."},
    {"kind": "predict", "id": "a", "pool": "test", "phase": "pre", "n": half, "order": "fixed"},
    {"kind": "predict", "id": "b", "same_items_as": "a", "phase": "post", "order": "fixed"},
]
json.dump(s, open(p, "w"), indent=1)
EOP
fi

# The background load: two busy processes and a disk writer (64 MB files
# written and fsynced in a loop), all at normal priority.
if [ "$load" = 1 ]; then
    echo "## background load: 2 x yes, 64 MB fsynced writes in a loop" >&2
    for _ in 1 2; do
        yes >/dev/null &
        loadpids="$loadpids $!"
    done
    touch "$out/load.on"
    (while [ -e "$out/load.on" ]; do
        dd if=/dev/zero of="$out/load.bin" bs=1M count=64 conv=fsync \
            2>/dev/null
    done) &
    loadpids="$loadpids $!"
    sleep 2
fi

# One Xvfb per tool and run (1920x1080x24, no window manager).
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
    if [ "$xrt" = 1 ]; then
        chrt -f -p 20 "$xpid" >&2
    fi
}
stop_x() {
    kill "$xpid" 2>/dev/null || true
    wait "$xpid" 2>/dev/null || true
    xpid=""
}
run_simlab() { # run_simlab MODE I
    echo "## run $2: simlab ($1)" >&2
    start_x
    flag=""
    [ "$1" = rush ] && flag="--rush"
    # shellcheck disable=SC2086
    "$build/bench/bench_app" rt "$build/app/simlab" "$out/bundle" "$out" p \
        "$trials" $flag >"$out/simlab-$1-$2.txt" ||
        { cat "$out/simlab-$1-$2.txt" >&2; stop_x; exit 1; }
    stop_x
    cat "$out/simlab-$1-$2.txt" >&2
}
for i in $(seq 1 "$reps"); do
    if has_tool simlab; then
        order=$modes
        if [ $((i % 2)) -eq 0 ] && [ "$rush" = both ]; then
            order="rush plain"
        fi
        for m in $order; do
            run_simlab "$m" "$i"
        done
    fi
    if has_tool web; then
        echo "## run $i: simlab serve in Chromium" >&2
        rm -rf "$out/wprofile"
        "$build/app/simlab" serve "$out/webbundle" --db "$out/web-$i.db" \
            --port 0 --station bench >"$out/serve-$i.log" 2>&1 &
        spid=$!
        for _ in $(seq 1 100); do
            grep -q "listening on" "$out/serve-$i.log" && break
            sleep 0.1
        done
        port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$out/serve-$i.log")
        start_x
        chromium --no-sandbox --user-data-dir="$out/wprofile" --no-first-run \
            --disable-gpu --disable-extensions --disable-background-networking \
            --disable-component-update --disable-sync --disable-quic \
            --disable-features=Translate --window-position=0,0 \
            --window-size=1280,720 \
            --app="http://127.0.0.1:$port/?participant=bench$i" \
            2>"$out/wconsole-$i.log" &
        bpid=$!
        rc=0
        n_web=$(( (trials + 1) / 2 )); [ "$n_web" -gt 32 ] && n_web=32
        "$build/bench/bench_app" web "$out/web-$i.db" $((n_web * 2)) \
            >"$out/web-$i.txt" || rc=$?
        kill "$bpid" 2>/dev/null || true
        wait "$bpid" 2>/dev/null || true
        stop_x
        kill "$spid" 2>/dev/null || true
        wait "$spid" 2>/dev/null || true
        cat "$out/web-$i.txt" >&2
        [ "$rc" -eq 0 ] || exit 1
    fi
    if has_tool jspsych; then
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
    fi
done
# The per-run tables of simlab's runs, as medians over the runs.
if has_tool simlab; then
    for m in $modes; do
        echo "### simlab ($m): medians over the runs"
        for i in $(seq 1 "$reps"); do cat "$out/simlab-$m-$i.txt"; done \
            >"$out/all-$m.txt"
        python3 "$src/bench/app/peers_table.py" "$out/all-$m.txt"
        echo
    done
fi
# Medians over the repetitions of each figure; the last line of each run's
# output is its JSON.
python3 - "$out" "$reps" "$modes" "$tools" "$load" <<'EOP'
import json, os, statistics, sys
out, reps, modes, tools, load = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split(), sys.argv[5]
def last_json(path):
    return json.loads(open(path).read().strip().splitlines()[-1])
runs = {}
for i in range(1, reps + 1):
    for m in modes if "simlab" in tools else []:
        s = last_json(f"{out}/simlab-{m}-{i}.txt")
        sfx = "_rush" if m == "rush" else ""
        for k, name in (("simlab", "simlab"), ("watch", "simlab_watch"),
                        ("share", "share"), ("press", "press"),
                        ("xserver", "xserver"), ("onset", "onset")):
            runs.setdefault(name + sfx, []).append(s[k])
    if "jspsych" in tools:
        runs.setdefault("jspsych", []).append(last_json(f"{out}/jspsych-{i}.txt")["jspsych"])
    if "web" in tools:
        runs.setdefault("web", []).append(last_json(f"{out}/web-{i}.txt")["web"])
res = {}
for k, rs in runs.items():
    res[k] = {"n": sum(r["n"] for r in rs)}
    for f in ("median_ms", "sd_ms", "p99_ms"):
        res[k][f] = round(statistics.median(r[f] for r in rs), 3)
keys = ("n", "median_ms", "sd_ms", "p99_ms")
if "simlab" in tools:
    print(f"### simlab, medians over {reps} runs ({'with' if load == '1' else 'without'} background load)")
    print()
    print("| (ms) | mode | median | SD | p99 | p99 per run |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, what in (("share", "simlab's own share: recorded stamp - X server delivery"),
                       ("press", "press side in total: recorded stamp - injection"),
                       ("xserver", "X server delivery to the instrument - injection"),
                       ("onset", "onset stamp - pixels changed"),
                       ("simlab", "RT error: recorded RT - true RT")):
        for m in modes:
            k = name + ("_rush" if m == "rush" else "")
            r = res[k]
            per = ", ".join(f"{x['p99_ms']:.2f}" for x in runs[k])
            print(f"| {what} | {'--rush' if m == 'rush' else 'plain'} | {r['median_ms']:.3f} | {r['sd_ms']:.3f} | {r['p99_ms']:.3f} | {per} |")
    print()
print("details:", json.dumps({"repeats": reps, "load": load == "1", "runs": runs}))
print(json.dumps({k: {f: res[k][f] for f in keys} for k in res
                  if k in ("simlab", "web", "jspsych", "simlab_rush", "share", "share_rush")}))
EOP
