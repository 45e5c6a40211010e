#!/bin/sh
# Installs what is needed, builds simlab and runs the whole test suite.
# Arguments go to cmake (e.g. -DSIMLAB_WERROR=ON, as .ci/run gives).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$@"
cd "${SIMLAB_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j 2
