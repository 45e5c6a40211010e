# Within-subject fixture for tests/test_analysis_within.c: writes
# within.csv (simlab long format v1: every participant in every condition)
# and within_goldens.txt (paired t tests against the baseline with Holm's
# adjustment, the repeated-measures ANOVA with the Greenhouse-Geisser
# correction, group means). Run from this folder: Rscript make_within.R
# Needs r-base-core and r-cran-car (Debian bookworm: R 4.2.2, car 3.1-1).
set.seed(20261124)
conds <- c("baseline", "lime", "anchor", "shap")
effect <- c(0, 0.6, 0.1, 1.0)      # logit shifts
n_part <- 20
n_items <- 12
rows <- list()
for (p in seq_len(n_part)) {
  pid <- sprintf("P%02d", p)
  ability <- rnorm(1, 0, 0.8)
  # participant x condition slopes of unequal spread: sphericity fails
  slope <- rnorm(4, 0, c(0.1, 0.9, 0.3, 1.4))
  for (c in seq_along(conds)) {
    for (j in seq_len(n_items)) {
      prob <- plogis(0.2 + ability + effect[c] + slope[c])
      y <- rbinom(1, 1, prob)
      if (p == 20 && conds[c] == "shap") y <- NA  # seen, never answered
      rows[[length(rows) + 1]] <- data.frame(
        participant = pid, condition = conds[c], phase = "test",
        item = sprintf("%s-%02d", conds[c], j), correct = y, session = 1,
        is_catch = 0, excluded = 0)
    }
    # one catch trial per condition (left out of the accuracies)
    rows[[length(rows) + 1]] <- data.frame(
      participant = pid, condition = conds[c], phase = "test",
      item = sprintf("%s-catch", conds[c]), correct = 0, session = 1,
      is_catch = 1, excluded = 0)
  }
}
d <- do.call(rbind, rows)
# an excluded participant who would change every number
for (c in seq_along(conds)) {
  d <- rbind(d, data.frame(participant = "X99", condition = conds[c],
                           phase = "test", item = sprintf("%s-01", conds[c]),
                           correct = as.integer(c == 1), session = 1,
                           is_catch = 0, excluded = 1))
}
d <- d[sample(nrow(d)), ]  # row order must not matter
out <- d
out$correct <- ifelse(is.na(out$correct), "", as.character(out$correct))
write.csv(out, "within.csv", row.names = FALSE, quote = FALSE)

# --- goldens, from the file as written ---
x <- read.csv("within.csv", na.strings = "")
x <- x[x$excluded == 0 & x$is_catch == 0 & !is.na(x$correct), ]
acc <- aggregate(correct ~ participant + condition, data = x, FUN = mean)
wide <- reshape(acc, idvar = "participant", timevar = "condition",
                direction = "wide")
names(wide) <- sub("correct.", "", names(wide), fixed = TRUE)
wide <- wide[order(wide$participant), c("participant", conds)]

f <- function(v) sprintf("%.15g", v)
lines <- c()
pv <- c(); res <- list()
for (c in conds[-1]) {
  ok <- !is.na(wide$baseline) & !is.na(wide[[c]])
  tt <- t.test(wide[[c]][ok], wide$baseline[ok], paired = TRUE)
  res[[c]] <- c(sum(ok), unname(tt$estimate), unname(tt$statistic),
                unname(tt$parameter), tt$p.value, tt$conf.int)
  pv <- c(pv, tt$p.value)
}
holm <- p.adjust(pv, "holm")
for (i in seq_along(conds[-1])) {
  c <- conds[-1][i]; v <- res[[c]]
  lines <- c(lines, paste("paired baseline", c, v[1], f(v[2]), f(v[3]),
                          f(v[4]), f(v[5]), f(holm[i]), f(v[6]), f(v[7])))
}

comp <- wide[complete.cases(wide), ]
long <- reshape(comp, direction = "long", varying = conds, v.names = "acc",
                timevar = "cond", times = conds, idvar = "participant")
long$cond <- factor(long$cond, levels = conds)
long$participant <- factor(long$participant)
fit <- summary(aov(acc ~ cond + Error(participant/cond), data = long))
tab <- fit[["Error: participant:cond"]][[1]]
Fv <- tab[["F value"]][1]; df1 <- tab[["Df"]][1]; df2 <- tab[["Df"]][2]
ss_c <- tab[["Sum Sq"]][1]; ss_e <- tab[["Sum Sq"]][2]
# Greenhouse-Geisser epsilon from the covariance matrix of the conditions
S <- cov(as.matrix(comp[, conds]))
k <- length(conds)
C <- diag(k) - matrix(1 / k, k, k)
Sc <- C %*% S %*% C
eps <- sum(diag(Sc))^2 / ((k - 1) * sum(Sc^2))
# the same from car's multivariate repeated-measures ANOVA
mlm <- lm(as.matrix(comp[, conds]) ~ 1)
idata <- data.frame(cond = factor(conds, levels = conds))
av <- car::Anova(mlm, idata = idata, idesign = ~cond, type = "III")
gg <- summary(av, multivariate = FALSE)$pval.adjustments
stopifnot(abs(gg["cond", "GG eps"] - eps) < 1e-12)
p_gg <- pf(Fv, eps * df1, eps * df2, lower.tail = FALSE)
stopifnot(abs(gg["cond", "Pr(>F[GG])"] - p_gg) < 1e-12)
lines <- c(lines, paste("rm", nrow(comp), k, f(Fv), df1, df2,
                        f(tab[["Pr(>F)"]][1]), f(ss_c / (ss_c + ss_e)),
                        f(eps), f(p_gg)))
for (c in conds) {
  lines <- c(lines, paste("group", c, nrow(comp), f(mean(comp[[c]])),
                          f(sd(comp[[c]]))))
}
# p.adjust(holm) with a missing value, ties and the clamp at 1
hp <- c(0.01, 0.04, NA, 0.03, 0.5, 0.04, 0.2)
lines <- c(lines, paste("holm_in", paste(ifelse(is.na(hp), "nan", f(hp)),
                                         collapse = " ")))
ha <- p.adjust(hp, "holm")
lines <- c(lines, paste("holm_out", paste(ifelse(is.na(ha), "nan", f(ha)),
                                          collapse = " ")))
writeLines(lines, "within_goldens.txt")
