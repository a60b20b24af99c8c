#include "levelwalk.h"

#include "subslice.h"

/* One white configuration's black men to place: their squares (compressed past the white men of
 * the middle rows) with their weights, and the prefix sums of the weights. */
typedef struct black_walk {
    int n;                           /* squares black men may use here */
    int sq[DK_MAX_SQ];               /* compressed position -> square */
    int w[DK_MAX_SQ];                /* its weight (dk_man_weight: its row) */
    int sum[DK_MAX_SQ + 1];          /* sum[j]: weights of positions 0..j-1 */
    uint64_t base, lo, hi;           /* men_index of black rank 0; the range asked for */
    dk_bb wmen;
    dk_level_visit visit;
    void *ctx;
} black_walk;

/* Places k black men on positions below top with weights adding up to need, the largest first
 * and ascending, so that ranks (rank so far plus C(position, its number)) come out ascending. */
static int place(const black_walk *b, int k, int top, int need, uint64_t rank, dk_bb men)
{
    for (int t = k - 1; t < top; t++) {
        int rest = need - b->w[t];
        /* the k - 1 men below t weigh at least the k - 1 lightest: beyond t, heavier still */
        if (rest < b->sum[k - 1])
            break;
        if (rest > b->sum[t] - b->sum[t - (k - 1)])
            continue; /* not even the k - 1 heaviest below t reach it */
        uint64_t r = rank + dk_binom_table[t][k];
        dk_bb m = men | dk_bit(b->sq[t]);
        if (k > 1) {
            int rc = place(b, k - 1, t, rest, r, m);
            if (rc)
                return rc;
        } else if (b->base + r >= b->lo && b->base + r < b->hi) {
            int rc = b->visit(b->ctx, b->base + r, b->wmen, m);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int dk_level_walk(const dk_index *ix, int level, uint64_t lo, uint64_t hi, dk_level_visit visit, void *ctx)
{
    const dk_variant *v = ix->v;
    const int bm = ix->m.bm, black_end = v->nsq - ix->row_squares; /* rows 0..size-2 */
    black_walk b = {.lo = lo, .hi = hi, .visit = visit, .ctx = ctx};
    for (int a = 0; a < ix->nclass; a++) {
        uint64_t first = ix->class_off[a], end = ix->class_off[a + 1], cb = ix->c_black[a];
        if (end <= lo || first >= hi || cb == 0)
            continue;
        uint64_t w_lo = (lo > first ? lo - first : 0) / cb;
        uint64_t w_hi = ((hi < end ? hi : end) - first - 1) / cb; /* inclusive */
        for (uint64_t w = w_lo; w <= w_hi; w++) {
            b.base = first + w * cb;
            dk_bb bmen;
            dk_index_men_unrank(ix, b.base, &b.wmen, &bmen);
            int need = level - dk_men_level(v, b.wmen, 0);
            if (need < 0)
                continue;
            if (bm == 0) {
                if (need == 0 && b.base >= lo && b.base < hi) {
                    int rc = visit(ctx, b.base, b.wmen, 0);
                    if (rc)
                        return rc;
                }
                continue;
            }
            b.n = 0;
            b.sum[0] = 0;
            for (int s = 0; s < black_end; s++)
                if (!((b.wmen >> s) & 1)) {
                    b.sq[b.n] = s;
                    b.w[b.n] = dk_man_weight(v, DK_BLACK, s);
                    b.sum[b.n + 1] = b.sum[b.n] + b.w[b.n];
                    b.n++;
                }
            if (need < b.sum[bm] || need > b.sum[b.n] - b.sum[b.n - bm])
                continue;
            int rc = place(&b, bm, b.n, need, 0, 0);
            if (rc)
                return rc;
        }
    }
    return 0;
}
