#!/bin/sh
# Command-line behaviour of simlab: exit codes of check (0 valid, 1 invalid,
# 2 usage), new, simulate and export on a fixture bundle, and usage errors; in a
# build without SDL2, `simlab run` says that there is no runner. Mistakes
# that must not harm data: export onto the database, a database inside the
# bundle, unsafe station names.
# Usage: cli_test.sh SIMLAB DATA_DIR [SIMLAB_ANALYZE]
set -u
simlab=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # absolute: tests cd
data=$2
analyze=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() { # expect CODE DESCRIPTION CMD...
    want=$1; what=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL: $what: exit $got, want $want"; cat "$tmp/out" "$tmp/err"
        fails=$((fails + 1))
    fi
}
expect 0 "check valid" "$simlab" check "$data/experiment/mini-forward"
grep -q "^valid" "$tmp/out" || { echo "FAIL: check prints no verdict"; fails=$((fails + 1)); }
expect 0 "check --json" "$simlab" check --json "$data/experiment/mini-meta"
grep -q '"valid": *true' "$tmp/out" || { echo "FAIL: check --json"; fails=$((fails + 1)); }
expect 1 "check missing dir" "$simlab" check "$tmp/does-not-exist"
expect 2 "check no dir" "$simlab" check
expect 2 "check two dirs" "$simlab" check a b
expect 2 "unknown command" "$simlab" frobnicate
expect 2 "no command" "$simlab"
# CMD --help: that command's usage and options, exit 0, nothing written
for cmd in check new run simulate export selftest power sync status server; do
    expect 0 "$cmd --help" "$simlab" $cmd --help
    grep -q "^Usage: simlab $cmd " "$tmp/out" || { echo "FAIL: $cmd --help prints no usage"; fails=$((fails + 1)); }
done
expect 0 "new DIR --help" "$simlab" new "$tmp/helped" --help
grep -q "^Options of new:" "$tmp/out" || { echo "FAIL: new --help lists no options"; fails=$((fails + 1)); }
[ ! -e "$tmp/helped" ] || { echo "FAIL: new --help wrote a folder"; fails=$((fails + 1)); }
expect 2 "unknown command with --help" "$simlab" frobnicate --help
# simlab new: a starter bundle that check accepts; refusals are usage errors
expect 0 "new" "$simlab" new "$tmp/starter" --preset hase-counterfactual --modality image
expect 0 "check the starter" "$simlab" check "$tmp/starter"
expect 2 "new into a folder that is not empty" "$simlab" new "$tmp/starter" --preset hase-forward --modality text
grep -q "is not empty" "$tmp/err" || { echo "FAIL: new does not say why it refuses"; fails=$((fails + 1)); }
expect 2 "new without --modality" "$simlab" new "$tmp/starter2" --preset hase-forward
expect 2 "new with an unknown preset" "$simlab" new "$tmp/starter2" --preset hase --modality text
[ ! -e "$tmp/starter2" ] || { echo "FAIL: a refused new wrote a folder"; fails=$((fails + 1)); }
# --modality image starts from a worked explanation; an image method needs pictures
expect 0 "new from a worked example" "$simlab" new "$tmp/concepts" --preset hase-forward --modality image --explanation concepts
grep -q '"kind": *"gallery"' "$tmp/concepts/explanations.jsonl" || { echo "FAIL: new --explanation concepts writes no gallery"; fails=$((fails + 1)); }
expect 0 "check the worked-example starter" "$simlab" check "$tmp/concepts"
grep -q "^warnings" "$tmp/out" && { echo "FAIL: the worked-example starter has warnings"; cat "$tmp/out"; fails=$((fails + 1)); }
expect 0 "new meta-predictor from a worked example" "$simlab" new "$tmp/proto" --preset meta-predictor --modality image --explanation prototype
expect 0 "check the meta-predictor worked-example starter" "$simlab" check "$tmp/proto"
# check's layout lines (a build with the runner): a reservoir above the item
# counts against the explanation only where a block shows both
expect 0 "new meta-predictor image" "$simlab" new "$tmp/meta" --preset meta-predictor --modality image
expect 0 "check the meta-predictor image starter" "$simlab" check "$tmp/meta"
if grep -q "^layout 1280x720: explanation area" "$tmp/out"; then
    grep -q "^layout 1280x720: reservoir above the item" "$tmp/out" || { echo "FAIL: check does not place the reservoir"; fails=$((fails + 1)); }
    grep -q "warning: layout" "$tmp/out" && { echo "FAIL: check warns of scrolling on screens that fit"; cat "$tmp/out"; fails=$((fails + 1)); }
    expect 0 "check the worked examples" "$simlab" check "$data/../../examples/explanation-methods"
    grep -q "^  warning: layout 1280x720: the reservoir ([0-9]* px) does not fit above the item" "$tmp/out" || { echo "FAIL: check does not warn of a reservoir below the item"; fails=$((fails + 1)); }
    # the layout's warnings are counted with the others, before the verdict
    [ "$(sed -n 's/^warnings  *//p' "$tmp/out")" = "$(grep -c '^  warning: ' "$tmp/out")" ] || { echo "FAIL: check's warning count leaves out warnings it prints"; cat "$tmp/out"; fails=$((fails + 1)); }
    tail -1 "$tmp/out" | grep -qx valid || { echo "FAIL: check prints after its verdict"; fails=$((fails + 1)); }
