#!/bin/sh
# Fault injection during `simlab simulate` (docs/reliability.md): the disk
# fills up (ENOSPC), fails (EIO) or turns read-only (EROFS) part-way through
# a run, injected by tests/fault/fault_shim.c (LD_PRELOAD). For each fault:
# simlab exits 1 with a message naming the database and the error; the
# database is intact (integrity_check) and still holds every response that
# was on disk when the fault hit (a snapshot taken by the shim) and every
# participant simlab reported done; a later run without the fault finishes
# the study, ending with exactly the counts of a run that never failed.
#
#   fault_test.sh SIMLAB SHIM BUNDLE
# Exit 77 (skipped) without sqlite3, or when the sanitizer runtime refuses
# the preloaded shim.
set -u
simlab=$1
shim=$2
bundle=$3
n=3 # participants
seed=5

if ! command -v sqlite3 >/dev/null 2>&1; then
    echo "skipped: the sqlite3 program is not installed"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/simlab-fault-XXXXXX")
fails=0
checks=0
fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}
ok() {
    checks=$((checks + 1))
}
same() { # GOT WANT MESSAGE...: counts a check, failing unless GOT = WANT
    if [ "$1" = "$2" ]; then
        ok
    else
        shift 2
        fail "$@"
    fi
}
q() { # DB SQL: one value
    sqlite3 -batch -noheader "$1" "$2"
}
# Under ASan the runtime wants to come first; the shim only wraps libc.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"

simulate() { # DB [shim env...]: runs simlab simulate on DB, stderr to DB.err
    db=$1
    shift
    env "$@" "$simlab" simulate "$bundle" --db "$db" --participants $n \
        --policy mixed --seed $seed --verbose >"$db.out" 2>"$db.err"
}

# Counts of a run that never fails, and the calls it makes.
ref=$tmp/ref.db
simulate "$ref" LD_PRELOAD="$shim" SIMLAB_FAULT_PATTERN="$tmp/ref.db*" \
    SIMLAB_FAULT_COUNT="$tmp/count-all"
rc=$?
if [ $rc -ne 0 ] && grep -q "runtime does not come first" "$ref.err"; then
    echo "skipped: the sanitizer runtime refuses LD_PRELOAD"
    exit 77
fi
if [ $rc -ne 0 ]; then
    cat "$ref.err" >&2
    echo "FAIL: the reference run under the shim exited $rc" >&2
    exit 1
fi
rm -f "$tmp"/ref2.db*
simulate "$tmp/ref2.db" LD_PRELOAD="$shim" \
    SIMLAB_FAULT_PATTERN="$tmp/ref2.db*" SIMLAB_FAULT_OPS=fsync \
    SIMLAB_FAULT_COUNT="$tmp/count-sync" || fail "reference run 2"
