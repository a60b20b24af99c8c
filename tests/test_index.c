/* Materials and the perfect index (index/): counts, ranks and unranks, the rankers of moves
 * and un-moves, and the walk through a subslice. The generator's levels and work graph built on
 * them are tests/test_workgraph.c's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <float.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../index/material.h"
#include "../index/perfect.h"
#include "../rules/movegen.h"
#include "support.h"

static const dk_variant *br(void) { return dk_variant_get(DK_BRAZILIAN); }
static const dk_variant *intl(void) { return dk_variant_get(DK_INTERNATIONAL); }

/* Random counts scale with DK_TEST_SCALE (default 1). */
static double scale(void) { return test_scale(); }

static test_rng rng = {0};
static uint64_t rnd(void) { return test_rand(&rng); }

static size_t materials(const dk_variant *v, int pieces, dk_material **out)
{
    size_t n = test_materials(v, pieces, out);
    assert_non_null(*out);
    return n;
}

static void test_material_list_and_names(void **state)
{
    (void)state;
    static const size_t per_pieces[] = {0, 0, 4, 12, 25, 44, 70, 104, 147};
    dk_material *ms;
    size_t n = materials(br(), 8, &ms), at = 0;
    for (int p = 2; p <= 8; p++) {
        size_t k = 0;
        while (at + k < n && dk_material_pieces(ms[at + k]) == p)
            k++;
        assert_int_equal(k, per_pieces[p]);
        at += k;
    }
    assert_int_equal(at, n);
    for (size_t i = 0; i < n; i++) {
        if (i)
            assert_true(dk_material_cmp(ms[i - 1], ms[i]) < 0);
        char name[DK_MATERIAL_NAME_MAX];
        dk_material back;
        dk_material_name(ms[i], name, sizeof name);
        assert_int_equal(dk_material_parse(name, &back), 0);
        assert_true(dk_material_equal(back, ms[i]));
    }
    dk_material m;
    assert_int_equal(dk_material_parse("2m1k-0m1k", &m), 0);
    assert_true(m.wm == 2 && m.wk == 1 && m.bm == 0 && m.bk == 1);
    assert_int_equal(dk_material_parse("2m1k-0m1", &m), -1);
    assert_int_equal(dk_material_parse("2m1k0m1k", &m), -1);
    assert_int_equal(dk_material_parse("-2m1k-0m1k", &m), -1);
    assert_int_equal(dk_material_parse("2m1k-0m1kx", &m), -1);
    assert_int_equal(dk_material_parse(" 2m1k-0m1k", &m), -1);
    /* Per-side limit. */
    size_t limited = dk_material_list(br(), 4, 2, NULL, 0);
    assert_int_equal(limited, 4 + 12 + 9);
    free(ms);
}

static void check_size_table(const dk_variant *v, const uint64_t *expect)
{
    dk_material *ms;
    size_t n = materials(v, 8, &ms);
    uint64_t total[9] = {0};
    for (size_t i = 0; i < n; i++) {
        dk_index ix;
        assert_int_equal(dk_index_init(&ix, v, ms[i]), 0);
        assert_int_equal(ix.size, ix.men_count * ix.kings_count);
        total[dk_material_pieces(ms[i])] += 2 * ix.size;
    }
    for (int p = 2; p <= 8; p++)
        assert_int_equal(total[p], expect[p]);
    free(ms);
}

static void test_size_table(void **state)
{
    (void)state;
    static const uint64_t b8[] = {0, 0, 6976, 392064, 12418632, 278901616, 4852171352ull, 68486227248ull,
                                  806380501122ull};
    static const uint64_t i10[] = {0, 0, 17690, 1612600, 83942400, 3141201500ull, 92397517500ull,
                                   2239383595440ull, 46026377000730ull};
    check_size_table(br(), b8);
    check_size_table(intl(), i10);
    dk_index ix;
    assert_int_equal(dk_index_init(&ix, br(), (dk_material){1, 2, 1, 2}), 0);
    assert_int_equal(ix.size, 124966800);
    assert_int_equal(dk_index_init(&ix, br(), (dk_material){2, 2, 2, 2}), 0);
    assert_int_equal(ix.size, 15437822400ull);
    assert_int_equal(dk_index_init(&ix, br(), (dk_material){0, 0, 1, 1}), -1);
}

