#!/bin/sh
# The simlab demo: installs what is needed, builds, and runs the bundled image
# study (meta-predictor design). With a display it opens the runner; without
# one it runs simulated participants headless through the real application,
# analyses their data and prints the tables.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build=${SIMLAB_BUILD_DIR:-$root/build}
simlab="$build/app/simlab"
analyze="$build/analysis/simlab-analyze"

study=${SIMLAB_DEMO_STUDY:-$root/assets/studies/image-meta}
out=${SIMLAB_DEMO_DIR:-$root/demo-output}
mkdir -p "$out"

echo "== simlab check $study"
"$simlab" check "$study"

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "${SIMLAB_DEMO_HEADLESS:-}" ]; then
    echo "== simlab run (close with the experimenter chord shown on screen)"
    "$simlab" run "$study" --db "$out/demo.db" --windowed
    "$analyze" "$out/demo.db" --include-pilot --out "$out/report"
else
    n=${SIMLAB_DEMO_PARTICIPANTS:-120}
    echo "== no display: $n simulated participants through the real application"
    rm -f "$out/demo.db" "$out/demo.db-wal" "$out/demo.db-shm"
    SDL_VIDEODRIVER=dummy "$simlab" run "$study" --db "$out/demo.db" \
        --autopilot mixed --participants "$n" --seed 1
    echo "== simlab-analyze"
    "$analyze" "$out/demo.db" --include-simulated --out "$out/report"
    cat "$out/report/report.md"
fi
echo
echo "Data: $out/demo.db (export: $simlab export --db $out/demo.db --csv out.csv)"
echo "Report and plots: $out/report/ (report.md, report.tex, report.json, *.png, *.svg, *.pdf)"
