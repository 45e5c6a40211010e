/*
** Tests of the common helpers: RNG determinism and bounds, UTF-8 checks,
** SimBuf, allocation failure injection.
*/
#include "tests/harness.h"
#include "common/sim_alloc.h"
#include "common/sim_error.h"
#include "common/sim_rng.h"
#include "common/sim_text.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

static void test_rng(void)
{
    SimRng a, b;
    sim_rng_seed(&a, 42);
    sim_rng_seed(&b, 42);
    int same = 1;
    for (int i = 0; i < 100; i++) {
        same &= sim_rng_next(&a) == sim_rng_next(&b);
    }
    CHECK(same);

    /* bounded draws stay in range and are roughly uniform */
    int counts[7] = {0};
    for (int i = 0; i < 70000; i++) {
        uint64_t v = sim_rng_below(&a, 7);
        CHECK(v < 7 || !"out of range");
        if (v < 7) {
            counts[v]++;
        }
    }
    for (int k = 0; k < 7; k++) {
        CHECK(counts[k] > 9500 && counts[k] < 10500);
    }

    /* streams differ from each other and are reproducible */
    SimRng s1, s2, s1b;
    sim_rng_seed_stream(&s1, 7, 1);
    sim_rng_seed_stream(&s2, 7, 2);
    sim_rng_seed_stream(&s1b, 7, 1);
    uint64_t x1 = sim_rng_next(&s1);
    CHECK(x1 != sim_rng_next(&s2));
    CHECK(x1 == sim_rng_next(&s1b));

    double sum = 0, sum2 = 0;
    for (int i = 0; i < 100000; i++) {
        double z = sim_rng_normal(&a);
        sum += z;
        sum2 += z * z;
    }
    CHECK_NEAR(sum / 100000, 0.0, 0.02);
    CHECK_NEAR(sum2 / 100000, 1.0, 0.03);

    int arr[50];
    for (int i = 0; i < 50; i++) {
        arr[i] = i;
    }
    sim_rng_shuffle(&a, arr, 50, sizeof arr[0]);
    int seen[50] = {0}, moved = 0;
    for (int i = 0; i < 50; i++) {
        seen[arr[i]]++;
        moved += arr[i] != i;
    }
    int perm = 1;
    for (int i = 0; i < 50; i++) {
        perm &= seen[i] == 1;
    }
    CHECK(perm);
    CHECK(moved > 30);
}

static void test_text(void)
{
    CHECK(sim_utf8_valid("caf\xc3\xa9", 5, NULL));
    size_t bad = 99;
    CHECK(!sim_utf8_valid("ab\xc3(", 4, &bad));
    CHECK_INT(bad, 2);
    CHECK(!sim_utf8_valid("\xed\xa0\x80", 3, NULL)); /* surrogate */
    CHECK(!sim_utf8_valid("\xc0\xaf", 2, NULL));     /* overlong */

    SimBuf b;
    sim_buf_init(&b);
    CHECK_STR(sim_buf_cstr(&b), "");
    sim_buf_printf(&b, "%d-%s", 12, "ab");
    sim_buf_puts(&b, "!");
    CHECK_STR(sim_buf_cstr(&b), "12-ab!");
    char *s = sim_buf_take(&b);
    CHECK_STR(s, "12-ab!");
    sim_free(s);

    char t[] = "  x y \r\n";
    CHECK_STR(sim_trim(t), "x y");

    /* sim_format_int against snprintf, at the edges of the range */
    const long long vals[] = {0,         7,         -7,        10,
                              99,        100,       -1000,     123456789,
                              INT32_MAX, INT32_MIN, LLONG_MAX, LLONG_MIN};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        char want[32], got[32];
        snprintf(want, sizeof want, "p%lld", vals[i]);
        CHECK_STR(sim_format_int(got, "p", vals[i]), want);
        snprintf(want, sizeof want, "%lld", vals[i]);
        CHECK_STR(sim_format_int(got, NULL, vals[i]), want);
    }
}

static void test_alloc(void)
{
    sim_alloc_fail_after(1);
    void *p = sim_malloc(10);
    void *q = sim_malloc(10);
    CHECK(p != NULL);
    CHECK(q == NULL);
    sim_alloc_fail_after(-1);
    sim_free(p);

    SimError err;
    CHECK_INT(sim_fail(&err, SIM_ERR_PARSE, "%s:%d: field '%s': empty", "a.csv",
                       3, "id"),
              SIM_ERR_PARSE);
    CHECK_STR(err.msg, "a.csv:3: field 'id': empty");
}

int main(void)
{
    test_rng();
    test_text();
    test_alloc();
    return TEST_REPORT();
}
