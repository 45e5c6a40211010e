/*
** Mixed-direction text for the runner: the Unicode bidirectional algorithm
** (UAX #9, through GNU FriBidi) on code points. Paragraph embedding levels
** (the paragraph's direction from its first strong character, P2/P3, or
** the study's when it has none), the visual order of runs by level (rule
** L2) and mirrored brackets. No SDL: layout (scene.c) and line drawing
** (gfx.c) decode UTF-8 and place the runs.
*/
#ifndef SIMLAB_APP_BIDI_H
#define SIMLAB_APP_BIDI_H

#include <stddef.h>
#include <stdint.h>

/* What a code point means for the direction of text around it. */
typedef enum BidiClass {
    BIDI_NEUTRAL = 0, /* digits, spaces, punctuation, symbols, marks */
    BIDI_LTR = 1,     /* a strong left-to-right letter (Latin, CJK, ...) */
    BIDI_RTL = 2,     /* a strong right-to-left letter (Hebrew, Arabic,
                         ...) or RLM */
    BIDI_CONTROL = 3  /* not strong but needs the algorithm: an
                         Arabic-Indic digit, an explicit embedding,
                         override or isolate */
} BidiClass;

BidiClass bidi_class(uint32_t cp);

/* Whether cp[0..n) set as one paragraph with default direction rtl_default
** is left to right throughout (every level 0): it has no BIDI_RTL or
** BIDI_CONTROL code point, and a strong left-to-right letter or rtl_default
** 0. Such text is drawn as it is stored; the others go through
** bidi_levels. */
int bidi_plain(const uint32_t *cp, size_t n, int rtl_default);

/* Resolves the embedding level of each code point of one paragraph
** cp[0..n) (no paragraph separator inside) into levels[0..n): even levels
** run left to right, odd ones right to left. The paragraph runs right to
** left when its first strong character (isolates skipped) is a
** right-to-left letter, left to right when it is another letter, and as
** rtl_default says when it has none (rules P2, P3, HL1). A plus or minus
** sign directly before a digit, and not after a letter or digit, belongs
** to its number (HL3: "-0.42" reads as one number in Arabic text too).
** Whitespace at the end of the paragraph takes the paragraph's level
** (L1). Returns the paragraph level, 0 or 1; -1 when out of memory (levels
** then all hold rtl_default). n 0 returns rtl_default. */
int bidi_levels(const uint32_t *cp, size_t n, int rtl_default, uint8_t *levels);

/* The visual order of n items (characters, words or runs) of one line
** given their levels in logical order (rule L2: from the highest level
** down to the lowest odd one, every maximal sequence at that level or
** higher is reversed): order[k] receives the logical index of the item
** shown k-th from the left. The items' own contents (the characters of a
** right-to-left run) are not reordered here. */
void bidi_visual_order(const uint8_t *levels, size_t n, uint32_t *order);

/* The character drawn for cp inside a right-to-left run: its mirror image
** for paired punctuation and mathematical signs ('(' -> ')', '<' -> '>',
** U+00AB <-> U+00BB), else cp (rule L4, Bidi_Mirroring_Glyph). */
uint32_t bidi_mirror(uint32_t cp);

#endif
