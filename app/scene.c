/*
** Display lists, hit testing, the theme and rich-text layout. Building a
** scene only measures text (glyphs are uploaded to the atlas on the way);
** drawing walks the list.
*/
#include "app/scene.h"

#include <math.h>
#include <string.h>

#include "app/bidi.h"
#include "common/sim_alloc.h"

/* ------------------------------------------------------------ look & size */

static SDL_Color rgb(uint32_t hex)
{
    SDL_Color c = {(uint8_t)(hex >> 16), (uint8_t)(hex >> 8), (uint8_t)hex,
                   255};
    return c;
}

void ui_init_theme(Ui *ui)
{
    Theme *t = &ui->th;
    t->bg = rgb(0xF3F4F6);
    t->panel = rgb(0xFFFFFF);
    t->panel_alt = rgb(0xF7F8FA);
    t->border = rgb(0xD5D9E0);
    t->text = rgb(0x1C2128);
    t->muted = rgb(0x59616C);
    t->faint = rgb(0x8A929C);
    t->accent = rgb(0x1F5FAD);
    t->accent_hover = rgb(0x184E90);
    t->accent_text = rgb(0xFFFFFF);
    t->hover = rgb(0xE8F0FA);
    t->selected = rgb(0x1F5FAD);
    t->model = rgb(0x2E3A4B);
    t->highlight = rgb(0xFFE08A);
    t->highlight_text = rgb(0x1C2128);
    t->ok = rgb(0x1E6B45);
    t->ok_bg = rgb(0xE3F3EA);
    t->bad = rgb(0x9A3412);
    t->bad_bg = rgb(0xFCEBDD);
    t->warn_bg = rgb(0xFFF6DB);
    t->keycap = rgb(0xEDEFF3);
    t->keycap_text = rgb(0x30363D);
    t->disabled = rgb(0xE4E7EB);
    t->disabled_text = rgb(0x9AA1AA);
    t->shadow = (SDL_Color){16, 24, 40, 22};
}

void ui_update_metrics(Ui *ui)
{
    Gfx *g = ui->gfx;
    float base = fminf((float)g->h * 0.022f, (float)g->w * 0.0125f);
    if (base < 12) {
        base = 12;
    }
    float u = base * (ui->font_scale > 0 ? ui->font_scale : 1.0f);
    ui->u = roundf(u);
    ui->margin = roundf(fmaxf(base * 1.5f, 12));
    ui->body = fonts_get(ui->fonts, FACE_REGULAR, u);
    ui->bold = fonts_get(ui->fonts, FACE_BOLD, u);
    ui->small = fonts_get(ui->fonts, FACE_REGULAR, u * 0.82f);
    ui->small_bold = fonts_get(ui->fonts, FACE_BOLD, u * 0.82f);
    ui->caption = fonts_get(ui->fonts, FACE_REGULAR, u * 0.7f);
    ui->h1 = fonts_get(ui->fonts, FACE_BOLD, u * 1.55f);
    ui->h2 = fonts_get(ui->fonts, FACE_BOLD, u * 1.2f);
    ui->mono = fonts_get(ui->fonts, FACE_MONO, u * 0.86f);
    ui->italic = fonts_get(ui->fonts, FACE_ITALIC, u);
    ui->button = fonts_get(ui->fonts, FACE_BOLD, u * 1.05f);
    ui->key = fonts_get(ui->fonts, FACE_MONO, u * 0.8f);
}

/* ------------------------------------------------------------- the scene */

void scene_init(Scene *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->hit = -1;
    sc->box = -1;
}

void scene_clear(Scene *sc)
{
    sc->n_cmds = 0;
    sc->n_hits = 0;
    sc->text_len = 0;
    sc->body = (SDL_FRect){0, 0, 0, 0};
    sc->body_h = 0;
    sc->content_h = 0;
    sc->layer = LAYER_BODY;
    sc->hit = -1;
    sc->oom = 0;
    sc->n_boxes = 0;
    sc->box = -1;
    sc->boxes_lost = 0;
}

int scene_oom(const Scene *sc)
{
    return sc->oom;
}

void scene_set_oom(Scene *sc)
{
    if (sc) {
        sc->oom = 1;
    }
}

void scene_free(Scene *sc)
{
    sim_free(sc->cmds);
    sim_free(sc->hits);
    sim_free(sc->text);
    sim_free(sc->boxes);
    scene_init(sc);
}

static SceneCmd *push(Scene *sc, int kind)
{
    if (!sc) {
        return NULL;
    }
    if (sim_grow((void **)&sc->cmds, &sc->cap_cmds, sc->n_cmds + 1,
                 sizeof(SceneCmd)) != 0) {
        sc->oom = 1;
        return NULL;
    }
    SceneCmd *c = &sc->cmds[sc->n_cmds++];
    memset(c, 0, sizeof *c);
    c->kind = (uint8_t)kind;
    c->layer = sc->layer;
    c->hit = sc->hit;
    c->box = sc->box;
    c->alpha = 255;
    return c;
}

