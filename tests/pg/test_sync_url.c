/*
** Passwords never leave a connection string simlab prints or stores:
** sim_url_redact() and sim_url_scrub() on every form libpq reads (URIs,
** key=value words, percent-encoding, quoting, nested strings), and
** strings libpq cannot read are never quoted (no server needed).
*/
#include "tests/harness.h"

#include "common/sim_escape.h"
#include "common/sim_url.h"

/* The redaction of url is want and holds no trace of secret (NULL: the
** url has none). */
static void check(const char *url, const char *want, const char *secret)
{
    char out[512];
    sim_url_redact(url, out, sizeof out);
    if (want) {
        CHECK_STR(out, want);
    }
    CHECK(strstr(out, "s3cret") == NULL);
    if (!secret) { /* nothing to hide */
        return;
    }
    if (strstr(out, secret) != NULL) {
        fprintf(stderr, "%s -> %s\n", url, out);
    }
    CHECK(strstr(out, secret) == NULL);
    /* a message quoting the string loses the secret too */
    char msg[1024], clean[1024];
    snprintf(msg, sizeof msg, "cannot connect to \"%s\": %s", url, secret);
    sim_url_scrub(url, msg, clean, sizeof clean);
    if (strstr(clean, secret) != NULL) {
        fprintf(stderr, "scrub: %s -> %s\n", msg, clean);
    }
    CHECK(strstr(clean, secret) == NULL);
    CHECK(strstr(clean, "***") != NULL);
}

static void forms(void)
{
    check("postgresql://lab:s3cret@db.example.org:5432/study",
          "postgresql://lab@db.example.org:5432/study", "s3cret");
    check("postgres://lab@db.example.org/study",
          "postgresql://lab@db.example.org/study", NULL);
    check("postgresql://db.example.org/study",
          "postgresql://db.example.org/study", NULL);
    check("postgresql:///study?host=/run/pg&password=s3cret&sslmode=require",
          "postgresql:///study?host=%2Frun%2Fpg&sslmode=require", "s3cret");
    check("postgresql://u:s3cret@h/db?password=s3cret", "postgresql://u@h/db",
          "s3cret");
    /* percent-encoded password, and a percent-encoded key */
    check("postgresql://u:p%40s3cret@h/db", "postgresql://u@h/db", "p@s3cret");
    check("postgresql://u@h/db?pass%77ord=s3cret", "postgresql://u@h/db",
          "s3cret");
    /* '?' and '%3F' inside a URI password */
    check("postgresql://u:s3cret?x@h/db", "postgresql://u@h/db", "s3cret?x");
    check("postgresql://u:s3%3Fcret@h/db", "postgresql://u@h/db", "s3?cret");
    /* several hosts, IPv6, a socket directory as host */
    check("postgresql://u:s3cret@h1:5432,h2:5433/db",
          "postgresql://u@/db?host=h1%2Ch2&port=5432%2C5433", "s3cret");
    check("postgresql://u:s3cret@[::1]:5432/db", "postgresql://u@[::1]:5432/db",
          "s3cret");
    check("postgresql://u:s3cret@%2Ftmp/db", "postgresql://u@/db?host=%2Ftmp",
          "s3cret");
    /* key=value words: plain, spaced, quoted, escaped, first, tabs */
    check("host=h dbname=study password=s3cret sslmode=verify-full",
          "postgresql://h/study?sslmode=verify-full", "s3cret");
    check("host=h password = s3cret dbname=x", "postgresql://h/x", "s3cret");
    check("host=h password='s3cret word' dbname=x", "postgresql://h/x",
          "s3cret word");
    check("host=h password='s3\\'cret' dbname=x", "postgresql://h/x",
          "s3'cret");
    check("host=h password=s3\\ cret dbname=x", "postgresql://h/x", "s3 cret");
    check("password=s3cret host=h", "postgresql://h/", "s3cret");
    check("host=h\tpassword=s3cret\ndbname=x", "postgresql://h/x", "s3cret");
    /* the TLS key's passphrase is a secret too */
    check("postgresql://u@h/db?sslpassword=s3cret&sslmode=require",
          "postgresql://u@h/db?sslmode=require", "s3cret");
    /* a connection string as the database name: hidden whole */
    check("host=h dbname='postgresql://u:s3cret@h2/db'", "postgresql://h/***",
          "s3cret");
    check("host=h user=u dbname='host=x password=s3cret'",
          "postgresql://u@h/***", "s3cret");
    /* odd characters in names are percent-encoded, never raw */
    check("host=h user='a b' dbname='d\x1b[2J'",
          "postgresql://a%20b@h/d%1B%5B2J", NULL);
    check("service=lab password=s3cret", "postgresql:///?service=lab",
          "s3cret");
}

