#!/bin/sh
# Fault injection on the database (docs/reliability.md): the disk fills up
# (ENOSPC), fails (EIO) or turns read-only (EROFS) part-way through a run,
# injected by tests/fault/fault_shim.c (LD_PRELOAD) into every write and
# sync of the database files.
#
#   fault_test.sh simulate SIMLAB SHIM BUNDLE
#     `simlab simulate`, the fault staying: simlab exits 1 with a message
#     naming the database and the error.
#   fault_test.sh run SIMLAB SHIM BUNDLE
#     `simlab run --autopilot` (SDL's dummy video driver): a fault that
#     passes (so many failed calls, then the disk works again) is waited out
#     and the run completes, logging a store_error event; a fault that stays
#     keeps the runner retrying until it is killed.
#
# After every fault the database is intact (integrity_check) and still
# holds every response that was on disk when the fault hit (a snapshot the
# shim takes at the first failure) and every participant simulate reported
# done; a later run without the fault finishes the study with exactly the
# counts of a run that never failed (responses, long-format rows,
# participants by status). Exit 77 (skipped) without sqlite3, or when the
# sanitizer runtime refuses the preloaded shim.
set -u
mode=$1
simlab=$2
shim=$3
bundle=$4
case "$mode" in
simulate) n=3 ;;
run) n=2 ;;
*)
    echo "usage: fault_test.sh simulate|run SIMLAB SHIM BUNDLE" >&2
    exit 2
    ;;
esac

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
export SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy

# go DB [VAR=VALUE...]: one run of simlab on DB with the shim's settings;
# output in DB.out and DB.err. $limit > 0: killed $limit seconds after the
# shim's first fault (however long a loaded machine or a sanitizer takes to
# reach it; at most 600 s in all).
limit=0
go() {
    db=$1
    shift
    if [ "$mode" = simulate ]; then
        set -- "$@" "$simlab" simulate "$bundle" --db "$db" \
            --participants $n --policy mixed --seed 5 --verbose
    else
        set -- "$@" "$simlab" run "$bundle" --db "$db" --autopilot model \
            --participants $n --seed 7
    fi
    if [ "$limit" -gt 0 ]; then
        env "$@" >"$db.out" 2>"$db.err" &
        pid=$!
        (
            waited_for=0
            while [ $waited_for -lt 3000 ] &&
                ! grep -q "^fault shim:" "$db.err" 2>/dev/null; do
                sleep 0.2
                waited_for=$((waited_for + 1))
            done
            sleep "$limit"
            kill -9 $pid 2>/dev/null
        ) &
        killer=$!
        wait $pid
        rc=$?
        kill $killer 2>/dev/null
        wait $killer 2>/dev/null
        return $rc
    fi
    env "$@" >"$db.out" 2>"$db.err"
}
counts() { # DB: responses/long-format rows/participants by status
    q "$1" "SELECT (SELECT count(*) FROM response) || '/' ||
        (SELECT count(*) FROM long_format) || '/' ||
        (SELECT group_concat(status || '=' || n) FROM
          (SELECT status, count(*) AS n FROM participant GROUP BY status))"
}
kept() { # DB SNAPSHOT TAG WHEN: every response of the snapshot is in DB
    [ -f "$2" ] || return 0
    lost=$(q "$1" "ATTACH '$2' AS s;
        SELECT count(*) FROM (
          SELECT participant, seq, choice, correct, rating, rt_ms
          FROM s.response EXCEPT
          SELECT participant, seq, choice, correct, rating, rt_ms
          FROM main.response)")
    same "$lost" 0 "$3: $lost durable responses of the fault time are gone $4"
}

# Counts of a run that never fails, and the calls it makes.
ref=$tmp/ref.db
go "$ref" LD_PRELOAD="$shim" SIMLAB_FAULT_PATTERN="$ref*" \
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
go "$tmp/ref2.db" LD_PRELOAD="$shim" SIMLAB_FAULT_PATTERN="$tmp/ref2.db*" \
    SIMLAB_FAULT_OPS=fsync SIMLAB_FAULT_COUNT="$tmp/count-sync" ||
    fail "reference run 2"
calls_all=$(cat "$tmp/count-all")
calls_sync=$(cat "$tmp/count-sync")
ref_counts=$(counts "$ref")
echo "reference: $ref_counts (responses/long-format rows/participants);" \
    "$calls_all writes and syncs ($calls_sync syncs) on the database"
if [ "${ref_counts%%/*}" -eq 0 ] || [ "$calls_sync" -lt 10 ]; then
    fail "the reference run wrote nothing"
fi

# run_fault ERRNO OPS AFTER [TIMES]: one faulted run (the fault passes after
# TIMES failed calls, else it stays), then, if it did not complete, a run
# without the fault.
run_fault() {
    errno=$1
    ops=$2
    after=$3
    times=${4:-}
    tag="$errno-$(echo "$ops" | tr , +)-$after${times:+-x$times}"
    db=$tmp/$tag.db
    snap=$tmp/$tag.snap.db
    limit=0
    if [ "$mode" = run ] && [ -z "$times" ]; then
        limit=8 # the runner retries for ever
    fi
    go "$db" LD_PRELOAD="$shim" SIMLAB_FAULT_PATTERN="$db*" \
        SIMLAB_FAULT_OPS="$ops" SIMLAB_FAULT_AFTER="$after" \
        SIMLAB_FAULT_ERRNO="$errno" ${times:+SIMLAB_FAULT_TIMES=$times} \
        SIMLAB_FAULT_SNAPSHOT="$snap" SIMLAB_FAULT_SOURCE="$db"
    rc=$?
    limit=0
    injected=$(grep -c "^fault shim:" "$db.err")
    msg=$(grep "^simlab $mode: " "$db.err" | grep -v "first frame" | head -1)
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
    echo "$tag: exit $rc, $before responses durable at the fault," \
        "$after_n after the run; $msg"
    # 1. a clear error, and the exit the fault calls for
    same "$injected" 1 "$tag: the shim injected no fault"
    if [ "$mode" = simulate ]; then
        same $rc 1 "$tag: exit status $rc, want 1"
    elif [ -n "$times" ] && [ "${msg#simlab run: enroll: }" != "$msg" ]; then
        # enrolling the next participant failed: the autopilot stops
        # (there is no session to keep a response in)
        same $rc 1 "$tag: exit status $rc, want 1 (enrollment failed)"
    elif [ -n "$times" ]; then
        waited=$((waited + 1))
        same $rc 0 "$tag: exit status $rc, want 0 (the fault passed)"
    else
        same $rc 137 "$tag: exit status $rc, want 137 (killed retrying)"
    fi
    case "$msg" in
    *"$db: database or disk is full" | *"$db: disk I/O error"*) ok ;;
    *) fail "$tag: unclear error message: '$msg'" ;;
    esac
    if grep -q "Sanitizer\|runtime error" "$db.err"; then
        fail "$tag: sanitizer report"
        cat "$db.err" >&2
    fi
    # 2. an intact database that kept what was on disk
    if [ -f "$db" ]; then
        same "$(q "$db" "PRAGMA integrity_check")" ok \
            "$tag: integrity_check fails"
    fi
    kept "$db" "$snap" "$tag" "after the run"
    sed -n 's/^participant \([^ ]*\) .*: done$/\1/p' "$db.out" |
        while read -r id; do
            st=$(q "$db" "SELECT status FROM participant WHERE id = '$id'")
            [ "$st" = completed ] ||
                echo "$tag: participant $id was reported done, status '$st'"
        done >"$db.lost"
    same "$(cat "$db.lost")" "" "$(cat "$db.lost")"
    if [ "$mode" = run ] && [ -n "$times" ] && [ $rc -eq 0 ]; then
        same "$(q "$db" "SELECT count(*) > 0 FROM event
                         WHERE kind = 'store_error'")" 1 \
            "$tag: no store_error event"
    fi
    # 3. a later run finishes the study
    if [ $rc -ne 0 ]; then
        go "$db"
        rc=$?
        same $rc 0 "$tag: the later run exited $rc"
        [ $rc -eq 0 ] || cat "$db.err" >&2
    fi
    got=$(counts "$db")
    same "$got" "$ref_counts" "$tag: at the end $got, want $ref_counts"
    kept "$db" "$snap" "$tag" "at the end"
}

