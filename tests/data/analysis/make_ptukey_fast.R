# Goldens of stats_ptukey_fast (tests/test_analysis_stats.c): R's ptukey
# upper tail on a grid of k, df and q. Run from this directory:
#   Rscript make_ptukey_fast.R > ptukey_fast.txt
ks <- c(3, 4, 5, 6, 8, 10, 12)
dfs <- c(5, 10, 27, 57, 117, 400, 2000, Inf)
qs <- c(1, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 7, 8)
cat("# kind q k df P(Q > q) from R", R.version.string, "\n")
for (k in ks) for (df in dfs) for (q in qs) {
  p <- ptukey(q, k, df, lower.tail = FALSE)
  cat(sprintf("ptukey_fast %g %d %s %.12e\n", q, k,
              if (is.finite(df)) format(df) else "inf", p))
}
