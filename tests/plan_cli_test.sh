#!/bin/sh
# `simlab plan` end to end: a preregistration of a sequential within-subject
# study written twice with the same seed (the same bytes), a pre/post study
# whose plan measures the published Change bootstrap too, the located
# errors of bad input (nothing written), `simlab status` naming the look
# that is due, and simlab-analyze --look --plan calling the analysis
# confirmatory, or exploratory with its deviations; --plan with a file that
# is not a plan and an unknown --primary refused; glmm_error_detection
# located by check without verify blocks and refused by plan.
# Usage: plan_cli_test.sh SIMLAB SIMLAB_ANALYZE SOURCE_DIR
set -u
simlab=$1
analyze=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# a study with an analysis block: the within example, three looks
cp -r "$src/examples/within" "$tmp/study"
python3 - "$tmp/study/study.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["analysis"] = {"primary": "glmm", "sequential": {"looks": [8, 16, 24]},
                 "direction": {"LIME": "higher"}}
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
plan() {
    "$simlab" plan "$tmp/study" --studies 40 --effect-from-simulation \
        --include-simulated --seed 3 --threads 2 --date 2025-01-31 \
        --screening 20 --quiet "$@"
}
plan --out "$tmp/plan" >"$tmp/plan.log" 2>&1 || fail "plan: $(cat "$tmp/plan.log")"
plan --out "$tmp/plan2" >/dev/null 2>&1 || fail "plan again"
for f in preregistration.json preregistration.md; do
    [ -s "$tmp/plan/$f" ] || fail "plan: no $f"
    cmp -s "$tmp/plan/$f" "$tmp/plan2/$f" || fail "plan: $f differs between runs"
done
python3 - "$tmp/plan/preregistration.json" <<'PY' || fail "preregistration.json keys"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["simlab_plan"] == 1 and len(p["sha256"]) == 64 and p["simlab_version"]
assert p["primary"]["test"] == "glmm" and p["primary"]["alpha"] == 0.05
assert p["primary"]["correction"] == "holm" and "condition" in p["primary"]["formula"]
s = p["sample_size"]
for k in ("per_condition", "enrol_per_condition", "power", "false_positive_rate"):
    assert k in s, k
assert s["per_condition"] == 24
assert p["sequential"]["looks"] == [8, 16, 24]
assert len(p["sequential"]["critical_z"]) == 3
assert p["exclusions"]["analysis"]["include_simulated"] is True
assert p["hypotheses"][0]["condition"] == "LIME" and p["hypotheses"][0]["direction"] == "higher"
PY
for s in "## 1. Hypotheses" "## 4. Primary analysis" "## 5. Exclusions" \
         "## 6. Sample size" "## 8. The primary test on this design" \
         "Direction stated in the study file"; do
    grep -q "$s" "$tmp/plan/preregistration.md" || fail "preregistration.md: no '$s'"
done

# bad input: nothing written
"$simlab" plan "$tmp/study" --out "$tmp/none1" >"$tmp/e1" 2>&1
[ $? -eq 2 ] || fail "plan without effects: exit status"
grep -q "effect-from-simulation" "$tmp/e1" || fail "plan without effects: message"
cp -r "$src/assets/studies/text-forward" "$tmp/bad"
python3 - "$tmp/bad/study.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["analysis"] = {"primary": "paired_t", "alpha": 0.5}
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
"$simlab" plan "$tmp/bad" --out "$tmp/none2" --effect-from-simulation >"$tmp/e2" 2>&1
[ $? -eq 1 ] || fail "plan of a bad study: exit status"
grep -q "study.json:/analysis/primary: field 'primary': paired_t" "$tmp/e2" ||
    fail "plan of a bad study: $(cat "$tmp/e2")"
grep -q "study.json:/analysis/alpha" "$tmp/e2" || fail "plan: alpha not located"
[ ! -e "$tmp/none1" ] && [ ! -e "$tmp/none2" ] || fail "bad input wrote a plan"

# glmm_error_detection: `simlab check` locates it on a study without verify
# blocks; on one with them plan refuses it (no other model in its place)
cp -r "$src/assets/studies/text-forward" "$tmp/nov"
cp -r "$src/tests/data/experiment/mini-verify" "$tmp/mv"
for d in nov mv; do
    python3 - "$tmp/$d/study.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["analysis"] = {"primary": "glmm_error_detection"}
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
done
"$simlab" check "$tmp/nov" >"$tmp/e5" 2>&1
[ $? -eq 1 ] || fail "check glmm_error_detection without verify: exit status"
grep -q "study.json:/analysis/primary: field 'primary': glmm_error_detection models the answers of verify blocks" \
    "$tmp/e5" || fail "check glmm_error_detection: $(cat "$tmp/e5")"
