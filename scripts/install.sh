#!/bin/sh
# Builds simlab's Debian package (scripts/package.sh, which installs what
# the build needs first) and installs it with apt-get, which brings the
# packages it depends on: in a root shell directly, as a user with sudo.
# Usage: install.sh [PACKAGE.deb]  (a package made before: only installed)
# Extra arguments of package.sh (cmake options) are not taken here; run
# package.sh yourself and pass its output.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/as_root.sh"
deb=${1:-}
if [ -z "$deb" ]; then
    deb=$("$root/scripts/package.sh")
fi
case $deb in
/*) ;;
*) deb=$PWD/$deb ;; # apt-get takes a package file by a path with a /
esac
[ -f "$deb" ] || { echo "simlab install: no package file $deb" >&2; exit 1; }
as_root apt-get install "$deb"