void scene_rect(Scene *sc, SDL_FRect r, SDL_Color c)
{
    SceneCmd *k = push(sc, CMD_RECT);
    if (k) {
        k->r = r;
        k->color = c;
    }
}

void scene_rrect(Scene *sc, SDL_FRect r, float radius, SDL_Color c)
{
    SceneCmd *k = push(sc, CMD_RRECT);
    if (k) {
        k->r = r;
        k->radius = radius;
        k->color = c;
    }
}

void scene_frame(Scene *sc, SDL_FRect r, float radius, float bw,
                 SDL_Color border, SDL_Color fill)
{
    SceneCmd *k = push(sc, CMD_FRAME);
    if (k) {
        k->r = r;
        k->radius = radius;
        k->width = bw;
        k->color = border;
        k->fill = fill;
    }
}

void scene_circle(Scene *sc, float cx, float cy, float radius, SDL_Color c)
{
    SceneCmd *k = push(sc, CMD_CIRCLE);
    if (k) {
        k->r = (SDL_FRect){cx, cy, radius, radius};
        k->color = c;
    }
}

void scene_line(Scene *sc, float x0, float y0, float x1, float y1, float w,
                SDL_Color c)
{
    SceneCmd *k = push(sc, CMD_LINE);
    if (k) {
        k->r = (SDL_FRect){x0, y0, x1, y1};
        k->width = w;
        k->color = c;
    }
}

void scene_texture(Scene *sc, SDL_Texture *tex, const SDL_Rect *src,
                   SDL_FRect dst, uint8_t alpha)
{
    if (!tex) {
        return;
    }
    SceneCmd *k = push(sc, CMD_TEXTURE);
    if (k) {
        k->tex = tex;
        if (src) {
            k->src = *src;
        }
        k->r = dst;
        k->alpha = alpha;
    }
}

void scene_clip(Scene *sc, SDL_FRect r)
{
    SceneCmd *k = push(sc, CMD_CLIP_BEGIN);
    if (k) {
        k->r = r;
    }
}

void scene_unclip(Scene *sc)
{
    push(sc, CMD_CLIP_END);
}

float scene_text_n(Scene *sc, Font *font, float x, float y, const char *text,
                   size_t len, SDL_Color c)
{
    return scene_text_run(sc, font, x, y, text, len, c, TEXT_LINE);
}

float scene_text_run(Scene *sc, Font *font, float x, float y, const char *text,
                     size_t len, SDL_Color c, int dir)
{
    if (!font || !text) {
        return 0;
    }
    float w = font_run_width(font, text, len, dir);
    if (!sc || len == 0) {
        return w;
    }
    if (sim_grow((void **)&sc->text, &sc->text_cap, sc->text_len + len + 1,
                 1) != 0) {
        sc->oom = 1;
        return w;
    }
    SceneCmd *k = push(sc, CMD_TEXT);
    if (!k) {
        return w;
    }
    memcpy(sc->text + sc->text_len, text, len);
    k->text_off = (uint32_t)sc->text_len;
    k->text_len = (uint32_t)len;
    sc->text_len += len;
    sc->text[sc->text_len] = 0;
    k->font = font;
    k->r = (SDL_FRect){x, y, w, (float)font->line_h};
    k->color = c;
    k->dir = (uint8_t)dir;
    return w;
}

float scene_text(Scene *sc, Font *font, float x, float y, const char *text,
                 SDL_Color c)
{
    return scene_text_n(sc, font, x, y, text, text ? strlen(text) : 0, c);
}

void scene_hover_last(Scene *sc, SDL_Color hover)
{
    if (sc && sc->n_cmds) {
        sc->cmds[sc->n_cmds - 1].hover = hover;
    }
}

int scene_begin_hit(Scene *sc, SDL_FRect r, int action, int value, int enabled)
{
    if (!sc) {
        return -1;
    }
    if (sim_grow((void **)&sc->hits, &sc->cap_hits, sc->n_hits + 1,
                 sizeof(SceneHit)) != 0) {
        sc->oom = 1;
        return -1;
    }
    SceneHit *h = &sc->hits[sc->n_hits];
    h->r = r;
    h->layer = sc->layer;
    h->action = action;
    h->value = value;
    h->enabled = enabled;
    sc->hit = (int16_t)sc->n_hits;
    return (int)sc->n_hits++;
}

void scene_end_hit(Scene *sc)
{
    if (sc) {
        sc->hit = -1;
    }
}

