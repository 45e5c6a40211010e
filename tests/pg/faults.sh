#!/bin/sh
# Fault tests against the server of $SIMLAB_PG_URL (inside pg_virtualenv,
# see run.sh; a server set up the old way): the server stopped and
# restarted mid-study, a station SIGKILLed during a push, then
# simlab-analyze on the server against the station files (with a
# questionnaire study's answers too), three stations with one SIGKILLed and
# restarted staying balanced, status (names escaped), and no password
# anywhere.
# usage: faults.sh SIMLAB SIMLAB_ANALYZE BUNDLE [QUESTIONNAIRE_BUNDLE
#        [EXPLANATION_BUNDLE]]
set -u
simlab=$1; analyze=$2; bundle=$3; qbundle=${4:-}; ebundle=${5:-}
url=$SIMLAB_PG_URL
db=${url##*/}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/simlab-pgfaults.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
q() { psql -X -A -t -q -d "$db" -c "$1"; }
lq() { sqlite3 -cmd ".timeout 5000" "$1" "$2"; }

# Server rows of one file (by its origin) against its local rows.
same_rows() {
    origin=$(lq "$1" "SELECT uuid FROM sync_origin")
    for t in participant screening event; do
        a=$(lq "$1" "SELECT count(*) FROM $t")
        b=$(q "SELECT count(*) FROM $t WHERE origin = '$origin'")
        [ "$a" = "$b" ] || fail "$1: $t: $a rows in the file, $b on the server"
    done
    for t in trial response; do
        a=$(lq "$1" "SELECT count(*) FROM $t")
        b=$(q "SELECT count(*) FROM $t x JOIN participant p ON p.id = \
x.participant WHERE p.origin = '$origin'")
        [ "$a" = "$b" ] || fail "$1: $t: $a rows in the file, $b on the server"
    done
    a=$(lq "$1" "SELECT count(*) FROM long_format")
    b=$(q "SELECT count(*) FROM long_format l JOIN participant p ON \
p.id = l.participant WHERE p.origin = '$origin'")
    [ "$a" = "$b" ] || fail "$1: long_format: $a rows in the file, $b on the server"
}

# ------------------------------------------------- server stopped mid-study
echo "-- server stopped mid-study"
cluster=$(pg_lsclusters -h | awk -v p="$PGPORT" '$3 == p {print $1, $2}')
"$simlab" simulate "$bundle" --db "$tmp/s1.db" --participants 150 \
    --policy mixed --station S1 --seed 11 --fast --sync "$url" \
    >"$tmp/s1.log" 2>&1 &
pid=$!
i=0
while [ "$(q "SELECT count(*) FROM participant" 2>/dev/null || echo 0)" -lt 5 ] &&
      [ $i -lt 300 ]; do
    sleep 0.1; i=$((i + 1))
done
pg_ctlcluster $cluster stop -m fast || fail "cannot stop the server"
at_stop=$(lq "$tmp/s1.db" "SELECT count(*) FROM participant")
i=0
while [ "$(lq "$tmp/s1.db" "SELECT count(*) FROM participant")" -lt \
        $((at_stop + 5)) ] && [ $i -lt 300 ] && kill -0 $pid 2>/dev/null; do
    sleep 0.1; i=$((i + 1))
done
pg_ctlcluster $cluster start || fail "cannot start the server"
wait $pid || fail "simulate failed across the outage: $(cat "$tmp/s1.log")"
n_fb=$(lq "$tmp/s1.db" "SELECT count(*) FROM participant WHERE \
assign_source = 'station_fallback'")
n_srv=$(lq "$tmp/s1.db" "SELECT count(*) FROM participant WHERE \
assign_source = 'server'")
echo "   $n_srv assigned by the server, $n_fb by the station while it was down"
[ "$n_fb" -gt 0 ] || fail "no enrollment happened while the server was down"
[ "$n_srv" -gt 0 ] || fail "no enrollment was assigned by the server"
n_ev=$(lq "$tmp/s1.db" "SELECT count(*) FROM event WHERE kind = 'assign_fallback'")
[ "$n_ev" = "$n_fb" ] || fail "$n_fb fallbacks but $n_ev assign_fallback events"
out=$("$simlab" sync --db "$tmp/s1.db" --to "$url") || fail "sync after outage"
case $out in *" 0 rows pushed"*) ;; *) fail "rows left after the outage: $out" ;; esac
same_rows "$tmp/s1.db"

# ------------------------------------------ station SIGKILLed during a push
echo "-- station SIGKILLed during a push"
"$simlab" simulate "$bundle" --db "$tmp/s2.db" --participants 60 \
    --policy mixed --station S2 --seed 12 --fast >/dev/null ||
    fail "simulate s2"