static void check_index(const dk_index *ix, uint64_t i)
{
    dk_pos p = dk_index_unrank(ix, i);
    assert_int_equal(dk_pos_check(ix->v, &p), DK_POS_OK);
    dk_material m = dk_material_of(&p);
    assert_true(dk_material_equal(m, ix->m));
    assert_int_equal(p.side, DK_WHITE);
    assert_int_equal(dk_index_rank(ix, &p), i);
    uint64_t mi, ki;
    dk_index_rank_split(ix, &p, &mi, &ki);
    assert_int_equal(mi * ix->kings_count + ki, i);
    dk_pos q = dk_index_unrank_split(ix, mi, ki);
    assert_true(dk_pos_equal(&p, &q));
}

static void exhaustive(const dk_variant *v, int pieces)
{
    dk_material *ms;
    size_t n = materials(v, pieces, &ms);
    for (size_t i = 0; i < n; i++) {
        dk_index ix;
        assert_int_equal(dk_index_init(&ix, v, ms[i]), 0);
        for (uint64_t k = 0; k < ix.size; k++)
            check_index(&ix, k);
    }
    free(ms);
}

static void test_exhaustive_small(void **state)
{
    (void)state;
    exhaustive(br(), 4);
    exhaustive(intl(), 3);
}

static void test_random_large(void **state)
{
    (void)state;
    const dk_variant *vs[2] = {br(), intl()};
    long count = (long)(1000000 * scale());
    for (int vi = 0; vi < 2; vi++) {
        dk_material *ms;
        size_t n = materials(vs[vi], 7, &ms), first = dk_material_list(vs[vi], 4, 0, NULL, 0);
        dk_index *ix = malloc((n - first) * sizeof *ix);
        for (size_t i = first; i < n; i++)
            assert_int_equal(dk_index_init(&ix[i - first], vs[vi], ms[i]), 0);
        for (long k = 0; k < count / 2; k++) {
            const dk_index *x = &ix[rnd() % (n - first)];
            check_index(x, rnd() % x->size);
        }
        free(ix);
        free(ms);
    }
}

static dk_pos random_pos(const dk_variant *v, dk_material m, int side)
{
    return test_random_material_pos(v, &rng, m, side);
}

/* Calls check on `count` random materials of up to 8 pieces of each board. */
static void each_random_material(long count, void (*check)(const dk_variant *v, dk_material m))
{
    const dk_variant *vs[2] = {br(), intl()};
    for (int vi = 0; vi < 2; vi++) {
        dk_material *ms;
        size_t n = materials(vs[vi], 8, &ms);
        for (long k = 0; k < count; k++)
            check(vs[vi], ms[rnd() % n]);
        free(ms);
    }
}

/* A random position of m ranks and unranks to itself; Black to move lands in the twin, at its
 * flip's index. */
static void check_random_position(const dk_variant *v, dk_material m)
{
    dk_index ix;
    assert_int_equal(dk_index_init(&ix, v, m), 0);
    dk_pos p = random_pos(v, m, DK_WHITE);
    uint64_t i = dk_index_rank(&ix, &p);
    assert_true(i < ix.size);
    dk_pos q = dk_index_unrank(&ix, i);
    assert_true(dk_pos_equal(&p, &q));
    dk_pos b = random_pos(v, m, DK_BLACK);
    dk_material nm;
    uint64_t ni;
    assert_int_equal(dk_normal_index(v, &b, &nm, &ni), 0);
    assert_true(dk_material_equal(nm, dk_material_twin(m)));
    dk_pos f = dk_pos_flip(v, &b);
    dk_index tx;
    assert_int_equal(dk_index_init(&tx, v, nm), 0);
    assert_int_equal(dk_index_rank(&tx, &f), ni);
}

static void test_random_positions(void **state)
{
    (void)state;
    each_random_material((long)(100000 * scale()), check_random_position);
}

typedef unsigned __int128 u128;

