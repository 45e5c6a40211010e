#!/bin/sh
# Response -> next prediction screen on screen with a six-image gallery and a
# markdown paragraph, against a heatmap trial, measured in the same run: the
# bundle (bench/app/expl_bundles.py) alternates the two, trial by trial, so
# both see the same machine load; each round is one run of 40 predictions
# and prints the ratio of the medians (gallery / heatmap). A second run per
# round limits the texture cache to 8 MiB (--texture-budget 8): images are
# dropped and decoded again, and preloading must still keep up. The last
# lines: the median ratio over the rounds with its range, and the texture
# cache's bytes in each.
# Usage: bench/app/expl.sh BUILD_DIR [ROUNDS]
set -eu
build=${1:?build directory}
rounds=${2:-5}
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/simlab-bench-expl-XXXXXX")
trap 'rm -rf "$out"' EXIT
python3 "$src/bench/app/expl_bundles.py" "$src/tests/data/app/meta-image" "$out"
: >"$out/ratios"
: >"$out/ratios-small"
field() { sed -n "s/^$1 //p" "$2"; }
for r in $(seq 1 "$rounds"); do
    for k in full small; do
        mkdir -p "$out/run-$k-$r"
        budget=""
        [ "$k" = small ] && budget="--texture-budget 8"
        # shellcheck disable=SC2086
        xvfb-run -a -s "-screen 0 1920x1080x24" "$build/bench/bench_app" input \
            "$build/app/simlab" "$out/mixed" "$out/run-$k-$r" f 40 $budget \
            >"$out/$k-$r.txt" 2>"$out/$k-$r.err"
        g=$(field to_predict_even_median_ms "$out/$k-$r.txt")
        h=$(field to_predict_odd_median_ms "$out/$k-$r.txt")
        ratio=$(awk -v g="$g" -v h="$h" 'BEGIN { printf "%.3f", g / h }')
        echo "round $r, $k texture budget: gallery+markdown $g ms, heatmap $h ms, ratio $ratio"
        if [ "$k" = full ]; then echo "$ratio" >>"$out/ratios"; else echo "$ratio" >>"$out/ratios-small"; fi
    done
done
summary() { # summary FILE WHAT
    sort -n "$1" | awk -v what="$2" '{ v[NR] = $1 } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "median ratio gallery+markdown / heatmap, %s, over %d rounds: %.3f (range %.3f-%.3f)\n", what, NR, m, v[1], v[NR] }'
}
summary "$out/ratios" "256 MiB texture budget"
summary "$out/ratios-small" "8 MiB texture budget"
for k in full small; do
    printf '%s: ' "$k"; grep '^textures:' "$out/$k-1.txt" || echo "no texture line"
done
