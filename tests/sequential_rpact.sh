#!/bin/sh
# Runs tests/data/sequential/make_boundaries.R with R's rpact into a
# temporary file and checks analysis/sequential.c against it (the test
# binary given first). Skips (77) without Rscript or rpact.
set -eu
test_bin=$1
script=$2
command -v "${SIMLAB_RSCRIPT:-Rscript}" >/dev/null 2>&1 || {
    echo "skipped: no Rscript (apt-get install r-base-core r-cran-rpact)"
    exit 77
}
"${SIMLAB_RSCRIPT:-Rscript}" -e 'quit(status = !requireNamespace("rpact", quietly = TRUE))' \
    >/dev/null 2>&1 || { echo "skipped: R has no rpact (apt-get install r-cran-rpact)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${SIMLAB_RSCRIPT:-Rscript}" "$script" "$tmp/boundaries.txt"
"$test_bin" "$tmp/boundaries.txt"
