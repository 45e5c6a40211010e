#!/bin/sh
# Installs the Debian 12 packages simlab needs to build, test and run its demo.
# (The SDL2 packages are needed for `simlab run` only; see -DSIMLAB_WITH_SDL.
# clang and libclang-rt-14-dev build the fuzzers, scripts/fuzz.sh; the
# sqlite3 shell is used by the fault-injection test; the Noto fonts draw the
# characters DejaVu lacks: Arabic, CJK, emoji, see docs/runner.md "Fonts";
# libpq-dev is the sync to a PostgreSQL server, and postgresql with
# postgresql-common (pg_virtualenv) run its tests, see docs/multisite.md;
# libxi-dev: the runner's input thread (XInput 2 raw key events) and
# libxdamage-dev: the peer comparison's true onsets, docs/runner.md "Timing";
# libfribidi-dev: the runner's mixed-direction text, docs/runner.md "Fonts";
# libsuitesparse-dev (CHOLMOD) and libnlopt-dev: simlab-analyze's mixed
# model, docs/analysis.md; help2man: the manual pages, made from --help when
# building; libmicrohttpd-dev: `simlab serve`, and chromium, nginx-light,
# nodejs and npm its browser tests and the reverse proxy of docs/online.md
# (openssl makes the nginx test's certificate); r-base-core with
# r-cran-lme4, r-cran-rpact and r-cran-jsonlite: the tests that run R
# against simlab-analyze's mixed model (report.json glmm.r) and the
# sequential boundaries (they skip without R), docs/analysis.md;
# npm and nodejs are left alone when a node with npm is installed already;
# python3-numpy and python3-pandas: simlab's Python package and its tests,
# docs/python.md.)
# Uses sudo when not run as root. Safe to run again.
set -eu
PACKAGES="build-essential cmake pkg-config git
  libsdl2-dev libsdl2-image-dev libsdl2-ttf-dev
  libsqlite3-dev libjansson-dev libcsv-dev libgsl-dev libcairo2-dev
  libpng-dev libjpeg62-turbo-dev libfontconfig-dev
  nettle-dev uuid-dev
  xvfb xauth libxtst-dev clang-format python3-numpy python3-pandas
  clang libclang-rt-14-dev sqlite3
  fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji
  libpq-dev postgresql postgresql-common
  libxi-dev libxdamage-dev
  libfribidi-dev help2man
  libsuitesparse-dev libnlopt-dev
  libmicrohttpd-dev chromium nginx-light openssl curl
  r-base-core r-cran-lme4 r-cran-rpact r-cran-jsonlite"
if ! command -v npm >/dev/null 2>&1; then
    PACKAGES="$PACKAGES nodejs npm"
fi

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
        missing="$missing $p"
done
if [ -z "$missing" ]; then
    exit 0
fi
. "$(dirname "$0")/as_root.sh"
if ! root_possible; then
    echo "simlab setup: these packages are missing and there is no sudo:$missing" >&2
    exit 1
fi
echo "simlab setup: installing$missing"
as_root apt-get update
as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends $missing
