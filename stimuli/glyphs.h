/*
** Font coverage of participant-facing text: the chain of fonts fontconfig
** offers for the runner's primary face (DejaVu Sans first, then fonts that
** add characters: Noto Sans CJK, Noto Sans Arabic, Noto Color Emoji, ...)
** and a scan of a bundle's text files for characters no font in the chain
** can draw ("never silent boxes"). The runner asks the same chain which
** font draws a character its primary font lacks. Plain C with fontconfig;
** no SDL.
*/
#ifndef SIMLAB_STIMULI_GLYPHS_H
#define SIMLAB_STIMULI_GLYPHS_H

#include <stddef.h>
#include <stdint.h>

#include "common/sim_error.h"
#include "stimuli/study.h"

typedef struct GlyphChain GlyphChain;

/* Opens the fallback chain: the fonts fontconfig sorts for "DejaVu Sans"
** (lang, a BCP 47 tag or NULL, orders CJK fonts: "ja" prefers Noto Sans CJK
** JP), trimmed to those that add characters. Returns SIM_ERR_IO when
** fontconfig cannot be initialised, SIM_ERR_NOMEM. */
int glyph_chain_open(const char *lang, GlyphChain **out, SimError *err);

/* The fontconfig language (RFC 3066 style, lowercase) for the BCP 47 tag:
** Simplified Chinese ("zh", "zh-Hans", "zh-CN", "zh-SG", "zh-Hans-CN")
** "zh-cn", Traditional ("zh-Hant", "zh-TW") "zh-tw", "zh-HK" and "zh-MO"
** "zh-hk", "zh-Hant-HK" "zh-hk"; any other tag its primary language
** ("ja-JP" "ja", "pt-BR" "pt"). Written to out (size bytes; "" for NULL).
** Han characters take the regional forms of the font this selects. */
void glyph_fc_lang(const char *tag, char *out, size_t size);
void glyph_chain_free(GlyphChain *c); /* NULL is a no-op */

/* Whether some font of the chain has a glyph for cp. Characters that draw
** nothing (controls, joiners, variation selectors) count as covered. */
int glyph_chain_has(const GlyphChain *c, uint32_t cp);

/* The file (and face index within it) of the first font of the chain that
** has cp. Returns 1 with path filled, 0 when no font has it (or path is too
** small). */
int glyph_chain_font_for(const GlyphChain *c, uint32_t cp, char *path,
                         size_t size, int *index);

/* The bold face of the chain's font at path (face index) when fontconfig
** has one of the same family (Noto Sans CJK SC Bold for Noto Sans CJK SC):
** returns 1 with out and *out_index filled, 0 when there is none (colour
** emoji) or out is too small. */
int glyph_chain_bold_of(const GlyphChain *c, const char *path, int index,
                        char *out, size_t size, int *out_index);

/* Whether cp draws nothing and needs no glyph (see glyph_chain_has). */
int glyph_invisible(uint32_t cp);

/* Scans the bundle's text files for characters no font of the chain can
** draw and appends one located warning per distinct character per line
** (per column in CSV files) to report: FILE:LINE: field 'NAME' (the JSON
** key or CSV column holding it). The files study loading read
** (st->text_files: study.json, item banks and explanation sources in their
** declared delimiter and encoding, pages, language files) come first,
** whatever their name; then the other *.json, *.jsonl, *.csv, *.tsv, *.md
** and *.txt under dir. JSON strings count with their escapes decoded
** ("\ue000"). Texts of a shipped translation in st->ui_strings that have
** such characters warn at study.json's "language". st may be NULL (only
** the directory is scanned). Returns the number of warnings added, or -1
** when out of memory. */
int glyphs_check_bundle(const char *dir, const GlyphChain *c, const Study *st,
                        StudyReport *report);

#endif