void scene_box_begin(Scene *sc, SDL_FRect r, const char *what)
{
    if (!sc) {
        return;
    }
    if (sc->n_boxes >= 0x7FFF ||
        sim_grow((void **)&sc->boxes, &sc->cap_boxes, sc->n_boxes + 1,
                 sizeof(SceneBox)) != 0) {
        sc->boxes_lost++; /* boxes only serve the layout checks */
        return;
    }
    SceneBox *b = &sc->boxes[sc->n_boxes];
    b->r = r;
    b->layer = sc->layer;
    b->parent = sc->box;
    b->what = what;
    sc->box = (int16_t)sc->n_boxes++;
}

void scene_box_end(Scene *sc)
{
    if (sc && sc->boxes_lost > 0) {
        sc->boxes_lost--;
    } else if (sc && sc->box >= 0) {
        sc->box = sc->boxes[sc->box].parent;
    }
}

static int inside(SDL_FRect r, float x, float y)
{
    return x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
}

int scene_hit_at(const Scene *sc, float x, float y, float scroll)
{
    /* Topmost layer first; later regions lie above earlier ones. */
    for (int layer = LAYER_OVERLAY; layer >= LAYER_BODY; layer--) {
        for (size_t i = sc->n_hits; i-- > 0;) {
            const SceneHit *h = &sc->hits[i];
            if (h->layer != layer) {
                continue;
            }
            if (layer == LAYER_BODY) {
                if (!inside(sc->body, x, y)) {
                    continue;
                }
                if (inside(h->r, x, y + scroll)) {
                    return (int)i;
                }
            } else if (inside(h->r, x, y)) {
                return (int)i;
            }
        }
    }
    return -1;
}

int scene_find_hit(const Scene *sc, int action, int value)
{
    for (size_t i = 0; i < sc->n_hits; i++) {
        if (sc->hits[i].action == action && sc->hits[i].enabled &&
            (value < 0 || sc->hits[i].value == value)) {
            return (int)i;
        }
    }
    return -1;
}

static void draw_cmd(const Scene *sc, const SceneCmd *k, Gfx *g, float dy,
                     int hovered)
{
    SDL_Color c = k->color;
    if (hovered && k->hover.a) {
        c = k->hover;
    }
    SDL_FRect r = k->r;
    r.y -= dy;
    switch (k->kind) {
    case CMD_RECT:
        gfx_fill_rect(g, r, c);
        break;
    case CMD_RRECT:
        gfx_fill_rrect(g, r, k->radius, c);
        break;
    case CMD_FRAME: {
        SDL_Color fill = k->fill;
        if (hovered && k->hover.a) {
            fill = k->hover;
            c = k->color;
        }
        gfx_frame_rrect(g, r, k->radius, k->width, c, fill);
        break;
    }
    case CMD_CIRCLE:
        gfx_fill_circle(g, r.x, r.y, r.w, c);
        break;
    case CMD_LINE:
        gfx_line(g, k->r.x, k->r.y - dy, k->r.w, k->r.h - dy, k->width, c);
        break;
    case CMD_TEXT:
        font_run_draw(k->font, g->renderer, r.x, r.y, sc->text + k->text_off,
                      k->text_len, c, k->dir);
        break;
    case CMD_TEXTURE:
        SDL_SetTextureAlphaMod(k->tex, k->alpha);
        SDL_RenderCopyF(g->renderer, k->tex, k->src.w ? &k->src : NULL, &r);
        break;
    default:
        break;
    }
}

static SDL_Rect to_rect(SDL_FRect r)
{
    SDL_Rect o = {(int)floorf(r.x), (int)floorf(r.y), (int)ceilf(r.w),
                  (int)ceilf(r.h)};
    return o;
}

static SDL_Rect intersect(SDL_Rect a, SDL_Rect b)
{
    SDL_Rect o;
    if (!SDL_IntersectRect(&a, &b, &o)) {
        o = (SDL_Rect){0, 0, 0, 0};
    }
    return o;
}

float scene_content_h(const Scene *sc)
{
    return sc->content_h > 0 ? sc->content_h : sc->body_h;
}

/* When the body's content continues below the view: a fade and a down
** arrow. */
static void draw_scroll_hint(const Scene *sc, Gfx *g, float scroll)
{
    float over = scene_content_h(sc) - sc->body.h;
    if (over <= 1 || scroll >= over - 1) {
        return;
    }
    float bottom = sc->body.y + sc->body.h;
    float fade = fminf(sc->body.h * 0.08f, 40);
    for (int i = 0; i < 8; i++) {
        float y0 = bottom - fade + fade * (float)i / 8;
        gfx_fill_rect(g, (SDL_FRect){sc->body.x, y0, sc->body.w, fade / 8 + 1},
                      (SDL_Color){243, 244, 246, (uint8_t)(30 * i)});
    }
    float r = fmaxf(12, fminf(sc->body.h * 0.03f, 22));
    float cx = sc->body.x + sc->body.w / 2, cy = bottom - r - 8;
    gfx_fill_circle(g, cx, cy + 2, r, (SDL_Color){16, 24, 40, 40});
    gfx_fill_circle(g, cx, cy, r, (SDL_Color){46, 58, 75, 235});
    float a = r * 0.42f;
    SDL_Color w = {255, 255, 255, 255};
    gfx_line(g, cx - a, cy - a * 0.45f, cx, cy + a * 0.55f, r * 0.16f, w);
    gfx_line(g, cx, cy + a * 0.55f, cx + a, cy - a * 0.45f, r * 0.16f, w);
}