origin=$(lq "$tmp/s2.db" "SELECT uuid FROM sync_origin")
killed=0
for delay in 0.3 0.2 0.1 0.5 0.05; do
    "$simlab" sync --db "$tmp/s2.db" --to "$url" --batch 25 >/dev/null 2>&1 &
    spid=$!
    sleep $delay
    if kill -9 $spid 2>/dev/null; then
        wait $spid 2>/dev/null
        n=$(q "SELECT count(*) FROM trial r JOIN participant p ON \
p.id = r.participant WHERE p.origin = '$origin'")
        left=$(lq "$tmp/s2.db" "SELECT count(*) FROM response WHERE sync_dirty > 0")
        if [ "$left" -gt 0 ]; then
            killed=1
            echo "   killed after ${delay}s: $n schedule rows on the server, $left responses not marked pushed"
            break
        fi
    fi
    wait $spid 2>/dev/null
done
[ $killed = 1 ] || fail "no push was killed half way"
"$simlab" sync --db "$tmp/s2.db" --to "$url" >/dev/null || fail "sync after kill"
"$simlab" sync --db "$tmp/s2.db" --to "$url" >/dev/null || fail "second sync"
same_rows "$tmp/s2.db"
dup=$(q "SELECT count(*) FROM (SELECT participant, seq FROM response \
GROUP BY 1, 2 HAVING count(*) > 1) x")
[ "$dup" = 0 ] || fail "$dup responses doubled"
# everything again, as for a restored server: the same rows, none doubled
out=$("$simlab" sync --all --db "$tmp/s2.db" --to "$url") || fail "sync --all"
case $out in *" 0 rows pushed"*) fail "sync --all pushed nothing: $out" ;; esac
same_rows "$tmp/s2.db"

# --------------------------------------------- analysis: server == files
echo "-- simlab-analyze URL against the station files"
"$simlab" simulate "$bundle" --db "$tmp/s3.db" --participants 6 \
    --policy mixed --station S3 --seed 13 --fast --sync "$url" \
    >/dev/null 2>&1 || fail "simulate s3"
opts="--replicates 100 --include-simulated --quiet --plots none --format json,csv"
"$analyze" "$tmp/s1.db" "$tmp/s2.db" "$tmp/s3.db" --out "$tmp/files" $opts ||
    fail "analyze files"
"$analyze" "$url" --out "$tmp/server" $opts 2>"$tmp/an.log" ||
    fail "analyze server: $(cat "$tmp/an.log")"
python3 - "$tmp/files/report.json" "$tmp/server/report.json" <<'PY' ||
import json, sys
def load(p):
    r = json.load(open(p))
    r["settings"].pop("sources")
    return r
a, b = load(sys.argv[1]), load(sys.argv[2])
if a != b:
    print("report.json differs in", [k for k in a if a[k] != b.get(k)])
    sys.exit(1)
print("   report.json: the same numbers from the server and the files")
PY
    fail "report.json of the server differs from that of the files"
grep -q '"postgresql://' "$tmp/server/report.json" ||
    fail "report.json does not name the server"

# ------------------------- questionnaire answers: server == files
if [ -n "$qbundle" ]; then
    echo "-- questionnaire answers: simlab-analyze URL against the station files"
    qurl="${url%/*}/quest"
    psql -X -q -d "$db" -c "DROP DATABASE IF EXISTS quest" \
        -c "CREATE DATABASE quest" || fail "create the questionnaire database"
    "$simlab" simulate "$qbundle" --db "$tmp/q1.db" --participants 5 \
        --policy mixed --station Q1 --seed 21 --fast --sync "$qurl" \
        >/dev/null 2>&1 || fail "simulate q1"
    "$simlab" simulate "$qbundle" --db "$tmp/q2.db" --participants 4 \
        --policy mixed --station Q2 --seed 22 --fast --sync "$qurl" \
        >/dev/null 2>&1 || fail "simulate q2"
    "$analyze" "$tmp/q1.db" "$tmp/q2.db" --out "$tmp/qfiles" $opts ||
        fail "analyze questionnaire files"
    "$analyze" "$qurl" --out "$tmp/qserver" $opts 2>"$tmp/qan.log" ||
        fail "analyze questionnaire server: $(cat "$tmp/qan.log")"
    python3 - "$tmp/qfiles/report.json" "$tmp/qserver/report.json" <<'PY' ||
import json, sys
def load(p):
    r = json.load(open(p))
    r["settings"].pop("sources")
    return r
a, b = load(sys.argv[1]), load(sys.argv[2])
q = b.get("questionnaire") or {}
if not q.get("summary") or not q.get("choices"):
    print("the server's report has no questionnaire summary or choices:", q)
    sys.exit(1)
