# The reference of glmm_bench: lme4's glmer on the benchmark's data, timed
# around the fit alone (reading the file and loading lme4 are not counted).
# usage: Rscript glmm_bench.R DATA.csv REPEATS
# Prints one line per repeat: "glmer ELAPSED_S USER_S LOGLIK".
suppressMessages(library(lme4))
a <- commandArgs(trailingOnly = TRUE)
d <- read.csv(a[1])
d$participant <- factor(d$participant)
d$item <- factor(d$item)
d$condition <- factor(d$condition, levels = c("baseline", "lime", "shap"))
d$phase <- factor(d$phase, levels = c("pre", "post"))
d$phasepost <- as.numeric(d$phase == "post")
for (r in seq_len(as.integer(a[2]))) {
    t <- system.time(m <- glmer(correct ~ phase * condition +
                                    (1 + phasepost | participant) +
                                    (1 | item), d, family = binomial))
    cat("glmer", t[["elapsed"]], t[["user.self"]],
        format(as.numeric(logLik(m)), digits = 12), "\n")
}
