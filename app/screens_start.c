/*
** The experimenter's start screen (participant code, pilot, condition,
** unfinished participants, database and station line) and the dialogs and
** notes laid over any screen. English only: the experimenter's texts.
*/
#include "app/screens_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ----------------------------------------------------------- start screen */

/* A context for screens without a session (start screen, dialogs). */
static void ctx_plain(Ctx *c, ScreenCtx *sx, Ui *ui)
{
    memset(c, 0, sizeof *c);
    memset(sx, 0, sizeof *sx);
    c->sx = sx;
    c->ui = ui;
    c->th = &ui->th;
    c->rc.ui = ui;
}

static float start_field(Ctx *c, Scene *sc, float x, float y, float w,
                         const char *label, const char *value, int focus,
                         int action, const char *hint)
{
    Ui *ui = c->ui;
    const Theme *th = c->th;
    float yy = y;
    scene_text(sc, ui->small_bold, x, yy, label, th->muted);
    yy += (float)ui->small_bold->line_h + ui->u * 0.25f;
    float h = roundf(ui->u * 2.4f);
    scene_begin_hit(sc, (SDL_FRect){x, yy, w, h}, action, 0, 1);
    scene_frame(sc, (SDL_FRect){x, yy, w, h}, ui->u * 0.3f, focus ? 2 : 1,
                focus ? th->accent : th->border, th->panel);
    float tw =
        scene_text(sc, ui->body, x + ui->u * 0.6f,
                   yy + (h - (float)ui->body->line_h) / 2, value, th->text);
    if (focus) {
        scene_rect(
            sc,
            (SDL_FRect){x + ui->u * 0.6f + tw + 1, yy + h * 0.2f, 2, h * 0.6f},
            th->accent);
    } else if (!*value && hint) {
        scene_text(sc, ui->body, x + ui->u * 0.6f,
                   yy + (h - (float)ui->body->line_h) / 2, hint, th->faint);
    }
    scene_end_hit(sc);
    return yy + h - y;
}

static const char *status_text(ParticipantStatus s)
{
    switch (s) {
    case PSTATUS_ACTIVE:
        return "interrupted";
    case PSTATUS_ABORTED:
        return "aborted";
    case PSTATUS_COMPLETED:
        return "complete";
    case PSTATUS_DECLINED:
        return "declined";
    case PSTATUS_SCREENED_OUT:
        return "screened out";
    }
    return "?";
}

