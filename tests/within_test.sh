#!/bin/sh
# Within-subject designs end to end on examples/within: `simlab check`
# lists the six Williams orders of three conditions, `simlab simulate`
# runs 12 participants (each order twice), the export's long format gives
# every participant rows in every condition (the condition of the row's
# block) and the sidecar their orders, and simlab-analyze sees a within
# design: 12 participants in 3 conditions, paired tests against the
# baseline and a repeated-measures ANOVA; `simlab power` gives the power
# of its paired tests.
# Usage: within_test.sh SIMLAB SIMLAB_ANALYZE EXAMPLES_DIR
set -u
simlab=$1
analyze=$2
bundle=$3/within
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$simlab" check "$bundle" >"$tmp/check" 2>&1 || fail "check: $(cat "$tmp/check")"
grep -q "^assignment   within-subject, order latin-square" "$tmp/check" || fail "check: no within line"
[ "$(grep -c '^  order [1-6] ' "$tmp/check")" -eq 6 ] || fail "check: not 6 orders"
grep -q "^  order 2   LIME, SHAP, baseline" "$tmp/check" || fail "check: second order"
grep -q "^  blocks learn .. test repeated once per condition" "$tmp/check" || fail "check: repeated blocks"
"$simlab" check --json "$bundle" >"$tmp/check.json" 2>&1 || fail "check --json"
grep -q '"mode": "within"' "$tmp/check.json" || fail "check --json: mode"

"$simlab" simulate "$bundle" --db "$tmp/w.db" --participants 12 --policy mixed --seed 5 --fast \
    >"$tmp/sim" 2>&1 || fail "simulate: $(cat "$tmp/sim")"
"$simlab" export --db "$tmp/w.db" --csv "$tmp/w.csv" >"$tmp/exp" 2>&1 || fail "export: $(cat "$tmp/exp")"

# participant,condition pairs with test rows: 12 x 3
pairs=$(awk -F, 'NR > 1 && $3 == "test" { print $1 "," $2 }' "$tmp/w.csv" | sort -u | wc -l)
[ "$pairs" -eq 36 ] || fail "long format: $pairs participant/condition pairs, want 36"
# no participant sees an item twice (30 items each)
dups=$(awk -F, 'NR > 1 { print $1 "," $4 }' "$tmp/w.csv" | sort | uniq -d | wc -l)
[ "$dups" -eq 0 ] || fail "long format: $dups repeated items"
# the sidecar: 12 orders, each of the 6 rows twice
n_orders=$(grep -c '"latin_square_row"' "$tmp/w.csv.json")
[ "$n_orders" -eq 12 ] || fail "sidecar: $n_orders orders, want 12"
for r in 0 1 2 3 4 5; do
    k=$(grep -c "\"latin_square_row\": $r\$" "$tmp/w.csv.json")
    [ "$k" -eq 2 ] || fail "sidecar: row $r taken $k times, want 2"
done

"$analyze" "$tmp/w.db" --out "$tmp/out" --include-simulated --replicates 200 \
    >"$tmp/an" 2>&1 || fail "analyze: $(cat "$tmp/an")"
tr -d ' \n' <"$tmp/out/report.json" >"$tmp/flat"
grep -q '"design":{"kind":"within","participants":12,"conditions":3,"incomplete":0}' "$tmp/flat" ||
    fail "analysis: not a within design of 12 x 3"
grep -q '"paired":' "$tmp/flat" || fail "analysis: no paired tests"
grep -q "Paired comparisons with the baseline" "$tmp/out/report.md" || fail "report: no paired section"
grep -qi "repeated-measures" "$tmp/out/report.md" || fail "report: no repeated-measures ANOVA"

# simlab power: the paired t tests of the report, participants drawn whole
"$simlab" power "$bundle" --participants 6,10 --studies 5 --screening 5 \
    --quiet --out "$tmp/power" >"$tmp/pw" 2>&1 || fail "power: $(cat "$tmp/pw")"
grep -q '"test_name": "t"' "$tmp/power/power.json" ||
    fail "power: not the paired t test"
grep -q '"participants": "in every condition (within-subject)"' \
    "$tmp/power/power.json" || fail "power: not within-subject"
grep -q "^| SHAP | 10 |" "$tmp/power/power.md" || fail "power: no SHAP row"

[ "$fails" -eq 0 ] && echo "within_test: all passed"
exit "$fails"
