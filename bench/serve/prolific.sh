#!/bin/sh
# A Prolific launch, measured (docs/online.md "A Prolific launch"): two
# `simlab serve` processes behind Debian's nginx with the shipped split
# configuration (docs/online/nginx-simlab-split.conf, TLS with a
# self-signed certificate), both syncing to one PostgreSQL server set up
# with station roles (pg_virtualenv: a throwaway cluster), N participants
# arriving evenly over LAUNCH seconds and answering a screen every
# INTERVAL ms (bench/serve/prolific.mjs). After the launch each process is
# SIGKILLed once in turn and started again at once, as a service manager
# does. Afterwards: every step the participants saw acknowledged is in its
# server's database once, no id is enrolled twice, the conditions over
# both servers (all and included), and the rows on PostgreSQL.
# usage: bench/serve/prolific.sh BUILD_DIR [N] [LAUNCH_S] [INTERVAL_MS] [STUDY]
# (defaults 1000 participants, 60 s, 2000 ms, tests/data/experiment/mini-forward)
set -eu
build=$(cd "${1:-build}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
n=${2:-1000}
launch=${3:-60}
interval=${4:-2000}
study=${5:-$root/tests/data/experiment/mini-forward}
nginx=${SIMLAB_NGINX:-/usr/sbin/nginx}
if [ -z "${PGHOST:-}" ]; then
    for t in pg_virtualenv node openssl "$nginx"; do
        command -v "$t" >/dev/null 2>&1 || { echo "$t is missing (scripts/setup.sh)"; exit 1; }
    done
    exec pg_virtualenv -t sh "$0" "$build" "$n" "$launch" "$interval" "$study"
fi
simlab=$build/app/simlab
work=$(mktemp -d "${TMPDIR:-/var/tmp}/simlab-prolific.XXXXXX")
p1= p2= ng= client=
cleanup() {
    for p in $p1 $p2 $ng $client; do kill "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
psql -q -c "CREATE DATABASE launch"
admin="postgresql://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/launch"
"$simlab" server setup "$admin" >/dev/null
for s in s1 s2; do
    "$simlab" server add-station "$admin" --station $s --passfile "$work/$s.pgpass" >"$work/$s.add"
    echo "$(tail -1 "$work/$s.add")?passfile=$work/$s.pgpass" >"$work/$s.url"
done
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port1=$(free_port); port2=$(free_port); sport=$(free_port)
serve() { # station port: simlab serve in the background, its pid in $last
    env -u PGPASSWORD "$simlab" serve "$study" --db "$work/$1.db" --port "$2" \
        --station "$1" --sync "$(cat "$work/$1.url")" --enroll-rate 200 \
        >>"$work/$1.log" 2>>"$work/$1.err" &
    last=$!
    i=0
    while [ $i -lt 200 ]; do
        k=$(grep -c "listening on" "$work/$1.log" 2>/dev/null) || true
        [ "${k:-0}" -ge "$3" ] && break
        sleep 0.1; i=$((i + 1))
    done
}
serve s1 "$port1" 1; p1=$last
serve s2 "$port2" 1; p2=$last
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
    -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
sed -e "s|server 127.0.0.1:8081;|server 127.0.0.1:$port1;|" \
    -e "s|server 127.0.0.1:8082;|server 127.0.0.1:$port2;|" \
    -e "s|server_name study.example.org;|server_name localhost;|" \
    -e "s|listen 443 ssl http2;|listen 127.0.0.1:$sport ssl http2;|" \
    -e "s|ssl_certificate .*;|ssl_certificate $work/cert.pem;|" \
    -e "s|ssl_certificate_key .*;|ssl_certificate_key $work/key.pem;|" \
    "$root/docs/online/nginx-simlab-split.conf" >"$work/simlab.conf"
mkdir "$work/tmp"
cat >"$work/nginx.conf" <<NGINX
worker_processes auto; daemon off; pid $work/nginx.pid; error_log $work/error.log;
events { worker_connections 8192; }
http { access_log off; client_body_temp_path $work/tmp; proxy_temp_path $work/tmp;
  fastcgi_temp_path $work/tmp; uwsgi_temp_path $work/tmp; scgi_temp_path $work/tmp;
  include $work/simlab.conf; }
NGINX
"$nginx" -t -q -p "$work" -c "$work/nginx.conf"
"$nginx" -p "$work" -c "$work/nginx.conf" &
ng=$!
sleep 1
ulimit -n 65536 2>/dev/null || true
kill1=$((launch + 10)); kill2=$((launch + 30))
node "$root/bench/serve/prolific.mjs" "https://localhost:$sport/" "$n" "$launch" \
    "$interval" "$kill1" >"$work/out.json" 2>"$work/client.err" &
client=$!
sleep "$kill1"
kill -KILL "$p1"; wait "$p1" 2>/dev/null || true
serve s1 "$port1" 2; p1=$last
echo "s1 SIGKILLed at ${kill1} s and started again"
sleep $((kill2 - kill1))
kill -KILL "$p2"; wait "$p2" 2>/dev/null || true
serve s2 "$port2" 2; p2=$last
echo "s2 SIGKILLed at ${kill2} s and started again"
wait "$client" || { echo "the client failed: $(cat "$work/client.err")"; exit 1; }
client=
kill -TERM "$p1" "$p2"; wait "$p1" || true; wait "$p2" || true; p1= p2=
kill "$ng"; ng=
head -c 2000 "$work/client.err"
python3 - "$work" <<'PY'
import json, subprocess, sys
work = sys.argv[1]
out = json.load(open(f"{work}/out.json"))
acked = out.pop("acked")
print(json.dumps(out))
def q(db, sql):
    return subprocess.run(["sqlite3", f"{work}/{db}.db", sql], capture_output=True, text=True).stdout.split("\n")[:-1]
done = {}
for s in ("s1", "s2"):
    for line in q(s, "SELECT p.code, count(r.seq) FROM participant p LEFT JOIN response r ON r.participant = p.id AND r.done = 1 GROUP BY p.id"):
        code, k = line.split("|")
        done.setdefault(code, []).append((s, int(k)))
lost = [c for c, (s, a) in acked.items() if sum(k for srv, k in done.get(c, []) if srv == s) < a]
twice = [c for c, v in done.items() if len(v) > 1]
dupes = sum(int(q(s, "SELECT count(*) FROM (SELECT participant, seq FROM response GROUP BY 1, 2 HAVING count(*) > 1)")[0]) for s in ("s1", "s2"))
acked_steps = sum(a for _, a in acked.values())
stored = sum(k for v in done.values() for _, k in v)
cond = {}
included = {}
for s in ("s1", "s2"):
    for line in q(s, "SELECT condition, assign_source, count(*) FROM participant GROUP BY 1, 2"):
        c, src, k = line.split("|")
        cond.setdefault(c, {}).setdefault(src, 0)
        cond[c][src] += int(k)
    for line in q(s, "SELECT condition, count(*) FROM participant WHERE excluded = 0 GROUP BY 1"):
        c, k = line.split("|")
        included[c] = included.get(c, 0) + int(k)
per = {s: int(q(s, "SELECT count(*) FROM participant")[0]) for s in ("s1", "s2")}
totals = [sum(v.values()) for v in cond.values()]
print(json.dumps({"steps_acknowledged": acked_steps, "steps_stored": stored,
                  "participants_lost_steps": len(lost), "ids_enrolled_twice": len(twice),
                  "responses_doubled": dupes, "participants_per_server": per,
                  "conditions": cond, "condition_spread": max(totals) - min(totals),
                  "included": included,
                  "included_spread": max(included.values(), default=0) - min(included.values(), default=0)}))
ok = not lost and not twice and dupes == 0
print("database:", "every acknowledged step stored once" if ok else "LOST OR DOUBLED")
sys.exit(0 if ok else 1)
PY
echo "PostgreSQL: $(psql -At -d launch -c "SELECT count(*) FROM participant") participants," \
     "$(psql -At -d launch -c "SELECT string_agg(condition || ' ' || n, ', ') FROM (SELECT condition, count(*) n FROM participant WHERE status <> 'aborted' GROUP BY 1 ORDER BY 1) x")" \
     "(not aborted), $(psql -At -d launch -c "SELECT count(*) FROM response") responses"
echo "PostgreSQL by condition, status and exclusion: $(psql -At -d launch -c "SELECT string_agg(condition || ' ' || status || CASE WHEN excluded = 1 THEN ' excluded ' ELSE ' included ' END || n, ', ') FROM (SELECT condition, status, excluded, count(*) n FROM participant GROUP BY 1, 2, 3 ORDER BY 1, 2, 3) x")"