static void human_bytes(double b, char *out, size_t n)
{
    const char *unit[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (b >= 1000 && u < 4) {
        b /= 1000;
        u++;
    }
    snprintf(out, n, u >= 2 ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

/* The header band: what study, which bundle; its height. */
static float start_header(Scene *sc, Ui *ui, const Theme *th,
                          const StartState *st)
{
    float W = (float)ui->gfx->w, m = ui->margin;
    float head_h = roundf(ui->u * 5.2f);
    scene_rect(sc, (SDL_FRect){0, 0, W, head_h}, th->panel);
    scene_rect(sc, (SDL_FRect){0, head_h - 1, W, 1}, th->border);
    scene_text(sc, ui->small_bold, m, roundf(ui->u * 0.7f),
               "SIMLAB  \xC2\xB7  EXPERIMENTER", th->accent);
    scene_clip(sc, (SDL_FRect){m, 0, W - 2 * m, head_h});
    scene_text(sc, ui->h1, m, roundf(ui->u * 1.7f), st->title ? st->title : "",
               th->text);
    scene_unclip(sc);
    char sub[256];
    snprintf(sub, sizeof sub, "%s%s%s  \xC2\xB7  bundle %.16s",
             st->study_id ? st->study_id : "", st->preset ? "  \xC2\xB7  " : "",
             st->preset ? st->preset : "", st->hash ? st->hash : "");
    float subw = font_width(ui->small, sub, strlen(sub));
    scene_text(sc, ui->small, W - m - subw, roundf(ui->u * 0.7f), sub,
               th->muted);

    return head_h;
}

/* The left card: a new participant's code, pilot toggle and condition. */
static void start_new_card(Ctx *c, Scene *sc, Ui *ui, const StartState *st,
                           SDL_FRect card, float pad)
{
    const Theme *th = c->th;
    float lx = card.x, ly = card.y, cw = card.w, card_h = card.h;
    scene_frame(sc, card, ui->u * 0.5f, 1, th->border, th->panel);
    float ix = lx + pad, iw = cw - 2 * pad, iy = ly + pad;
    scene_text(sc, ui->h2, ix, iy, "New participant", th->text);
    iy += (float)ui->h2->line_h + ui->u * 0.8f;
    iy += start_field(c, sc, ix, iy, iw, "PARTICIPANT CODE", st->code,
                      st->code_focus, ACT_FOCUS_CODE, "optional, e.g. P017");
    iy += ui->u * 0.9f;
    /* Pilot toggle. */
    float tgl = roundf(ui->u * 1.3f);
    scene_begin_hit(sc, (SDL_FRect){ix, iy, iw, tgl + 4}, ACT_TOGGLE_PILOT, 0,
                    1);
    scene_frame(sc, (SDL_FRect){ix, iy, tgl * 1.8f, tgl}, tgl / 2, 1,
                st->pilot ? th->accent : th->border,
                st->pilot ? th->accent : th->disabled);
    scene_circle(sc, ix + (st->pilot ? tgl * 1.3f : tgl * 0.5f), iy + tgl / 2,
                 tgl * 0.38f, th->panel);
    scene_text(sc, ui->body, ix + tgl * 2.4f,
               iy + (tgl - (float)ui->body->line_h) / 2,
               st->pilot ? "Pilot participant (kept apart in the analysis)"
                         : "Pilot participant",
               th->text);
    scene_end_hit(sc);
    iy += tgl + ui->u * 1.1f;
    /* Condition selector. */
    scene_text(sc, ui->small_bold, ix, iy, "CONDITION", th->muted);
    iy += (float)ui->small_bold->line_h + ui->u * 0.25f;
    float bh = roundf(ui->u * 2.4f);
    float arrow = bh;
    scr_button(c, sc, ix, iy, arrow, bh, "\xE2\x80\xB9", NULL, ACT_COND_PREV, 0,
               st->n_conditions > 1, 0);
    scr_button(c, sc, ix + iw - arrow, iy, arrow, bh, "\xE2\x80\xBA", NULL,
               ACT_COND_NEXT, 0, st->n_conditions > 1, 0);
    const char *cond = st->n_conditions && st->cond_index >= 0
                           ? st->conditions[st->cond_index]
                           : "(none)";
    float cwid = font_width(ui->bold, cond, strlen(cond));
    scene_text(sc, ui->bold, ix + (iw - cwid) / 2,
               iy + (bh - (float)ui->bold->line_h) / 2, cond, th->text);
    iy += bh + ui->u * 0.3f;
    char note[200];
    if (st->cond_index == st->assigned_index) {
        snprintf(note, sizeof note, "Assigned by the %s rule.",
                 st->assign_rule ? st->assign_rule : "assignment");
    } else {
        snprintf(note, sizeof note,
                 "Experimenter override (the rule would assign %s); recorded "
                 "as an override.",
                 st->assigned_index >= 0 ? st->conditions[st->assigned_index]
                                         : "?");
    }
    iy += text_para(sc, ui->small, note, ix, iy, iw,
                    st->cond_index == st->assigned_index ? th->muted : th->bad,
                    ALIGN_LEFT);
    if (st->order[0]) {
        /* a within-subject study: the whole order the participant does */
        char order[400];
        if (st->order_row >= 0) {
            snprintf(order, sizeof order,
                     "Order: %s, row %d of the latin square", st->order,
                     st->order_row + 1);
        } else {
            snprintf(order, sizeof order, "Order: %s", st->order);
        }
        iy += ui->u * 0.3f;
        iy += text_para(sc, ui->small_bold, order, ix, iy, iw, th->text,
                        ALIGN_LEFT);
    }
    float sbw = iw;
    float sbh = roundf(ui->u * 3.0f);
    float sby = ly + card_h - pad - sbh;
    scr_button(c, sc, ix, sby, sbw, sbh, "Start participant", "Enter",
               ACT_START, 0, 1, 1);
}

/* The right card: the unfinished participants to resume. */
static void start_resume_card(Scene *sc, Ui *ui, const Theme *th,
                              const StartState *st, SDL_FRect card, float pad)
{
    float rx = card.x, ry = card.y, cw = card.w, card_h = card.h;
    scene_frame(sc, card, ui->u * 0.5f, 1, th->border, th->panel);
    float jx = rx + pad, jw = cw - 2 * pad, jy = ry + pad;
    scene_text(sc, ui->h2, jx, jy, "Resume a participant", th->text);
    jy += (float)ui->h2->line_h + ui->u * 0.5f;
    if (st->n_unfinished == 0) {
        jy += text_para(sc, ui->body,
                        "No unfinished participants in this database.", jx, jy,
                        jw, th->muted, ALIGN_LEFT);
    }
    float rowh = roundf(ui->u * 3.2f);
    for (size_t i = 0; i < st->n_unfinished; i++) {
        if (jy + rowh > ry + card_h - pad) {
            char more[64];
            snprintf(more, sizeof more, "and %zu more", st->n_unfinished - i);
            scene_text(sc, ui->small, jx, jy, more, th->muted);
            break;
        }
        const ParticipantInfo *p = &st->unfinished[i];
        char l1[160], l2[200];
        snprintf(l1, sizeof l1, "%s", p->code[0] ? p->code : p->id);
        snprintf(l2, sizeof l2, "%s  \xC2\xB7  %d of %d steps  \xC2\xB7  %s%s",
                 p->condition, p->n_done, p->n_trials, status_text(p->status),
                 p->pilot ? "  \xC2\xB7  pilot" : "");
        float rbw = font_width(ui->button, "Resume", 6) + ui->u * 2;
        scene_begin_hit(sc, (SDL_FRect){jx, jy, jw, rowh - 4}, ACT_RESUME,
                        (int)i, 1);
        scene_frame(sc, (SDL_FRect){jx, jy, jw, rowh - 4}, ui->u * 0.3f, 1,
                    th->border, th->panel_alt);
        scene_hover_last(sc, th->hover);
        scene_clip(sc, (SDL_FRect){jx, jy, jw - rbw - ui->u, rowh});
        scene_text(sc, ui->bold, jx + ui->u * 0.6f, jy + ui->u * 0.25f, l1,
                   th->text);
        scene_text(sc, ui->small, jx + ui->u * 0.6f,
                   jy + ui->u * 0.25f + (float)ui->bold->line_h, l2, th->muted);
        scene_unclip(sc);
        scene_text(sc, ui->button, jx + jw - rbw + ui->u * 0.2f,
                   jy + (rowh - 4 - (float)ui->button->line_h) / 2, "Resume",
                   th->accent);
        scene_end_hit(sc);
        jy += rowh;
    }
}

/* The status line, the keys and a status message above them. */
static void start_footer(Scene *sc, Ui *ui, const Theme *th,
                         const StartState *st)
{
    float W = (float)ui->gfx->w, H = (float)ui->gfx->h, m = ui->margin;
    char fb[32], foot[1700];
    human_bytes(st->free_bytes, fb, sizeof fb);
    snprintf(foot, sizeof foot,
             "Database %s  \xC2\xB7  %s free  \xC2\xB7  %d complete  "
             "\xC2\xB7  station %s%s%s",
             st->db_path ? st->db_path : "", fb, st->n_complete,
             st->station && *st->station ? st->station : "(unnamed)",
             st->sync_line[0] ? "  \xC2\xB7  " : "", st->sync_line);
    float fy = H - roundf(ui->u * 3.2f);
    scene_clip(sc, (SDL_FRect){m, fy, W - 2 * m, ui->u * 3});
    scene_text(sc, ui->small, m, fy, foot,
               st->free_bytes < 1e9 || st->sync_bad ? th->bad : th->muted);
    scene_text(sc, ui->caption, m, fy + (float)ui->small->line_h + 2,
               "Enter start  \xC2\xB7  Tab pilot  \xC2\xB7  \xE2\x86\x90 "
               "\xE2\x86\x92 condition  \xC2\xB7  Ctrl + / Ctrl \xE2\x88\x92 "
               "text size  \xC2\xB7  Esc quit   |   during a run: Ctrl+Shift+P "
               "pause, Ctrl+Shift+A abort",
               th->faint);
    scene_unclip(sc);
    if (st->status[0]) {
        float sw = fminf(W - 2 * m, ui->u * 60);
        float shh = text_para(NULL, ui->small, st->status, 0, 0, sw - ui->u * 2,
                              th->text, ALIGN_LEFT) +
                    ui->u;
        float sy = fy - shh - ui->u * 0.6f;
        scene_frame(sc, (SDL_FRect){(W - sw) / 2, sy, sw, shh}, ui->u * 0.3f, 1,
                    th->bad, th->bad_bg);
        text_para(sc, ui->small, st->status, (W - sw) / 2 + ui->u,
                  sy + ui->u * 0.5f, sw - ui->u * 2, th->text, ALIGN_LEFT);
    }
}

void screen_build_start(Scene *sc, Ui *ui, const StartState *st)
{
    Ctx c;
    ScreenCtx sx;
    ctx_plain(&c, &sx, ui);
    const Theme *th = c.th;
    Gfx *g = ui->gfx;
    float W = (float)g->w, H = (float)g->h, m = ui->margin;
    scene_clear(sc);
    sc->layer = LAYER_FIXED;
    sc->body = (SDL_FRect){0, 0, W, H};
    float head_h = start_header(sc, ui, th, st);
    float top = head_h + roundf(ui->u * 1.4f);
    float gap = roundf(ui->u * 1.6f);
    float cw = fminf((W - 2 * m - gap) / 2, ui->u * 34);
    float x0 = (W - (2 * cw + gap)) / 2;
    float pad = roundf(ui->u * 1.2f);
    float card_h = H - top - roundf(ui->u * 4.5f);
    start_new_card(&c, sc, ui, st, (SDL_FRect){x0, top, cw, card_h}, pad);
    start_resume_card(sc, ui, th, st,
                      (SDL_FRect){x0 + cw + gap, top, cw, card_h}, pad);
    start_footer(sc, ui, th, st);
}

/* ---------------------------------------------------------------- dialogs */

void screen_add_confirm(Scene *sc, Ui *ui, const char *title, const char *body,
                        const char *yes_label)
{
    Ctx c;
    ScreenCtx sx;
    ctx_plain(&c, &sx, ui);
    Gfx *g = ui->gfx;
    float W = (float)g->w, H = (float)g->h;
    uint8_t prev = sc->layer;
    sc->layer = LAYER_OVERLAY;
    scene_rect(sc, (SDL_FRect){0, 0, W, H}, (SDL_Color){20, 24, 30, 150});
    float w = fminf(W - 2 * ui->margin, ui->u * 30);
    float pad = roundf(ui->u * 1.3f);
    float bh = roundf(ui->u * 2.6f);
    float th1 = text_para(NULL, ui->h2, title, 0, 0, w - 2 * pad, c.th->text,
                          ALIGN_LEFT);
    float th2 = text_para(NULL, ui->body, body, 0, 0, w - 2 * pad, c.th->text,
                          ALIGN_LEFT);
    float h = pad + th1 + ui->u * 0.6f + th2 + ui->u * 1.2f + bh + pad;
    float x = (W - w) / 2, y = (H - h) / 2;
    scene_frame(sc, (SDL_FRect){x, y, w, h}, ui->u * 0.6f, 1, c.th->border,
                c.th->panel);
    float yy = y + pad;
    yy += text_para(sc, ui->h2, title, x + pad, yy, w - 2 * pad, c.th->text,
                    ALIGN_LEFT);
    yy += ui->u * 0.6f;
    yy += text_para(sc, ui->body, body, x + pad, yy, w - 2 * pad, c.th->muted,
                    ALIGN_LEFT);
    yy += ui->u * 1.2f;
    float yw = scr_button_width(&c, yes_label, "Y");
    float nw = scr_button_width(&c, "Cancel", "N");
    scr_button(&c, sc, x + w - pad - yw, yy, yw, bh, yes_label, "Y",
               ACT_CONFIRM_YES, 0, 1, 1);
    scr_button(&c, sc, x + w - pad - yw - ui->u - nw, yy, nw, bh, "Cancel", "N",
               ACT_CONFIRM_NO, 0, 1, 0);
    sc->layer = prev;
}

void screen_add_note(Scene *sc, Ui *ui, const char *text)
{
    Gfx *g = ui->gfx;
    uint8_t prev = sc->layer;
    sc->layer = LAYER_OVERLAY;
    float W = (float)g->w, H = (float)g->h;
    float w = W - 2 * ui->margin;
    float h =
        text_para(NULL, ui->caption, text, 0, 0, w, ui->th.faint, ALIGN_CENTER);
    text_para(sc, ui->caption, text, ui->margin, H - h - ui->u * 0.5f, w,
              ui->th.faint, ALIGN_CENTER);
    sc->layer = prev;
}
