/*
** PostgreSQL connection strings read by libpq and shown without their
** secrets (see sim_url.h). Nothing here parses a connection string by
** hand: PQconninfoParse reads it, and its dispchar "*" marks the secrets.
*/
#define _POSIX_C_SOURCE 200809L /* strncasecmp */

#include "common/sim_url.h"

#include "common/sim_text.h"

#include <libpq-fe.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define NOT_READABLE                                                           \
    "(a connection string libpq cannot read; not shown, it may hold a "        \
    "password)"

int sim_url_is_pg(const char *s)
{
    return s && (strncmp(s, "postgresql://", 13) == 0 ||
                 strncmp(s, "postgres://", 11) == 0);
}

int sim_url_is_server(const char *s)
{
    if (!s) {
        return 0;
    }
    if (sim_url_is_pg(s)) {
        return 1;
    }
    if (!strchr(s, '=')) {
        return 0;
    }
    struct stat st;
    return sim_url_valid(s, NULL, 0) || stat(s, &st) != 0;
}

static PQconninfoOption *parse(const char *conninfo, char **errmsg)
{
    *errmsg = NULL;
    return PQconninfoParse(conninfo ? conninfo : "", errmsg);
}

int sim_url_valid(const char *conninfo, char *why, size_t why_size)
{
    char *errmsg = NULL;
    PQconninfoOption *o = parse(conninfo, &errmsg);
    if (o) {
        PQconninfoFree(o);
        return 1;
    }
    if (why && why_size) {
        /* libpq's messages read 'what is wrong: "the text"': keep the
        ** words before the first quote only */
        const char *m = errmsg ? errmsg : "out of memory";
        size_t n = strcspn(m, "\"\n");
        while (n && (m[n - 1] == ' ' || m[n - 1] == ':')) {
            n--;
        }
        snprintf(why, why_size, "%.*s", (int)n, m);
    }
    PQfreemem(errmsg);
    return 0;
}

static const char *opt(const PQconninfoOption *o, const char *key)
{
    for (; o->keyword; o++) {
        if (strcmp(o->keyword, key) == 0) {
            return o->val && o->val[0] ? o->val : NULL;
        }
    }
    return NULL;
}

static int is_secret(const PQconninfoOption *o)
{
    return o->dispchar && strchr(o->dispchar, '*') != NULL;
}

/* 1 when val, an option's value, is itself a connection string holding a
** secret, or one that mentions a password and cannot be read. */
static int nests_secret(const char *val)
{
    if (!strchr(val, '=') && !strstr(val, "://")) {
        return 0;
    }
    char *errmsg = NULL;
    PQconninfoOption *o = parse(val, &errmsg);
    PQfreemem(errmsg);
    int found = 0;
    if (!o) {
        for (const char *p = val; *p && !found; p++) {
            found = strncasecmp(p, "pass", 4) == 0;
        }
        return found;
    }
    for (PQconninfoOption *x = o; x->keyword; x++) {
        found |= is_secret(x) && x->val && x->val[0];
    }
    PQconninfoFree(o);
    return found;
}

/* Appends s percent-encoded (everything but RFC 3986's unreserved). */
static void pct(SimBuf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (isalnum(*p) || strchr("-._~", *p)) {
            sim_buf_append(b, (const char *)p, 1);
        } else {
            sim_buf_printf(b, "%%%02X", *p);
        }
    }
}

/* A host list that fits a URI's authority as it is: one host name or
** address (IPv6 goes in brackets), no socket directory, no list. */
static int simple_host(const char *h)
{
    if (!h || h[0] == '/' || h[0] == '@') {
        return 0;
    }
    for (const char *p = h; *p; p++) {
        if (!isalnum((unsigned char)*p) && !strchr(".-_:", *p)) {
            return 0;
        }
    }
    return 1;
}

static int simple_port(const char *p)
{
    return p && strspn(p, "0123456789") == strlen(p);
}

