#!/bin/sh
# scripts/fetch-hase2020.sh --from DIR, run on the published workbooks kept
# in the shared data folder (SHARED/data/hase2020/original-xlsx) into a
# temporary copy of examples/hase2020: it installs the four data/ folders
# exactly as the reference CSV conversion (SHARED/data/hase2020/<domain>),
# `simlab check` accepts the studies, and a corrupted or missing workbook
# stops it with a clear message before anything is replaced.
# Skips (77) when the shared data are absent.
# Usage: test_fetch_hase2020.sh SOURCE_DIR SHARED_DIR [SIMLAB]
set -u
src=$1
shared=$2/data/hase2020
simlab=${3:-}
if [ ! -d "$shared/original-xlsx" ]; then
    echo "skipped: the published Hase & Bansal 2020 workbooks are not at" \
        "$shared/original-xlsx (set SIMLAB_SHARED_DIR)"
    exit 77
fi
fetch=$src/scripts/fetch-hase2020.sh
studies="text-forward text-counterfactual tabular-forward tabular-counterfactual"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
# tree_sum DIR: one checksum of every file under DIR (names and contents)
tree_sum() {
    (cd "$1" && find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum)
}

cp -R "$src/examples/hase2020" "$tmp/examples"
for s in $studies; do
    rm -rf "$tmp/examples/$s/data"
done
mkdir "$tmp/examples/text-forward/data"
echo stale >"$tmp/examples/text-forward/data/stale.txt"

# 1. the published workbooks: installed, identical to the reference CSVs
if ! "$fetch" --from "$shared/original-xlsx" --dest "$tmp/examples" \
    >"$tmp/out" 2>"$tmp/err"; then
    fail "fetch from the published workbooks"
    cat "$tmp/out" "$tmp/err"
fi
grep -q "72 workbooks verified" "$tmp/out" || fail "no workbook verification"
grep -q "72 CSV files verified" "$tmp/out" || fail "no CSV verification"
for s in $studies; do
    d=${s%%-*}
    if ! diff -r "$tmp/examples/$s/data" \
        "$shared/$d/data/HIT-data-public-final" >"$tmp/diff" 2>&1; then
        fail "$s/data differs from the reference conversion"
        head -20 "$tmp/diff"
    fi
    if [ -n "$simlab" ]; then
        "$simlab" check "$tmp/examples/$s" >"$tmp/check" 2>&1 ||
            { fail "simlab check $s"; cat "$tmp/check"; }
    fi
done
[ ! -e "$tmp/examples/text-forward/data/stale.txt" ] ||
    fail "the old data/ folder was not replaced"
before=$(tree_sum "$tmp/examples")

# 2. one corrupted workbook: exit 1, named in the message, nothing touched
cp -R "$shared/original-xlsx" "$tmp/bad"
bad=text/data/HIT-data-public-final/Master-Data-Files/master-forward.xlsx
chmod -R u+w "$tmp/bad"
printf 'x' >>"$tmp/bad/$bad"
"$fetch" --from "$tmp/bad" --dest "$tmp/examples" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "corrupted workbook: exit $rc, want 1"
grep -q "checksum mismatch for $bad" "$tmp/err" ||
    { fail "corrupted workbook not named"; cat "$tmp/err"; }
grep -q "nothing was installed" "$tmp/err" || fail "no 'nothing was installed'"
[ "$(grep -c "checksum mismatch" "$tmp/err")" -eq 1 ] ||
    fail "more than the corrupted workbook reported"
[ "$(tree_sum "$tmp/examples")" = "$before" ] ||
    fail "a failed fetch changed the examples"

# 3. a missing workbook: exit 1, named, nothing touched
rm -rf "$tmp/bad"
cp -R "$shared/original-xlsx" "$tmp/bad"
gone=tabular/data/HIT-data-public-final/Tests/Validity/validity-LIME.xlsx
chmod -R u+w "$tmp/bad"
rm "$tmp/bad/$gone"
"$fetch" --from "$tmp/bad" --dest "$tmp/examples" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "missing workbook: exit $rc, want 1"
grep -q "missing file $gone" "$tmp/err" ||
    { fail "missing workbook not named"; cat "$tmp/err"; }
[ "$(tree_sum "$tmp/examples")" = "$before" ] ||
    fail "a failed fetch changed the examples"

# 4. usage errors
"$fetch" --from >/dev/null 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "--from without DIR: exit $rc, want 2"
"$fetch" --from "$tmp/no-such-dir" --dest "$tmp/examples" >/dev/null 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "--from a missing folder: exit $rc, want 1"

if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "fetch-hase2020: all checks passed"