"$simlab" check "$tmp/mv" >"$tmp/c6" 2>&1 || fail "check mini-verify: $(cat "$tmp/c6")"
"$simlab" plan "$tmp/mv" --out "$tmp/none6" --effect-from-simulation \
    --studies 20 --participants 4 --screening 0 --quiet >"$tmp/e6" 2>&1
[ $? -eq 2 ] || fail "plan glmm_error_detection: exit status ($(cat "$tmp/e6"))"
grep -q "its primary test glmm_error_detection .* cannot be simulated by simlab power and simlab plan yet" \
    "$tmp/e6" || fail "plan glmm_error_detection: $(cat "$tmp/e6")"
[ ! -e "$tmp/none6" ] || fail "plan glmm_error_detection wrote a plan"

# the data of look 2, the look due, the analysis as planned
"$simlab" simulate "$tmp/study" --db "$tmp/w.db" --participants 16 \
    --policy mixed --seed 4 --fast >/dev/null 2>&1 || fail simulate
"$simlab" status --db "$tmp/w.db" >"$tmp/status" 2>&1 || fail "status"
grep -q "look 2 (16) is due: simlab-analyze --look 2" "$tmp/status" ||
    fail "status: $(cat "$tmp/status")"
"$analyze" "$tmp/w.db" --include-simulated --replicates 100 --look 2 \
    --plan "$tmp/plan/preregistration.json" --out "$tmp/report" \
    >"$tmp/an" 2>&1 || fail "analyze --plan: $(cat "$tmp/an")"
grep -q "Confirmatory: the analysis is the one planned on 2025-01-31" \
    "$tmp/report/report.md" || fail "report.md: not confirmatory"
first=$(grep -n "^primary test:" "$tmp/an" | cut -d: -f1)
pub=$(grep -n "^published methods" "$tmp/an" | cut -d: -f1)
[ -n "$first" ] && [ -n "$pub" ] && [ "$first" -lt "$pub" ] ||
    fail "stdout: the primary test does not come first"
grep -q "^look 2 of 3: critical |z| 2.511" "$tmp/an" || fail "stdout: look"
# a deviation: another primary test
"$analyze" "$tmp/w.db" --include-simulated --replicates 100 --look 2 \
    --primary anova --plan "$tmp/plan/preregistration.json" \
    --out "$tmp/report2" >"$tmp/an2" 2>&1 || fail "analyze --primary anova"
grep -q "^Exploratory: the analysis departs from the plan" "$tmp/report2/report.md" ||
    fail "report.md: not exploratory"
grep -q "^- --primary anova overrides the planned test (glmm)" \
    "$tmp/report2/report.md" || fail "report.md: the deviation"
# not a plan; an unknown test
"$analyze" "$tmp/w.db" --include-simulated --plan "$tmp/report/report.json" \
    --out "$tmp/none3" >"$tmp/e3" 2>&1
[ $? -eq 1 ] || fail "--plan report.json: exit status"
grep -q "not a simlab plan" "$tmp/e3" || fail "--plan report.json: $(cat "$tmp/e3")"
[ ! -e "$tmp/none3" ] || fail "--plan report.json wrote a report"
"$analyze" "$tmp/w.db" --primary paired-t --out "$tmp/none4" >"$tmp/e4" 2>&1
[ $? -eq 2 ] || fail "--primary paired-t: exit status"
grep -q "did you mean 'paired_t'" "$tmp/e4" || fail "--primary: $(cat "$tmp/e4")"

# a pre/post demo: the published Change bootstrap measured beside
cp -r "$src/assets/studies/text-forward" "$tmp/tf"
"$simlab" plan "$tmp/tf" --out "$tmp/tfplan" --studies 20 --participants 3,6 \
    --effect-from-simulation --seed 1 --threads 2 --screening 0 --quiet \
    >"$tmp/tf.log" 2>&1 || fail "plan text-forward: $(cat "$tmp/tf.log")"
python3 - "$tmp/tfplan/preregistration.json" <<'PY' || fail "text-forward plan"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["primary"]["test"] == "glmm" and "phase * condition" in p["primary"]["formula"]
pub = p["secondary"]["published"]
assert len(pub) == 1 and pub[0]["test"] == "change_bootstrap", pub
assert pub[0]["null_studies"] > 0
PY
[ "$fails" -eq 0 ] || exit 1
echo "plan, status and --plan ok"
