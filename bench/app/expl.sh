#!/bin/sh
# Response -> next prediction screen on screen with a six-image gallery and a
# markdown paragraph, against a heatmap trial, measured in the same run:
# each round runs both bundles (bench/app/expl_bundles.py: the same 40
# predictions) one after the other under one Xvfb, alternating which goes
# first, and prints the ratio of the medians (gallery / heatmap). The last
# lines: the median ratio over the rounds with its range, and the texture
# cache's peak bytes in each bundle. A third run per round shows the
# gallery with an 8 MiB texture budget (--texture-budget 8), where images
# are dropped and decoded again: preloading must still keep up.
# Usage: bench/app/expl.sh BUILD_DIR [ROUNDS]
set -eu
build=${1:?build directory}
rounds=${2:-5}
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/simlab-bench-expl-XXXXXX")
trap 'rm -rf "$out"' EXIT
python3 "$src/bench/app/expl_bundles.py" "$src/tests/data/app/meta-image" "$out"
: >"$out/ratios"
for r in $(seq 1 "$rounds"); do
    if [ $((r % 2)) -eq 1 ]; then order="heatmap gallery"; else order="gallery heatmap"; fi
    # one X server for the round: both bundles in the same run
    xvfb-run -a -s "-screen 0 1920x1080x24" sh -c '
        build=$1 out=$2 r=$3; shift 3
        for k in "$@"; do
            mkdir -p "$out/run-$k-$r"
            if [ "$k" = small ]; then
                "$build/bench/bench_app" input "$build/app/simlab" "$out/gallery" \
                    "$out/run-$k-$r" f 40 --texture-budget 8 >"$out/$k-$r.txt" 2>"$out/$k-$r.err"
            else
                "$build/bench/bench_app" input "$build/app/simlab" "$out/$k" \
                    "$out/run-$k-$r" f 40 >"$out/$k-$r.txt" 2>"$out/$k-$r.err"
            fi
        done' sh "$build" "$out" "$r" $order small
    g=$(sed -n 's/^to_predict_median_ms //p' "$out/gallery-$r.txt")
    sm=$(sed -n 's/^to_predict_median_ms //p' "$out/small-$r.txt")
    h=$(sed -n 's/^to_predict_median_ms //p' "$out/heatmap-$r.txt")
    ratio=$(awk -v g="$g" -v h="$h" 'BEGIN { printf "%.3f", g / h }')
    rs=$(awk -v g="$sm" -v h="$h" 'BEGIN { printf "%.3f", g / h }')
    echo "round $r ($order first): gallery+markdown $g ms, heatmap $h ms, ratio $ratio; gallery with an 8 MiB texture budget $sm ms, ratio $rs"
    echo "$ratio" >>"$out/ratios"
    echo "$rs" >>"$out/ratios-small"
done
summary() { # summary FILE WHAT
    sort -n "$1" | awk -v what="$2" '{ v[NR] = $1 } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "median ratio %s / heatmap over %d rounds: %.3f (range %.3f-%.3f)\n", what, NR, m, v[1], v[NR] }'
}
summary "$out/ratios" "gallery+markdown"
summary "$out/ratios-small" "gallery+markdown (8 MiB texture budget)"
for k in gallery heatmap small; do
    printf '%s: ' "$k"; grep '^textures:' "$out/$k-1.txt" || echo "no texture line"
done
grep -h "response -> next prediction" "$out"/gallery-1.txt "$out"/heatmap-1.txt || true