/* C(n, k) by Pascal's rule in 128 bits, apart from index/binomial.c. */
static u128 binom128(int n, int k)
{
    static u128 c[DK_MAX_SQ + 1][DK_MAX_SQ + 1];
    if (!c[0][0])
        for (int i = 0; i <= DK_MAX_SQ; i++)
            for (int j = 0; j <= i; j++)
                c[i][j] = j == 0 || j == i ? 1 : c[i - 1][j - 1] + c[i - 1][j];
    return k < 0 || k > n ? 0 : c[n][k];
}

/* Positions of m (White to move) by placements: white men on the squares only they may use (a
 * of them) and on the squares both colours' men may use, black men likewise (b on theirs), then
 * white and black kings on the squares left. In 128 bits, from the variant's squares alone. */
static u128 closed_form(const dk_variant *v, dk_material m, u128 *men_out)
{
    int wonly = dk_popcount(v->man_ok[DK_WHITE] & ~v->man_ok[DK_BLACK]);
    int bonly = dk_popcount(v->man_ok[DK_BLACK] & ~v->man_ok[DK_WHITE]);
    int both = dk_popcount(v->man_ok[DK_WHITE] & v->man_ok[DK_BLACK]);
    u128 men = 0;
    for (int a = 0; a <= m.wm; a++)
        for (int b = 0; b <= m.bm; b++)
            men += binom128(wonly, a) * binom128(both, m.wm - a) * binom128(bonly, b) *
                   binom128(both - (m.wm - a), m.bm - b);
    int free = v->nsq - m.wm - m.bm;
    *men_out = men;
    return men * binom128(free, m.wk) * binom128(free - m.wk, m.bk);
}

/* Every material of v up to its bound (10 pieces on 8x8, 9 on 10x10): the index's counts are
 * the closed form's (checked against a long double product too), below 2^62, and the totals a
 * number of pieces, both sides to move, are `expect`'s from 9 pieces on. */
static void check_closed_forms(const dk_variant *v, const uint64_t *expect)
{
    int top = dk_material_max_pieces(v);
    dk_material *ms;
    size_t n = materials(v, top, &ms);
    u128 total[DK_MATERIAL_MAX_PIECES + 1] = {0}, largest = 0;
    for (size_t i = 0; i < n; i++) {
        dk_index ix;
        u128 men, size = closed_form(v, ms[i], &men);
        assert_int_equal(dk_index_init(&ix, v, ms[i]), 0);
        assert_true(size < (u128)1 << 62);
        assert_int_equal(ix.size, (uint64_t)size);
        assert_int_equal(ix.men_count, (uint64_t)men);
        long double approx = (long double)ix.men_count * (long double)ix.kings_count;
        assert_true(approx == (long double)size);
        total[dk_material_pieces(ms[i])] += 2 * size;
        largest = size > largest ? size : largest;
    }
    for (int p = 9; p <= top; p++)
        assert_true(total[p] == expect[p - 9]);
    /* the largest material: International 2m2k-2m3k, 12,383,939,937,600 positions (2^43.5) */
    assert_true(largest < (u128)1 << 44);
    assert_int_equal(dk_material_list(v, top + 1, 0, NULL, 0) > n, 1);
    free(ms);
}

/* dk_index_rank_memo agrees with dk_index_rank over positions of three materials read in turn,
 * each placement met again and again: hits and misses alike; and the same men on the same bits
 * of both boards, which rank otherwise: a placement remembered under one index must not answer
 * for another. */
