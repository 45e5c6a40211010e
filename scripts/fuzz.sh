#!/bin/sh
# Runs the libFuzzer harnesses (tests/fuzz/, docs/reliability.md).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Builds them with clang, ASan and UBSan in build-fuzz/ (or
# $SIMLAB_FUZZ_BUILD_DIR), then runs each TARGET (default: all) for SECONDS
# (default 3600) one after the other. Each keeps a growing corpus in
# BUILD/fuzz/corpus/TARGET (seeded from tests/fuzz/corpus/TARGET) and saves
# any crashing, leaking or timing-out input in BUILD/fuzz/crashes/TARGET/.
# Prints one line per target (runs, executions/s, coverage, corpus size) and
# exits 1 when any target found a problem. Extra libFuzzer flags may be given
# in $SIMLAB_FUZZ_FLAGS (e.g. "-jobs=2 -workers=2").
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SIMLAB_FUZZ_BUILD_DIR:-$root/build-fuzz}
all="study_json items_csv items_jsonl page image npy dataset_csv dataset_db"

seconds=3600
case "${1:-}" in
'' | *[!0-9]*) ;;
*)
    seconds=$1
    shift
    ;;
esac
targets=${*:-$all}
for t in $targets; do
    case " $all " in
    *" $t "*) ;;
    *)
        echo "fuzz.sh: unknown target '$t' (one of: $all)" >&2
        exit 2
        ;;
    esac
done

cc=${CC:-clang}
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "fuzz.sh: $cc not found (scripts/setup.sh installs clang)" >&2
    exit 2
fi
CC=$cc cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSIMLAB_FUZZ=ON -DSIMLAB_SANITIZE=ON -DSIMLAB_WITH_SDL=OFF >/dev/null
exes=""
for t in $targets; do
    exes="$exes fuzz_$t"
done
# shellcheck disable=SC2086
cmake --build "$build" -j "$(nproc)" --target $exes >/dev/null

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
failed=""
summary=""
for t in $targets; do
    work="$build/fuzz/corpus/$t"
    crashes="$build/fuzz/crashes/$t"
    log="$build/fuzz/$t.log"
    mkdir -p "$work" "$crashes"
    dict=""
    if [ -f "$root/tests/fuzz/dict/$t.dict" ]; then
        dict="-dict=$root/tests/fuzz/dict/$t.dict"
    fi
    echo "== fuzz_$t for ${seconds}s (log: $log)"
    rc=0
    # shellcheck disable=SC2086
    "$build/tests/fuzz_$t" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$crashes/" $dict ${SIMLAB_FUZZ_FLAGS:-} \
        "$work" "$root/tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    line=$(printf '%-12s %10s runs %7s exec/s  cov %5s  corpus %5s' \
        "$t" "${runs:-?}" "${speed:-?}" "${cov:-?}" "${corp:-?}")
    if [ "$rc" -ne 0 ]; then
        line="$line  FAILED (exit $rc)"
        failed="$failed $t"
        grep -E 'ERROR: |SUMMARY: |^artifact_prefix|Test unit written' \
            "$log" | head -8 >&2 || true
    fi
    echo "$line"
    summary="$summary$line
"
done
echo "== summary ($seconds s per target)"
printf '%s' "$summary"
if [ -n "$failed" ]; then
    echo "fuzz.sh: problems found in:$failed; inputs kept in $build/fuzz/crashes/" >&2
    exit 1
fi
