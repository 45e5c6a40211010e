# Writes the explanation-metrics fixtures of tests/data/metrics and their R
# reference values (metrics_goldens.txt), read by
# tests/test_analysis_metrics.c. Only for regenerating them: ctest never
# runs R. Needs R with lme4 (Debian 12: apt-get install r-base-core
# r-cran-lme4). Run from this folder:  Rscript make_metrics.R
# Every draw is seeded, so the same R version rewrites the same files.
suppressMessages(library(lme4))
options(digits = 12)
logistic <- function(x) 1 / (1 + exp(-x))

# Test rows: a baseline and five methods, 12 participants each, 16 items.
set.seed(35)
conds <- c("baseline", "alpha", "beta", "gamma", "delta", "eps")
beff <- c(0, 0.9, 0.2, 0.55, -0.3, 0.4)
nper <- 12; nitems <- 16
np <- nper * length(conds)
part <- sprintf("P%03d", seq_len(np))
cond <- rep(conds, times = nper)
u <- 0.6 * rnorm(np)
v <- 0.8 * rnorm(nitems)
# an item covariate per method: where it is high, that method helps more
mask <- matrix(runif(length(conds) * nitems), length(conds), nitems)
slope <- c(0, 1.2, 0, -0.8, 0, 0.5)
d <- expand.grid(i = seq_len(nitems), p = seq_len(np))
ci <- match(cond[d$p], conds)
eta <- 0.2 + beff[ci] + u[d$p] + v[d$i] +
    slope[ci] * (mask[cbind(ci, d$i)] - 0.5) * 2
d$correct <- rbinom(nrow(d), 1, logistic(eta))
long <- data.frame(participant = part[d$p], condition = cond[d$p],
                   phase = "test", item = sprintf("q%02d", d$i),
                   correct = d$correct, session = "", is_catch = 0,
                   excluded = 0)
write.csv(long, "data.csv", row.names = FALSE, quote = FALSE)

# metrics.csv: a method-level score with a tie, an item-level metric (the
# methods' mean is what the correlation uses), a lower-is-better score
methods <- conds[-1]
faith <- c(alpha = 0.81, beta = 0.40, gamma = 0.62, delta = 0.40, eps = 0.70)
sparsity <- c(alpha = 12, beta = 30, gamma = 18, delta = 25, eps = 9)
rows <- data.frame(method = methods, item = "", metric = "faithfulness",
                   value = faith[methods], higher_is_better = 1,
                   description = "deletion AUC, normalised")
rows <- rbind(rows, data.frame(method = methods, item = "",
                               metric = "sparsity",
                               value = sparsity[methods],
                               higher_is_better = 0,
                               description = "pixels for 90 % of the mass"))
for (m in methods) {
    k <- match(m, conds)
    rows <- rbind(rows, data.frame(method = m,
                                   item = sprintf("q%02d", seq_len(nitems)),
                                   metric = "mass_in_mask",
                                   value = round(mask[k, ], 4),
                                   higher_is_better = 1,
                                   description = "relevance mass inside the mask"))
}
write.csv(rows, "metrics.csv", row.names = FALSE, quote = TRUE)

out <- file("metrics_goldens.txt", "w")
# the human effect: the mixed model's condition terms against the baseline
long$condition <- factor(long$condition, levels = conds)
# (PIRLS tolerance tightened as in tests/data/glmm: the optimum to more
# digits than lme4's default stops at)
fit <- glmer(correct ~ condition + (1 | participant) + (1 | item),
             data = long, family = binomial,
             control = glmerControl(tolPwrss = 1e-13))
eff <- fixef(fit)[paste0("condition", methods)]
names(eff) <- methods
for (m in methods) cat("effect", m, format(unname(eff[m]), digits = 12), "\n",
                       file = out)
item_mean <- sapply(methods, function(m)
    mean(rows$value[rows$metric == "mass_in_mask" & rows$method == m]))
vals <- list(faithfulness = faith[methods], sparsity = sparsity[methods],
             mass_in_mask = item_mean)
for (k in names(vals)) {
    x <- unname(vals[[k]]); y <- unname(eff)
    tau <- suppressWarnings(cor.test(x, y, method = "kendall", exact = FALSE))
    rho <- suppressWarnings(cor.test(x, y, method = "spearman", exact = FALSE))
    cat("cor", k, format(unname(tau$estimate), digits = 12),
        format(unname(rho$estimate), digits = 12), "\n", file = out)
}
# rank correlations of vectors with ties, for the unit test
x <- c(1, 2, 2, 3, 5, 5, 5, 8)
y <- c(2, 1, 4, 4, 6, 3, 9, 9)
tau <- suppressWarnings(cor.test(x, y, method = "kendall", exact = FALSE))
rho <- suppressWarnings(cor.test(x, y, method = "spearman", exact = FALSE))
cat("ties", format(unname(tau$estimate), digits = 12),
    format(unname(rho$estimate), digits = 12), "\n", file = out)
close(out)

# The item level: mass_in_mask as a covariate, one slope per method
# (correct ~ condition + condition:metric_z + (1 | participant) + (1 | item)),
# the metric standardised over the method x item values.
mm <- rows[rows$metric == "mass_in_mask", ]
z <- (mm$value - mean(mm$value)) / sd(mm$value)
key <- paste(mm$method, mm$item)
long$mz <- 0
hit <- match(paste(long$condition, long$item), key)
long$mz[!is.na(hit)] <- z[hit[!is.na(hit)]]
for (m in methods) long[[paste0("z_", m)]] <- ifelse(long$condition == m,
                                                      long$mz, 0)
f <- as.formula(paste("correct ~ condition +",
                      paste0("z_", methods, collapse = " + "),
                      "+ (1 | participant) + (1 | item)"))
fit2 <- glmer(f, data = long, family = binomial,
              control = glmerControl(tolPwrss = 1e-13))
co <- summary(fit2)$coefficients
out <- file("metrics_goldens.txt", "a")
for (m in methods) {
    r <- co[paste0("z_", m), ]
    cat("item", m, format(r[["Estimate"]], digits = 12),
        format(r[["Std. Error"]], digits = 12), "\n", file = out)
}
close(out)
