#!/bin/sh
# Runs one browser test of `simlab serve` (tests/web/NAME.mjs) in Debian's
# chromium through playwright-core, installed from the npm registry at the
# version package-lock.json pins (npm ci, once per build folder). Skips
# (77) where node, npm or chromium are missing or the registry cannot be
# reached.
# usage: run.sh NAME SIMLAB WORK_DIR   (environment: STUDY_FORWARD, ...)
set -eu
name=$1
SIMLAB=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
export SIMLAB
chromium=${SIMLAB_CHROMIUM:-/usr/bin/chromium}
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "skip: node and npm are not installed (scripts/setup.sh)"; exit 77
fi
if [ ! -x "$chromium" ]; then
    echo "skip: $chromium is missing (apt-get install chromium)"; exit 77
fi
if [ "$name" = nginx ] && { [ ! -x "${SIMLAB_NGINX:-/usr/sbin/nginx}" ] ||
        ! command -v openssl >/dev/null 2>&1; }; then
    echo "skip: nginx or openssl is missing (apt-get install nginx-light)"; exit 77
fi
mkdir -p "$work"
# one npm ci for all the tests of this build folder
(
    flock 9
    if [ ! -f "$work/node_modules/playwright-core/package.json" ] ||
       ! cmp -s "$here/package-lock.json" "$work/package-lock.json"; then
        cp "$here/package.json" "$here/package-lock.json" "$work/"
        (cd "$work" && npm ci --no-audit --no-fund --loglevel=error) ||
            { rm -rf "$work/node_modules"; exit 3; }
    fi
) 9>"$work/.lock" || { echo "skip: npm ci failed (is the npm registry reachable?)"; exit 77; }
# the tests import playwright-core from the build folder's node_modules
# each test its own folder: tests run side by side
t="$work/t-$name"
rm -rf "$t"
mkdir -p "$t"
cp "$here"/*.mjs "$t/"
ln -s "$work/node_modules" "$t/node_modules"
exec node "$t/$name.mjs"
