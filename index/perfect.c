#include "perfect.h"

#include "../rules/check.h"

/* The square numbered c once the squares of `skip` are left out (skip scanned upwards). */
static inline int expand(int c, dk_bb skip)
{
    for (; skip; skip &= skip - 1) {
        if (dk_lsb(skip) > c)
            break;
        c++;
    }
    return c;
}

/* The k-element set with rank x over n numbers, as squares (skipping `skip`) shifted by base. */
static inline dk_bb comb_unrank(uint64_t x, int k, int n, dk_bb skip, int base)
{
    dk_bb out = 0;
    int c = n - 1;
    for (int i = k; i >= 1; i--, c--) {
        if (i == 1) {
            c = (int)x;
        } else {
            /* The largest c' <= c with C(c', i) <= x, by a binary search that compiles to
             * conditional moves (C(i - 1, i) = 0 bounds it below). */
            const uint64_t *row = dk_binom_by_k[i];
            int lo = i - 1, len = c - lo;
            while (len > 0) {
                int half = (len + 1) / 2;
                lo = row[lo + half] <= x ? lo + half : lo;
                len -= half;
            }
            c = lo;
            x -= row[c];
        }
        out |= dk_bit(expand(c, skip) + base);
    }
    return out;
}

static bool mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out) && *out < ((uint64_t)1 << 62);
}

int dk_index_init(dk_index *ix, const dk_variant *v, dk_material m)
{
    dk_binom_init();
    if (!dk_material_valid(v, m))
        return -1;
    *ix = (dk_index){0};
    ix->v = v;
    ix->m = m;
    int h = v->size / 2, nsq = v->nsq;
    ix->row_squares = h;
    ix->last_shift = nsq - h;
    ix->last_row = v->promo[DK_BLACK];
    ix->middle = v->man_ok[DK_WHITE] & v->man_ok[DK_BLACK];
    int nmid = nsq - 2 * h;
    ix->nclass = (m.wm < h ? m.wm : h) + 1;
    uint64_t off = 0;
    for (int a = 0; a < ix->nclass; a++) {
        uint64_t cw = dk_binom(nmid, m.wm - a), cb = dk_binom(nsq - h - (m.wm - a), m.bm), n;
        ix->class_off[a] = off;
        ix->c_wmid[a] = cw;
        ix->c_black[a] = cb;
        ix->div_wmid[a] = dk_divider_make(cw ? cw : 1);
        ix->div_black[a] = dk_divider_make(cb ? cb : 1);
        if (!mul_ok(dk_binom(h, a), cw, &n) || !mul_ok(n, cb, &n) || __builtin_add_overflow(off, n, &off))
            return -1;
    }
    ix->class_off[ix->nclass] = off;
    ix->men_count = off;
    int free = nsq - m.wm - m.bm;
    ix->c_bk = dk_binom(free - m.wk, m.bk);
    if (!mul_ok(dk_binom(free, m.wk), ix->c_bk, &ix->kings_count) ||
        !mul_ok(ix->men_count, ix->kings_count, &ix->size) || ix->size == 0)
        return -1;
    ix->div_kings = dk_divider_make(ix->kings_count);
    ix->div_bk = dk_divider_make(ix->c_bk);
    return 0;
}

uint64_t dk_index_men_rank(const dk_index *ix, dk_bb wmen, dk_bb bmen)
{
    dk_bb last = wmen & ix->last_row, mid = wmen & ~ix->last_row;
    int a = dk_popcount(last);
    uint64_t w = dk_comb_rank(last >> ix->last_shift, 0) * ix->c_wmid[a] + dk_comb_rank(mid >> ix->row_squares, 0);
    return ix->class_off[a] + w * ix->c_black[a] + dk_comb_rank(bmen, mid);
}

void dk_index_men_unrank(const dk_index *ix, uint64_t men_index, dk_bb *wmen, dk_bb *bmen)
{
    int a = 0;
    while (men_index >= ix->class_off[a + 1])
        a++;
    const dk_material m = ix->m;
    int h = ix->row_squares, nsq = ix->v->nsq;
    uint64_t ib, iwm;
    uint64_t w = dk_divmod(&ix->div_black[a], men_index - ix->class_off[a], &ib);
    uint64_t iwl = dk_divmod(&ix->div_wmid[a], w, &iwm);
    dk_bb mid = comb_unrank(iwm, m.wm - a, nsq - 2 * h, 0, h);
    *wmen = comb_unrank(iwl, a, h, 0, ix->last_shift) | mid;
    *bmen = comb_unrank(ib, m.bm, nsq - h - (m.wm - a), mid, 0);
}

void dk_index_kings_unrank(const dk_index *ix, uint64_t kings_index, dk_bb men, dk_bb *wk, dk_bb *bk)
{
    uint64_t ibk, iwk = dk_divmod(&ix->div_bk, kings_index, &ibk);
    int free = ix->v->nsq - ix->m.wm - ix->m.bm;
    *wk = comb_unrank(iwk, ix->m.wk, free, men, 0);
    *bk = comb_unrank(ibk, ix->m.bk, free - ix->m.wk, men | *wk, 0);
}

void dk_index_rank_split(const dk_index *ix, const dk_pos *p, uint64_t *men_index, uint64_t *kings_index)
{
    dk_bb wmen = dk_men(p, DK_WHITE), bmen = dk_men(p, DK_BLACK);
    *men_index = dk_index_men_rank(ix, wmen, bmen);
    *kings_index = dk_index_kings_rank(ix, wmen | bmen, dk_kings(p, DK_WHITE), dk_kings(p, DK_BLACK));
}