void scene_render(const Scene *sc, Gfx *g, float scroll, int hover)
{
    for (int layer = LAYER_BODY; layer <= LAYER_OVERLAY; layer++) {
        float dy = layer == LAYER_BODY ? scroll : 0;
        SDL_Rect base = {0, 0, g->w, g->h};
        if (layer == LAYER_BODY) {
            base = to_rect(sc->body);
        }
        SDL_RenderSetClipRect(g->renderer, &base);
        for (size_t i = 0; i < sc->n_cmds; i++) {
            const SceneCmd *k = &sc->cmds[i];
            if (k->layer != layer) {
                continue;
            }
            if (k->kind == CMD_CLIP_BEGIN) {
                SDL_FRect r = k->r;
                r.y -= dy;
                SDL_Rect cr = intersect(base, to_rect(r));
                SDL_RenderSetClipRect(g->renderer, &cr);
                continue;
            }
            if (k->kind == CMD_CLIP_END) {
                SDL_RenderSetClipRect(g->renderer, &base);
                continue;
            }
            if (layer == LAYER_BODY && k->kind != CMD_LINE) {
                /* Skip what lies outside the viewport. */
                float top = k->r.y - dy, bottom = top + k->r.h;
                if (k->kind == CMD_CIRCLE) {
                    top -= k->r.w;
                    bottom = top + 2 * k->r.w;
                }
                if (bottom < sc->body.y || top > sc->body.y + sc->body.h) {
                    continue;
                }
            }
            int hovered = hover >= 0 && k->hit == hover &&
                          (size_t)hover < sc->n_hits && sc->hits[hover].enabled;
            draw_cmd(sc, k, g, dy, hovered);
        }
        SDL_RenderSetClipRect(g->renderer, NULL);
        if (layer == LAYER_BODY) {
            draw_scroll_hint(sc, g, scroll);
        }
    }
}

/* -------------------------------------------------------------- rich text */

typedef enum AtomKind { ATOM_WORD = 0, ATOM_SPACE, ATOM_NEWLINE } AtomKind;

typedef struct Atom {
    uint32_t span;
    uint32_t start, end; /* byte range in the span's text */
    float w;
    uint8_t kind;
    uint8_t glue;  /* 1: no break allowed before this word atom */
    uint8_t level; /* bidi embedding level: odd runs right to left */
    uint8_t par;   /* 1: its paragraph runs right to left */
} Atom;

typedef struct Placed {
    const Atom *a;
    float x;
} Placed;

typedef struct Flow {
    Scene *sc;
    const Span *spans;
    size_t n;
    float x, w;
    float y;
    float spacing;
    int align;
    SDL_FRect *rects;
    Placed *line;
    size_t n_line, cap_line;
    float line_w;
    uint32_t *order; /* visual order of the line (n_line entries) */
    uint8_t *levels;
    Placed *tmp;
    size_t cap_order;
} Flow;

static int is_space(uint32_t cp)
{
    return cp == ' ' || cp == '\t' || cp == 0x3000;
}

static int atom_push(Atom **atoms, size_t *na, size_t *cap, const Atom *a)
{
    if (sim_grow((void **)atoms, cap, *na + 1, sizeof(Atom)) != 0) {
        return -1;
    }
    (*atoms)[(*na)++] = *a;
    return 0;
}