calls_all=$(cat "$tmp/count-all")
calls_sync=$(cat "$tmp/count-sync")
ref_responses=$(q "$ref" "SELECT count(*) FROM response")
ref_long=$(q "$ref" "SELECT count(*) FROM long_format")
ref_status=$(q "$ref" "SELECT group_concat(status || '=' || n) FROM
    (SELECT status, count(*) AS n FROM participant GROUP BY status)")
echo "reference: $ref_responses responses, $ref_long long-format rows," \
    "$ref_status; $calls_all writes+syncs ($calls_sync syncs) on the database"
if [ "$ref_responses" -eq 0 ] || [ "$calls_sync" -lt 10 ]; then
    fail "the reference run wrote nothing"
fi

# One faulted run, then a resume. ERRNO OPS AFTER
run_fault() {
    errno=$1
    ops=$2
    after=$3
    tag="$errno-$(echo "$ops" | tr , +)-$after"
    db=$tmp/$tag.db
    snap=$tmp/$tag.snap.db
    simulate "$db" LD_PRELOAD="$shim" SIMLAB_FAULT_PATTERN="$db*" \
        SIMLAB_FAULT_OPS="$ops" SIMLAB_FAULT_AFTER="$after" \
        SIMLAB_FAULT_ERRNO="$errno" SIMLAB_FAULT_SNAPSHOT="$snap" \
        SIMLAB_FAULT_SOURCE="$db"
    rc=$?
    injected=$(grep -c "^fault shim:" "$db.err")
    msg=$(grep "^simlab simulate: " "$db.err" | head -1)
    done_ids=$(sed -n 's/^participant \([^ ]*\) .*: done$/\1/p' "$db.out")
    # the snapshot counts only when the fault hit after the schema was made
    if [ -f "$snap" ] && [ "$(q "$snap" "SELECT count(*) FROM sqlite_master
            WHERE name = 'response'" 2>/dev/null)" != 1 ]; then
        rm -f "$snap" "$snap-wal"
    fi
    before=0
    if [ -f "$snap" ]; then
        before=$(q "$snap" "SELECT count(*) FROM response")
    fi
    after_n=$(q "$db" "SELECT count(*) FROM response" 2>/dev/null || echo 0)
    echo "$tag: exit $rc, $before responses on disk at the fault," \
        "$after_n after it; $msg"
    # 1. a clear error and a non-zero exit
    [ "$injected" -eq 1 ] || fail "$tag: the shim injected no fault"
    [ $rc -eq 1 ] || fail "$tag: exit status $rc, want 1"
    case "$msg" in
    *"$db"*": database or disk is full" | *"$db"*": disk I/O error"* | \
        *"$db"*"read-only"* | *"$db"*"readonly"*) ok ;;
    *) fail "$tag: unclear error message: '$msg'" ;;
    esac
    if grep -q "Sanitizer\|runtime error" "$db.err"; then
        fail "$tag: sanitizer report"
        cat "$db.err" >&2
    fi
    # 2. an intact database that kept what was committed
    if [ -f "$db" ]; then
        ic=$(q "$db" "PRAGMA integrity_check")
        same "$ic" ok "$tag: integrity_check: $ic"
    fi
    if [ -f "$snap" ]; then
        lost=$(q "$db" "ATTACH '$snap' AS s;
            SELECT count(*) FROM (
              SELECT participant, seq, choice, correct, rating, rt_ms
              FROM s.response EXCEPT
              SELECT participant, seq, choice, correct, rating, rt_ms
              FROM main.response)")
        same "$lost" 0 "$tag: $lost responses on disk at the fault are gone"
    fi
    for id in $done_ids; do
        st=$(q "$db" "SELECT status FROM participant WHERE id = '$id'")
        same "$st" completed \
            "$tag: participant $id was reported done, status '$st'"
    done
    # 3. a later run finishes the study
    simulate "$db"
    rc=$?
    same $rc 0 "$tag: the resumed run exited $rc"
    [ $rc -eq 0 ] || cat "$db.err" >&2
    fin_responses=$(q "$db" "SELECT count(*) FROM response")
    fin_long=$(q "$db" "SELECT count(*) FROM long_format")
    fin_status=$(q "$db" "SELECT group_concat(status || '=' || n) FROM
        (SELECT status, count(*) AS n FROM participant GROUP BY status)")
    same "$fin_responses/$fin_long/$fin_status" \
        "$ref_responses/$ref_long/$ref_status" \
        "$tag: after resuming $fin_responses responses, $fin_long rows," \
        "$fin_status; want $ref_responses, $ref_long, $ref_status"
    if [ -f "$snap" ]; then
        lost=$(q "$db" "ATTACH '$snap' AS s;
            SELECT count(*) FROM (
              SELECT participant, seq, choice, correct, rating, rt_ms
              FROM s.response EXCEPT
              SELECT participant, seq, choice, correct, rating, rt_ms
              FROM main.response)")
        same "$lost" 0 "$tag: $lost responses changed or lost after resuming"
    fi
}

# The disk fills up early, a quarter, half and nine tenths of the way;
# fails or turns read-only half-way; syncs alone fail.
run_fault ENOSPC write,pwrite,fsync 0
run_fault ENOSPC write,pwrite,fsync $((calls_all / 4))
run_fault ENOSPC write,pwrite,fsync $((calls_all / 2))
run_fault ENOSPC write,pwrite,fsync $((calls_all * 9 / 10))
run_fault EIO write,pwrite,fsync $((calls_all / 2 + 1))
run_fault EROFS write,pwrite,fsync $((calls_all / 3))
run_fault EIO fsync $((calls_sync / 2))
run_fault ENOSPC pwrite $((calls_all / 5))

if [ $fails -eq 0 ]; then
    rm -rf "$tmp"
    echo "fault test: $checks checks passed"
    exit 0
fi
echo "fault test: $fails failures, $checks checks passed; kept $tmp" >&2
exit 1