if a != b:
    print("report.json differs in", [k for k in a if a[k] != b.get(k)])
    sys.exit(1)
print("   report.json: the same questionnaire section (%d summary rows, %d "
      "choice rows) and numbers from the server and the files"
      % (len(q["summary"]), len(q["choices"])))
PY
        fail "questionnaire report of the server differs from that of the files"
    for f in questionnaire questionnaire_choices questionnaire_text; do
        cmp -s "$tmp/qfiles/$f.csv" "$tmp/qserver/$f.csv" ||
            fail "$f.csv of the server differs from that of the files"
    done
fi

# ---------------- interactions with explanations: server == files
if [ -n "$ebundle" ]; then
    echo "-- interactions: simlab-analyze URL against the station files"
    eurl="${url%/*}/expl"
    psql -X -q -d "$db" -c "DROP DATABASE IF EXISTS expl" \
        -c "CREATE DATABASE expl" || fail "create the interactions database"
    "$simlab" simulate "$ebundle" --db "$tmp/e1.db" --participants 6 \
        --policy mixed --station E1 --seed 31 --fast --sync "$eurl" \
        >/dev/null 2>&1 || fail "simulate e1"
    "$simlab" simulate "$ebundle" --db "$tmp/e2.db" --participants 6 \
        --policy mixed --station E2 --seed 32 --fast --sync "$eurl" \
        >/dev/null 2>&1 || fail "simulate e2"
    "$analyze" "$tmp/e1.db" "$tmp/e2.db" --out "$tmp/efiles" $opts ||
        fail "analyze interaction files"
    "$analyze" "$eurl" --out "$tmp/eserver" $opts 2>"$tmp/ean.log" ||
        fail "analyze interaction server: $(cat "$tmp/ean.log")"
    python3 - "$tmp/efiles/report.json" "$tmp/eserver/report.json" <<'PY' ||
import json, sys
def load(p):
    r = json.load(open(p))
    r["settings"].pop("sources")
    return r
a, b = load(sys.argv[1]), load(sys.argv[2])
# the baseline comes from the study each source holds: the server names
# itself, not the temporary copy it was read through
fb = b["settings"].pop("baseline_from")
a["settings"].pop("baseline_from")
if "postgresql://" not in fb or "simlab-analyze-" in fb:
    print("the server's baseline is said to come from", fb)
    sys.exit(1)
rows = b.get("interactions") or []
if not rows:
    print("the server's report has no interactions")
    sys.exit(1)
if a != b:
    print("report.json differs in", [k for k in a if a[k] != b.get(k)],
          [(k, a["settings"][k], b["settings"].get(k))
           for k in a["settings"] if a["settings"][k] != b["settings"].get(k)])
    sys.exit(1)
print("   report.json: the same interactions (%d conditions) from the server "
      "and the files" % len(rows))
PY
        fail "interactions of the server differ from those of the files"
fi

# ------------- three stations, one SIGKILLed and restarted: still balanced
# Each station runs on its own simulated clock (simulate: hundreds of times
# real time, starting again after the kill); B1 writes without fsync
# (--fast), so its clock runs several times faster and hours ahead of the
# others. Assignment counts participants in progress by the server's clock:
# the analysed participants per condition end within one of each other
# (by the stations' clocks they did not: [17, 20, 19, 16]).
echo "-- three stations, one SIGKILLed and restarted"
burl="${url%/*}/balance"
psql -X -q -d "$db" -c "DROP DATABASE IF EXISTS balance" \
    -c "CREATE DATABASE balance" || fail "create the balance database"
cp -r "$bundle" "$tmp/bal" || fail "copy the bundle"
python3 - "$tmp/bal/study.json" <<'PY' || fail "make the bundle balanced"
import json, sys
d = json.load(open(sys.argv[1]))
d["id"] = "balance-check"
d["assignment"] = {"rule": "balanced"}
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
station() { # run in a subshell: exec, so that its pid is simlab's
    fast=; [ "$1" = 1 ] && fast=--fast
    exec "$simlab" simulate "$tmp/bal" --db "$tmp/b$1.db" --participants 24 \
        --policy mixed --station "B$1" --seed "3$1" $fast --sync "$burl" \
        >>"$tmp/b$1.log" 2>&1
}
station 1 & p1=$!
station 2 & p2=$!
station 3 & p3=$!
i=0
while [ "$(lq "$tmp/b2.db" "SELECT count(*) FROM participant" 2>/dev/null ||
           echo 0)" -lt 8 ] && [ $i -lt 600 ]; do
    sleep 0.05; i=$((i + 1))
