#!/bin/sh
# `simlab selftest` under Xvfb for a few seconds: the report's keys, the
# virtual-display note, the input thread's stamps of XTest presses, the
# row --db stores (schema 8, station_timing, in a database migrated from
# schema 3) and the export sidecar's
# timing.stations; then without X (SDL's dummy driver): no input latency.
# Usage: selftest_test.sh SIMLAB BUNDLE
set -eu
simlab=$1
bundle=$2
command -v xvfb-run >/dev/null 2>&1 || { echo "no xvfb-run: skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/simlab-selftest-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -r "$bundle" "$tmp/bundle"
mkdir "$tmp/out" # --out creates a missing folder: "$tmp/dummy" is not made here
# a database written before schema 8 (no station_timing, no interaction,
# no online tables, no trial.options) migrates forward
"$simlab" simulate "$tmp/bundle" --db "$tmp/st.db" --participants 2 \
    --policy model --station lab-1 >/dev/null
python3 - "$tmp/st.db" <<'EOP'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("DROP TABLE station_timing; DROP TABLE interaction; "
                 "DROP TABLE online_access; DROP TABLE online_secret; "
                 "DROP VIEW long_format; "
                 "ALTER TABLE trial DROP COLUMN options; "
                 "PRAGMA user_version = 7;")
db.close()
EOP
xvfb-run -a -s "-screen 0 1280x800x24" "$simlab" selftest "$tmp/bundle" \
    --db "$tmp/st.db" --out "$tmp/out" --seconds 3 --size 800x600 \
    --station lab-1
grep -q "virtual display" "$tmp/out/selftest.md"
grep -q "How to cite" "$tmp/out/selftest.md"
"$simlab" export --db "$tmp/st.db" --csv "$tmp/data.csv"
SDL_VIDEODRIVER=dummy "$simlab" selftest --out "$tmp/dummy" --seconds 1 \
    --station lab-2
python3 - "$tmp" <<'EOP'
import json, sqlite3, sys
tmp = sys.argv[1]
r = json.load(open(f"{tmp}/out/selftest.json"))
for k in ("format", "software", "station", "created_ms", "virtual_display",
          "display_kind", "video_driver", "renderer", "display", "window",
          "vsync", "screens", "study", "refresh", "flips", "new_screen",
          "missed_frames", "input"):
    assert k in r, k
assert r["format"] == "simlab station timing v1"
assert r["station"] == "lab-1" and r["virtual_display"] is True
assert r["video_driver"] == "x11"
assert r["screens"] == "the study's predict screens"
for k in ("n", "median_ms", "sd_ms", "p99_ms", "min_ms", "max_ms",
          "measured_hz", "nominal_hz"):
    assert k in r["refresh"], k
assert r["refresh"]["n"] >= 10 and r["refresh"]["measured_hz"] > 0
assert r["flips"]["n"] >= 10
assert r["new_screen"]["n"] >= 2
for k in ("n", "frames", "on_new_screen", "new_screens"):
    assert k in r["missed_frames"], k
i = r["input"]
for k in ("measured", "method", "note", "key_stamps", "presses", "recorded",
          "latency", "poll_latency"):
    assert k in i, k
assert i["measured"] is True and i["method"] == "xtest-loopback", i
assert i["key_stamps"] == "xinput2-raw", i
assert i["presses"] >= 2 and i["recorded"] == i["presses"], i
assert 0 <= i["latency"]["median_ms"] < 50, i
db = sqlite3.connect(f"{tmp}/st.db")
assert db.execute("PRAGMA user_version").fetchone()[0] >= 8
assert db.execute("SELECT COUNT(*) FROM participant").fetchone()[0] == 2
rows = db.execute("SELECT station, virtual_display, report FROM "
                  "station_timing").fetchall()
assert len(rows) == 1 and rows[0][:2] == ("lab-1", 1), rows
assert json.loads(rows[0][2])["created_ms"] == r["created_ms"]
side = json.load(open(f"{tmp}/data.csv.json"))
st = side["timing"]["stations"]
assert len(st) == 1 and st[0]["station"] == "lab-1", st
assert st[0]["detail"]["format"] == "simlab station timing v1"
d = json.load(open(f"{tmp}/dummy/selftest.json"))
assert d["virtual_display"] is True and d["video_driver"] == "dummy"
assert d["input"]["measured"] is False and d["input"]["key_stamps"] == "event-watch"
assert d["screens"] == "built-in text predict screens" and d["study"] is None
print("selftest reports ok")
EOP
