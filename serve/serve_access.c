/*
** Keys of `simlab serve` (serve_access.h): HMAC-SHA-256 (nettle) with the
** file's secret, random keys from getrandom, resume codes.
*/
#include "serve/serve_access.h"

#include <nettle/hmac.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

/* The resume code's characters (Crockford's base 32: no I, L, O, U; an
** O typed is read as 0, an I or L as 1). */
static const char CODE_CHARS[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

static void hex(const unsigned char *b, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

void serve_keys_hash(const ServeKeys *k, const char *kind, const char *ext,
                     const char *value, char out[65])
{
    struct hmac_sha256_ctx ctx;
    hmac_sha256_set_key(&ctx, sizeof k->secret, k->secret);
    hmac_sha256_update(&ctx, strlen(kind) + 1, (const uint8_t *)kind);
    hmac_sha256_update(&ctx, strlen(ext) + 1, (const uint8_t *)ext);
    hmac_sha256_update(&ctx, strlen(value), (const uint8_t *)value);
    unsigned char d[SHA256_DIGEST_SIZE];
    hmac_sha256_digest(&ctx, sizeof d, d);
    hex(d, sizeof d, out);
}

int serve_keys_load(Store *store, ServeKeys *k, SimError *err)
{
    memset(k, 0, sizeof *k);
    int rc = store_online_secret(store, k->secret, err);
    if (rc == SIM_OK) {
        char h[65];
        serve_keys_hash(k, "pilot", "", "", h);
        snprintf(k->pilot, sizeof k->pilot, "%.24s", h);
    }
    return rc;
}

int serve_same(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    unsigned char diff = na != nb;
    for (size_t i = 0; i < na; i++) {
        diff |= (unsigned char)(a[i] ^ b[i < nb ? i : 0]);
    }
    return diff == 0;
}

int serve_random_hex(char *out, size_t n)
{
    unsigned char b[64];
    if (n > sizeof b || getrandom(b, n, 0) != (ssize_t)n) {
        return -1;
    }
    hex(b, n, out);
    return 0;
}

int serve_resume_code(char out[10])
{
    unsigned char b[8];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        return -1;
    }
    for (int i = 0, k = 0; i < 8; i++) {
        if (i == 4) {
            out[k++] = '-';
        }
        out[k++] = CODE_CHARS[b[i] & 31];
    }
    out[9] = '\0';
    return 0;
}

void serve_code_normalize(const char *in, char out[9])
{
    size_t k = 0;
    for (const char *p = in; *p; p++) {
        char c = *p;
        if (c == ' ' || c == '-' || c == '\t') {
            continue;
        }
        if (c >= 'a' && c <= 'z') {
            c = (char)(c - 'a' + 'A');
        }
        c = c == 'O' ? '0' : c == 'I' || c == 'L' ? '1' : c;
        if (k == 8 || !c || !strchr(CODE_CHARS, c)) {
            out[0] = '\0';
            return;
        }
        out[k++] = c;
    }
    out[k == 8 ? 8 : 0] = '\0';
}

int serve_name_valid(const char *s, size_t max)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > max) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) {
            return 0;
        }
    }
    return 1;
}

int serve_session_valid(const char *s)
{
    return serve_name_valid(s, 128) &&
           strcmp(s, "ASSIGNMENT_ID_NOT_AVAILABLE") != 0;
}
