/*
** Relevance against a ground-truth region (sim_relevance.c): the scores of
** an attribution (heatmap cells or tokens) against an expert mask or gold
** rationale -- relevance mass inside (Arras et al.), relevance rank
** accuracy, the pointing game and the IoU of the top-k % with the region;
** ties are shared out as a random tie-break would on average. Formulas in
** docs/analysis.md ("Metrics simlab computes"). libc only.
*/
#ifndef SIMLAB_COMMON_SIM_RELEVANCE_H
#define SIMLAB_COMMON_SIM_RELEVANCE_H

/* The metrics' names, in SimRelevance's order ("mass_in_mask",
** "rank_accuracy", "pointing_game", "iou_top20"). */
#define SIM_RELEVANCE_N 4
extern const char *const SIM_RELEVANCE_NAMES[SIM_RELEVANCE_N];
extern const char *const SIM_RELEVANCE_TEXT[SIM_RELEVANCE_N];

/* The share of cells the IoU takes from the top (20 %). */
#define SIM_RELEVANCE_TOP_SHARE 0.2

typedef struct SimRelevance {
    double v[SIM_RELEVANCE_N]; /* NaN where undefined */
} SimRelevance;

/* Scores relevance rel[0..n) (signed; only its positive part counts as
** relevance) against the region: inside[c] in [0, 1] is the share of cell
** c in the region (1/0 for tokens); a cell is in the region when it is at
** least half inside. mass: sum(inside * rel+) / sum(rel+) (NaN without
** positive relevance); rank accuracy: of the K cells ranked highest (K the
** region's cells), the share in the region; pointing game: the share of
** the cells of largest relevance that are in the region (1 or 0 with one
** maximum); IoU: |T & M| / |T | M| with T the ceil(0.2 n) top cells and M
** the region. NaN for an empty region. */
void sim_relevance_score(const double *rel, const double *inside, int n,
                         SimRelevance *out);

/* The share of each cell of an h x w map laid over a H x W mask (mask[y W +
** x] != 0: inside) that is inside, into inside[h w]: pixel (y, x) belongs
** to cell (y h / H, x w / W). */
void sim_relevance_cells(const unsigned char *mask, int H, int W, int h, int w,
                         double *inside);

#endif
