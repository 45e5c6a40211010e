#!/bin/sh
# Rush end to end, under SDL's dummy driver: `simlab run --rush --cpu N`
# records what it asked for and got in the display event; station.conf
# names the station and asks for rush, --no-rush overrides it; a CPU this
# machine does not offer and a bad setting stop before any window, naming
# the file, line and field; `simlab selftest --rush` reports it.
# Whether SCHED_FIFO and locked memory are granted depends on the rights
# the test runs with: the record must say which, either way.
# Usage: rush_test.sh SIMLAB BUNDLE
set -eu
simlab=$1
bundle=$2
command -v python3 >/dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/simlab-rush-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export SDL_VIDEODRIVER=dummy
export SIMLAB_STATION_CONFIG="$tmp/station.conf"
printf '# a lab computer\nstation = lab-7\n' >"$tmp/station.conf"
"$simlab" run "$bundle" --db "$tmp/a.db" --autopilot model --rush --cpu 0 \
    2>"$tmp/a.err"
printf 'station = lab-8\nrush = on\n' >"$tmp/station.conf"
"$simlab" run "$bundle" --db "$tmp/b.db" --autopilot model 2>"$tmp/b.err"
"$simlab" run "$bundle" --db "$tmp/c.db" --autopilot model --no-rush \
    2>"$tmp/c.err"
"$simlab" selftest --out "$tmp" --seconds 1 --rush >/dev/null 2>&1
# refused before any window: exit 2 and the located problem
printf 'station = lab-8\n\ncpu = 1000\n' >"$tmp/station.conf"
rc=0
"$simlab" run "$bundle" --db "$tmp/d.db" --autopilot model 2>"$tmp/d.err" ||
    rc=$?
[ "$rc" -eq 2 ] || { echo "cpu 1000 in station.conf: exit $rc"; exit 1; }
grep -q "station.conf:3: field 'cpu': 1000: simlab may run on CPU" \
    "$tmp/d.err" || { cat "$tmp/d.err"; exit 1; }
printf 'rush = fast\n' >"$tmp/station.conf"
rc=0
"$simlab" run "$bundle" --db "$tmp/d.db" --autopilot model 2>"$tmp/d.err" ||
    rc=$?
[ "$rc" -eq 2 ] || { echo "rush = fast: exit $rc"; exit 1; }
grep -q "station.conf:1: field 'rush': expected on or off, got 'fast'" \
    "$tmp/d.err" || { cat "$tmp/d.err"; exit 1; }
[ ! -e "$tmp/d.db" ] || { echo "a database was made"; exit 1; }
python3 - "$tmp" <<'EOP'
import json, sqlite3, sys
tmp = sys.argv[1]
fails = []
def display(db):
    c = sqlite3.connect(f"{tmp}/{db}")
    rows = c.execute("SELECT detail FROM event WHERE kind = 'display'").fetchall()
    st = c.execute("SELECT DISTINCT station FROM participant").fetchall()
    c.close()
    if not rows:
        fails.append(f"{db}: no display event")
        return {}, st
    return json.loads(rows[0][0])["rush"], st
def consistent(name, r, asked):
    keys = {"asked", "active", "render_loop", "input_thread",
            "memory_locked", "cpu", "failed"}
    if set(r) != keys:
        fails.append(f"{name}: keys {sorted(r)}")
        return
    if r["asked"] != asked:
        fails.append(f"{name}: asked {r['asked']}")
    if r["active"] != (asked and r["failed"] == ""):
        fails.append(f"{name}: active {r['active']} with failed {r['failed']!r}")
    if asked:
        fifo = r["render_loop"].startswith("SCHED_FIFO ")
        if fifo == ("render loop stays" in r["failed"]):
            fails.append(f"{name}: render loop {r['render_loop']}, failed {r['failed']!r}")
        if r["memory_locked"] == ("memory not locked" in r["failed"]):
            fails.append(f"{name}: memory_locked {r['memory_locked']}, failed {r['failed']!r}")
    else:
        if r["render_loop"] != "SCHED_OTHER" or r["memory_locked"]:
            fails.append(f"{name}: changed without being asked: {r}")
    if r["input_thread"] != "none":  # autopilot runs have no input thread
        fails.append(f"{name}: input thread {r['input_thread']}")
a, st = display("a.db")
consistent("--rush --cpu 0", a, True)
if a.get("cpu") != 0 and "not pinned" not in a.get("failed", ""):
    fails.append(f"--cpu 0: cpu {a.get('cpu')}")
if st != [("lab-7",)]:
    fails.append(f"station.conf's station: {st}")
b, st = display("b.db")
consistent("rush = on", b, True)
if b.get("cpu") is not None or st != [("lab-8",)]:
    fails.append(f"rush = on: cpu {b.get('cpu')}, station {st}")
c, _ = display("c.db")
consistent("--no-rush", c, False)
s = json.load(open(f"{tmp}/selftest.json"))["rush"]
consistent("selftest --rush", s, True)
md = open(f"{tmp}/selftest.md").read()
if "| real-time priority (rush) | " not in md:
    fails.append("selftest.md has no rush row")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
EOP
echo "rush recorded: ok"