fi
expect 2 "new with an image method on text" "$simlab" new "$tmp/starter2" --preset hase-forward --modality text --explanation concepts
# --language: the participants' texts of three presets in every shipped
# language; check (fonts, layout) has nothing to warn about (every starter
# in every language loads cleanly in test_stimuli_scaffold; here two per
# language, all four in the scripts other than Latin)
for lang in en de fr es zh-Hans ja ar; do
    more=
    case $lang in zh-Hans | ja | ar) more="hive-agreement:text hive-distinction:image" ;; esac
    for pm in accept-reject:tabular hive-distinction:text $more; do
        d="$tmp/lang-$lang-${pm%%:*}-${pm##*:}"
        expect 0 "new --language $lang ${pm%%:*} ${pm##*:}" "$simlab" new "$d" --preset "${pm%%:*}" --modality "${pm##*:}" --language "$lang"
        expect 0 "check the $lang ${pm%%:*} ${pm##*:} starter" "$simlab" check "$d"
        grep -q "warning" "$tmp/out" && { echo "FAIL: the $lang ${pm%%:*} ${pm##*:} starter has warnings"; cat "$tmp/out"; fails=$((fails + 1)); }
    done
done
expect 2 "new --language of a language not shipped" "$simlab" new "$tmp/starter2" --preset accept-reject --modality text --language fra
grep -q "did you mean 'fr'" "$tmp/err" || { echo "FAIL: new --language fra suggests nothing"; fails=$((fails + 1)); }
expect 2 "new with an unknown method" "$simlab" new "$tmp/starter2" --preset hase-forward --modality image --explanation shap
[ ! -e "$tmp/starter2" ] || { echo "FAIL: a refused new --explanation wrote a folder"; fails=$((fails + 1)); }
expect 2 "simulate without --db" "$simlab" simulate "$data/experiment/mini-forward" --participants 1 --policy model
expect 2 "simulate bad policy" "$simlab" simulate "$data/experiment/mini-forward" --db "$tmp/x.db" --participants 1 --policy clever
expect 2 "simulate bad --p" "$simlab" simulate "$data/experiment/mini-forward" --db "$tmp/x.db" --participants 1 --policy mixed --p nonsense
expect 0 "simulate" "$simlab" simulate "$data/experiment/mini-forward" --db "$tmp/s.db" --participants 2 --policy mixed --p "LIME:post=0.9"
expect 0 "export" "$simlab" export --db "$tmp/s.db" --csv "$tmp/s.csv"
# a database recorded with one bundle refuses another unless told
cp "$tmp/s.db" "$tmp/changed.db"
expect 1 "changed bundle refused" "$simlab" simulate "$data/experiment/mini-counterfactual" --db "$tmp/changed.db" --participants 1 --policy model
grep -q "accept-changed-bundle" "$tmp/err" || { echo "FAIL: the refusal does not say how to continue"; fails=$((fails + 1)); }
expect 0 "changed bundle accepted" "$simlab" simulate "$data/experiment/mini-counterfactual" --db "$tmp/changed.db" --participants 1 --policy model --accept-changed-bundle
rows=$(($(wc -l <"$tmp/s.csv") - 1))
[ "$rows" -eq 50 ] || { echo "FAIL: export wrote $rows rows, want 50"; fails=$((fails + 1)); }
[ -s "$tmp/s.csv.json" ] || { echo "FAIL: no sidecar"; fails=$((fails + 1)); }
# simulated participants are recorded at today's date, not in 1970
created=$(grep -o '"created_ms": *[0-9]*' "$tmp/s.csv.json" | tail -1 | tr -dc 0-9)
[ "${created:-0}" -gt 1600000000000 ] || { echo "FAIL: simulated participant created at ${created:-?} ms"; fails=$((fails + 1)); }
# export never overwrites the database: not by name, -wal, link or spelling
cp "$tmp/s.csv" "$tmp/before.csv"
for target in "$tmp/s.db" "$tmp/s.db-wal" "$tmp/./s.db" "$tmp/db-link.csv"; do
    [ "$target" = "$tmp/db-link.csv" ] && ln -s s.db "$tmp/db-link.csv"
    expect 2 "export onto the database ($target)" "$simlab" export --db "$tmp/s.db" --csv "$target"
    grep -q "refusing to overwrite" "$tmp/err" || { echo "FAIL: export onto $target: no refusal"; fails=$((fails + 1)); }
