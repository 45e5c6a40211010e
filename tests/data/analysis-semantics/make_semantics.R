# Writes the fixture semantics.csv (a small pre/post study with catch trials
# inside the Pre and Post blocks, a 1-5 rating scale, unanswered trials, an
# easy item and a misleading one) and the reference values goldens.txt that
# tests/test_analysis_semantics.c reads. Base R only:
#   Rscript make_semantics.R   (run in this folder)
set.seed(20201)
conds <- c("baseline", "lime")
items <- sprintf("i%d", 1:10)
rows <- list()
pid <- 0
for (ci in seq_along(conds)) {
  for (u in 1:8) {
    pid <- pid + 1
    part <- sprintf("p%02d", pid)
    skill <- rnorm(1, 0, 0.8)
    for (ph in c("pre", "post")) {
      lift <- if (ph == "post" && conds[ci] == "lime") 0.8 else 0
      for (j in seq_along(items)) {
        ease <- c(0.5, 0.2, 6, -0.3, 0.4, 0.1, -3, 0.6, -0.2, 0.3)[j]
        p <- plogis(ease + skill + lift)
        y <- as.integer(runif(1) < p)
        if (runif(1) < 0.04) y <- NA # unanswered
        rating <- if (ph == "post") sample(1:5, 1) else NA
        rows[[length(rows) + 1]] <- data.frame(
          participant = part, condition = conds[ci], phase = ph,
          item = items[j], correct = y, is_catch = 0L, domain = "text",
          test_type = if (j <= 5) "forward" else "counterfactual",
          rating = rating)
      }
      # a catch trial inside the block: wrong for p03, unanswered for p05
      yc <- if (part == "p03" && ph == "pre") 0L else
            if (part == "p05" && ph == "post") NA else 1L
      rows[[length(rows) + 1]] <- data.frame(
        participant = part, condition = conds[ci], phase = ph,
        item = sprintf("catch-%s", ph), correct = yc, is_catch = 1L,
        domain = "text", test_type = "forward",
        rating = if (ph == "post") 5L else NA)
    }
  }
}
d <- do.call(rbind, rows)
out <- d
out$correct <- ifelse(is.na(out$correct), "", as.character(out$correct))
out$rating <- ifelse(is.na(out$rating), "", as.character(out$rating))
write.csv(out, "semantics.csv", row.names = FALSE, quote = FALSE)

g <- character(0)
put <- function(key, value) g <<- c(g, sprintf("%s %.15g", key, value))
x <- d[d$is_catch == 0, ]

# change table: pairs answered in both Pre and Post, catch trials excluded
for (cn in conds) {
  a <- x[x$condition == cn & !is.na(x$correct), ]
  pre <- a[a$phase == "pre", c("participant", "item")]
  post <- a[a$phase == "post", c("participant", "item")]
  put(sprintf("pairs %s", cn), nrow(merge(pre, post)))
}

# participant accuracy per condition and phase: t.test interval
for (cn in conds) for (ph in c("pre", "post")) {
  a <- x[x$condition == cn & x$phase == ph & !is.na(x$correct), ]
  acc <- tapply(a$correct, a$participant, mean)
  tt <- t.test(acc)
  key <- sprintf("%s %s", cn, ph)
  put(paste("acc_n", key), length(acc))
  put(paste("acc_mean", key), mean(acc))
  put(paste("acc_sd", key), sd(acc))
  put(paste("acc_se", key), sd(acc) / sqrt(length(acc)))
  put(paste("acc_t_low", key), tt$conf.int[1])
  put(paste("acc_t_high", key), tt$conf.int[2])
}

# items: accuracy, item-rest correlation within the phase, binomial p
for (ph in c("pre", "post")) {
  a <- x[x$phase == ph & !is.na(x$correct), ]
  tot <- tapply(a$correct, a$participant, sum)
  num <- tapply(a$correct, a$participant, length)
  for (it in items) {
    b <- a[a$item == it, ]
    rest <- (tot[b$participant] - b$correct) / (num[b$participant] - 1)
    key <- sprintf("%s %s", ph, it)
    put(paste("item_n", key), nrow(b))
    put(paste("item_acc", key), mean(b$correct))
    r <- if (sd(b$correct) > 0) cor(b$correct, rest) else NA
    put(paste("item_rest", key), if (is.na(r)) NaN else r)
    put(paste("item_p", key),
        binom.test(sum(b$correct), nrow(b), 0.5, "less")$p.value)
  }
}

# ratings: catch trials (all rated 5) are left out
for (cn in conds) {
  a <- x[x$condition == cn & !is.na(x$rating), ]
  put(paste("rating_n", cn), nrow(a))
  put(paste("rating_mean", cn), mean(a$rating))
}
a <- x[!is.na(x$rating) & !is.na(x$correct), ]
fit <- glm(correct ~ rating, binomial, a)
put("logit_n", nrow(a))
put("logit_slope", coef(fit)[2])
# the chance level of an item: 1 / the options offered on trials with
# per-item answer options (item "four": 4 candidates, 6 of 40 right), else
# 1/2 (item "two": 15 of 40 right); the data are made in the test
put("item_chance_p four", binom.test(6, 40, 0.25, "less")$p.value)
put("item_chance_p two", binom.test(15, 40, 0.5, "less")$p.value)
writeLines(g, "goldens.txt")
