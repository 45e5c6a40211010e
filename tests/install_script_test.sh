#!/bin/sh
# scripts/install.sh, the README's install command, with stand-ins for id,
# sudo and apt-get on PATH (nothing is installed): in a root shell apt-get
# installs the package by its absolute path without sudo; as a user it
# runs through sudo; as a user without sudo it fails and says to run it as
# root; a package file that is not there is refused before apt-get.
# Usage: install_script_test.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
bin=$tmp/bin
mkdir "$bin"
# the tools the script uses, and nothing else: no sudo unless asked
for t in sh dirname cat; do
    ln -s "$(command -v "$t")" "$bin/$t"
done
cat >"$bin/id" <<'SH'
#!/bin/sh
echo "$FAKE_UID"
SH
cat >"$bin/apt-get" <<'SH'
#!/bin/sh
echo "apt-get $* (via sudo: ${FAKE_VIA_SUDO:-no})" >>"$LOG"
SH
cat >"$tmp/sudo" <<'SH'
#!/bin/sh
FAKE_VIA_SUDO=yes "$@"
SH
chmod +x "$bin/id" "$bin/apt-get" "$tmp/sudo"
: >"$tmp/simlab_0.1.0_amd64.deb"
run() { # UID, then the rest: install.sh's exit status, output in $tmp/out
    (cd "$tmp" && FAKE_UID=$1 LOG=$tmp/log PATH=$bin \
        "$bin/sh" "$src/scripts/install.sh" simlab_0.1.0_amd64.deb) \
        >"$tmp/out" 2>&1
}
: >"$tmp/log"
run 0 || fail "as root: $(cat "$tmp/out")"
grep -qx "apt-get install $tmp/simlab_0.1.0_amd64.deb (via sudo: no)" "$tmp/log" ||
    fail "as root: $(cat "$tmp/log")"
: >"$tmp/log"
run 1000 && fail "a user without sudo: install.sh succeeded"
grep -q "run as root (there is no sudo): apt-get install" "$tmp/out" ||
    fail "a user without sudo is not told what to do: $(cat "$tmp/out")"
[ -s "$tmp/log" ] && fail "a user without sudo: apt-get ran"
cp "$tmp/sudo" "$bin/sudo"
run 1000 || fail "a user with sudo: $(cat "$tmp/out")"
grep -qx "apt-get install $tmp/simlab_0.1.0_amd64.deb (via sudo: yes)" "$tmp/log" ||
    fail "a user with sudo: $(cat "$tmp/log")"
: >"$tmp/log"
(cd "$tmp" && FAKE_UID=0 LOG=$tmp/log PATH=$bin \
    "$bin/sh" "$src/scripts/install.sh" gone.deb) >"$tmp/out" 2>&1 &&
    fail "a missing package file was accepted"
[ -s "$tmp/log" ] && fail "apt-get ran for a missing package file"
# the README's install line is this script
grep -q '^\./scripts/install\.sh' "$src/README.md" ||
    fail "README does not install with scripts/install.sh"
if [ "$fails" -ne 0 ]; then
    echo "$fails failures"
    exit 1
fi
echo "install.sh: root without sudo, user with sudo, user without: ok"