/* Words, spaces and newlines of the spans, in logical order (no widths
** yet: they depend on the direction, see atoms_levels). */
static int atoms_build(const Span *spans, size_t n, Atom **out, size_t *n_out)
{
    Atom *atoms = NULL;
    size_t na = 0, cap = 0;
    for (size_t s = 0; s < n; s++) {
        const char *t = spans[s].text;
        size_t len = spans[s].len;
        size_t i = 0;
        int first = 1;
        while (i < len) {
            size_t st = i;
            uint32_t cp = utf8_next(t, len, &i);
            int kind = cp == '\n'     ? ATOM_NEWLINE
                       : is_space(cp) ? ATOM_SPACE
                                      : ATOM_WORD;
            if (cp == '\r') {
                continue;
            }
            if (kind == ATOM_WORD) {
                size_t j = i;
                uint32_t last = cp;
                while (j < len) {
                    size_t k = j;
                    uint32_t c2 = utf8_next(t, len, &k);
                    if (c2 == '\n' || c2 == '\r' || is_space(c2)) {
                        break;
                    }
                    /* CJK text breaks between characters. */
                    if (text_break_before(last, c2)) {
                        break;
                    }
                    last = c2;
                    /* Allow a break after a hyphen or slash in long
                    ** words. */
                    j = k;
                    if ((c2 == '-' || c2 == '/') && j - st > 3) {
                        break;
                    }
                }
                i = j;
            } else if (kind == ATOM_SPACE) {
                while (i < len) {
                    size_t k = i;
                    uint32_t c2 = utf8_next(t, len, &k);
                    if (!is_space(c2)) {
                        break;
                    }
                    i = k;
                }
            }
            Atom a;
            memset(&a, 0, sizeof a);
            a.span = (uint32_t)s;
            a.start = (uint32_t)st;
            a.end = (uint32_t)i;
            a.kind = (uint8_t)kind;
            /* A word continuing the previous span's word without a space
            ** between them may not be separated from it. */
            a.glue = (uint8_t)(kind == ATOM_WORD && first && na > 0 &&
                               atoms[na - 1].kind == ATOM_WORD);
            first = 0;
            if (atom_push(&atoms, &na, &cap, &a) != 0) {
                sim_free(atoms);
                return -1;
            }
        }
    }
    *out = atoms;
    *n_out = na;
    return 0;
}

/* Code points of one paragraph's atoms, with the byte offset of each and
** its atom. Grown as needed; kept across paragraphs. */
typedef struct ParText {
    uint32_t *cp, *off, *atom;
    uint8_t *lev;
    size_t n, cap;
} ParText;

static void par_free(ParText *p)
{
    sim_free(p->cp);
    sim_free(p->off);
    sim_free(p->atom);
    sim_free(p->lev);
}

static int par_gather(ParText *p, const Span *spans, const Atom *atoms,
                      size_t a0, size_t a1)
{
    p->n = 0;
    for (size_t k = a0; k < a1; k++) {
        const char *t = spans[atoms[k].span].text;
        size_t i = atoms[k].start, end = atoms[k].end;
        while (i < end) {
            if (p->n == p->cap) {
                size_t c = p->cap ? p->cap * 2 : 256;
                uint32_t *ncp = sim_realloc(p->cp, c * sizeof *ncp);
                if (ncp) {
                    p->cp = ncp;
                }
                uint32_t *noff = sim_realloc(p->off, c * sizeof *noff);
                if (noff) {
                    p->off = noff;
                }
                uint32_t *nat = sim_realloc(p->atom, c * sizeof *nat);
                if (nat) {
                    p->atom = nat;
                }
                uint8_t *nlev = sim_realloc(p->lev, c);
                if (nlev) {
                    p->lev = nlev;
                }
                if (!ncp || !noff || !nat || !nlev) {
                    return -1;
                }
                p->cap = c;
            }
            p->off[p->n] = (uint32_t)i;
            p->atom[p->n] = (uint32_t)k;
            p->cp[p->n] = utf8_next(t, end, &i);
            p->n++;
        }
    }
    return 0;
}

/* Whether atoms [a0, a1) are ASCII and left to right throughout. */
static int par_ascii_ltr(const Span *spans, const Atom *atoms, size_t a0,
                         size_t a1, int rtl)
{
    int letter = 0;
    for (size_t k = a0; k < a1; k++) {
        const unsigned char *t =
            (const unsigned char *)spans[atoms[k].span].text;
        for (size_t i = atoms[k].start; i < atoms[k].end; i++) {
            if (t[i] >= 0x80) {
                return 0;
            }
            letter |= (t[i] | 0x20) >= 'a' && (t[i] | 0x20) <= 'z';
        }
    }
    return letter || !rtl;
}

