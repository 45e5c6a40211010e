#!/bin/sh
# Runner benchmarks under Xvfb. Usage: bench/app/run.sh BUILD_DIR [REPEATS]
# Needs xvfb (xvfb-run) and the shared Hase & Bansal materials beside the
# repository (../shared), or falls back to the image fixture.
set -eu
build=${1:?build directory}
reps=${2:-3}
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/simlab-bench-XXXXXX")
shared=${SIMLAB_SHARED_DIR:-$src/../shared}
if [ -d "$shared/data/hase2020/text" ]; then
    cp -r "$src/examples/hase2020/text-forward" "$out/bundle"
    cp -r "$shared/data/hase2020/text/data/HIT-data-public-final" "$out/bundle/data"
    key=p
else
    cp -r "$src/tests/data/app/meta-image" "$out/bundle"
    key=f
fi
for i in $(seq 1 "$reps"); do
    echo "## input timing, run $i"
    xvfb-run -a -s "-screen 0 1920x1080x24" \
        "$build/bench/bench_app" input "$build/app/simlab" "$out/bundle" "$out" "$key" 64
done
echo "## launch"
xvfb-run -a -s "-screen 0 1920x1080x24" \
    "$build/bench/bench_app" launch "$build/app/simlab" "$out/bundle" "$out" 9
rm -rf "$out"
