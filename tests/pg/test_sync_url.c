/*
** Passwords never leave a URL simlab prints or stores: sim_url_redact()
** on URLs and key=value strings (no server needed).
*/
#include "tests/harness.h"

#include "common/sim_url.h"

static void check(const char *url, const char *want)
{
    char out[256];
    sim_url_redact(url, out, sizeof out);
    CHECK_STR(out, want);
    CHECK(strstr(out, "s3cret") == NULL);
}

int main(void)
{
    CHECK(sim_url_is_pg("postgresql://h/db"));
    CHECK(sim_url_is_pg("postgres://h/db"));
    CHECK(!sim_url_is_pg("/tmp/a.db"));
    CHECK(!sim_url_is_pg(NULL));
    check("postgresql://lab:s3cret@db.example.org:5432/study",
          "postgresql://lab@db.example.org:5432/study");
    check("postgres://lab@db.example.org/study",
          "postgres://lab@db.example.org/study");
    check("postgresql://db.example.org/study",
          "postgresql://db.example.org/study");
    check("postgresql:///study?host=/run/pg&password=s3cret&sslmode=require",
          "postgresql:///study?host=/run/pg&sslmode=require");
    check("postgresql://u:s3cret@h/db?password=s3cret", "postgresql://u@h/db");
    check("postgresql://u:p%40s3cret@h/db", "postgresql://u@h/db");
    check("host=h dbname=study password=s3cret sslmode=verify-full",
          "host=h dbname=study sslmode=verify-full");
    check("host=h password='s3cret word' dbname=x", "host=h dbname=x");
    /* truncation keeps a terminated prefix */
    char small[12];
    sim_url_redact("postgresql://u:s3cret@host/db", small, sizeof small);
    CHECK_STR(small, "postgresql:");
    return TEST_REPORT();
}
