#!/usr/bin/env python3
"""Medians over the runs of bench/app/compare_peers.sh's per-run tables.

Usage: peers_table.py LOG  (the script's standard error, which carries
every run's `bench_app rt` output). Prints one Markdown table: for each row
of the "recorded time - injected time" table and the onset line, the
medians over the runs of its median, p99 and SD.
"""
import re
import statistics
import sys

rows = {}
order = []
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    m = re.match(r"\| ([^|]+) \| (-?[\d.]+) \| (-?[\d.]+) \| (-?[\d.]+) \|$",
                 line.strip())
    if m and not m.group(1).startswith("("):
        name = m.group(1).strip()
    else:
        m2 = re.match(r"onset stamp - pixels changed \(XDamage\): median "
                      r"(-?[\d.]+) ms, SD (-?[\d.]+) ms, p99 (-?[\d.]+) ms",
                      line.strip())
        if not m2:
            continue
        name = "onset stamp - pixels changed (XDamage)"
        vals = (float(m2.group(1)), float(m2.group(3)), float(m2.group(2)))
        rows.setdefault(name, []).append(vals)
        if name not in order:
            order.append(name)
        continue
    vals = tuple(float(m.group(k)) for k in (2, 3, 4))
    if name not in order:
        order.append(name)
    rows.setdefault(name, []).append(vals)

print("| (ms), medians over the runs | runs | median | p99 | SD |")
print("| --- | --- | --- | --- | --- |")
for name in order:
    v = rows[name]
    med = [statistics.median(x[k] for x in v) for k in range(3)]
    print(f"| {name} | {len(v)} | {med[0]:.3f} | {med[1]:.3f} | {med[2]:.3f} |")
