#!/bin/sh
# Runs one browser test of `simlab serve` (tests/web/NAME.mjs) in Debian's
# chromium through playwright-core, installed from the npm registry at the
# version package-lock.json pins (npm ci, once per build folder); or, as
# NAME "format", prettier's check of web/*.js and the tests (pinned there
# too). Skips (77) where node, npm or chromium are missing or the registry
# cannot be reached -- in CI with chromium installed, fails instead.
# usage: run.sh NAME SIMLAB WORK_DIR   (environment: STUDY_FORWARD, ...)
set -eu
name=$1
SIMLAB=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
export SIMLAB
chromium=${SIMLAB_CHROMIUM:-/usr/bin/chromium}
# Skips (77) where what a test needs is missing -- except in CI (CI=true)
# on a machine with chromium, where a browser test that cannot run fails:
# a missing playwright-core (or node, npm) must not pass unseen.
skip() {
    if [ "${CI:-false}" != false ] && [ -x "$chromium" ]; then
        echo "FAIL: $1 (CI with $chromium: the browser tests must run)"
        exit 1
    fi
    echo "skip: $1"
    exit 77
}
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    skip "node and npm are not installed (scripts/setup.sh)"
fi
if [ "$name" != format ] && [ ! -x "$chromium" ]; then
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
) 9>"$work/.lock" || skip "npm ci failed (is the npm registry reachable?)"
if [ "$name" = format ]; then
    # the format of the front end's JavaScript and of these tests
    root=$(cd "$here/../.." && pwd)
    cd "$root"
    exec "$work/node_modules/.bin/prettier" --check web/*.js tests/web/*.mjs \
        tests/web/unit/*.mjs
fi
(cd "$work" && node -e 'import("playwright-core")' >/dev/null 2>&1) ||
    skip "playwright-core cannot be loaded from $work/node_modules"
# the tests import playwright-core from the build folder's node_modules
# each test its own folder: tests run side by side
t="$work/t-$name"
rm -rf "$t"
mkdir -p "$t"
cp "$here"/*.mjs "$t/"
ln -s "$work/node_modules" "$t/node_modules"
exec node "$t/$name.mjs"
