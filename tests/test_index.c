/* Materials and the perfect index (index/), and the generator's subslice levels and work graph
 * built on them (gen/subslice.h, gen/workgraph.h). */
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

#include "../gen/setup.h"
#include "../gen/subslice.h"
#include "../gen/workgraph.h"
#include "../index/material.h"
#include "../index/perfect.h"
#include "../rules/movegen.h"

static const dk_variant *br(void) { return dk_variant_get(DK_BRAZILIAN); }
static const dk_variant *intl(void) { return dk_variant_get(DK_INTERNATIONAL); }

/* Random counts scale with DK_TEST_SCALE (default 1). */
static double scale(void)
{
    const char *s = getenv("DK_TEST_SCALE");
    double f = s ? atof(s) : 1.0;
    return f > 0 ? f : 1.0;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t materials(const dk_variant *v, int pieces, dk_material **out)
{
    size_t n = dk_material_list(v, pieces, 0, NULL, 0);
    *out = malloc(n * sizeof **out);
    assert_non_null(*out);
    assert_int_equal(dk_material_list(v, pieces, 0, *out, n), n);
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

/* A random legal position of material m with side to move `side`. */
static dk_pos random_pos(const dk_variant *v, dk_material m, int side)
{
    dk_pos p = {{0, 0}, 0, side};
    const int counts[4] = {m.wm, m.wk, m.bm, m.bk};
    for (int g = 0; g < 4; g++) {
        int colour = g / 2;
        bool king = g % 2;
        for (int k = 0; k < counts[g];) {
            int s = (int)(rnd() % (uint64_t)v->nsq);
            dk_bb b = dk_bit(s);
            if ((dk_occupied(&p) & b) || (!king && !(v->man_ok[colour] & b)))
                continue;
            p.pieces[colour] |= b;
            if (king)
                p.kings |= b;
            k++;
        }
    }
    return p;
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
 * flip's index; levels agree under the flip. */
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
    dk_bb fw, fb;
    dk_men_flip(v, dk_men(&p, DK_WHITE), dk_men(&p, DK_BLACK), &fw, &fb);
    assert_int_equal(dk_men_level(v, fw, fb), dk_men_level(v, dk_men(&p, DK_WHITE), dk_men(&p, DK_BLACK)));
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

/* The work graph of every material up to the bound, with the default unit bound gen, plan and
 * info use: built in seconds, of sane size, its positions the index's. */
static void check_large_graph(const dk_variant *v, size_t nmaterials, uint32_t npairs)
{
    dk_material *ms;
    size_t n = materials(v, dk_material_max_pieces(v), &ms);
    assert_int_equal(n, nmaterials);
    uint64_t positions = dk_setup_positions(v, ms, n), unit = dk_setup_default_unit(positions);
    assert_true(unit > DK_DEFAULT_UNIT_POSITIONS && positions / unit <= DK_SETUP_UNITS_AIM);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    dk_workgraph *g = dk_workgraph_build(v, ms, n, unit);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_non_null(g);
    uint64_t total = 0;
    for (uint32_t p = 0; p < g->npairs; p++)
        total += g->pairs[p].positions;
    assert_int_equal(total, positions);
    assert_int_equal(g->npairs, npairs);
    assert_true(g->nunits >= g->nlayers && g->nunits < 16 * DK_SETUP_UNITS_AIM); /* about a million */
    printf("# %s up to %d pieces: %zu materials, %u pairs, %u layers, %u units of at most %llu positions, "
           "built in %.1f s\n", v->name, dk_material_max_pieces(v), n, g->npairs, g->nlayers, g->nunits,
           (unsigned long long)unit, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    dk_workgraph_free(g);
    free(ms);
}

static void test_large_workgraph(void **state)
{
    (void)state;
    check_large_graph(br(), 870, 445);
    check_large_graph(intl(), 606, 310);
    /* up to 8 pieces on 8x8 the default bound is gen's own */
    dk_material *ms;
    size_t n = materials(br(), 8, &ms);
    assert_int_equal(dk_setup_default_unit(dk_setup_positions(br(), ms, n)), DK_DEFAULT_UNIT_POSITIONS);
    free(ms);
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

static void test_level_counts(void **state)
{
    (void)state;
    const dk_variant *vs[2] = {br(), intl()};
    static const dk_material mats[] = {{2, 0, 1, 0}, {1, 1, 2, 0}, {0, 2, 0, 1}, {3, 0, 1, 0}};
    for (int vi = 0; vi < 2; vi++)
        for (size_t mi = 0; mi < sizeof mats / sizeof *mats; mi++) {
            const dk_variant *v = vs[vi];
            dk_index ix;
            assert_int_equal(dk_index_init(&ix, v, mats[mi]), 0);
            int maxl = dk_max_level(v, mats[mi]);
            uint64_t *counts = calloc((size_t)maxl + 1, sizeof *counts), *seen = calloc((size_t)maxl + 1, sizeof *seen);
            assert_int_equal(dk_level_counts(v, mats[mi], counts), 0);
            for (uint64_t i = 0; i < ix.men_count; i++) {
                dk_bb w, b;
                dk_index_men_unrank(&ix, i, &w, &b);
                seen[dk_men_level(v, w, b)]++;
            }
            for (int l = 0; l <= maxl; l++)
                assert_int_equal(counts[l], seen[l]);
            free(counts);
            free(seen);
        }
}

/* Every legal move from random positions leads to a unit earlier in the order, or (a king move)
 * to the same unit. */
static void check_moves(const dk_workgraph *g, const dk_variant *v, long count)
{
    dk_movelist *list = malloc(sizeof *list);
    long kings = 0, captures = 0, others = 0;
    for (long k = 0; k < count; k++) {
        const dk_wpair *p = &g->pairs[rnd() % g->npairs];
        dk_material m = rnd() & 1 ? p->m : p->twin;
        dk_pos pos = random_pos(v, m, rnd() & 1 ? DK_WHITE : DK_BLACK);
        dk_material nm;
        uint64_t ni;
        assert_int_equal(dk_normal_index(v, &pos, &nm, &ni), 0);
        dk_index ix;
        assert_int_equal(dk_index_init(&ix, v, nm), 0);
        int64_t from = dk_workgraph_unit_of(g, nm, ni / ix.kings_count);
        assert_true(from >= 0);
        dk_gen_moves(v, &pos, list);
        for (int i = 0; i < list->n; i++) {
            dk_pos q = dk_apply(&pos, &list->m[i]);
            dk_material tm;
            uint64_t ti;
            if (dk_normal_index(v, &q, &tm, &ti) != 0)
                continue; /* the last piece was captured: the game is over */
            dk_index tx;
            assert_int_equal(dk_index_init(&tx, v, tm), 0);
            int64_t to = dk_workgraph_unit_of(g, tm, ti / tx.kings_count);
            assert_true(to >= 0);
            bool king_move = (pos.kings & dk_bit(list->m[i].from)) && !list->m[i].captures;
            if (king_move)
                assert_int_equal(to, from);
            else
                assert_true(to < from);
            kings += king_move;
            captures += list->m[i].captures != 0;
            others += !king_move && !list->m[i].captures;
        }
    }
    assert_true(kings > 0 && captures > 0 && others > 0);
    free(list);
}

/* What the work graph's readiness is checked against: the conditions of workgraph.h, evaluated
 * from the tasks done so far. */
typedef struct oracle {
    const dk_workgraph *g;
    uint8_t *unit_done, *pair_done;
    uint8_t *unit_taken, *pair_taken; /* times each task was handed out */
} oracle;

static bool layer_done(const oracle *o, uint32_t li)
{
    const dk_layer *l = &o->g->layers[li];
    for (uint32_t u = l->first_unit; u < l->first_unit + l->nunits; u++)
        if (!o->unit_done[u])
            return false;
    return true;
}

static bool unit_may_run(const oracle *o, uint32_t u)
{
    const dk_workgraph *g = o->g;
    const dk_unit *un = &g->units[u];
    const dk_wpair *p = &g->pairs[un->pair];
    for (uint32_t j = 0; j < p->ndeps; j++)
        if (!o->pair_done[g->deps[p->first_dep + j]])
            return false;
    int up = un->level + 1;
    return up > p->max_level || p->layer_of_level[up - p->min_level] < 0 ||
           layer_done(o, (uint32_t)p->layer_of_level[up - p->min_level]);
}

static bool finish_may_run(const oracle *o, uint32_t pair)
{
    const dk_wpair *p = &o->g->pairs[pair];
    for (uint32_t k = 0; k < p->nlayers; k++)
        if (!layer_done(o, p->first_layer + k))
            return false;
    return true;
}

/* Tasks whose conditions hold and that were not handed out yet. */
static uint32_t oracle_ready(const oracle *o)
{
    uint32_t n = 0;
    for (uint32_t u = 0; u < o->g->nunits; u++)
        n += !o->unit_done[u] && !o->unit_taken[u] && unit_may_run(o, u);
    for (uint32_t p = 0; p < o->g->npairs; p++)
        n += !o->pair_done[p] && !o->pair_taken[p] && finish_may_run(o, p);
    return n;
}

static uint64_t task_key(dk_wg_task t) { return (t.kind == DK_WG_UNIT ? (uint64_t)1 << 32 : 0) | t.id; }

static bool bit(const uint64_t *b, uint32_t i) { return b && (b[i / 64] >> (i % 64) & 1); }

/* Drives the graph's scheduling state as gen's scheduler does on `ranks` ranks, from a restart
 * state (bitsets, NULL = nothing done), completing taken tasks in a scrambled order. Checks that
 * no unit is handed out before every pair it reads is finished and its layer above is done, no
 * finish before the pair's units, every task exactly once, in the graph's priority, and that
 * the graph withholds nothing ready. */
static void check_schedule(dk_workgraph *g, const uint64_t *units0, const uint64_t *pairs0, int ranks)
{
    oracle o = {g, calloc(g->nunits, 1), calloc(g->npairs, 1), calloc(g->nunits, 1), calloc(g->npairs, 1)};
    dk_wg_task *running = malloc((size_t)ranks * sizeof *running);
    uint32_t nrunning = 0, todo = 0, handed = 0;
    for (uint32_t p = 0; p < g->npairs; p++) {
        o.pair_done[p] = bit(pairs0, p);
        todo += !o.pair_done[p];
    }
    for (uint32_t u = 0; u < g->nunits; u++) {
        o.unit_done[u] = bit(units0, u) || o.pair_done[g->units[u].pair];
        todo += !o.unit_done[u];
        /* ids topological: a unit reads lower pairs and lower layers only */
        const dk_wpair *p = &g->pairs[g->units[u].pair];
        for (uint32_t j = 0; j < p->ndeps; j++)
            assert_true(g->deps[p->first_dep + j] < g->units[u].pair);
    }
    dk_workgraph_reset(g, units0, pairs0);
    assert_int_equal(dk_workgraph_nready(g), oracle_ready(&o));
    for (;;) {
        uint64_t last = 0;
        double last_prio = DBL_MAX;
        dk_wg_task t;
        while (nrunning < (uint32_t)ranks && dk_workgraph_take(g, &t)) {
            /* the highest priority first; among equal ones finishes first, then units, each
             * ascending */
            double prio = t.kind == DK_WG_UNIT ? g->unit_prio[t.id] : g->finish_prio[t.id];
            assert_true(prio < last_prio || (prio == last_prio && task_key(t) >= last));
            last = task_key(t);
            last_prio = prio;
            if (t.kind == DK_WG_UNIT) {
                assert_true(t.id < g->nunits && !o.unit_done[t.id] && o.unit_taken[t.id]++ == 0);
                assert_true(unit_may_run(&o, t.id));
            } else {
                assert_int_equal(t.kind, DK_WG_FINISH);
                assert_true(t.id < g->npairs && !o.pair_done[t.id] && o.pair_taken[t.id]++ == 0);
                assert_true(finish_may_run(&o, t.id));
            }
            running[nrunning++] = t;
            handed++;
        }
        if (nrunning == 0)
            break;
        uint32_t pick = (uint32_t)(rnd() % nrunning), before = dk_workgraph_nready(g);
        t = running[pick];
        running[pick] = running[--nrunning];
        (t.kind == DK_WG_UNIT ? o.unit_done : o.pair_done)[t.id] = 1;
        uint32_t released = dk_workgraph_done(g, t);
        assert_int_equal(released, dk_workgraph_nready(g) - before);
        assert_int_equal(dk_workgraph_done(g, t), 0); /* done twice: a no-op */
        if (handed % 97 == 0 || nrunning == 0)
            assert_int_equal(dk_workgraph_nready(g), oracle_ready(&o));
    }
    assert_int_equal(handed, todo);
    assert_true(dk_workgraph_all_finished(g));
    for (uint32_t u = 0; u < g->nunits; u++)
        assert_true(o.unit_done[u]);
    free(o.unit_done);
    free(o.pair_done);
    free(o.unit_taken);
    free(o.pair_taken);
    free(running);
}

/* A restart: the pairs before `cut` finished, the first units of pair `cut` done (all of them if
 * `whole`, leaving only its finish), then the schedule from there. */
static void check_restart(dk_workgraph *g, uint32_t cut, bool whole)
{
    uint64_t *units = calloc(g->nunits / 64 + 1, 8), *pairs = calloc(g->npairs / 64 + 1, 8);
    for (uint32_t p = 0; p < cut; p++)
        pairs[p / 64] |= (uint64_t)1 << (p % 64);
    const dk_wpair *p = &g->pairs[cut];
    const dk_layer *last = &g->layers[p->first_layer + p->nlayers - 1];
    uint32_t first = g->layers[p->first_layer].first_unit, end = last->first_unit + last->nunits;
    for (uint32_t u = first; u < (whole ? end : first + (end - first) / 2); u++)
        units[u / 64] |= (uint64_t)1 << (u % 64);
    check_schedule(g, units, pairs, 3);
    if (whole) {
        /* The finish of pair `cut` is handed out first, then units only. */
        dk_workgraph_reset(g, units, pairs);
        dk_wg_task t;
        assert_true(dk_workgraph_take(g, &t));
        assert_int_equal(t.kind, DK_WG_FINISH);
        assert_int_equal(t.id, cut);
        while (dk_workgraph_take(g, &t))
            assert_true(t.kind == DK_WG_UNIT && g->units[t.id].pair > cut);
    }
    free(units);
    free(pairs);
}

static void check_graph(const dk_variant *v, int pieces, uint64_t max_positions, long moves)
{
    dk_material *ms;
    size_t n = materials(v, pieces, &ms);
    dk_workgraph *g = dk_workgraph_build(v, ms, n, max_positions);
    assert_non_null(g);
    uint64_t total = 0, index_total = 0, oversize = 0;
    for (uint32_t u = 0; u < g->nunits; u++) {
        const dk_unit *un = &g->units[u];
        oversize += un->oversize;
        if (un->exact && !un->oversize)
            assert_true(un->positions <= max_positions);
        if (u)
            assert_true(un->pair > g->units[u - 1].pair ||
                        (un->pair == g->units[u - 1].pair && un->level <= g->units[u - 1].level));
    }
    for (uint32_t li = 0; li < g->nlayers; li++) {
        uint64_t sum = 0;
        bool exact = true;
        for (uint32_t u = g->layers[li].first_unit; u < g->layers[li].first_unit + g->layers[li].nunits; u++) {
            sum += g->units[u].positions;
            exact &= g->units[u].exact;
        }
        if (exact)
            assert_int_equal(sum, g->layers[li].positions);
        total += g->layers[li].positions;
    }
    for (size_t i = 0; i < n; i++) {
        dk_index ix;
        dk_index_init(&ix, v, ms[i]);
        index_total += ix.size;
    }
    assert_int_equal(total, index_total);
    /* Kings-only materials above the bound stay one unit. */
    if (max_positions < 1000000)
        assert_true(oversize > 0);
    check_moves(g, v, moves);
    check_schedule(g, NULL, NULL, 1);
    check_schedule(g, NULL, NULL, 7);
    check_schedule(g, NULL, NULL, (int)(g->nunits + g->npairs));
    check_restart(g, g->npairs / 2, false);
    check_restart(g, g->npairs / 2, true);
    dk_workgraph_free(g);
    free(ms);
}

static void test_workgraph(void **state)
{
    (void)state;
    long moves = (long)(20000 * scale());
    check_graph(br(), 5, 100000, moves);
    check_graph(br(), 4, 1 << 20, moves);
    check_graph(intl(), 4, 200000, moves);
    check_graph(intl(), 5, (uint64_t)1 << 26, moves / 4);
}

/* The highest priority of pair q's units (0: none). */
static double pair_units_prio(const dk_workgraph *g, uint32_t q)
{
    double most = 0;
    for (uint32_t u = 0; u < g->nunits; u++)
        if (g->units[u].pair == q && g->unit_prio[u] > most)
            most = g->unit_prio[u];
    return most;
}

/* Priorities: each task's is its cost plus the highest of the tasks that wait for it directly,
 * found from the conditions of workgraph.h as the oracle reads them (the layer one level down
 * waits for a layer, a pair's finish for its units, every unit of a pair for the finishes of
 * the pairs it reads); then the schedule hands tasks out by them. */
static void test_workgraph_priorities(void **state)
{
    (void)state;
    const dk_variant *v = br();
    dk_material *ms;
    size_t n = materials(v, 4, &ms);
    dk_workgraph *g = dk_workgraph_build(v, ms, n, 20000);
    assert_non_null(g);
    double *uc = malloc(g->nunits * sizeof *uc), *fc = malloc(g->npairs * sizeof *fc);
    for (uint32_t u = 0; u < g->nunits; u++)
        uc[u] = 1 + (double)(rnd() % 1000);
    for (uint32_t p = 0; p < g->npairs; p++)
        fc[p] = 1 + (double)(rnd() % 1000);
    dk_workgraph_prioritize(g, uc, fc, NULL);
    for (uint32_t p = 0; p < g->npairs; p++) {
        double after = 0;
        for (uint32_t q = 0; q < g->npairs; q++)
            for (uint32_t j = 0; j < g->pairs[q].ndeps; j++)
                if (g->deps[g->pairs[q].first_dep + j] == p && pair_units_prio(g, q) > after)
                    after = pair_units_prio(g, q);
        assert_float_equal(g->finish_prio[p], fc[p] + after, 1e-9);
    }
    uint32_t chained = 0;
    for (uint32_t u = 0; u < g->nunits; u++) {
        const dk_unit *un = &g->units[u];
        const dk_wpair *p = &g->pairs[un->pair];
        double next = g->finish_prio[un->pair];
        int down = un->level - 1;
        if (down >= p->min_level && p->layer_of_level[down - p->min_level] >= 0) {
            const dk_layer *l = &g->layers[p->layer_of_level[down - p->min_level]];
            for (uint32_t w = l->first_unit; w < l->first_unit + l->nunits; w++)
                next = g->unit_prio[w] > next ? g->unit_prio[w] : next;
            chained++;
        }
        assert_float_equal(g->unit_prio[u], uc[u] + next, 1e-9);
    }
    assert_true(chained > 0);
    check_schedule(g, NULL, NULL, 1);
    check_schedule(g, NULL, NULL, 5);
    free(uc);
    free(fc);
    free(ms);
    dk_workgraph_free(g);
}

static void test_workgraph_closure(void **state)
{
    (void)state;
    dk_material t = {2, 0, 1, 1};
    dk_workgraph *g = dk_workgraph_build(br(), &t, 1, 1 << 20);
    assert_non_null(g);
    assert_true(dk_workgraph_pair_of(g, t) >= 0);
    assert_true(dk_workgraph_pair_of(g, dk_material_twin(t)) >= 0);
    assert_true(dk_workgraph_pair_of(g, (dk_material){0, 1, 0, 1}) >= 0);
    assert_true(dk_workgraph_pair_of(g, (dk_material){2, 0, 2, 0}) < 0);
    assert_true(g->pairs[g->npairs - 1].m.wm + g->pairs[g->npairs - 1].m.bm > 0);
    check_schedule(g, NULL, NULL, 2);
    dk_workgraph_free(g);
    dk_material bad = {0, 0, 0, 1};
    assert_null(dk_workgraph_build(br(), &bad, 1, 1000));
}

/* A finishing cut into parts: each member's tables covered by ranges of whole blocks of at most
 * the bound; a pair's packings only after all its scans, its finish only after all its
 * packings, each part's tasks handed out once; a restart with the scans done hands out the
 * packings first. */
static void test_finish_parts(void **state)
{
    (void)state;
    const dk_variant *v = dk_variant_get(DK_BRAZILIAN);
    dk_material *ms;
    size_t n = materials(v, 4, &ms);
    dk_workgraph *g = dk_workgraph_build(v, ms, n, 20000);
    free(ms);
    assert_non_null(g);
    const uint64_t bound = 100000; /* parts of 65536 positions */
    assert_int_equal(dk_workgraph_cut_finishes(g, bound), 0);
    uint32_t cut = 0;
    for (uint32_t p = 0; p < g->npairs; p++) {
        const dk_wpair *wp = &g->pairs[p];
        assert_int_equal(wp->nparts > 0, wp->positions > bound);
        cut += wp->nparts > 0;
        uint64_t next[2] = {0, 0};
        for (uint32_t q = wp->first_part; q < wp->first_part + wp->nparts; q++) {
            const dk_fpart *f = &g->parts[q];
            assert_int_equal(f->pair, p);
            assert_int_equal(f->lo, next[f->member]);
            assert_int_equal(f->lo % DK_FPART_ALIGN, 0);
            assert_true(f->hi > f->lo && f->hi - f->lo <= DK_FPART_ALIGN);
            next[f->member] = f->hi;
        }
        if (wp->nparts) {
            assert_int_equal(next[0], wp->ix.size);
            assert_int_equal(next[1], wp->self_twin ? 0 : wp->ix_twin.size);
        }
    }
    assert_true(cut > 0 && cut < g->npairs);

    uint8_t *taken = calloc(2 * g->nparts + g->npairs + g->nunits, 1);
    uint32_t *scans = calloc(g->npairs, sizeof *scans), *packs = calloc(g->npairs, sizeof *packs);
    dk_wg_task t;
    while (dk_workgraph_take(g, &t)) { /* one task at a time, done at once */
        if (t.kind == DK_WG_SCAN || t.kind == DK_WG_PACK) {
            uint32_t p = g->parts[t.id].pair;
            assert_int_equal(taken[(t.kind == DK_WG_PACK) * g->nparts + t.id]++, 0);
            if (t.kind == DK_WG_PACK)
                assert_int_equal(scans[p], g->pairs[p].nparts);
            (t.kind == DK_WG_SCAN ? scans : packs)[p]++;
        } else if (t.kind == DK_WG_FINISH) {
            assert_int_equal(packs[t.id], g->pairs[t.id].nparts);
            assert_int_equal(taken[2 * g->nparts + t.id]++, 0);
        }
        dk_workgraph_done(g, t);
    }
    assert_true(dk_workgraph_all_finished(g));
    for (uint32_t p = 0; p < g->npairs; p++)
        assert_true(scans[p] == g->pairs[p].nparts && packs[p] == g->pairs[p].nparts);

    /* every other pair finished, the units of the first pair cut done and its parts scanned:
     * its packings come first, then its finish */
    uint32_t first = 0;
    while (!g->pairs[first].nparts)
        first++;
    uint64_t *units = calloc(g->nunits / 64 + 1, 8), *parts = calloc(2 * g->nparts / 64 + 1, 8);
    uint64_t *pairs = calloc(g->npairs / 64 + 1, 8);
    for (uint32_t u = 0; u < g->nunits; u++)
        units[u / 64] |= (uint64_t)1 << (u % 64);
    for (uint32_t p = 0; p < g->npairs; p++)
        pairs[p / 64] |= (uint64_t)(p != first) << (p % 64);
    for (uint32_t q = g->pairs[first].first_part; q < g->pairs[first].first_part + g->pairs[first].nparts; q++)
        parts[q / 64] |= (uint64_t)1 << (q % 64);
    dk_workgraph_reset_parts(g, units, pairs, parts);
    for (uint32_t k = 0; k < g->pairs[first].nparts; k++) {
        assert_true(dk_workgraph_take(g, &t));
        assert_int_equal(t.kind, DK_WG_PACK);
        assert_int_equal(g->parts[t.id].pair, first);
        dk_workgraph_done(g, t);
    }
    assert_true(dk_workgraph_take(g, &t));
    assert_true(t.kind == DK_WG_FINISH && t.id == first);
    free(pairs);
    free(units);
    free(parts);
    free(taken);
    free(scans);
    free(packs);
    dk_workgraph_free(g);
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
        cmocka_unit_test(test_large_workgraph),
        cmocka_unit_test(test_comb_parts),
        cmocka_unit_test(test_move_rankers),
        cmocka_unit_test(test_subslice_iter),
        cmocka_unit_test(test_level_counts),
        cmocka_unit_test(test_workgraph),
        cmocka_unit_test(test_workgraph_closure),
        cmocka_unit_test(test_workgraph_priorities),
        cmocka_unit_test(test_finish_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