waited=0
if [ "$mode" = simulate ]; then
    # The disk fills up at once, a quarter, half and nine tenths of the
    # way; fails or turns read-only; syncs alone fail; data writes alone.
    run_fault ENOSPC write,pwrite,fsync 0
    run_fault ENOSPC write,pwrite,fsync $((calls_all / 4))
    run_fault ENOSPC write,pwrite,fsync $((calls_all / 2))
    run_fault ENOSPC write,pwrite,fsync $((calls_all * 9 / 10))
    run_fault EIO write,pwrite,fsync $((calls_all / 2 + 1))
    run_fault EROFS write,pwrite,fsync $((calls_all / 3))
    run_fault EIO fsync $((calls_sync / 2))
    run_fault ENOSPC pwrite $((calls_all / 5))
else
    # Faults that pass: waited out, the run completes (one hits the
    # enrollment of the second participant: the autopilot stops there).
    run_fault ENOSPC write,pwrite,fsync $((calls_all / 2)) 10
    run_fault EIO fsync $((calls_sync / 3)) 3
    run_fault EROFS write,pwrite,fsync $((calls_all * 3 / 4)) 25
    # A fault that stays: killed while retrying, then resumed.
    run_fault ENOSPC write,pwrite,fsync $((calls_all / 3))
    if [ $waited -lt 1 ]; then
        fail "no fault was waited out inside a session"
    fi
fi

if [ $fails -eq 0 ]; then
    rm -rf "$tmp"
    echo "fault test ($mode): $checks checks passed"
    exit 0
fi
echo "fault test ($mode): $fails failures, $checks checks passed; kept $tmp" >&2
exit 1