dk_pos dk_index_unrank_split(const dk_index *ix, uint64_t men_index, uint64_t kings_index)
{
    dk_bb wmen, bmen, wk, bk;
    dk_index_men_unrank(ix, men_index, &wmen, &bmen);
    dk_index_kings_unrank(ix, kings_index, wmen | bmen, &wk, &bk);
    dk_pos p = {{wmen | wk, bmen | bk}, wk | bk, DK_WHITE};
    return p;
}

uint64_t dk_index_rank(const dk_index *ix, const dk_pos *p)
{
    DK_ASSERT_HOT(p->side == DK_WHITE && dk_material_equal(dk_material_of(p), ix->m));
    uint64_t men_index, kings_index;
    dk_index_rank_split(ix, p, &men_index, &kings_index);
    DK_ASSERT_HOT(kings_index < ix->kings_count && men_index * ix->kings_count + kings_index < ix->size);
    return men_index * ix->kings_count + kings_index;
}

uint64_t dk_index_rank_memo(dk_men_memo *memo, const dk_index *ix, const dk_pos *p)
{
    const dk_bb wmen = dk_men(p, DK_WHITE), bmen = dk_men(p, DK_BLACK);
    const uint64_t h = (wmen * 0xC2B2AE3D27D4EB4Full ^ bmen ^ (uintptr_t)ix) * 0x9E3779B97F4A7C15ull;
    dk_men_memo_entry *e = &memo->e[h >> (64 - DK_MEN_MEMO_BITS)];
    if (e->ix != ix || e->wmen != wmen || e->bmen != bmen)
        *e = (dk_men_memo_entry){.ix = ix, .wmen = wmen, .bmen = bmen, .men = dk_index_men_rank(ix, wmen, bmen)};
    return e->men * ix->kings_count + dk_index_kings_rank(ix, wmen | bmen, dk_kings(p, DK_WHITE), dk_kings(p, DK_BLACK));
}

dk_pos dk_index_unrank(const dk_index *ix, uint64_t index)
{
    DK_ASSERT_HOT(index < ix->size);
    uint64_t kings_index, men_index = dk_divmod(&ix->div_kings, index, &kings_index);
    dk_pos p = dk_index_unrank_split(ix, men_index, kings_index);
    /* the inverse of dk_index_rank: the position has the material, and ranks back to index */
    DK_ASSERT_HOT(dk_material_equal(dk_material_of(&p), ix->m) && dk_index_rank(ix, &p) == index);
    return p;
}

dk_pos dk_normal_form(const dk_variant *v, const dk_pos *p)
{
    return p->side == DK_WHITE ? *p : dk_pos_flip(v, p);
}

int dk_normal_index(const dk_variant *v, const dk_pos *p, dk_material *m, uint64_t *index)
{
    dk_pos q = dk_normal_form(v, p);
    dk_index ix;
    *m = dk_material_of(&q);
    if (dk_index_init(&ix, v, *m) != 0)
        return -1;
    *index = dk_index_rank(&ix, &q);
    return 0;
}

/* The k lowest squares of `squares`. */
static dk_bb lowest(dk_bb squares, int k)
{
    dk_bb b = 0;
    for (; k > 0; k--, squares &= squares - 1)
        b |= squares & -squares;
    return b;
}

/* The colex successor of the set b among `squares` (the next set of its size in the order of
 * ranks), or 0 after the last: the lowest run of b's squares (consecutive among `squares`)
 * carries into the next square, and all but one of the run restart at the bottom. */
static dk_bb next_set(dk_bb b, dk_bb squares)
{
    if (!b)
        return 0; /* the one empty set */
    dk_bb r = ((b | ~squares) + (b & -b)) & squares;
    dk_bb run = b & ~r;
    return r ? r | lowest(squares, dk_popcount(run) - 1) : 0;
}

/* Places the kings wk, bk (with kings_index k) on the iterator's men. */
static void place_kings(dk_subslice_iter *it, dk_bb wk, dk_bb bk, uint64_t k)
{
    dk_bb wmen = it->pos.pieces[DK_WHITE] & ~it->pos.kings, bmen = it->pos.pieces[DK_BLACK] & ~it->pos.kings;
    it->free_b = it->free_w & ~wk;
    it->pos = (dk_pos){{wmen | wk, bmen | bk}, wk | bk, DK_WHITE};
    it->kings_index = k;
}

void dk_subslice_begin(dk_subslice_iter *it, const dk_index *ix, uint64_t men_index)
{
    dk_bb wmen, bmen;
    dk_index_men_unrank(ix, men_index, &wmen, &bmen);
    it->ix = ix;
    it->men = wmen | bmen;
    it->free_w = ix->v->all & ~it->men;
    it->pos = (dk_pos){{wmen, bmen}, 0, DK_WHITE};
    dk_bb wk = lowest(it->free_w, ix->m.wk);
    place_kings(it, wk, lowest(it->free_w & ~wk, ix->m.bk), 0);
}

void dk_subslice_seek(dk_subslice_iter *it, const dk_index *ix, uint64_t men_index, uint64_t kings_index)
{
    dk_subslice_begin(it, ix, men_index);
    dk_bb wk, bk;
    dk_index_kings_unrank(ix, kings_index, it->men, &wk, &bk);
    place_kings(it, wk, bk, kings_index);
}

bool dk_subslice_next(dk_subslice_iter *it)
{
    const dk_index *ix = it->ix;
    dk_bb wk = it->pos.kings & it->pos.pieces[DK_WHITE];
    dk_bb bk = next_set(it->pos.kings & it->pos.pieces[DK_BLACK], it->free_b);
    if (!bk) {
        if (!(wk = next_set(wk, it->free_w)))
            return false;
        bk = lowest(it->free_w & ~wk, ix->m.bk);
    }
    place_kings(it, wk, bk, it->kings_index + 1);
    return true;
}
