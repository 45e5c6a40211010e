#!/bin/sh
# Inside pg_virtualenv (tests/pg.cmake, test_pg_web): two `simlab serve`
# processes, each its own station and database, syncing to one PostgreSQL
# server set up with station roles (simlab server setup / add-station),
# conditions assigned on the server across both. Checks: every participant
# assigned by the server, the conditions balanced over both servers
# together, every response of both files on the server after the final
# push, and simlab status naming both stations.
# usage: web_inner.sh SIMLAB BUNDLE
set -u
simlab=$1; bundle=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
pa= pb=
trap '[ -n "$pa" ] && kill $pa 2>/dev/null; [ -n "$pb" ] && kill $pb 2>/dev/null; rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
psql -q -c "CREATE DATABASE webmulti" || exit 1
admin="postgresql://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/webmulti"
"$simlab" server setup "$admin" >/dev/null || { echo "FAIL: setup"; exit 1; }
for s in web1 web2; do
    "$simlab" server add-station "$admin" --station $s --passfile "$tmp/$s.pgpass" \
        >"$tmp/$s.add" || { echo "FAIL: add-station $s"; exit 1; }
    echo "$(tail -1 "$tmp/$s.add")?passfile=$tmp/$s.pgpass" >"$tmp/$s.url"
done
start() { # station: simlab serve in the background, its pid in $last
    env -u PGPASSWORD "$simlab" serve "$bundle" --db "$tmp/$1.db" --port 0 \
        --station "$1" --sync "$(cat "$tmp/$1.url")" >"$tmp/$1.log" 2>"$tmp/$1.err" &
    last=$!
}
start web1; pa=$last
start web2; pb=$last
for s in web1 web2; do
    i=0
    while ! grep -q "listening on" "$tmp/$s.log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
done
port() { sed -n 's/.*listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$tmp/$1.log"; }
node "$here/web_multi.mjs" "http://127.0.0.1:$(port web1)/" \
    "http://127.0.0.1:$(port web2)/" 8 >"$tmp/out.json" 2>"$tmp/node.err" ||
    fail "participants: $(cat "$tmp/node.err") $(cat "$tmp/web1.err" "$tmp/web2.err")"
cat "$tmp/out.json"
grep -q '"a":{"enrolled":4,"done":4},"b":{"enrolled":4,"done":4}' "$tmp/out.json" ||
    fail "not every participant finished"
kill -TERM $pa $pb
wait $pa || fail "web1 exited $?"
wait $pb || fail "web2 exited $?"
pa= pb=
grep -q " 0 waiting" "$tmp/web1.err" && grep -q " 0 waiting" "$tmp/web2.err" ||
    fail "rows left unpushed: $(cat "$tmp/web1.err" "$tmp/web2.err")"
for s in web1 web2; do
    n=$(sqlite3 "$tmp/$s.db" "SELECT count(*) FROM participant WHERE assign_source='server'")
    [ "$n" -eq 4 ] || fail "$s: $n of 4 participants assigned by the server"
done
# balanced over both servers (2 conditions, 8 participants)
counts=$(psql -At -d webmulti -c "SELECT count(*) FROM participant GROUP BY condition ORDER BY 1")
[ "$(echo $counts)" = "4 4" ] || fail "conditions over both servers: $(echo $counts)"
local_rows=$(( $(sqlite3 "$tmp/web1.db" "SELECT count(*) FROM response") + \
               $(sqlite3 "$tmp/web2.db" "SELECT count(*) FROM response") ))
server_rows=$(psql -At -d webmulti -c "SELECT count(*) FROM response")
[ "$local_rows" -eq "$server_rows" ] && [ "$server_rows" -gt 50 ] ||
    fail "responses: $local_rows in the files, $server_rows on the server"
"$simlab" status "$admin" >"$tmp/status.txt" 2>&1 || fail "status"
grep -q "^web1 " "$tmp/status.txt" && grep -q "^web2 " "$tmp/status.txt" ||
    fail "status names both stations: $(cat "$tmp/status.txt")"
[ $status -eq 0 ] && echo "web_multi: passed"
exit $status
