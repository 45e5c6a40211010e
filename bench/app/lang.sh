#!/bin/sh
# The time from a response to the next stimulus on screen, and per frame,
# with the runner's texts in English and in a right-to-left language, side by
# side, for one build or two (before and after a change).
# Usage: bench/app/lang.sh BUILD_DIR [BUILD_DIR_BEFORE] [REPEATS] [ANSWERS] [LANG]
# Runs `bench_app input` (every screen answered by XTest presses, under
# Xvfb) on copies of the text forward study of Hase & Bansal (or the image
# fixture without ../shared):
#   en        as shipped (English);
#   LANG      "language": LANG (default ar): translated, bidi text, mirrored;
#   LANG-ltr  the same strings from a language file with "direction": "ltr"
#             (translated, not mirrored: separates the cost of the mirrored
#             layout from that of right-to-left text); the BUILD_DIR only.
# Runs are interleaved (build, copy) within each repeat (default 5), so that
# load from other processes falls on all of them alike; reports per build and
# copy the median over repeats of each run's median, and every run's median.
# Needs xvfb-run and python3.
set -eu
after=${1:?build directory}
before=${2:-}
reps=${3:-5}
answers=${4:-32}
lang=${5:-ar}
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
cp -r "$out/en" "$out/$lang"
cp -r "$out/en" "$out/$lang-ltr"
python3 - "$out" "$lang" "$src/assets/lang/$lang.json" <<'EOF'
import json, os, sys
out, lang, shipped = sys.argv[1:]
def edit(copy, **keys):
    path = os.path.join(out, copy, "study.json")
    with open(path) as f:
        d = json.load(f)
    d.update(keys)
    with open(path, "w") as f:
        json.dump(d, f, ensure_ascii=False, indent=1)
edit(lang, language=lang)
edit(lang + "-ltr", language=lang, language_file="ltr.json")
with open(shipped) as f:
    strings = json.load(f)
strings["direction"] = "ltr"
with open(os.path.join(out, lang + "-ltr", "ltr.json"), "w") as f:
    json.dump(strings, f, ensure_ascii=False, indent=1)
EOF
"$after/app/simlab" check "$out/$lang" >/dev/null
"$after/app/simlab" check "$out/$lang-ltr" >/dev/null
builds="after:$after"
if [ -n "$before" ]; then
    builds="before:$before $builds"
fi
: >"$out/results"
for i in $(seq 1 "$reps"); do
    for b in $builds; do
        name=${b%%:*}
        dir=${b#*:}
        copies="en $lang"
        if [ "$name" = after ]; then
            copies="$copies $lang-ltr"
        fi
        for c in $copies; do
            rm -rf "$out/run"
            mkdir "$out/run"
            xvfb-run -a -s "-screen 0 1920x1080x24" \
                "$dir/bench/bench_app" input "$dir/app/simlab" "$out/$c" \
                "$out/run" "$key" "$answers" >"$out/report.txt" || true
            # | response -> next stimulus on screen | n | median | p99 | SD |
            for row in response frame; do
                med=$(grep "^| $row" "$out/report.txt" |
                    awk -F'|' '{gsub(/ /, "", $4); print $4}')
                echo "$name $c $row $i ${med:-NA}" | tee -a "$out/results"
            done
        done
    done
done
echo
echo "| build | copy | row | median of run medians (ms) | run medians (ms) |"
echo "| --- | --- | --- | --- | --- |"
for b in $builds; do
    name=${b%%:*}
    for c in en "$lang" "$lang-ltr"; do
        for row in response frame; do
            awk -v n="$name" -v l="$c" -v r="$row" '
                $1 == n && $2 == l && $3 == r && $5 != "NA" {
                    v[++k] = $5; all = all (all == "" ? "" : ", ") $5 }
                END {
                    if (k == 0) exit
                    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
                        if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
                    m = k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
                    printf "| %s | %s | %s | %.2f | %s |\n", n, l, r, m, all }' \
                "$out/results"
        done
    done
done
rm -rf "$out"
