#!/bin/sh
# Installs what is needed, builds simlab (Release with debug information)
# and makes its Debian package in build/ (or $SIMLAB_BUILD_DIR): programs in
# /usr/bin, data and demo studies in /usr/share/simlab, manual pages. Its
# Depends come from dpkg-shlibdeps. Prints the package's path; install it
# with scripts/install.sh PATH (or apt-get install PATH as root).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SIMLAB_BUILD_DIR:-$root/build}
# only the package's path goes to stdout
"$root/scripts/setup.sh" >&2
"$root/scripts/build.sh" "$@" >&2
(cd "$build" && cpack -G DEB >&2)
deb=$(ls -t "$build"/simlab_*.deb | head -1)
echo "$deb"