done
expect 0 "export after the refusals" "$simlab" export --db "$tmp/s.db" --csv "$tmp/after.csv"
cmp -s "$tmp/before.csv" "$tmp/after.csv" || { echo "FAIL: the database changed after refused exports"; fails=$((fails + 1)); }
# the sidecar describes the CSV: rows and sha256
side_rows=$(grep -o '"rows": *[0-9]*' "$tmp/after.csv.json" | tr -dc 0-9)
[ "${side_rows:-x}" = "$(($(wc -l <"$tmp/after.csv") - 1))" ] || { echo "FAIL: sidecar rows ${side_rows:-?}"; fails=$((fails + 1)); }
side_sha=$(grep -o '"sha256": *"[0-9a-f]*"' "$tmp/after.csv.json" | sed 's/.*"\([0-9a-f]*\)"$/\1/')
if command -v sha256sum >/dev/null 2>&1; then
    [ "$side_sha" = "$(sha256sum "$tmp/after.csv" | cut -d' ' -f1)" ] || { echo "FAIL: sidecar sha256 '$side_sha' is not the CSV's"; fails=$((fails + 1)); }
fi
expect 0 "export --raw" "$simlab" export --db "$tmp/s.db" --csv "$tmp/raw.csv" --raw
grep -q '"spreadsheet_safe": false' "$tmp/raw.csv.json" || { echo "FAIL: --raw not recorded in the sidecar"; fails=$((fails + 1)); }
# station names are restricted to a safe set
expect 2 "formula as station name" "$simlab" simulate "$data/experiment/mini-forward" --db "$tmp/st.db" --participants 1 --policy model --station '@SUM(1+1)'
grep -q "letters A-Z" "$tmp/err" || { echo "FAIL: the station refusal does not name the allowed set"; fails=$((fails + 1)); }
[ -e "$tmp/st.db" ] && { echo "FAIL: a refused station name created a database"; fails=$((fails + 1)); }
expect 0 "plain station name" "$simlab" simulate "$data/experiment/mini-forward" --db "$tmp/st.db" --participants 1 --policy model --station lab-2.pc_1
# no database inside the study bundle (it would change the bundle's hash)
cp -R "$data/experiment/mini-forward" "$tmp/bundle"
"$simlab" check --json "$tmp/bundle" | grep '"hash"' >"$tmp/hash-before"
( cd "$tmp/bundle" && "$simlab" simulate . --db s.db --participants 1 --policy model ) >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || { echo "FAIL: simulate with its database inside the bundle was not refused"; cat "$tmp/err"; fails=$((fails + 1)); }
grep -q "inside the study bundle" "$tmp/err" || { echo "FAIL: simulate inside the bundle: no reason"; fails=$((fails + 1)); }
( cd "$tmp/bundle" && "$simlab" simulate . --db ../bundle.db --participants 1 --policy model ) >"$tmp/out" 2>"$tmp/err" ||
    { echo "FAIL: simulate with its database beside the bundle"; cat "$tmp/err"; fails=$((fails + 1)); }
( cd "$tmp/bundle" && "$simlab" run . --autopilot model --exit-after 1 ) >"$tmp/out" 2>"$tmp/err"
got=$?
if ! grep -q "has no runner" "$tmp/err"; then
    [ "$got" -eq 1 ] || { echo "FAIL: run . inside the bundle: exit $got, want 1"; fails=$((fails + 1)); }
    grep -q "inside the study bundle.*--db $tmp.*simlab-data/mini-forward.db" "$tmp/err" ||
        { echo "FAIL: run . inside the bundle does not name a --db"; cat "$tmp/err"; fails=$((fails + 1)); }
    expect 2 "run with a formula as station name" "$simlab" run "$tmp/bundle" --station '=HYPERLINK("x")'
    # screenshots and the timing log stay outside the bundle too
    for opt in "--screenshot-dir shots" "--timing-log timing.jsonl"; do
        # shellcheck disable=SC2086
        ( cd "$tmp/bundle" && "$simlab" run . --db ../inside.db $opt --autopilot model --exit-after 1 ) \
            >"$tmp/out" 2>"$tmp/err"
        got=$?
        [ "$got" -eq 1 ] || { echo "FAIL: run $opt inside the bundle: exit $got, want 1"; fails=$((fails + 1)); }
        grep -q -- "${opt%% *} ${opt#* } is inside the study bundle" "$tmp/err" ||
            { echo "FAIL: run $opt inside the bundle: no reason"; cat "$tmp/err"; fails=$((fails + 1)); }
    done
    [ -e "$tmp/bundle/shots" ] || [ -e "$tmp/bundle/timing.jsonl" ] &&
        { echo "FAIL: an output was created inside the bundle"; fails=$((fails + 1)); }