/* Resolves the bidi levels of each paragraph (atoms between newlines)
** once, splits atoms whose characters lie at different levels into glued
** pieces of one level each, and measures every atom in its direction.
** Replaces *atoms. */
static int atoms_levels(const Span *spans, int rtl, Atom **atoms, size_t *na)
{
    Atom *in = *atoms, *out = NULL;
    size_t n_in = *na, n_out = 0, cap = 0;
    ParText p;
    memset(&p, 0, sizeof p);
    int rc = 0;
    for (size_t a0 = 0; a0 < n_in && rc == 0;) {
        size_t a1 = a0;
        while (a1 < n_in && in[a1].kind != ATOM_NEWLINE) {
            a1++;
        }
        int par = 0;
        int plain = par_ascii_ltr(spans, in, a0, a1, rtl);
        if (!plain) {
            rc = par_gather(&p, spans, in, a0, a1);
            plain = rc == 0 && bidi_plain(p.cp, p.n, rtl);
        }
        if (plain || rc != 0) {
            for (size_t k = a0; k < a1 && rc == 0; k++) {
                rc = atom_push(&out, &n_out, &cap, &in[k]);
            }
        } else {
            par = bidi_levels(p.cp, p.n, rtl, p.lev) == 1;
            /* one piece per change of level inside an atom */
            for (size_t c = 0; c < p.n && rc == 0;) {
                size_t e = c + 1;
                while (e < p.n && p.atom[e] == p.atom[c] &&
                       p.lev[e] == p.lev[c]) {
                    e++;
                }
                Atom a = in[p.atom[c]];
                int head = c == 0 || p.atom[c - 1] != p.atom[c];
                a.start = p.off[c];
                a.end = e < p.n && p.atom[e] == p.atom[c] ? p.off[e] : a.end;
                a.level = p.lev[c];
                a.par = (uint8_t)par;
                if (!head) {
                    a.glue = a.kind == ATOM_WORD;
                }
                rc = atom_push(&out, &n_out, &cap, &a);
                c = e;
            }
        }
        if (a1 < n_in && rc == 0) {
            Atom nl = in[a1];
            nl.par = (uint8_t)par;
            rc = atom_push(&out, &n_out, &cap, &nl);
        }
        a0 = a1 + 1;
    }
    par_free(&p);
    sim_free(in);
    *atoms = out;
    *na = n_out;
    if (rc != 0) {
        return -1;
    }
    for (size_t k = 0; k < n_out; k++) {
        Atom *a = &out[k];
        a->w = a->kind == ATOM_NEWLINE
                   ? 0
                   : font_run_width(
                         spans[a->span].font, spans[a->span].text + a->start,
                         a->end - a->start, a->level & 1 ? TEXT_RTL : TEXT_LTR);
    }
    return 0;
}

/* Puts the line's atoms in visual order (rule L2 on their levels) and
** their x from the left. */
static void flow_reorder(Flow *f)
{
    size_t n = f->n_line;
    int mixed = 0;
    for (size_t i = 0; i < n && !mixed; i++) {
        mixed = f->line[i].a->level != 0;
    }
    if (!mixed) {
        return;
    }
    /* without memory the line stays in logical order: marked as lost */
    if (sim_grow((void **)&f->order, &f->cap_order, n, sizeof *f->order) != 0) {
        scene_set_oom(f->sc);
        return;
    }
    size_t cap = f->cap_order;
    uint8_t *lv = sim_realloc(f->levels, cap);
    if (!lv) {
        scene_set_oom(f->sc);
        return;
    }
    f->levels = lv;
    Placed *tmp = sim_realloc(f->tmp, cap * sizeof *tmp);
    if (!tmp) {
        scene_set_oom(f->sc);
        return;
    }
    f->tmp = tmp;
    for (size_t i = 0; i < n; i++) {
        f->levels[i] = f->line[i].a->level;
        f->tmp[i] = f->line[i];
    }
    bidi_visual_order(f->levels, n, f->order);
    float pen = 0;
    for (size_t k = 0; k < n; k++) {
        f->line[k] = f->tmp[f->order[k]];
        f->line[k].x = pen;
        pen += f->line[k].a->w;
    }
}

