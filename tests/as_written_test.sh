#!/bin/sh
# The study as the lab wrote it, end to end on examples/kredit-de (German,
# within-subject, its own baseline 'ohne' listed last, per-condition trust
# questionnaires through assignment.repeat, a closing questionnaire asked
# once after them ("once": true), a counted-down deadline with
# confidence, an attention block of catch trials only): `simlab check`
# prints the design, `simlab simulate` and the real window with the
# autopilot (SDL's dummy driver) record participants, the export carries
# the repetition's condition on questionnaire answers, and simlab-analyze
# compares with 'ohne' from the database and from the CSV with its sidecar.
# Usage: as_written_test.sh SIMLAB SIMLAB_ANALYZE EXAMPLES_DIR
set -u
simlab=$1
analyze=$2
bundle=$3/kredit-de
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$simlab" check "$bundle" >"$tmp/check" 2>&1 || fail "check: $(cat "$tmp/check")"
grep -q "^  ohne .*(baseline)" "$tmp/check" || fail "check: no baseline ohne"
grep -q "^  blocks lernen .. vertrauen repeated once per condition.*between conditions: pause" \
    "$tmp/check" || fail "check: repeated run"
grep -q "(the run of assignment.repeat)" "$tmp/check" || fail "check: run source"
grep -q "^  5   predict        achtung .* 0    reservoir" "$tmp/check" ||
    fail "check: the attention block shows no items"
grep -q "counted down on screen" "$tmp/check" || fail "check: countdown"
grep -q "^rating       none (no block asks a rating)" "$tmp/check" || fail "check: rating line"
# the closing questionnaire after the repeated run is marked "once": meant
! grep -q "questionnaire 'person' comes after the blocks repeated" "$tmp/check" ||
    fail "check: warns about the questionnaire marked once"
"$simlab" check --json "$bundle" >"$tmp/check.json" 2>&1 || fail "check --json"
tr -d ' \n' <"$tmp/check.json" >"$tmp/cflat"
grep -q '"repeat":\["lernen","test","achtung","vertrauen","pause"\]' "$tmp/cflat" ||
    fail "check --json: repeat"

"$simlab" simulate "$bundle" --db "$tmp/k.db" --participants 12 --policy mixed --seed 4 \
    >"$tmp/sim" 2>&1 || fail "simulate: $(cat "$tmp/sim")"
# the real window loop with the autopilot: two more participants
SDL_VIDEODRIVER=dummy "$simlab" run "$bundle" --db "$tmp/k.db" --autopilot mixed \
    --participants 14 --seed 9 >"$tmp/run" 2>&1 || fail "run: $(tail -3 "$tmp/run")"
"$simlab" export --db "$tmp/k.db" --csv "$tmp/k.csv" >"$tmp/exp" 2>&1 || fail "export: $(cat "$tmp/exp")"

# each participant: 3 x 8 real test trials and 3 catch trials in 'achtung'
real=$(awk -F, 'NR > 1 && $9 == "test" && $11 == 0' "$tmp/k.csv" | wc -l)
[ "$real" -eq $((14 * 24)) ] || fail "long format: $real real test rows, want $((14 * 24))"
catch=$(awk -F, 'NR > 1 && $9 == "achtung" && $11 == 1' "$tmp/k.csv" | wc -l)
[ "$catch" -eq $((14 * 3)) ] || fail "long format: $catch attention rows, want $((14 * 3))"
noncatch=$(awk -F, 'NR > 1 && $9 == "achtung" && $11 == 0' "$tmp/k.csv" | wc -l)
[ "$noncatch" -eq 0 ] || fail "long format: $noncatch real trials in the attention block"
# questionnaire answers carry the repetition's condition: each participant
# rated trust once in every condition
per=$(awk -F, 'NR > 1 && $5 == "vertrauen" { print $1 "," $2 }' "$tmp/k.questionnaire.csv" |
      sort -u | wc -l)
[ "$per" -eq $((14 * 3)) ] || fail "questionnaire: $per participant/condition trust answers"

for src in db csv; do
    if [ "$src" = db ]; then
        "$analyze" "$tmp/k.db" --out "$tmp/out-$src" --include-simulated --replicates 200 \
            >"$tmp/an-$src" 2>&1 || fail "analyze $src: $(cat "$tmp/an-$src")"
    else
        "$analyze" --csv "$tmp/k.csv" --out "$tmp/out-$src" --include-simulated \
            --replicates 200 >"$tmp/an-$src" 2>&1 || fail "analyze $src: $(cat "$tmp/an-$src")"
    fi
    md="$tmp/out-$src/report.md"
    grep -q "^Reference condition: 'ohne' (the study's baseline in " "$md" ||
        fail "$src: reference not ohne"
    grep -q "^| balken - ohne | 14 |" "$md" || fail "$src: paired balken - ohne"
    grep -q "^| begruendung - ohne | 14 |" "$md" || fail "$src: paired begruendung - ohne"
    grep -q "begruendung - balken" "$md" && fail "$src: compares begruendung with balken"
    grep -q "conditionbalken" "$md" || fail "$src: the model is not coded against ohne"
    grep -q "^| person | erfahrung | all |" "$md" || fail "$src: once-only questionnaire split"
    grep -q "^| vertrauen | vertrauen | balken - ohne | 14 |" "$md" ||
        fail "$src: no paired trust comparison"
done
# --baseline overrides; an unknown name names the conditions
"$analyze" "$tmp/k.db" --out "$tmp/out-b" --include-simulated --replicates 0 --baseline balken \
    >"$tmp/an-b" 2>&1 || fail "analyze --baseline: $(cat "$tmp/an-b")"
grep -q "^| ohne - balken |" "$tmp/out-b/report.md" || fail "--baseline balken: paired"
"$analyze" "$tmp/k.db" --out "$tmp/out-x" --include-simulated --replicates 0 --baseline ohen \
    >"$tmp/an-x" 2>&1
[ $? -eq 2 ] || fail "--baseline ohen: not a usage error"
grep -q "'ohen': no such condition in the data (conditions: 'balken', 'begruendung', 'ohne')" \
    "$tmp/an-x" || fail "--baseline ohen: $(cat "$tmp/an-x")"

[ "$fails" -eq 0 ] && echo "as_written_test: all passed"
[ "$fails" -eq 0 ]
