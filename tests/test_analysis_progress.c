/*
** simlab-analyze's progress lines (analysis/progress.h) on a clock the test
** moves: nothing before 2 s, redrawn at most every 100 ms, ended at 100 %
** with a newline; silent without a clock or a stream.
*/
#include "tests/harness.h"

#include <stdlib.h>

#include "analysis/progress.h"

static int64_t now;

static int64_t fake_now(void *ctx)
{
    (void)ctx;
    return now;
}

static const SimWallClock CLOCK = {fake_now, NULL, NULL};

/* The stream's text so far (static buffer). */
static const char *text(FILE *f)
{
    static char buf[4096];
    long at = ftell(f);
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fseek(f, at, SEEK_SET);
    return buf;
}

static int count(const char *s, char c)
{
    int n = 0;
    for (; *s; s++) {
        n += *s == c;
    }
    return n;
}

static void test_quick_stage_is_silent(void)
{
    FILE *f = tmpfile();
    Progress p;
    now = 1000;
    progress_begin_to(&p, &CLOCK, "bootstrap", f);
    now = 2999; /* 1999 ms in: still quiet */
    progress_set(&p, 0.9, "9 of 10");
    progress_end(&p);
    CHECK_STR(text(f), "");
    fclose(f);
}

static void test_long_stage_draws_and_ends(void)
{
    FILE *f = tmpfile();
    Progress p;
    now = 0;
    progress_begin_to(&p, &CLOCK, "mixed model", f);
    now = 2000;
    progress_set(&p, 0.5, "full structure");
    const char *t = text(f);
    CHECK(strstr(t, "mixed model") != NULL);
    CHECK(strstr(t, " 50 %") != NULL);
    CHECK(strstr(t, "full structure") != NULL);
    CHECK(strstr(t, "[###############...............]") != NULL);
    CHECK_INT(count(t, '\r'), 1);
    now = 2050; /* within 100 ms of the last drawing: not redrawn */
    progress_set(&p, 0.6, "x");
    CHECK_INT(count(text(f), '\r'), 1);
    now = 2100;
    progress_set(&p, 0.7, "intercepts");
    CHECK_INT(count(text(f), '\r'), 2);
    CHECK(strstr(text(f), " 70 %") != NULL);
    now = 3500;
    progress_end(&p);
    t = text(f);
    CHECK_INT(count(t, '\r'), 3);
    CHECK(strstr(t, "100 %  done in 3.5 s") != NULL);
    CHECK_INT(count(t, '\n'), 1);
    CHECK(t[strlen(t) - 1] == '\n');
    progress_end(&p); /* a second end draws nothing more */
    CHECK_INT(count(text(f), '\n'), 1);
    fclose(f);
}

static void test_no_clock_or_stream(void)
{
    FILE *f = tmpfile();
    Progress p;
    now = 0;
    progress_begin_to(&p, NULL, "reading", f);
    now = 10000;
    progress_set(&p, 0.5, NULL);
    progress_end(&p);
    CHECK_STR(text(f), "");
    progress_begin_to(&p, &CLOCK, "reading", NULL);
    now = 20000;
    progress_set(&p, 0.5, NULL);
    progress_end(&p);
    CHECK(p.shown == 0);
    fclose(f);
}

int main(void)
{
    test_quick_stage_is_silent();
    test_long_stage_draws_and_ends();
    test_no_clock_or_stream();
    return TEST_REPORT();
}
