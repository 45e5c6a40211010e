#!/bin/sh
# The installed simlab: `cmake --install` of the build into a fresh prefix,
# then the installed programs from another folder -- `simlab check` on every
# installed demo study, a simulation analysed by the installed
# simlab-analyze, and (with the runner) a one-second self-test, which needs
# the installed fonts -- with nothing of the source or build tree named in
# the programs; the manual pages exist and mention every option of --help,
# and simlab(1) says where the documentation and the examples are; the
# documentation, the example studies (checked) and simlab-preview are
# installed; the Python package imports from the installed dist-packages
# and writes and checks a study with the installed simlab (and, with numpy,
# an installed example's make_bundle.py writes its bundle).
# Usage: install_test.sh BUILD_DIR SOURCE_DIR HAVE_SDL(ON|OFF) HAVE_MAN(ON|OFF)
set -u
build=$1
src=$2
sdl=$3
man=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
p=$tmp/prefix
if ! cmake --install "$build" --prefix "$p" >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log"
    echo "FAIL: cmake --install"
    exit 1
fi
programs="simlab simlab-analyze"
[ "$sdl" = ON ] && programs="$programs simlab-preview"
doc=share/doc/simlab
for f in bin/simlab bin/simlab-analyze share/simlab/fonts/DejaVuSans.ttf \
    share/simlab/fonts/LICENSE-DejaVu share/simlab/lang/en.json \
    share/simlab/studies/image-meta/study.json $doc/LICENSE $doc/README.md \
    $doc/study-format.md $doc/python.md $doc/online.md $doc/power.md \
    $doc/analysis.md $doc/screenshots/start-screen.png \
    $doc/online/nginx-simlab.conf $doc/examples/kredit-de/make_bundle.py \
    $doc/examples/hase2020/README.md \
    lib/python3/dist-packages/simlab/__init__.py; do
    [ -e "$p/$f" ] || fail "$f not installed"
done
[ "$sdl" = ON ] && { [ -x "$p/bin/simlab-preview" ] || fail "simlab-preview not installed"; }
# every page the README's documentation table names
for page in $(sed -n 's/^| \[docs\/\([a-z-]*\.md\)\].*/\1/p' "$src/README.md"); do
    [ -e "$p/$doc/$page" ] || fail "README names docs/$page, not installed"
done
# The data is found beside the program, never where it was built: neither
# the source's assets nor the build's staging folder is named in them.
for prog in $programs; do
    if readelf -p .rodata "$p/bin/$prog" 2>/dev/null |
        grep -F -e "$src/assets" -e "$build/share" >"$tmp/paths"; then
        fail "$prog names a build-tree folder: $(head -1 "$tmp/paths")"
    fi
done

mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1
unset SIMLAB_ASSETS
n=0
for study in "$p"/share/simlab/studies/*/; do
    n=$((n + 1))
    "$p/bin/simlab" check "$study" >"$tmp/check.out" 2>&1 ||
        fail "installed simlab check $study: $(tail -3 "$tmp/check.out")"
done
[ "$n" -ge 5 ] || fail "only $n demo studies installed"
for ex in explanation-methods kredit-de numpy-model within questionnaire; do
    "$p/bin/simlab" check "$p/$doc/examples/$ex" >"$tmp/check.out" 2>&1 ||
        fail "installed example $ex: $(tail -3 "$tmp/check.out")"
done
if ! "$p/bin/simlab" simulate "$p/share/simlab/studies/text-forward" \
    --db sim.db --participants 8 --policy mixed --fast >sim.out 2>&1; then
    fail "installed simlab simulate: $(tail -3 sim.out)"
elif ! "$p/bin/simlab-analyze" sim.db --include-simulated --replicates 0 \
    --plots none --out report --quiet >an.out 2>&1 ||
    [ ! -s report/report.md ]; then
    fail "installed simlab-analyze: $(tail -3 an.out)"
fi
if [ "$sdl" = ON ]; then
    # the runner's window needs the fonts of share/simlab
    if ! SDL_VIDEODRIVER=dummy "$p/bin/simlab" selftest --seconds 1 \
        --out . >self.out 2>&1 || [ ! -s selftest.json ]; then
        fail "installed simlab selftest: $(tail -3 self.out)"
    fi
fi

# the Python package as Debian's python3 finds it (dist-packages), running
# the installed simlab found on PATH
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
if command -v "$py" >/dev/null 2>&1; then
    cat >"$tmp/study.py" <<'PY'
import os, sys, simlab
assert simlab.__file__.startswith(sys.argv[1]), simlab.__file__
s = simlab.Study(id="inst", title="Installed", classes=["pos", "neg"],
                 conditions={"baseline": None, "t": "t"},
                 protocol={"preset": "hase-forward", "n_learn": 4, "n_test": 8})
for pool, n in (("learn", 4), ("test", 8)):
    for k in range(n):
        s.add_item("%s%d" % (pool, k), pool=pool, input="a good film %d" % k,
                   label=["pos", "neg"][k % 2], prediction=["pos", "neg"][k // 2 % 2],
                   explanations={"t": simlab.tokens(["good", "film"], [0.5, -0.25])})
r = s.write("bundle")
assert r["valid"] and os.path.isfile("bundle/pages/consent.md"), r
PY
    if ! PATH="$p/bin:$PATH" PYTHONPATH="$p/lib/python3/dist-packages" \
        "$py" "$tmp/study.py" "$p/lib/python3/dist-packages" >py.out 2>&1; then
        fail "installed Python package: $(tail -5 py.out)"
    fi
    if "$py" -c "import numpy" 2>/dev/null &&
        ! PATH="$p/bin:$PATH" PYTHONPATH="$p/lib/python3/dist-packages" \
            "$py" "$p/$doc/examples/explanation-methods/make_bundle.py" \
            "$tmp/methods" >mb.out 2>&1; then
        fail "installed example's make_bundle.py: $(tail -5 mb.out)"
    fi
fi

if [ "$man" = ON ]; then
    for prog in $programs; do
        page="$p/share/man/man1/$prog.1.gz"
        if [ ! -s "$page" ]; then
            fail "no manual page $prog(1)"
            continue
        fi
        # roff writes a hyphen as \-
        gzip -dc "$page" | sed 's/\\-/-/g' >"$tmp/page"
        grep -q "^\.TH" "$tmp/page" || fail "$prog.1 is not a manual page"
        "$p/bin/$prog" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u \
            >"$tmp/opts"
        [ -s "$tmp/opts" ] || fail "$prog --help names no option"
        while read -r o; do
            grep -qE -- "$o([^a-z0-9-]|\$)" "$tmp/page" ||
                fail "$prog.1 does not mention $o"
        done <"$tmp/opts"
    done
    gzip -dc "$p/share/man/man1/simlab.1.gz" | sed 's/\\-/-/g' |
        grep -q "/usr/share/doc/simlab/examples" ||
        fail "simlab(1) does not say where the examples are"
fi
if [ "$fails" -ne 0 ]; then
    echo "$fails failures"
    exit 1
fi
echo "installed programs, data and manual pages: ok"
