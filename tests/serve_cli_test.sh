#!/bin/sh
# simlab serve from the command line: usage errors, a database inside the
# bundle, the link printed, the security headers, no file outside the
# front end and the current screen's media served (traversal attempts,
# the bundle's own files), the request size limit, a clean stop on
# SIGTERM and a second serve on the same database refused.
# usage: serve_cli_test.sh SIMLAB STUDY_DIR
set -u
simlab=$1
study=$2
command -v curl >/dev/null 2>&1 || { echo "skip: curl is not installed"; exit 77; }
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect_status() { # want command...
    want=$1; shift
    "$@" >"$tmp/out" 2>&1
    got=$?
    [ "$got" -eq "$want" ] && ok || bad "exit $got, want $want: $* ($(head -c 300 "$tmp/out"))"
}

expect_status 2 "$simlab" serve "$study"
expect_status 2 "$simlab" serve --db "$tmp/x.db"
expect_status 2 "$simlab" serve "$study" --db "$tmp/x.db" --station 'a b'
expect_status 2 "$simlab" serve "$study" --db "$tmp/x.db" --port 70000
expect_status 2 "$simlab" serve "$study" --db "$study/inside.db"
expect_status 1 "$simlab" serve "$study" --db "$tmp/x.db" --host not-an-address
grep -q "not an IPv4 or IPv6 address" "$tmp/out" && ok || bad "bad host named"

"$simlab" serve "$study" --db "$tmp/s.db" --port 0 --station cli1 >"$tmp/log" 2>"$tmp/err" &
pid=$!
i=0
while ! grep -q "listening on" "$tmp/log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$tmp/log")
[ -n "$port" ] && ok || { bad "no port printed: $(cat "$tmp/log" "$tmp/err")"; exit 1; }
grep -q "^participant link (Prolific): http://127.0.0.1:$port/?PROLIFIC_PID=" "$tmp/log" && ok || bad "Prolific link"
base="http://127.0.0.1:$port"

code() { curl -s -o "$tmp/body" -w '%{http_code}' --path-as-is "$@"; }
[ "$(code "$base/")" = 200 ] && ok || bad "index"
curl -s -D "$tmp/h" -o /dev/null "$base/web/main.js"
grep -qi '^content-security-policy: default-src .self.' "$tmp/h" && ok || bad "CSP header"
grep -qi '^x-content-type-options: nosniff' "$tmp/h" && ok || bad "nosniff"
grep -qi '^content-type: text/javascript' "$tmp/h" && ok || bad "module type"
for p in /study.json /items.jsonl /web/../study.json /web/%2e%2e/study.json \
         /media/../../etc/passwd /fonts/../lang/en.json /web/ /web \
         "/media/00000000000000000000000000000000/1/0" /media/x/1/0 /api/start /etc/passwd; do
    c=$(code "$base$p")
    [ "$c" = 404 ] || [ "$c" = 405 ] && ok || bad "$p: HTTP $c"
done
# a body over the limit
head -c 70000 /dev/zero | tr '\0' 'a' >"$tmp/big"
[ "$(code -X POST --data-binary @"$tmp/big" "$base/api/start")" = 413 ] && ok || bad "413"
[ "$(code -X POST -d '{' "$base/api/start")" = 400 ] && ok || bad "bad JSON"
[ "$(code -X POST -d '{"participant":"cli-1"}' "$base/api/start")" = 200 ] && ok || bad "start"
grep -q '"token":"[0-9a-f]\{32\}"' "$tmp/body" && ok || bad "token"
[ "$(code -X POST -H 'Authorization: Bearer 0123' -d '{}' "$base/api/input")" = 401 ] && ok || bad "unknown token"
# a second serve on the same database is refused
"$simlab" serve "$study" --db "$tmp/s.db" --port 0 >"$tmp/log2" 2>&1
[ $? -eq 1 ] && grep -q "in use by station 'cli1'" "$tmp/log2" && ok || bad "second serve: $(cat "$tmp/log2")"
kill -TERM "$pid"
wait "$pid"
st=$?
pid=
[ $st -eq 0 ] && ok || bad "SIGTERM exit $st"
[ "$("$simlab" status --db "$tmp/s.db" >/dev/null 2>&1; echo $?)" = 0 ] && ok || bad "status reads the file"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