fi
[ -e "$tmp/bundle/simlab-data" ] || [ -e "$tmp/bundle/s.db" ] &&
    { echo "FAIL: a database was created inside the bundle"; fails=$((fails + 1)); }
"$simlab" check --json "$tmp/bundle" | grep '"hash"' >"$tmp/hash-after"
cmp -s "$tmp/hash-before" "$tmp/hash-after" || { echo "FAIL: the bundle's hash changed"; fails=$((fails + 1)); }
expect 1 "export of a missing database" "$simlab" export --db "$tmp/none.db" --csv "$tmp/n.csv"
expect 2 "export without --csv" "$simlab" export --db "$tmp/s.db"
expect 0 "version" "$simlab" --version
# simlab run: a usage error with the runner; without SDL2 a plain refusal
"$simlab" run >"$tmp/out" 2>"$tmp/err"
got=$?
if grep -q "has no runner" "$tmp/err"; then
    [ "$got" -eq 1 ] || { echo "FAIL: run without a runner: exit $got, want 1"; fails=$((fails + 1)); }
    grep -q "without SDL2" "$tmp/err" || { echo "FAIL: run without a runner does not say why"; fails=$((fails + 1)); }
else
    [ "$got" -eq 2 ] || { echo "FAIL: run without a bundle: exit $got, want 2"; fails=$((fails + 1)); }
    grep -q "missing study bundle directory" "$tmp/err" || { echo "FAIL: run without a bundle"; cat "$tmp/err"; fails=$((fails + 1)); }
fi
if [ -n "$analyze" ]; then
    # the analysis reads the same exclusions (with reasons, from the
    # sidecar) from the export as from the database
    expect 0 "simulate meta" "$simlab" simulate "$data/experiment/mini-meta" --db "$tmp/m.db" --participants 12 --policy random --seed 3 --fast
    expect 0 "export meta" "$simlab" export --db "$tmp/m.db" --csv "$tmp/m.csv"
    expect 0 "analyze db" "$analyze" "$tmp/m.db" --include-simulated --replicates 200 --out "$tmp/rdb" --quiet --plots none
    expect 0 "analyze csv" "$analyze" --csv "$tmp/m.csv" --include-simulated --replicates 200 --out "$tmp/rcsv" --quiet --plots none
    if ! cmp -s "$tmp/rdb/exclusions.csv" "$tmp/rcsv/exclusions.csv" ||
       ! cmp -s "$tmp/rdb/utility.csv" "$tmp/rcsv/utility.csv"; then
        echo "FAIL: analysis of the export differs from analysis of the database"
        diff "$tmp/rdb/exclusions.csv" "$tmp/rcsv/exclusions.csv"
        fails=$((fails + 1))
    fi
    grep -q "quiz\|catch" "$tmp/rcsv/exclusions.csv" ||
        { echo "FAIL: no exclusion reasons in the CSV analysis"; fails=$((fails + 1)); }
    # questionnaires: the same summaries from the database and from the export
    expect 0 "simulate questionnaire" "$simlab" simulate "$data/experiment/mini-questionnaire" --db "$tmp/q.db" --participants 10 --policy mixed --seed 2 --fast
    expect 0 "export questionnaire" "$simlab" export --db "$tmp/q.db" --csv "$tmp/q.csv"
    [ -f "$tmp/q.questionnaire.csv" ] || { echo "FAIL: no q.questionnaire.csv"; fails=$((fails + 1)); }
    expect 0 "analyze questionnaire db" "$analyze" "$tmp/q.db" --include-simulated --replicates 50 --out "$tmp/qdb" --quiet --plots none
    expect 0 "analyze questionnaire csv" "$analyze" --csv "$tmp/q.csv" --include-simulated --replicates 50 --out "$tmp/qcsv" --quiet --plots none
    for f in questionnaire.csv questionnaire_choices.csv questionnaire_text.csv; do
        if [ ! -s "$tmp/qdb/$f" ] || ! cmp -s "$tmp/qdb/$f" "$tmp/qcsv/$f"; then
            echo "FAIL: $f of the export differs from that of the database"
            fails=$((fails + 1))
        fi
    done
    grep -q "^## Questionnaires" "$tmp/qdb/report.md" ||
        { echo "FAIL: no questionnaire section in report.md"; fails=$((fails + 1)); }
fi
[ "$fails" -eq 0 ] && echo "cli: all checks passed"
exit "$fails"
