#!/bin/sh
# The cost of `simlab plan` and of sequential looks, as ratios measured in
# one run (never by ctest; docs/analysis.md "Primary test, plan and
# sequential looks" quotes them):
#  1. per demo study, `simlab plan` (the primary test over SIZES, its
#     planned N and the published bootstrap there) against `simlab power
#     --test primary` on the same SIZES, STUDIES studies and as many null
#     studies, the same screening;
#  2. `simlab power` on a copy of the study with sequential looks at SIZES
#     (the whole procedure) against the same copy without looks on the
#     same sizes (the fixed design).
# CPU and wall seconds of the child processes; the ratios of CPU.
# Usage: bench/power/plan_bench.sh [BUILD_DIR] [STUDIES] [SIZES] [THREADS]
#        (defaults build, 500, 10,20, 2); STUDIES 500 takes about an hour
#        of CPU on the three designs.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
studies=${2:-500}
sizes=${3:-10,20}
threads=${4:-2}
simlab=$build/app/simlab
[ -x "$simlab" ] || { echo "plan_bench.sh: no $simlab (build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$simlab" "$src" "$tmp" "$studies" "$sizes" "$threads" <<'PY'
import json, os, resource, shutil, subprocess, sys, time
simlab, src, tmp, studies, sizes, threads = sys.argv[1:7]

def timed(args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.monotonic()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    w = time.monotonic() - w0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return w, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

common = ["--studies", studies, "--seed", "1", "--threads", threads,
          "--screening", "100", "--quiet"]
print("| study | simlab power --test primary (CPU s / wall s) | simlab plan "
      "| plan / power (CPU) |")
print("| --- | --- | --- | --- |")
for d in ["assets/studies/text-forward", "assets/studies/image-meta",
          "examples/within"]:
    name = os.path.basename(d)
    pw, pc = timed([simlab, "power", os.path.join(src, d), "--test",
                    "primary", "--participants", sizes, "--null-studies",
                    studies, "--out", os.path.join(tmp, name + "-power")]
                   + common)
    lw, lc = timed([simlab, "plan", os.path.join(src, d), "--participants",
                    sizes, "--effect-from-simulation", "--out",
                    os.path.join(tmp, name + "-plan")] + common)
    print("| %s | %.1f / %.1f | %.1f / %.1f | %.2f |" % (name, pc, pw, lc, lw,
                                                       lc / pc))
    sys.stdout.flush()

print()
print("| study | sequential looks %s (CPU s / wall s) | fixed design, same "
      "sizes | sequential / fixed (CPU) |" % sizes)
print("| --- | --- | --- | --- |")
looks = [int(x) for x in sizes.split(",")]
for d in ["assets/studies/text-forward", "examples/within"]:
    name = os.path.basename(d)
    for kind, block in [("seq", {"sequential": {"looks": looks}}),
                        ("fixed", {})]:
        dst = os.path.join(tmp, name + "-" + kind)
        shutil.copytree(os.path.join(src, d), dst)
        p = os.path.join(dst, "study.json")
        s = json.load(open(p))
        s["analysis"] = block
        json.dump(s, open(p, "w"))
    sw, sc = timed([simlab, "power", os.path.join(tmp, name + "-seq"),
                    "--null-studies", studies, "--out",
                    os.path.join(tmp, name + "-seq-out")] + common)
    fw, fc = timed([simlab, "power", os.path.join(tmp, name + "-fixed"),
                    "--participants", sizes, "--null-studies", studies,
                    "--out", os.path.join(tmp, name + "-fixed-out")] + common)
    print("| %s | %.1f / %.1f | %.1f / %.1f | %.2f |" % (name, sc, sw, fc, fw,
                                                       sc / fc))
    sys.stdout.flush()
PY
