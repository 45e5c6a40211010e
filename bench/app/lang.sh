#!/bin/sh
# The time from a response to the next stimulus on screen with the runner's
# texts in English and in Arabic (right to left: bidi levels, shaping),
# side by side, for one build or two (before and after a change).
# Usage: bench/app/lang.sh BUILD_DIR [BUILD_DIR_BEFORE] [REPEATS] [ANSWERS]
# Runs are interleaved (build, language) within each repeat, so that load
# from other processes on the machine falls on all of them alike; reports
# the median over repeats of each run's median, and every run's median.
# Needs xvfb-run, python3 and the Hase & Bansal materials beside the
# repository (../shared), or falls back to the image fixture.
set -eu
after=${1:?build directory}
before=${2:-}
reps=${3:-5}
answers=${4:-32}
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/simlab-lang-XXXXXX")
shared=${SIMLAB_SHARED_DIR:-$src/../shared}
if [ -d "$shared/data/hase2020/text" ]; then
    cp -r "$src/examples/hase2020/text-forward" "$out/en"
    cp -r "$shared/data/hase2020/text/data/HIT-data-public-final" "$out/en/data"
    key=p
else
    cp -r "$src/tests/data/app/meta-image" "$out/en"
    key=f
fi
cp -r "$out/en" "$out/ar"
python3 - "$out/en/study.json" "$out/ar/study.json" <<'EOF'
import json, sys
for path, lang in zip(sys.argv[1:], ("en", "ar")):
    with open(path) as f:
        d = json.load(f)
    d["language"] = lang
    with open(path, "w") as f:
        json.dump(d, f, ensure_ascii=False, indent=1)
EOF
builds="after:$after"
if [ -n "$before" ]; then
    builds="before:$before $builds"
fi
: >"$out/results"
for i in $(seq 1 "$reps"); do
    for b in $builds; do
        name=${b%%:*}
        dir=${b#*:}
        for lang in en ar; do
            rm -rf "$out/run"
            mkdir "$out/run"
            line=$(xvfb-run -a -s "-screen 0 1920x1080x24" \
                "$dir/bench/bench_app" input "$dir/app/simlab" "$out/$lang" \
                "$out/run" "$key" "$answers" |
                grep 'response -> next stimulus' || true)
            # | response -> next stimulus on screen | n | median | p99 | SD |
            med=$(echo "$line" | awk -F'|' '{gsub(/ /, "", $4); print $4}')
            echo "$name $lang $i ${med:-NA}" | tee -a "$out/results"
        done
    done
done
echo
echo "| build | language | median of run medians (ms) | run medians (ms) |"
echo "| --- | --- | --- | --- |"
for b in $builds; do
    name=${b%%:*}
    for lang in en ar; do
        awk -v n="$name" -v l="$lang" '$1 == n && $2 == l && $4 != "NA" {
                v[++k] = $4; all = all (all == "" ? "" : ", ") $4 }
            END {
                for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
                    if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
                m = k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
                printf "| %s | %s | %.2f | %s |\n", n, l, m, all }' \
            "$out/results"
    done
done
rm -rf "$out"
