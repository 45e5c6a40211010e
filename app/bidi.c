/*
** The bidirectional algorithm on code points, through GNU FriBidi (see
** bidi.h). No SDL, no clock: tested headless.
*/
#include "app/bidi.h"

#include <fribidi.h>
#include <string.h>

#include "common/sim_alloc.h"

BidiClass bidi_class(uint32_t cp)
{
    if (cp < 0x80) {
        return ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') ? BIDI_LTR
                                                          : BIDI_NEUTRAL;
    }
    FriBidiCharType t = fribidi_get_bidi_type(cp);
    if (FRIBIDI_IS_EXPLICIT(t) || FRIBIDI_IS_ISOLATE(t) ||
        t == FRIBIDI_TYPE_AN) {
        return BIDI_CONTROL;
    }
    if (FRIBIDI_IS_RTL(t)) {
        return BIDI_RTL;
    }
    /* Letters, and LRM (a strong left-to-right character with no glyph). */
    return FRIBIDI_IS_LETTER(t) ? BIDI_LTR : BIDI_NEUTRAL;
}

int bidi_plain(const uint32_t *cp, size_t n, int rtl_default)
{
    int ltr = !rtl_default;
    for (size_t i = 0; i < n; i++) {
        BidiClass c = bidi_class(cp[i]);
        if (c >= BIDI_RTL) {
            return 0;
        }
        ltr |= c == BIDI_LTR;
    }
    return ltr;
}

static int is_sign(uint32_t cp)
{
    return cp == '+' || cp == '-' || cp == 0x2212 || cp == 0xFE62 ||
           cp == 0xFE63 || cp == 0xFF0B || cp == 0xFF0D;
}

/* HL3: a sign directly before a digit, at the start or after a neutral,
** is typed as the digit after it, so that the number keeps its sign. */
static void signs_join_numbers(const uint32_t *cp, size_t n,
                               FriBidiCharType *types)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (!is_sign(cp[i]) || !FRIBIDI_IS_NUMBER(types[i + 1])) {
            continue;
        }
        if (i > 0 && (FRIBIDI_IS_LETTER(types[i - 1]) ||
                      FRIBIDI_IS_NUMBER(types[i - 1]))) {
            continue;
        }
        types[i] = types[i + 1];
    }
}

int bidi_levels(const uint32_t *cp, size_t n, int rtl_default, uint8_t *levels)
{
    uint8_t def = rtl_default ? 1 : 0;
    if (n == 0) {
        return def;
    }
    if (n > 0x3FFFFFFF) {
        memset(levels, def, n);
        return -1;
    }
    enum { STACK_N = 256 };
    FriBidiCharType types_s[STACK_N];
    FriBidiBracketType brackets_s[STACK_N];
    FriBidiLevel lev_s[STACK_N];
    FriBidiCharType *types = types_s;
    FriBidiBracketType *brackets = brackets_s;
    FriBidiLevel *lev = lev_s;
    if (n > STACK_N) {
        types = sim_malloc(n * sizeof *types);
        brackets = sim_malloc(n * sizeof *brackets);
        lev = sim_malloc(n * sizeof *lev);
        if (!types || !brackets || !lev) {
            sim_free(types);
            sim_free(brackets);
            sim_free(lev);
            memset(levels, def, n);
            return -1;
        }
    }
    FriBidiStrIndex len = (FriBidiStrIndex)n;
    const FriBidiChar *str = (const FriBidiChar *)cp;
    fribidi_get_bidi_types(str, len, types);
    signs_join_numbers(cp, n, types);
    fribidi_get_bracket_types(str, len, types, brackets);
    FriBidiParType base = rtl_default ? FRIBIDI_PAR_WRTL : FRIBIDI_PAR_WLTR;
    int rc;
    if (fribidi_get_par_embedding_levels_ex(types, brackets, len, &base, lev) ==
        0) {
        memset(levels, def, n);
        rc = -1;
    } else {
        for (size_t i = 0; i < n; i++) {
            levels[i] = (uint8_t)lev[i];
        }
        /* FriBidi applied L1 at the paragraph's end already: trailing
        ** whitespace and isolates hold the paragraph level */
        rc = FRIBIDI_IS_RTL(base) ? 1 : 0;
    }
    if (types != types_s) {
        sim_free(types);
        sim_free(brackets);
        sim_free(lev);
    }
    return rc;
}

void bidi_visual_order(const uint8_t *levels, size_t n, uint32_t *order)
{
    uint8_t hi = 0, lo = 255;
    for (size_t i = 0; i < n; i++) {
        order[i] = (uint32_t)i;
        if (levels[i] > hi) {
            hi = levels[i];
        }
        if (levels[i] < lo) {
            lo = levels[i];
        }
    }
    /* From the highest level down to the lowest odd level. */
    for (int lev = hi; n > 0 && lev >= (lo | 1); lev--) {
        size_t i = 0;
        while (i < n) {
            if (levels[order[i]] < lev) {
                i++;
                continue;
            }
            size_t j = i;
            while (j < n && levels[order[j]] >= lev) {
                j++;
            }
            for (size_t a = i, b = j - 1; a < b; a++, b--) {
                uint32_t t = order[a];
                order[a] = order[b];
                order[b] = t;
            }
            i = j;
        }
    }
}

uint32_t bidi_mirror(uint32_t cp)
{
    FriBidiChar m = cp;
    if (fribidi_get_mirror_char(cp, &m)) {
        return m;
    }
    return cp;
}