static void flow_emit_line(Flow *f)
{
    /* Drop trailing spaces. */
    while (f->n_line && f->line[f->n_line - 1].a->kind == ATOM_SPACE) {
        f->n_line--;
    }
    float asc = 0, lh = 0;
    for (size_t i = 0; i < f->n_line; i++) {
        Font *fo = f->spans[f->line[i].a->span].font;
        if (fo->ascent > asc) {
            asc = (float)fo->ascent;
        }
        if (fo->line_h > lh) {
            lh = (float)fo->line_h;
        }
    }
    if (lh == 0) {
        /* An empty line (paragraph break): height of the first span. */
        Font *fo = f->n ? f->spans[0].font : NULL;
        lh = fo ? (float)fo->line_h : 0;
    }
    float width = 0;
    if (f->n_line) {
        const Placed *p = &f->line[f->n_line - 1];
        width = p->x + p->a->w;
    }
    int par_rtl = f->n_line && f->line[0].a->par;
    flow_reorder(f);
    float dx = 0;
    if (f->align == ALIGN_LEFT && par_rtl) {
        dx = f->w - width; /* the start side of right-to-left text */
    } else if (f->align == ALIGN_CENTER) {
        dx = floorf((f->w - width) / 2);
    } else if (f->align == ALIGN_RIGHT) {
        dx = f->w - width;
    }
    float lead = roundf(lh * (f->spacing - 1) / 2);
    float top = f->y + lead;
    /* Highlights first: one box per run of the same span on the line. */
    for (size_t i = 0; i < f->n_line;) {
        const Span *sp = &f->spans[f->line[i].a->span];
        size_t j = i + 1;
        while (j < f->n_line && f->line[j].a->span == f->line[i].a->span) {
            j++;
        }
        size_t e = j;
        while (e > i + 1 && f->line[e - 1].a->kind == ATOM_SPACE) {
            e--;
        }
        float x0 = f->x + dx + f->line[i].x;
        float x1 = f->x + dx + f->line[e - 1].x + f->line[e - 1].a->w;
        Font *fo = sp->font;
        float ytop = top + asc - (float)fo->ascent;
        if (sp->bg.a && f->sc) {
            float pad = roundf((float)fo->px * 0.12f);
            scene_rrect(f->sc,
                        (SDL_FRect){x0 - pad, ytop - pad * 0.3f,
                                    x1 - x0 + 2 * pad,
                                    (float)fo->line_h + pad * 0.6f},
                        pad * 1.2f, sp->bg);
        }
        if (f->rects) {
            size_t si = f->line[i].a->span;
            if (f->rects[si].w == 0 && f->rects[si].h == 0) {
                f->rects[si] =
                    (SDL_FRect){x0, ytop, x1 - x0, (float)fo->line_h};
            }
        }
        i = j;
    }
    for (size_t i = 0; i < f->n_line && f->sc; i++) {
        const Atom *a = f->line[i].a;
        const Span *sp = &f->spans[a->span];
        Font *fo = sp->font;
        float ytop = top + asc - (float)fo->ascent;
        float x = f->x + dx + f->line[i].x;
        if (a->kind == ATOM_WORD) {
            scene_text_run(f->sc, fo, x, ytop, sp->text + a->start,
                           a->end - a->start, sp->fg,
                           a->level & 1 ? TEXT_RTL : TEXT_LTR);
        }
        if (sp->underline) {
            int include =
                a->kind == ATOM_WORD ||
                (i + 1 < f->n_line && f->line[i + 1].a->span == a->span);
            if (include) {
                float th = fmaxf(1, roundf((float)fo->px / 14));
                float uy = sp->underline == 2
                               ? ytop + (float)fo->ascent * 0.62f
                               : ytop + (float)fo->ascent + th * 1.5f;
                scene_rect(f->sc, (SDL_FRect){x, uy, a->w, th}, sp->fg);
            }
        }
    }
    f->y += roundf(lh * f->spacing);
    f->n_line = 0;
    f->line_w = 0;
}

static void flow_place(Flow *f, const Atom *a, float x)
{
    if (sim_grow((void **)&f->line, &f->cap_line, f->n_line + 1,
                 sizeof(Placed)) != 0) {
        scene_set_oom(f->sc); /* the atom is not shown */
        return;
    }
    f->line[f->n_line].a = a;
    f->line[f->n_line].x = x;
    f->n_line++;
    f->line_w = x + a->w;
}

