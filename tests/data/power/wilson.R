# Golden values of test_power: the Wilson score interval (no continuity
# correction) as R's prop.test computes it. Run: Rscript wilson.R
for (case in list(c(7, 20), c(0, 50))) {
  ci <- prop.test(case[1], case[2], correct = FALSE)$conf.int
  cat(sprintf("%d of %d: %.12f %.12f\n", case[1], case[2], ci[1], ci[2]))
}