void sim_url_redact(const char *conninfo, char *out, size_t size)
{
    if (!size) {
        return;
    }
    char *errmsg = NULL;
    PQconninfoOption *o = parse(conninfo, &errmsg);
    PQfreemem(errmsg);
    if (!o) {
        snprintf(out, size, "%s", NOT_READABLE);
        return;
    }
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, "postgresql://");
    const char *user = opt(o, "user"), *host = opt(o, "host");
    const char *port = opt(o, "port"), *db = opt(o, "dbname");
    int host_in_uri = simple_host(host) && (!port || simple_port(port));
    if (user) {
        if (nests_secret(user)) {
            sim_buf_puts(&b, "***");
        } else {
            pct(&b, user);
        }
        sim_buf_puts(&b, "@");
    }
    if (host_in_uri) {
        int v6 = strchr(host, ':') != NULL;
        sim_buf_printf(&b, "%s%s%s", v6 ? "[" : "", host, v6 ? "]" : "");
        if (port) {
            sim_buf_printf(&b, ":%s", port);
        }
    }
    sim_buf_puts(&b, "/");
    if (db) {
        if (nests_secret(db)) {
            sim_buf_puts(&b, "***");
        } else {
            pct(&b, db);
        }
    }
    char sep = '?';
    for (PQconninfoOption *x = o; x->keyword; x++) {
        if (!x->val || !x->val[0] || is_secret(x) ||
            strcmp(x->keyword, "user") == 0 ||
            strcmp(x->keyword, "dbname") == 0 ||
            (host_in_uri && (strcmp(x->keyword, "host") == 0 ||
                             strcmp(x->keyword, "port") == 0))) {
            continue;
        }
        sim_buf_printf(&b, "%c%s=", sep, x->keyword);
        if (nests_secret(x->val)) {
            sim_buf_puts(&b, "***");
        } else {
            pct(&b, x->val);
        }
        sep = '&';
    }
    PQconninfoFree(o);
    snprintf(out, size, "%s", b.oom ? "(out of memory)" : sim_buf_cstr(&b));
    sim_buf_free(&b);
}

/* Replaces every occurrence of secret (and of its percent-encoded form) in
** buf by "***". */
static void scrub_one(SimBuf *buf, const char *secret)
{
    SimBuf enc;
    sim_buf_init(&enc);
    pct(&enc, secret);
    const char *forms[2] = {secret, sim_buf_cstr(&enc)};
    for (int f = 0; f < 2; f++) {
        size_t n = strlen(forms[f]);
        if (n == 0 || !buf->data) {
            continue;
        }
        SimBuf next;
        sim_buf_init(&next);
        const char *p = buf->data, *hit;
        while ((hit = strstr(p, forms[f])) != NULL) {
            sim_buf_append(&next, p, (size_t)(hit - p));
            sim_buf_puts(&next, "***");
            p = hit + n;
        }
        sim_buf_puts(&next, p);
        sim_buf_free(buf);
        *buf = next;
    }
    sim_buf_free(&enc);
}

/* Scrubs the secrets of conninfo (and of connection strings nested in its
** values, depth levels deep) from buf. */
static void scrub_all(const char *conninfo, SimBuf *buf, int depth)
{
    char *errmsg = NULL;
    PQconninfoOption *o = parse(conninfo, &errmsg);
    PQfreemem(errmsg);
    if (!o) {
        scrub_one(buf, conninfo ? conninfo : "");
        return;
    }
    for (PQconninfoOption *x = o; x->keyword; x++) {
        if (!x->val || !x->val[0]) {
            continue;
        }
        if (is_secret(x)) {
            scrub_one(buf, x->val);
        } else if (depth > 0 && nests_secret(x->val)) {
            scrub_all(x->val, buf, depth - 1);
            scrub_one(buf, x->val);
        }
    }
    PQconninfoFree(o);
}

void sim_url_scrub(const char *conninfo, const char *text, char *out,
                   size_t size)
{
    if (!size) {
        return;
    }
    SimBuf buf;
    sim_buf_init(&buf);
    sim_buf_puts(&buf, text ? text : "");
    scrub_all(conninfo, &buf, 2);
    snprintf(out, size, "%s", buf.oom ? "(out of memory)" : sim_buf_cstr(&buf));
    sim_buf_free(&buf);
}