/* Strings libpq cannot read: never quoted, by redaction, validity check or
** scrub. */
static void unreadable(void)
{
    const char *bad[] = {
        "postgresql://u:s3cret%@h/db",   /* a stray percent */
        "postgresql://u:s3cret@[::1/db", /* IPv6 without its bracket */
        "postgresql://u:s3cret@h/db?x=%zz",
        "host=h password='s3cret", /* unterminated quote */
        "host=h s3cret",           /* a word without = */
        "postgresql://u:s3cret@h/db?nosuch=1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char out[512], why[256], clean[512];
        sim_url_redact(bad[i], out, sizeof out);
        CHECK(strstr(out, "s3cret") == NULL);
        CHECK(strstr(out, "cannot read") != NULL);
        why[0] = '\0';
        CHECK(!sim_url_valid(bad[i], why, sizeof why));
        CHECK(why[0] != '\0');
        CHECK(strstr(why, "s3cret") == NULL);
        sim_url_scrub(bad[i], bad[i], clean, sizeof clean);
        CHECK(strstr(clean, "s3cret") == NULL);
    }
    CHECK(sim_url_valid("postgresql://h/db", NULL, 0));
    CHECK(sim_url_valid("host=h dbname=x", NULL, 0));
}

static void escapes(void)
{
    char out[128];
    CHECK_STR(sim_escape_term("room\x1b[31mA", out, sizeof out),
              "room\\x1B[31mA");
    CHECK_STR(sim_escape_term("a\tb\nc", out, sizeof out), "a\\x09b\\x0Ac");
    /* U+202E (right-to-left override) and U+2066 (left-to-right isolate) */
    CHECK_STR(sim_escape_term("x\xE2\x80\xAEy\xE2\x81\xA6z", out, sizeof out),
              "x\\u202Ey\\u2066z");
    /* DEL, C1 (U+009B, a CSI) and a byte that is no UTF-8 */
    CHECK_STR(sim_escape_term("a\x7f"
                              "b\xC2\x9B"
                              "c\xFF",
                              out, sizeof out),
              "a\\x7Fb\\x9Bc\\xFF");
    /* German, Chinese and Arabic text stays as it is */
    CHECK_STR(sim_escape_term("Gr\xC3\xBC\xC3\x9F"
                              "e \xE4\xBD\xA0 \xD8\xB3",
                              out, sizeof out),
              "Gr\xC3\xBC\xC3\x9F"
              "e \xE4\xBD\xA0 \xD8\xB3");
    /* CSV: tab, CR and LF kept, a NUL inside escaped, never an end */
    SimBuf b;
    sim_buf_init(&b);
    CHECK_INT((int)sim_escape_append(&b, "a\0b\tc\x1b", 6, SIM_ESC_KEEP_WS), 2);
    CHECK_STR(sim_buf_cstr(&b), "a\\x00b\tc\\x1B");
    sim_buf_free(&b);
    CHECK(!sim_escape_needed("plain, \"quoted\"\r\n", 17, SIM_ESC_KEEP_WS));
    CHECK(sim_escape_needed("\xE2\x80\xAA", 3, SIM_ESC_KEEP_WS));
}

int main(void)
{
    CHECK(sim_url_is_pg("postgresql://h/db"));
    CHECK(sim_url_is_pg("postgres://h/db"));
    CHECK(!sim_url_is_pg("/tmp/a.db"));
    CHECK(!sim_url_is_pg(NULL));
    forms();
    unreadable();
    escapes();
    /* truncation keeps a terminated prefix */
    char small[12];
    sim_url_redact("postgresql://u:s3cret@host/db", small, sizeof small);
    CHECK_STR(small, "postgresql:");
    return TEST_REPORT();
}