done
kill -9 $p2; wait $p2 2>/dev/null
station 2 & p2=$!
wait $p1 || fail "station B1: $(tail -3 "$tmp/b1.log")"
wait $p2 || fail "station B2 after its restart: $(tail -3 "$tmp/b2.log")"
wait $p3 || fail "station B3: $(tail -3 "$tmp/b3.log")"
"$analyze" "$burl" --out "$tmp/bal-report" $opts 2>"$tmp/bal-an.log" ||
    fail "analyze the balance server: $(cat "$tmp/bal-an.log")"
python3 - "$tmp/bal-report/report.json" <<'PY' ||
import json, sys
c = json.load(open(sys.argv[1]))["exclusions"]["conditions"]
n = [x["analysed"] for x in c]
print("   analysed participants per condition:", n)
if sum(n) < 72 or max(n) - min(n) > 1:
    print("unbalanced across stations (or participants missing):", n)
    sys.exit(1)
PY
    fail "balance across three stations with one killed"
n_fb=$(for s in 1 2 3; do lq "$tmp/b$s.db" "SELECT count(*) FROM participant \
WHERE assign_source <> 'server'"; done | awk '{n += $1} END {print n}')
[ "$n_fb" = 0 ] || fail "$n_fb local assignments with the server up"

# ------------------------------------------- the runner with --sync
if command -v xvfb-run >/dev/null 2>&1 &&
   ! "$simlab" run 2>&1 | grep -q "without the SDL2 runner\|no runner"; then
    echo "-- simlab run --sync (autopilot under Xvfb)"
    # Under AddressSanitizer, SDL's X11 back end (libX11, D-Bus, Mesa) leaks a
    # few allocations at exit, outside simlab: leak checking is off for this
    # run only, as for the other X11 tests (tests/app.cmake).
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
    SDL_AUDIODRIVER=dummy timeout 300 xvfb-run -a -s "-screen 0 1280x800x24" \
        "$simlab" run "$bundle" --db "$tmp/r.db" --station R1 --sync "$url" \
        --autopilot mixed --participants 2 --size 1280x800 \
        >"$tmp/run.log" 2>&1 || fail "simlab run --sync: $(tail -5 "$tmp/run.log")"
    n=$(lq "$tmp/r.db" "SELECT count(*) FROM participant WHERE \
assign_source = 'server'")
    [ "$n" -ge 2 ] || fail "simlab run --sync: $n participants assigned by the server"
    grep -q " 0 waiting" "$tmp/run.log" || fail "simlab run --sync left rows: $(tail -3 "$tmp/run.log")"
    same_rows "$tmp/r.db"
else
    echo "-- simlab run --sync: skipped (no xvfb-run or no runner)"
fi

# ---------------------------------------------------------------- status
echo "-- status"
"$simlab" status "$url" >"$tmp/status.txt" || fail "status URL"
for s in S1 S2 S3; do
    grep -q "^$s " "$tmp/status.txt" || fail "status lacks station $s"
done
grep -q "lag" "$tmp/status.txt" || fail "status lacks the lag"
"$simlab" status --db "$tmp/s2.db" >"$tmp/status2.txt" || fail "status --db"
# names from a hand-edited file reach the terminal escaped: an escape
# sequence and a right-to-left override in a station and a condition name
lq "$tmp/s3.db" "UPDATE participant SET station = 'S3' || char(27) || '[31mred', condition = condition || char(8238), sync_dirty = sync_dirty + 1 WHERE rowid = 1"
"$simlab" sync --db "$tmp/s3.db" --to "$url" >/dev/null || fail "sync edited"
"$simlab" status "$url" >"$tmp/status3.txt" || fail "status URL (edited)"
if grep -q "$(printf '\033')" "$tmp/status3.txt" ||
   grep -q "$(printf '\342\200\256')" "$tmp/status3.txt"; then
    fail "status prints raw control characters"
fi
grep -q 'S3\\x1B\[31mred' "$tmp/status3.txt" ||
    fail "status lacks the escaped station name: $(cat "$tmp/status3.txt")"
grep -q '\\u202E' "$tmp/status3.txt" ||
    fail "status lacks the escaped condition"
grep -q " 0 rows not pushed" "$tmp/status2.txt" || fail "status --db: $(cat "$tmp/status2.txt")"

# ------------------------------------------------ no password anywhere
echo "-- passwords"
if grep -rl -- "$PGPASSWORD" "$tmp" "$tmp/status.txt"; then
    fail "the password is in the files above"
fi
for f in "$tmp"/*.db; do
    if sqlite3 "$f" .dump | grep -q -- "$PGPASSWORD"; then
        fail "the password is in $f"
    fi
done
if pg_dump -d "$db" | grep -q -- "$PGPASSWORD"; then
    fail "the password is on the server"
fi
[ $status = 0 ] && echo "faults ok"
exit $status
