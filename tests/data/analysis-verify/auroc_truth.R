# The population AUROC of the simulated verify studies of
# tests/test_analysis_verify.c (test_auroc_coverage), in base R, into
# auroc_truth.txt. A trial's latent evidence that the model is right is
# s = a + u + v + e (a = 0.8 on the model's right predictions, -0.3 on its
# wrong ones; participant u and item v normal with SD 0.5, e standard
# normal): accept when s > 0, confidence 1-4 from |s| cut at 0.5, 1, 1.5.
# The score of the answer with its confidence (accept +k, reject -k) is s
# cut at -1.5, -1, -0.5, 0, 0.5, 1, 1.5, and the pooled AUROC of a study
# estimates P(score of a right prediction > score of a wrong one) +
# P(tie) / 2 for independent draws: s ~ N(a, sqrt(1.5)). Checked here by
# simulation too. Run: Rscript auroc_truth.R
cuts <- c(-Inf, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, Inf)
sigma <- sqrt(0.5^2 + 0.5^2 + 1)
levels_p <- function(a) diff(pnorm((cuts - a) / sigma))
pr <- levels_p(0.8)
pw <- levels_p(-0.3)
below <- c(0, cumsum(pw))[seq_along(pw)]
truth <- sum(pr * (below + pw / 2))
# the same by simulation of independent scores (a check of the formula)
set.seed(36)
n <- 2e6
sr <- findInterval(0.8 + sigma * rnorm(n), cuts)
sw <- findInterval(-0.3 + sigma * rnorm(n), cuts)
mc <- mean(sr > sw) + mean(sr == sw) / 2
stopifnot(abs(mc - truth) < 0.002)
writeLines(c("# population AUROC of test_auroc_coverage's simulated studies",
             sprintf("%.15f", truth)), "auroc_truth.txt")
