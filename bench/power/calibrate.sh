#!/bin/sh
# The calibration table of docs/analysis.md: the size at alpha = 0.05, the
# 95 % CI coverage and the power at the demo's effect of every test simlab
# reports, on the demo and Hase designs (assets/studies/*) and a
# within-subject design (examples/within), measured with `simlab power`:
# S null studies (every condition at the baseline's accuracy, Post = Pre)
# and S studies with the study's own simulated effects per size.
#
# Usage: bench/power/calibrate.sh [BUILD_DIR] [OUT_DIR] [STUDIES]
#        (defaults build, calibration-out, 200)
# Prints the markdown table; OUT_DIR keeps every power.json (SUMMARY_ONLY=1
# prints the table of an OUT_DIR again without running). Run on purpose
# (about 3 minutes of CPU with STUDIES 200; 9 before the mixed model's
# pilot studies), never by ctest.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
out=${2:-calibration-out}
studies=${3:-200}
simlab=$build/app/simlab
[ -x "$simlab" ] || { echo "calibrate.sh: no $simlab (build first)" >&2; exit 2; }
mkdir -p "$out"

run() { # design test [extra options]
    design=$1; test=$2; shift 2
    dir="$out/$(basename "$design")-$test"
    "$simlab" power "$src/$design" --participants 10,20 --studies "$studies" \
        --null-studies "$studies" --seed 1 --threads 2 --screening 0 --quiet \
        --test "$test" "$@" --out "$dir" > /dev/null
}

if [ "${SUMMARY_ONLY:-0}" != 1 ]; then
    for d in assets/studies/text-forward assets/studies/text-counterfactual \
             assets/studies/tabular-forward \
             assets/studies/tabular-counterfactual assets/studies/image-meta; do
        run "$d" bootstrap --coverage
        run "$d" users --coverage
        run "$d" glmm
    done
    run examples/within t
    run examples/within glmm
    run examples/within anova
fi

python3 - "$out" <<'EOF'
import json, os, sys
out = sys.argv[1]
designs = ["text-forward", "text-counterfactual", "tabular-forward",
           "tabular-counterfactual", "image-meta", "within"]
names = {"bootstrap": "crossed bootstrap", "users": "users-only bootstrap",
         "glmm": "GLMM Wald", "t": "paired t", "anova": "RM-ANOVA F"}
def pct(x):
    return "%.1f %%" % (100 * x)
print("| design | test | size, N = 10 | size, N = 20 | CI coverage, N = 20 "
      "| power, N = 20 (largest effect; smallest) |")
print("| --- | --- | --- | --- | --- | --- |")
for d in designs:
    for t in ["bootstrap", "users", "glmm", "t", "anova"]:
        path = os.path.join(out, "%s-%s" % (d, t), "power.json")
        if not os.path.exists(path):
            continue
        r = json.load(open(path))
        rows = r["rows"]
        truth = {c["condition"]: c for c in r["truth"]}
        size, cover, power = [], [], {}
        for n in (10, 20):
            sel = [w for w in rows if w["participants"] == n]
            rej = sum(w["null_rejections"] for w in sel)
            tot = sum(w["null_studies"] for w in sel)
            size.append("%s (%d/%d)" % (pct(rej / tot), rej, tot))
        sel = [w for w in rows if w["participants"] == 20]
        cov = [w["coverage"] for w in sel if "coverage" in w]
        cover = "%s–%s" % (pct(min(cov)), pct(max(cov))) if cov else "—"
        eff = []
        for w in sel:
            tr = truth.get(w["condition"], {})
            if tr.get("null_effect"):
                continue
            key = [k for k in tr if k.startswith("true_") and k not in
                   ("true_pre", "true_post", "true_baseline",
                    "true_accuracy", "true_log_odds")]
            v = tr.get(key[0]) if key else None
            effect = abs(v - (1 if key[0] == "true_utility" else 0)) \
                if v is not None else 0
            eff.append((effect, w["condition"], w["power"]))
        eff.sort()
        if len(eff) > 1:
            pw = "%s %.2f; %s %.2f" % (eff[-1][1], eff[-1][2], eff[0][1],
                                       eff[0][2])
        else:
            pw = "%s %.2f" % (eff[0][1], eff[0][2]) if eff else "—"
        print("| %s | %s | %s | %s | %s | %s |" % (
            d, names[t], size[0], size[1], cover, pw))
EOF
