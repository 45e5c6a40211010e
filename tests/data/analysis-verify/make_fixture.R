# The verify-trial fixture of tests/test_analysis_verify.c and its golden
# values, in base R: verify.csv (3 conditions x 8 participants x 16 items,
# 8 on which the model is right; accept/reject with a 1-5 confidence) and
# goldens.txt (per condition: right, wrong, hits, false alarms, hit and
# false-alarm rates, d', criterion with the log-linear correction, AUROC by
# the Mann-Whitney identity). Condition "oracle" rejects every wrong
# prediction (hit rate 1: the correction keeps d' finite); condition
# "saliency" leaves model_correct empty, so it is derived from label and
# model_output. Run: Rscript make_fixture.R
set.seed(36)
conds <- c("baseline", "saliency", "oracle")
accept_p <- list(baseline = c(right = 0.8, wrong = 0.5),
                 saliency = c(right = 0.85, wrong = 0.3),
                 oracle = c(right = 0.7, wrong = 0.0))
items <- sprintf("img:%02d", 1:16)
label <- ifelse(seq_along(items) %% 2 == 0, "cat", "dog")
model_right <- seq_along(items) <= 8
model_output <- ifelse(model_right, label, ifelse(label == "cat", "dog", "cat"))
rows <- list()
for (cond in conds) {
  for (p in 1:8) {
    pid <- sprintf("%s-%d", substr(cond, 1, 1), p)
    for (j in seq_along(items)) {
      pa <- accept_p[[cond]][if (model_right[j]) "right" else "wrong"]
      acc <- runif(1) < pa
      # confidence 1-5, higher when the answer is right
      ok <- acc == model_right[j]
      conf <- sample(1:5, 1, prob = if (ok) c(1, 1, 2, 3, 3) else c(3, 3, 2, 1, 1))
      rows[[length(rows) + 1]] <- data.frame(
        participant = pid, condition = cond, phase = "test", item = items[j],
        correct = as.integer(ok), test_type = "verify", label = label[j],
        model_output = model_output[j],
        response = if (acc) "accept" else "reject", confidence = conf,
        model_correct = if (cond == "saliency") NA else as.integer(model_right[j]))
    }
  }
}
d <- do.call(rbind, rows)
write.csv(d, "verify.csv", row.names = FALSE, na = "", quote = FALSE)

d <- read.csv("verify.csv", na.strings = "")
d$mc <- as.integer(d$label == d$model_output)
out <- c("# condition right wrong hits false_alarms hit_rate false_alarm_rate",
         "#   accuracy d_prime criterion auroc")
for (cond in conds) {
  x <- d[d$condition == cond, ]
  rej <- x$response == "reject"
  nr <- sum(x$mc == 1); nw <- sum(x$mc == 0)
  hits <- sum(rej & x$mc == 0); fas <- sum(rej & x$mc == 1)
  zh <- qnorm((hits + 0.5) / (nw + 1)); zf <- qnorm((fas + 0.5) / (nr + 1))
  score <- ifelse(rej, -x$confidence, x$confidence)
  w <- wilcox.test(score[x$mc == 1], score[x$mc == 0], exact = FALSE)$statistic
  out <- c(out, sprintf("%s %d %d %d %d %.12f %.12f %.12f %.12f %.12f %.12f",
                        cond, nr, nw, hits, fas, hits / nw, fas / nr,
                        mean(x$correct), zh - zf, -(zh + zf) / 2,
                        w / (nr * nw)))
}
writeLines(out, "goldens.txt")

# The mixed model of error detection, refitted with lme4 (Laplace, as
# simlab-analyze) on the rows of baseline and saliency (oracle's hit rate
# of 1 separates): glmm_goldens.txt holds term, estimate, SE. The
# reference condition is the first of the data ("baseline").
if (requireNamespace("lme4", quietly = TRUE)) {
  d <- d[d$condition != "oracle", ]
  d$condition <- factor(d$condition, levels = conds[1:2])
  d$model_correct <- d$mc
  m <- lme4::glmer(correct ~ condition * model_correct + (1 | participant) +
                     (1 | item), data = d, family = binomial,
                   control = lme4::glmerControl(optimizer = "bobyqa"))
  co <- summary(m)$coefficients
  writeLines(c("# term estimate se (lme4 glmer, Laplace)",
               sprintf("%s %.10f %.10f", rownames(co), co[, 1], co[, 2])),
             "glmm_goldens.txt")
}
