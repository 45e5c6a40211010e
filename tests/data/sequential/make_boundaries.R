# Writes boundaries.txt: the two-sided group-sequential boundaries of
# Lan-DeMets alpha spending that analysis/sequential.c computes, from R's
# rpact, for tests/test_analysis_sequential.c. Needs R with rpact (Debian 12:
# apt-get install r-base-core r-cran-rpact; written with rpact 3.3.4).
# Run from this folder:  Rscript make_boundaries.R
# ctest runs it when Rscript and rpact are there and compares its output
# with the committed file (test_analysis_sequential_rpact).
suppressMessages(library(rpact))
args <- commandArgs(trailingOnly = TRUE)
out_file <- if (length(args) > 0) args[1] else "boundaries.txt"
designs <- list(
    list("obrien-fleming", 0.05, c(20, 40, 60)),
    list("pocock", 0.05, c(20, 40, 60)),
    list("obrien-fleming", 0.05, c(10, 25, 40)),
    list("pocock", 0.05, c(10, 25, 40)),
    list("obrien-fleming", 0.05, c(25, 50, 75, 100)),
    list("pocock", 0.05, c(25, 50, 75, 100)),
    list("obrien-fleming", 0.01, c(15, 30)),
    list("pocock", 0.01, c(15, 30)),
    list("obrien-fleming", 0.025, c(8, 12, 20, 30, 45)),
    list("pocock", 0.1, c(8, 12, 20, 30, 45)),
    list("obrien-fleming", 0.05, c(5, 50)),
    list("pocock", 0.05, c(5, 50)),
    list("obrien-fleming", 0.05, c(10, 20, 30, 40, 50, 60, 70, 80, 90, 100))
)
out <- file(out_file, "w")
cat(sprintf("# rpact %s, R %s.%s: getDesignGroupSequential(sided = 2, typeOfDesign = asOF | asP)\n",
            packageVersion("rpact"), R.version$major, R.version$minor),
    file = out)
cat("# SPENDING ALPHA LOOKS... | critical values... | cumulative alpha spent...\n",
    file = out)
num <- function(x) formatC(x, digits = 10, format = "g")
for (d in designs) {
    looks <- d[[3]]
    g <- getDesignGroupSequential(
        kMax = length(looks), alpha = d[[2]], sided = 2,
        typeOfDesign = if (d[[1]] == "pocock") "asP" else "asOF",
        informationRates = looks / max(looks))
    cat(d[[1]], num(d[[2]]), looks, "|", num(g$criticalValues), "|",
        num(g$alphaSpent), "\n", file = out)
}
close(out)
