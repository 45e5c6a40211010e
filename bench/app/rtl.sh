#!/bin/sh
# The transition to the next stimulus with the participant screens mirrored
# (a right-to-left study) beside the same study in English and in the same
# language laid out left to right, in one run.
# Usage: bench/app/rtl.sh BUILD_DIR [REPEATS] [LANG]
# Runs `bench_app input` (every screen answered by XTest presses, under
# Xvfb) in turn on three copies of the text forward study of Hase & Bansal
# (or the image fixture without ../shared), REPEATS times each (default 3):
#   en        as shipped (English);
#   LANG      "language": LANG (default ar): translated and mirrored;
#   LANG-ltr  the same strings from a language file with "direction":
#             "ltr": translated, not mirrored (separates the cost of the
#             mirrored layout from that of shaping right-to-left text).
# Prints each run's transition and frame rows, then per copy the median of
# the runs' medians.
set -eu
build=${1:?build directory}
reps=${2:-3}
lang=${3:-ar}
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/simlab-bench-rtl-XXXXXX")
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
# "language" (and the file) right after the opening brace of study.json
sed -i "1s/{/{\"language\": \"$lang\", /" "$out/$lang/study.json"
sed -i "1s/{/{\"language\": \"$lang\", \"language_file\": \"ltr.json\", /" \
    "$out/$lang-ltr/study.json"
sed "1s/{/{\"direction\": \"ltr\", /" "$src/assets/lang/$lang.json" \
    >"$out/$lang-ltr/ltr.json"
"$build/app/simlab" check "$out/$lang" >/dev/null
"$build/app/simlab" check "$out/$lang-ltr" >/dev/null
for i in $(seq 1 "$reps"); do
    for l in en "$lang" "$lang-ltr"; do
        mkdir -p "$out/run-$l-$i"
        xvfb-run -a -s "-screen 0 1920x1080x24" \
            "$build/bench/bench_app" input "$build/app/simlab" "$out/$l" \
            "$out/run-$l-$i" "$key" 64 >"$out/run-$l-$i/report.txt"
        grep -E '^\| (response|frame)' "$out/run-$l-$i/report.txt" |
            sed "s/^/$l run $i /"
    done
done
# The median of the runs' medians per copy.
for l in en "$lang" "$lang-ltr"; do
    for row in response frame; do
        cat "$out"/run-"$l"-[0-9]*/report.txt | grep "^| $row" |
            awk -F'|' '{ print $4 + 0 }' | sort -n |
            awk -v l="$l" -v r="$row" '{ v[NR] = $1 }
                END { if (NR % 2) m = v[(NR + 1) / 2];
                      else m = (v[NR / 2] + v[NR / 2 + 1]) / 2;
                      printf "%s %s: median of %d runs %.2f ms\n", l, r, NR, m }'
    done
done
rm -rf "$out"