static void test_rank_memo(void **state)
{
    (void)state;
    enum { MATERIALS = 3, EACH = 64 };
    const dk_material ms[MATERIALS] = {{2, 1, 1, 1}, {2, 2, 1, 1}, {1, 1, 2, 2}};
    dk_index ix[MATERIALS];
    dk_pos pos[MATERIALS][EACH];
    for (int m = 0; m < MATERIALS; m++) {
        assert_int_equal(dk_index_init(&ix[m], br(), ms[m]), 0);
        for (int k = 0; k < EACH; k++)
            pos[m][k] = random_pos(br(), ms[m], DK_WHITE);
    }
    dk_men_memo *memo = calloc(1, sizeof *memo);
    assert_non_null(memo);
    for (long r = 0; r < 100000; r++) {
        int m = (int)(rnd() % MATERIALS), k = (int)(rnd() % EACH);
        assert_int_equal(dk_index_rank_memo(memo, &ix[m], &pos[m][k]), dk_index_rank(&ix[m], &pos[m][k]));
    }
    /* the same men on the same bits of the two boards rank otherwise: remembered by index */
    dk_index intl_ix;
    assert_int_equal(dk_index_init(&intl_ix, intl(), ms[0]), 0);
    int both = 0;
    for (int k = 0; k < EACH; k++) {
        if (dk_pos_check(intl(), &pos[0][k]) != DK_POS_OK)
            continue;
        uint64_t there = dk_index_rank(&intl_ix, &pos[0][k]);
        both += there != dk_index_rank(&ix[0], &pos[0][k]);
        assert_int_equal(dk_index_rank_memo(memo, &ix[0], &pos[0][k]), dk_index_rank(&ix[0], &pos[0][k]));
        assert_int_equal(dk_index_rank_memo(memo, &intl_ix, &pos[0][k]), there);
    }
    assert_true(both > 0);
    free(memo);
}

static void test_closed_forms(void **state)
{
    (void)state;
    static const uint64_t b[] = {8066343424192ull, 69425814398592ull};
    static const uint64_t i[] = {817876055251900ull};
    check_closed_forms(br(), b);
    check_closed_forms(intl(), i);
    assert_int_equal(dk_material_max_pieces(br()), 10);
    assert_int_equal(dk_material_max_pieces(intl()), 9);
}

/* Rank and unrank round trips at the bound: random indices and random positions of a few
 * materials of 9 and 10 pieces (the largest, men only, kings only, one man against kings). */
static void test_large_round_trips(void **state)
{
    (void)state;
    static const struct {
        int intl;
        dk_material m;
    } cases[] = {
        {0, {2, 3, 2, 3}}, {0, {5, 0, 5, 0}}, {0, {0, 5, 0, 5}}, {0, {1, 0, 0, 9}}, {0, {3, 1, 4, 1}},
        {0, {2, 2, 2, 3}}, {1, {2, 2, 2, 3}}, {1, {4, 0, 5, 0}}, {1, {0, 5, 0, 4}}, {1, {1, 3, 3, 2}},
    };
    long count = (long)(3000 * scale());
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const dk_variant *v = cases[c].intl ? intl() : br();
        dk_index ix;
        assert_int_equal(dk_index_init(&ix, v, cases[c].m), 0);
        check_index(&ix, 0);
        check_index(&ix, ix.size - 1);
        for (long k = 0; k < count; k++) {
            check_index(&ix, rnd() % ix.size);
            check_random_position(v, cases[c].m);
        }
    }
}

/* The rankers of the solver's two passes on a random position p of m: dk_quiet_rank gives, for
 * every quiet king move of p, the kings_index of the successor turned, and dk_unmove_rank, for
 * every quiet un-move of a black king of p (those where the mover had a capture included), the
 * kings_index of the predecessor turned: what dk_apply or dk_unapply, dk_pos_flip and the full
 * rank give. */
static void check_move_rankers(const dk_variant *v, dk_material m)
{
    dk_index tx;
    assert_int_equal(dk_index_init(&tx, v, dk_material_twin(m)), 0);
    dk_pos p = random_pos(v, m, DK_WHITE);
    dk_quiet_ranker q = dk_quiet_ranker_of(&tx, &p);
    dk_unmove_ranker u = dk_unmove_ranker_of(&tx, &p);
    for (int mover = DK_WHITE; mover <= DK_BLACK; mover++)
        for (dk_bb b = dk_kings(&p, mover); b; b &= b - 1) {
            int at = dk_lsb(b);
            for (dk_bb to = dk_king_reach(v, at, dk_occupied(&p)); to; to &= to - 1) {
                /* white: a move from `at`; black: an un-move that came to `at` */
                dk_move mv = {0, (uint8_t)(mover == DK_WHITE ? at : dk_lsb(to)),
                              (uint8_t)(mover == DK_WHITE ? dk_lsb(to) : at), 0, 0};
                dk_pos next = mover == DK_WHITE ? dk_apply(&p, &mv) : dk_unapply(&p, &mv);
                dk_pos f = dk_pos_flip(v, &next);
                uint64_t men, kings;
                dk_index_rank_split(&tx, &f, &men, &kings);
                dk_quiet_king qk = dk_quiet_king_of(&q, at);
                dk_unmove_king uk = dk_unmove_king_of(&u, at);
                assert_int_equal(mover == DK_WHITE ? dk_quiet_rank(&qk, mv.to) : dk_unmove_rank(&uk, mv.from),
                                 kings);
            }
        }
}

