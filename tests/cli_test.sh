#!/bin/sh
# Command-line behaviour of simlab: exit codes of check (0 valid, 1 invalid,
# 2 usage), simulate and export on a fixture bundle, and usage errors; in a
# build without SDL2, `simlab run` says that there is no runner.
# Usage: cli_test.sh SIMLAB DATA_DIR [SIMLAB_ANALYZE]
set -u
simlab=$1
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
fi
[ "$fails" -eq 0 ] && echo "cli: all checks passed"
exit "$fails"
