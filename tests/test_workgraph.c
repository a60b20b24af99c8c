/* The generator's subslice levels and work graph (gen/sched/subslice.h, gen/sched/workgraph.h), built on the
 * index: the levels' counts and their symmetry under the flip, every move leading to a unit no
 * later in the order, the readiness of tasks against the conditions of workgraph.h evaluated
 * apart (an oracle), restarts, priorities, the closure of a target's dependencies, a finishing
 * cut into parts, and the graph of every material up to the bound. */
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

#include "../gen/run/setup.h"
#include "../gen/sched/subslice.h"
#include "../gen/sched/workgraph.h"
#include "../index/material.h"
#include "../index/perfect.h"
#include "../rules/movegen.h"
#include "support.h"

static const dk_variant *br(void) { return dk_variant_get(DK_BRAZILIAN); }
static const dk_variant *intl(void) { return dk_variant_get(DK_INTERNATIONAL); }

/* Random counts scale with DK_TEST_SCALE (default 1). */
static double scale(void) { return test_scale(); }

static test_rng rng = {0x2545F4914F6CDD1Dull};
static uint64_t rnd(void) { return test_rand(&rng); }

static size_t materials(const dk_variant *v, int pieces, dk_material **out)
{
    size_t n = test_materials(v, pieces, out);
    assert_non_null(*out);
    return n;
}

static dk_pos random_pos(const dk_variant *v, dk_material m, int side)
{
    return test_random_material_pos(v, &rng, m, side);
}

/* A position's level and its flip's agree, on random positions of random materials. */
static void test_level_flip(void **state)
{
    (void)state;
    const dk_variant *vs[2] = {br(), intl()};
    for (int vi = 0; vi < 2; vi++) {
        dk_material *ms;
        size_t n = materials(vs[vi], 8, &ms);
        for (long k = 0; k < (long)(100000 * scale()); k++) {
            dk_pos p = random_pos(vs[vi], ms[rnd() % n], DK_WHITE);
            dk_bb fw, fb;
            dk_men_flip(vs[vi], dk_men(&p, DK_WHITE), dk_men(&p, DK_BLACK), &fw, &fb);
            assert_int_equal(dk_men_level(vs[vi], fw, fb),
                             dk_men_level(vs[vi], dk_men(&p, DK_WHITE), dk_men(&p, DK_BLACK)));
        }
        free(ms);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_level_counts),
        cmocka_unit_test(test_level_flip),
        cmocka_unit_test(test_workgraph),
        cmocka_unit_test(test_workgraph_closure),
        cmocka_unit_test(test_workgraph_priorities),
        cmocka_unit_test(test_finish_parts),
        cmocka_unit_test(test_large_workgraph),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