/* dk_comb_plus and dk_comb_less against dk_comb_rank: for random sets of 0 to 9 squares and
 * squares left out, on 32 and 50 squares, every square x outside both. */
static void test_comb_parts(void **state)
{
    (void)state;
    dk_binom_init();
    for (int t = 0; t < (int)(20000 * scale()); t++) {
        int nsq = t % 2 ? 50 : 32, k = (int)(rnd() % 10), nskip = (int)(rnd() % 12);
        dk_bb set = 0, skip = 0;
        while (dk_popcount(set) < k)
            set |= dk_bit((int)(rnd() % (uint64_t)nsq));
        while (dk_popcount(skip) < nskip)
            skip |= dk_bit((int)(rnd() % (uint64_t)nsq)) & ~set;
        dk_comb_plus p;
        dk_comb_less l;
        dk_comb_plus_init(&p, set, skip);
        dk_comb_less_init(&l, set, skip);
        for (int x = 0; x < nsq; x++)
            if (!((set | skip) >> x & 1)) {
                assert_int_equal(dk_comb_plus_rank(&p, x), dk_comb_rank(set | dk_bit(x), skip));
                assert_int_equal(dk_comb_less_rank(&l, x), dk_comb_rank(set, skip | dk_bit(x)));
            }
    }
}

static void test_move_rankers(void **state)
{
    (void)state;
    each_random_material((long)(20000 * scale()), check_move_rankers);
}

static void test_subslice_iter(void **state)
{
    (void)state;
    const dk_variant *vs[2] = {br(), intl()};
    static const dk_material mats[] = {{1, 2, 1, 1}, {2, 1, 0, 2}, {0, 2, 0, 2}, {2, 0, 1, 0}, {1, 0, 0, 3}};
    for (int vi = 0; vi < 2; vi++)
        for (size_t mi = 0; mi < sizeof mats / sizeof *mats; mi++) {
            dk_index ix;
            assert_int_equal(dk_index_init(&ix, vs[vi], mats[mi]), 0);
            for (int t = 0; t < 3; t++) {
                uint64_t men = rnd() % ix.men_count, seen = 0;
                dk_subslice_iter it;
                dk_subslice_begin(&it, &ix, men);
                do {
                    assert_int_equal(it.kings_index, seen);
                    dk_pos q = dk_index_unrank_split(&ix, men, seen);
                    assert_true(dk_pos_equal(&it.pos, &q));
                    seen++;
                } while (dk_subslice_next(&it));
                assert_int_equal(seen, ix.kings_count);
                /* starting anywhere (where a part of a split subslice begins) walks on alike */
                uint64_t from = rnd() % ix.kings_count;
                dk_subslice_seek(&it, &ix, men, from);
                for (uint64_t k = from; k < ix.kings_count && k < from + 50; k++) {
                    assert_int_equal(it.kings_index, k);
                    dk_pos q = dk_index_unrank_split(&ix, men, k);
                    assert_true(dk_pos_equal(&it.pos, &q));
                    assert_int_equal(dk_subslice_next(&it), k + 1 < ix.kings_count);
                }
            }
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_material_list_and_names),
        cmocka_unit_test(test_size_table),
        cmocka_unit_test(test_exhaustive_small),
        cmocka_unit_test(test_random_large),
        cmocka_unit_test(test_random_positions),
        cmocka_unit_test(test_rank_memo),
        cmocka_unit_test(test_closed_forms),
        cmocka_unit_test(test_large_round_trips),
        cmocka_unit_test(test_comb_parts),
        cmocka_unit_test(test_move_rankers),
        cmocka_unit_test(test_subslice_iter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