float text_flow(Scene *sc, const Span *spans, size_t n, float x, float y,
                float w, float line_spacing, int align, SDL_FRect *rects)
{
    Atom *atoms = NULL;
    size_t na = 0;
    int rtl = spans && n && spans[0].font && spans[0].font->owner
                  ? spans[0].font->owner->rtl
                  : 0;
    if (n == 0) {
        return 0;
    }
    if (atoms_build(spans, n, &atoms, &na) != 0) {
        scene_set_oom(sc);
        return 0;
    }
    if (atoms_levels(spans, rtl, &atoms, &na) != 0) {
        sim_free(atoms);
        scene_set_oom(sc);
        return 0;
    }
    if (rects) {
        memset(rects, 0, n * sizeof *rects);
    }
    Flow f;
    memset(&f, 0, sizeof f);
    f.sc = sc;
    f.spans = spans;
    f.n = n;
    f.x = x;
    f.w = w;
    f.y = y;
    f.spacing = line_spacing > 0 ? line_spacing : 1;
    f.align = align;
    f.rects = rects;
    /* Split words too wide for a line into pieces (rare: URLs, long
    ** identifiers). Pieces are stored in a second array. */
    Atom *pieces = NULL;
    size_t np = 0, cap_p = 0;
    for (size_t i = 0; i < na; i++) {
        Atom a = atoms[i];
        if (a.kind == ATOM_WORD && a.w > w && w > 0) {
            const Span *sp = &spans[a.span];
            size_t p = a.start;
            int first = 1;
            while (p < a.end) {
                size_t q = p, best = p;
                float bw = 0;
                while (q < a.end) {
                    size_t r = q;
                    utf8_next(sp->text, a.end, &r);
                    float ww =
                        font_run_width(sp->font, sp->text + p, r - p,
                                       a.level & 1 ? TEXT_RTL : TEXT_LTR);
                    if (ww > w && best > p) {
                        break;
                    }
                    best = r;
                    bw = ww;
                    q = r;
                }
                if (sim_grow((void **)&pieces, &cap_p, np + 1, sizeof(Atom)) !=
                    0) {
                    scene_set_oom(sc); /* the rest of the text is cut */
                    break;
                }
                pieces[np] = a;
                pieces[np].start = (uint32_t)p;
                pieces[np].end = (uint32_t)best;
                pieces[np].w = bw;
                pieces[np].glue = first ? a.glue : 0;
                np++;
                first = 0;
                p = best;
            }
        } else {
            if (sim_grow((void **)&pieces, &cap_p, np + 1, sizeof(Atom)) != 0) {
                scene_set_oom(sc);
                break;
            }
            pieces[np++] = a;
        }
    }
    for (size_t i = 0; i < np;) {
        const Atom *a = &pieces[i];
        if (a->kind == ATOM_NEWLINE) {
            flow_emit_line(&f);
            i++;
            continue;
        }
        if (a->kind == ATOM_SPACE) {
            if (f.n_line) {
                flow_place(&f, a, f.line_w);
            }
            i++;
            continue;
        }
        /* A word: the atoms glued to it travel together. */
        size_t j = i + 1;
        float ww = a->w;
        while (j < np && pieces[j].kind == ATOM_WORD && pieces[j].glue) {
            ww += pieces[j].w;
            j++;
        }
        if (f.n_line && f.line_w + ww > w + 0.5f) {
            flow_emit_line(&f);
        }
        for (size_t k = i; k < j; k++) {
            if (f.n_line && f.line_w + pieces[k].w > w + 0.5f) {
                flow_emit_line(&f);
            }
            flow_place(&f, &pieces[k], f.line_w);
        }
        i = j;
    }
    if (f.n_line) {
        flow_emit_line(&f);
    }
    sim_free(f.line);
    sim_free(f.order);
    sim_free(f.levels);
    sim_free(f.tmp);
    sim_free(pieces);
    sim_free(atoms);
    return f.y - y;
}

float text_para(Scene *sc, Font *font, const char *text, float x, float y,
                float w, SDL_Color c, int align)
{
    if (!text || !*text) {
        return 0;
    }
    Span s = {text, strlen(text), font, c, {0, 0, 0, 0}, 0};
    return text_flow(sc, &s, 1, x, y, w, 1.25f, align, NULL);
}

float text_width(Font *font, const char *text)
{
    float best = 0;
    const char *p = text;
    while (p && *p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        float w = font_width(font, p, len);
        if (w > best) {
            best = w;
        }
        p = e ? e + 1 : NULL;
    }
    return best;
}

/* The first "**" in [p, end), or NULL. */
static const char *find_marker(const char *p, const char *end)
{
    for (; p + 1 < end; p++) {
        if (p[0] == '*' && p[1] == '*') {
            return p;
        }
    }
    return NULL;
}

int text_split_marked(const char *text, size_t len, const Span *plain,
                      const Span *marked, Span **out, size_t *n_out)
{
    const char *end = text + len;
    size_t cap = 1;
    for (const char *m = find_marker(text, end); m;
         m = find_marker(m + 2, end)) {
        cap++;
    }
    Span *spans = sim_malloc(cap * sizeof *spans);
    *out = spans;
    *n_out = 0;
    if (!spans) {
        return -1;
    }
    size_t n = 0;
    int in_mark = 0;
    const char *p = text;
    while (p < end) {
        const char *m = find_marker(p, end);
        const char *stop = m ? m : end;
        if (stop > p) {
            spans[n] = in_mark ? *marked : *plain;
            spans[n].text = p;
            spans[n].len = (size_t)(stop - p);
            n++;
        }
        if (!m) {
            break;
        }
        in_mark = !in_mark;
        p = m + 2;
    }
    *n_out = n;
    return 0;
}

float text_marked(Scene *sc, Font *font, Font *bold, const char *text, float x,
                  float y, float w, SDL_Color c, int align)
{
    if (!text) {
        return 0;
    }
    Span plain = {NULL, 0, font, c, {0, 0, 0, 0}, 0};
    Span strong = {NULL, 0, bold, c, {0, 0, 0, 0}, 0};
    Span *spans = NULL;
    size_t n = 0;
    float h = 0;
    if (text_split_marked(text, strlen(text), &plain, &strong, &spans, &n) !=
        0) {
        scene_set_oom(sc);
    } else if (n > 0) {
        h = text_flow(sc, spans, n, x, y, w, 1.3f, align, NULL);
    }
    sim_free(spans);
    return h;
}
