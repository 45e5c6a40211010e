#!/bin/sh
# report.json "glmm.r" against lme4: simlab-analyze fits the mixed model of
# every fixture of tests/data/glmm and of two simulated exports (a pre/post
# demo and a within-subject study, with simulated participants kept), and
# the R script it writes, run with Rscript on the same CSV, must give
# simlab's log-likelihood within 1e-4. Skips (77) without Rscript, lme4 or
# python3 (which reads report.json).
# Usage: glmm_r_test.sh SIMLAB SIMLAB_ANALYZE SOURCE_DIR
set -u
simlab=$1
analyze=$2
src=$3
rscript=${SIMLAB_RSCRIPT:-Rscript}
command -v "$rscript" >/dev/null 2>&1 || {
    echo "skipped: no Rscript (apt-get install r-base-core r-cran-lme4)"; exit 77; }
"$rscript" -e 'quit(status = !requireNamespace("lme4", quietly = TRUE))' \
    >/dev/null 2>&1 || { echo "skipped: R has no lme4 (apt-get install r-cran-lme4)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# check NAME CSV ANALYZE_ARGS...: analyse, run the script on CSV, compare
check() {
    name=$1 csv=$2
    shift 2
    "$analyze" "$@" --replicates 0 --plots none --format json --quiet \
        --out "$tmp/$name" >"$tmp/$name.log" 2>&1 || {
        fail "$name: simlab-analyze: $(cat "$tmp/$name.log")"; return; }
    python3 - "$tmp/$name/report.json" "$tmp/$name.R" >"$tmp/$name.ll" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["glmm"]
open(sys.argv[2], "w").write(g["r"])
print("%.9f %s" % (g["loglik"], g["structure"]))
PY
    "$rscript" "$tmp/$name.R" "$csv" >"$tmp/$name.out" 2>&1 || {
        fail "$name: the R script: $(tail -5 "$tmp/$name.out")"; return; }
    set -- $(cat "$tmp/$name.ll")
    ours=$1 structure=$2
    theirs=$(sed -n 's/^log-likelihood //p' "$tmp/$name.out")
    python3 -c "import sys; sys.exit(abs($ours - ($theirs)) > 1e-4)" 2>/dev/null ||
        fail "$name ($structure): simlab log L $ours, lme4 ${theirs:-none}"
    echo "$name ($structure): simlab $ours, lme4 $theirs"
}

for f in null effect unbalanced singular testonly within incomplete; do
    check "$f" "$src/tests/data/glmm/$f.csv" --csv "$src/tests/data/glmm/$f.csv"
done
# exports of simulated studies: the sidecar states the study and baseline,
# the simulated participants are kept (--include-simulated)
for study in assets/studies/text-forward examples/within; do
    name=$(basename "$study")
    "$simlab" simulate "$src/$study" --db "$tmp/$name.db" --participants 24 \
        --policy mixed --seed 3 --fast >/dev/null 2>&1 || fail "simulate $study"
    "$simlab" export --db "$tmp/$name.db" --csv "$tmp/$name.csv" >/dev/null 2>&1 ||
        fail "export $study"
    check "export-$name" "$tmp/$name.csv" "$tmp/$name.db" --include-simulated
done
[ "$fails" -eq 0 ] || exit 1
echo "glmm.r reproduces simlab's log-likelihood on every fixture"
