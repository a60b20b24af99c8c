#include "subslice.h"

#include <stdlib.h>


int dk_men_level(const dk_variant *v, dk_bb wmen, dk_bb bmen)
{
    int level = 0;
    for (; wmen; wmen &= wmen - 1)
        level += dk_man_weight(v, DK_WHITE, dk_lsb(wmen));
    for (; bmen; bmen &= bmen - 1)
        level += dk_man_weight(v, DK_BLACK, dk_lsb(bmen));
    return level;
}

int dk_level_counts(const dk_variant *v, dk_material m, uint64_t *counts)
{
    /* Square by square, count placements of i white and j black men with each level so far. */
    int maxl = dk_max_level(v, m), wm = m.wm, bm = m.bm;
    size_t nl = (size_t)maxl + 1, nj = (size_t)bm + 1;
    size_t cells = ((size_t)wm + 1) * nj * nl;
    uint64_t *dp = calloc(cells, sizeof *dp);
    if (!dp)
        return -1;
#define DP(i, j, l) dp[((size_t)(i) * nj + (size_t)(j)) * nl + (size_t)(l)]
    DP(0, 0, 0) = 1;
    for (int s = 0; s < v->nsq; s++) {
        bool w_ok = (v->man_ok[DK_WHITE] >> s) & 1, b_ok = (v->man_ok[DK_BLACK] >> s) & 1;
        int ww = dk_man_weight(v, DK_WHITE, s), bw = dk_man_weight(v, DK_BLACK, s);
        /* Downwards in i, j so that each square is used at most once. */
        for (int i = wm; i >= 0; i--)
            for (int j = bm; j >= 0; j--)
                for (int l = maxl; l >= 0; l--) {
                    uint64_t add = 0;
                    if (w_ok && i > 0 && l >= ww)
                        add += DP(i - 1, j, l - ww);
                    if (b_ok && j > 0 && l >= bw)
                        add += DP(i, j - 1, l - bw);
                    DP(i, j, l) += add;
                }
    }
    for (int l = 0; l <= maxl; l++)
        counts[l] = DP(wm, bm, l);
#undef DP
    free(dp);
    return 0;
}

void dk_men_flip(const dk_variant *v, dk_bb wmen, dk_bb bmen, dk_bb *flip_w, dk_bb *flip_b)
{
    dk_pos p = {{wmen, bmen}, 0, DK_WHITE};
    dk_pos q = dk_pos_flip(v, &p);
    *flip_w = q.pieces[DK_WHITE];
    *flip_b = q.pieces[DK_BLACK];
}

static void add_exit(const dk_variant *v, dk_material after, dk_material *out, size_t cap, size_t *n)
{
    if (!dk_material_valid(v, after))
        return;
    dk_material normal = dk_material_twin(after);
    for (size_t i = 0; i < *n && i < cap; i++)
        if (dk_material_equal(out[i], normal))
            return;
    if (*n < cap)
        out[*n] = normal;
    ++*n;
}

size_t dk_material_exits(const dk_variant *v, dk_material m, dk_material *out, size_t cap)
{
    size_t n = 0;
    for (int promote = 0; promote <= (m.wm > 0); promote++)
        for (int xm = 0; xm <= m.bm; xm++)
            for (int xk = 0; xk <= m.bk; xk++) {
                if (xm + xk == 0 && !promote)
                    continue;
                dk_material after = {(uint8_t)(m.wm - promote), (uint8_t)(m.wk + promote),
                                     (uint8_t)(m.bm - xm), (uint8_t)(m.bk - xk)};
                add_exit(v, after, out, cap, &n);
            }
    return n;
}
