# Golden values of the "timeouts" and "confidence" tables and of the
# accuracy table for timeouts.csv (timeouts are missing, not wrong; catch
# trials left out). Run: Rscript make_goldens.R > goldens.txt
d <- read.csv("timeouts.csv", na.strings = "")
d <- d[d$is_catch == 0, ]
for (cond in c("baseline", "lime")) {
  x <- d[d$condition == cond, ]
  asked <- x[!is.na(x$correct) | x$timed_out == 1, ]
  cat(sprintf("timeouts %s test %d %d %.10f\n", cond, nrow(asked),
              sum(asked$timed_out), mean(asked$timed_out)))
  cf <- x[!is.na(x$confidence), ]
  r <- cf[!is.na(cf$correct) & cf$correct == 1, ]
  w <- cf[!is.na(cf$correct) & cf$correct == 0, ]
  cat(sprintf("confidence %s %d %.10f %d %.10f %d %.10f\n", cond,
              nrow(cf), mean(cf$confidence), nrow(r), mean(r$confidence),
              nrow(w), mean(w$confidence)))
  a <- x[!is.na(x$correct), ]
  acc <- tapply(a$correct, a$participant, mean)
  acc <- acc[!is.na(acc)]
  cat(sprintf("accuracy %s test %d %.10f\n", cond, length(acc), mean(acc)))
}
