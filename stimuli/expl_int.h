/*
** Explanation payloads inside the loader: parsing a payload of any kind
** with located errors and attaching it to its item (expl.c: the kind
** table, the entry and what every payload shares; expl_kinds.c: the
** published formats; expl_prims.c: the primitives). Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_EXPL_INT_H
#define SIMLAB_STIMULI_EXPL_INT_H

#include <jansson.h>
#include <stddef.h>

#include "stimuli/loader.h"

void expl_edits_free(Edit *e, size_t n); /* frees n edits and the array */
/* Parses an explanation payload (object or string) into out. item may be
** NULL. default_kind is used when the payload has no "kind". depth 0 at the
** top; layouts nest up to EXPL_MAX_DEPTH. Returns 0, or -1 after
** reporting. */
int expl_parse(Loader *L, const JLoc *at, json_t *v, const char *default_kind,
               const Item *item, Explanation *out, int depth);
void expl_clear(Explanation *e);
/* Attaches e (ownership passes) to item under method; -1 on duplicate.
** e NULL records a payload that had errors (item_explanation() gives
** NULL for it, expl_item_failed() says so). */
int expl_attach(Loader *L, Item *item, const char *method, Explanation *e);
/* Whether item's payload for method was given but had errors. */
int expl_item_failed(const Item *item, const char *method);
/* The kind name nearest to name for a "did you mean", or NULL. */
const char *expl_kind_suggest(const char *name);

/* Deepest nesting of layouts (a top-level payload is depth 0). */
#define EXPL_MAX_DEPTH 4

/* A kind's parser: reads the payload object o at `at` for item it (may be
** NULL) into e (zeroed, with NaN numbers, by expl_parse); depth 0 for a
** top-level payload. Reports every problem at its field; returns 0, or -1
** when nothing more of the payload could be read. */
typedef int (*ExplParseFn)(Loader *L, const JLoc *at, json_t *o, const Item *it,
                           Explanation *e, int depth);

/* The published formats (expl_kinds.c). */
int expl_parse_heatmap(Loader *L, const JLoc *at, json_t *o, const Item *it,
                       Explanation *e, int depth);
int expl_parse_tokens(Loader *L, const JLoc *at, json_t *o, const Item *it,
                      Explanation *e, int depth);
int expl_parse_token_pairs(Loader *L, const JLoc *at, json_t *o, const Item *it,
                           Explanation *e, int depth);
int expl_parse_span_pairs(Loader *L, const JLoc *at, json_t *o, const Item *it,
                          Explanation *e, int depth);
int expl_parse_features(Loader *L, const JLoc *at, json_t *o, const Item *it,
                        Explanation *e, int depth);
int expl_parse_rules(Loader *L, const JLoc *at, json_t *o, const Item *it,
                     Explanation *e, int depth);
int expl_parse_prototype(Loader *L, const JLoc *at, json_t *o, const Item *it,
                         Explanation *e, int depth);
int expl_parse_path(Loader *L, const JLoc *at, json_t *o, const Item *it,
                    Explanation *e, int depth);
int expl_parse_text(Loader *L, const JLoc *at, json_t *o, const Item *it,
                    Explanation *e, int depth);
int expl_parse_composite(Loader *L, const JLoc *at, json_t *o, const Item *it,
                         Explanation *e, int depth);

/* The primitives (expl_prims.c). */
int expl_parse_image(Loader *L, const JLoc *at, json_t *o, const Item *it,
                     Explanation *e, int depth);
int expl_parse_gallery(Loader *L, const JLoc *at, json_t *o, const Item *it,
                       Explanation *e, int depth);
int expl_parse_markdown(Loader *L, const JLoc *at, json_t *o, const Item *it,
                        Explanation *e, int depth);
int expl_parse_bars(Loader *L, const JLoc *at, json_t *o, const Item *it,
                    Explanation *e, int depth);
int expl_parse_layout(Loader *L, const JLoc *at, json_t *o, const Item *it,
                      Explanation *e, int depth);

/* The payloads of the list "parts" of o (a composite's or a layout's)
** into e->parts, each at depth + 1. */
int expl_parse_parts(Loader *L, const JLoc *at, json_t *parts, const Item *it,
                     Explanation *e, int depth);

/* Shared field readers (expl.c). A required, non-empty list member (NULL
** after reporting otherwise; allow_empty: an empty list is fine). */
json_t *expl_list_member(Loader *L, const JLoc *at, json_t *obj,
                         const char *key, int allow_empty);
/* v must be a non-empty string: *out owns a copy. -1 after reporting. */
int expl_text(Loader *L, const JLoc *at, json_t *v, const char *key,
              char **out);
/* v must be a finite number. -1 after reporting. */
int expl_number(Loader *L, const JLoc *at, json_t *v, const char *key,
                double *out);
/* An optional number: NaN when absent. */
void expl_opt_num(Loader *L, const JLoc *at, json_t *o, const char *key,
                  double *out);

/* Heatmaps and overlays (expl_kinds.c): member "file" of o, a .png or
** float32 .npy map inside the bundle, into e's map fields; 1 when it was
** read (map_file set), 0 after reporting. */
int expl_map_read(Loader *L, const JLoc *at, json_t *o, Explanation *e);
/* "colormap" and "opacity" of o into e (defaults viridis, 0.5). */
void expl_map_style(Loader *L, const JLoc *at, json_t *o, Explanation *e);
/* Reports at "file" a map that has neither the size nor the aspect ratio
** of a w x h image (what names it: "the image"). */
void expl_map_fits(Loader *L, const JLoc *at, const Explanation *e, int w,
                   int h, const char *what);

/* options.c: 1 when v is a "per_option" payload; parses it at `at` for
** item (may be NULL: an item not known yet) into e, a layout row with one
** part per option and part_class. Returns 0, or -1 after reporting. */
int options_is_payload(json_t *v);
int options_parse_payload(Loader *L, const JLoc *at, json_t *v,
                          const Item *item, Explanation *e, int depth);

#endif
