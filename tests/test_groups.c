/* A unit's groups (gen/sched/groups.h): the groups of every unit lie end to end and cover its pair's
 * positions once; a unit's shape, made again from its count of positions without listing the
 * groups (how finishing a pair reopens units), is the groups built in every field, split units
 * and their parts included; the groups cache lists a large pair once while a small pair's units
 * come between its units, and never lists a pair above its bound, whose units walk their own
 * subslices; the units' counts add up to their layers' positions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../gen/sched/groups.h"
#include "../gen/sched/subslice.h"
#include "support.h"

static dk_workgraph *graph(dk_variant_id id, int pieces, uint64_t unit_positions)
{
    dk_workgraph *g = test_graph(id, pieces, unit_positions);
    assert_non_null(g);
    /* what the generator's setup does with a small memory: every oversize unit split */
    for (uint32_t u = 0; u < g->nunits; u++)
        g->units[u].split = g->units[u].oversize;
    return g;
}

static void check_graph(dk_workgraph *g)
{
    dk_groups_cache *cache = dk_groups_cache_new(g);
    assert_non_null(cache);
    uint64_t *covered = calloc(g->npairs, sizeof *covered);
    int split_seen = 0;
    for (uint32_t u = 0; u < g->nunits; u++) {
        dk_groups built, shape;
        assert_int_equal(dk_groups_build(&built, cache, u), 0);
        uint64_t at = 0;
        for (size_t i = 0; i < built.ngroups; i++) {
            assert_int_equal(built.groups[i].offset, at);
            at += built.groups[i].self_flip ? built.K : 2 * built.K;
        }
        assert_int_equal(at, built.npositions);
        if (g->units[u].exact)
            assert_int_equal(g->units[u].counted, built.npositions);
        covered[g->units[u].pair] += built.npositions;
        dk_groups_shape(&shape, g, u, built.npositions);
        assert_ptr_equal(shape.g, built.g);
        assert_int_equal(shape.unit, built.unit);
        assert_ptr_equal(shape.pair, built.pair);
        assert_int_equal(shape.level, built.level);
        assert_int_equal(shape.K, built.K);
        assert_int_equal(shape.npositions, built.npositions);
        assert_int_equal(shape.nparts, built.nparts);
        assert_int_equal(shape.part_size, built.part_size);
        assert_int_equal(shape.ngroups, 0);
        assert_null(shape.groups);
        if (built.nparts > 1) {
            split_seen++;
            assert_true(built.part_size * (built.nparts - 1) < built.npositions);
            assert_true(built.part_size * built.nparts >= built.npositions);
        }
        dk_groups_free(&built);
        dk_groups_free(&shape);
    }
    /* both materials of a pair, every position once (one material for a self-twin pair) */
    for (uint32_t p = 0; p < g->npairs; p++) {
        const dk_wpair *pair = &g->pairs[p];
        uint64_t both = pair->self_twin ? pair->ix.size : pair->ix.size + pair->ix_twin.size;
        assert_int_equal(covered[p], both);
    }
    assert_true(split_seen > 0);
    free(covered);
    dk_groups_cache_free(cache);
    dk_workgraph_free(g);
}

static void test_brazilian(void **state)
{
    (void)state;
    check_graph(graph(DK_BRAZILIAN, 4, 20000));
}

static void test_international(void **state)
{
    (void)state;
    check_graph(graph(DK_INTERNATIONAL, 3, 5000));
}

/* Layers too large to list their subslices (Brazilian 3m0k-3m0k has more placements of men than
 * DK_WG_LIST_LIMIT) are cut by ranges of men counted by an upper bound: their units' counts (progress, forecasts) add
 * up to the layer's exact positions, which the units' groups hold, and no unit counts more than
 * its bound. */
static void test_counts_add_up(void **state)
{
    (void)state;
    dk_material m;
    assert_int_equal(dk_material_parse("3m0k-3m0k", &m), 0);
    dk_workgraph *g = dk_workgraph_build(dk_variant_get(DK_BRAZILIAN), &m, 1, 1 << 16);
    assert_non_null(g);
    dk_groups_cache *cache = dk_groups_cache_new(g);
    assert_non_null(cache);
    int ranged = 0;
    for (uint32_t li = 0; li < g->nlayers; li++) {
        const dk_layer *l = &g->layers[li];
        uint64_t counted = 0, bounds = 0, held = 0;
        bool exact = true;
        for (uint32_t u = l->first_unit; u < l->first_unit + l->nunits; u++) {
            const dk_unit *un = &g->units[u];
            assert_true(un->counted <= un->positions);
            counted += un->counted;
            bounds += un->positions;
            exact &= un->exact;
        }
        assert_int_equal(counted, l->positions);
        if (exact)
            continue;
        assert_true(bounds > l->positions); /* the bounds alone would count too much */
        if (ranged++ >= 2) /* two are enough */
            continue;
        for (uint32_t u = l->first_unit; u < l->first_unit + l->nunits; u++) {
            dk_groups ug;
            assert_int_equal(dk_groups_build(&ug, cache, u), 0);
            held += ug.npositions;
            dk_groups_free(&ug);
        }
        assert_int_equal(held, l->positions);
    }
    assert_true(ranged > 0);
    dk_groups_cache_free(cache);
    dk_workgraph_free(g);
}

/* The groups of unit u are the canonical subslices of its level in its range, ascending, each
 * with its flip: what unranking every men_index of the range finds; each is found in u from
 * either of its placements (dk_workgraph_unit_of_placement, dk_groups_find_canonical). */
static void check_unit_plainly(const dk_workgraph *g, dk_groups_cache *cache, uint32_t u)
{
    const dk_unit *un = &g->units[u];
    const dk_wpair *p = &g->pairs[un->pair];
    dk_groups ug;
    assert_int_equal(dk_groups_build(&ug, cache, u), 0);
    size_t i = 0;
    uint64_t at = 0;
    for (uint64_t x = un->men_lo; x < un->men_hi; x++) {
        dk_bb w, b, fw, fb;
        dk_index_men_unrank(&p->ix, x, &w, &b);
        if (dk_men_level(g->v, w, b) != un->level)
            continue;
        dk_men_flip(g->v, w, b, &fw, &fb);
        uint64_t fx = dk_index_men_rank(&p->ix_twin, fw, fb);
        if (p->self_twin && fx < x)
            continue;
        assert_true(i < ug.ngroups);
        assert_int_equal(ug.groups[i].men[0], x);
        assert_int_equal(ug.groups[i].men[1], fx);
        assert_int_equal(dk_groups_find_canonical(&ug, x), (int64_t)i);
        /* found from either placement in hand, as the solver's exits find it */
        uint64_t c;
        int flipped;
        assert_int_equal(dk_workgraph_unit_of_placement(g, p, 0, w, b, &c, &flipped), (int64_t)u);
        assert_int_equal(c, x);
        assert_int_equal(flipped, 0);
        dk_index_men_unrank(&p->ix_twin, fx, &fw, &fb);
        assert_int_equal(dk_workgraph_unit_of_placement(g, p, !p->self_twin, fw, fb, &c, &flipped), (int64_t)u);
        assert_int_equal(c, x);
        assert_int_equal(flipped, !(p->self_twin && fx == x));
        assert_int_equal(ug.groups[i].offset, at);
        assert_int_equal(ug.groups[i].self_flip, p->self_twin && fx == x);
        at += ug.groups[i++].self_flip ? ug.K : 2 * ug.K;
    }
    assert_int_equal(i, ug.ngroups);
    assert_int_equal(at, ug.npositions);
    dk_groups_free(&ug);
}

/* Pairs above DK_GROUPS_KEPT_LARGE are never listed: each unit walks its own level and range
 * (gen/sched/levelwalk.h), and finds the groups the plain walk finds, a self-twin pair
 * (Brazilian 3m0k-3m0k) and a pair of two materials (International 1m0k-4m0k and its twin)
 * alike. Pairs within the bound are listed as before, and agree too. */
static void test_large_pairs_walk(void **state)
{
    (void)state;
    const struct {
        dk_variant_id id;
        const char *name;
    } cases[] = {{DK_BRAZILIAN, "3m0k-3m0k"}, {DK_INTERNATIONAL, "1m0k-4m0k"}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        dk_material m;
        assert_int_equal(dk_material_parse(cases[c].name, &m), 0);
        dk_workgraph *g = dk_workgraph_build(dk_variant_get(cases[c].id), &m, 1, 1 << 16);
        assert_non_null(g);
        dk_groups_cache *cache = dk_groups_cache_new(g);
        assert_non_null(cache);
        const dk_wpair *p = &g->pairs[dk_workgraph_pair_of(g, m)];
        assert_true(dk_groups_pair_subslices(p) > DK_GROUPS_KEPT_LARGE);
        bool listed_one = false;
        for (uint32_t li = p->first_layer; li < p->first_layer + p->nlayers; li += p->nlayers / 3) {
            for (uint32_t u = g->layers[li].first_unit; u < g->layers[li].first_unit + g->layers[li].nunits; u++)
                check_unit_plainly(g, cache, u);
        }
        assert_int_equal(dk_groups_cache_listed(cache), 0);
        for (uint32_t u = 0; u < g->nunits && !listed_one; u++) /* a small pair, listed */
            if (dk_groups_pair_subslices(&g->pairs[g->units[u].pair]) > 1000) {
                check_unit_plainly(g, cache, u);
                listed_one = true;
            }
        assert_int_equal(dk_groups_cache_listed(cache), 1);
        dk_groups_cache_free(cache);
        dk_workgraph_free(g);
    }
}

/* The first unit of the pair, among those of at least min_units units whose listed subslices lie
 * in (lo, hi], with the most (most: true) or the fewest; asserts there is one. */
static uint32_t unit_of_pair(const dk_workgraph *g, uint64_t lo, uint64_t hi, bool most, uint32_t min_units)
{
    uint64_t best = 0;
    uint32_t at = UINT32_MAX;
    for (uint32_t u = 0; u < g->nunits; u++) {
        const dk_wpair *p = &g->pairs[g->units[u].pair];
        uint64_t n = dk_groups_pair_subslices(p);
        uint32_t units = 0;
        for (uint32_t l = p->first_layer; l < p->first_layer + p->nlayers; l++)
            units += g->layers[l].nunits;
        if (units >= min_units && n > lo && n <= hi && (at == UINT32_MAX || (most ? n > best : n < best)))
            best = n, at = u;
    }
    assert_true(at != UINT32_MAX);
    return at;
}

/* Builds a unit of the pair of unit *u not built before (the next one), so that the pair's lists,
 * not a unit's groups kept by the cache, serve it. */
static void build_next(const dk_workgraph *g, dk_groups_cache *cache, uint32_t *u)
{
    dk_groups ug;
    assert_int_equal(dk_groups_build(&ug, cache, *u), 0);
    dk_groups_free(&ug);
    ++*u;
    assert_int_equal(g->units[*u].pair, g->units[*u - 1].pair);
}

/* A large pair's units alternating with small pairs' (the scheduler's order, finishing): the
 * large pair is listed once, kept beside the small ones, which stay within the cache's bound
 * together (the least recently used dropped). */
static void test_cache_keeps_large_pair(void **state)
{
    (void)state;
    dk_workgraph *g = test_graph(DK_BRAZILIAN, 5, 1 << 20);
    assert_non_null(g);
    const uint64_t bound = DK_GROUPS_CACHED_SUBSLICES;
    uint32_t large = unit_of_pair(g, bound, DK_GROUPS_KEPT_LARGE, true, 8); /* kept beside the others */
    uint32_t mid = unit_of_pair(g, bound / 2, bound, true, 4);
    uint64_t nmid = dk_groups_pair_subslices(&g->pairs[g->units[mid].pair]);
    uint32_t tiny = unit_of_pair(g, 0, bound - nmid, false, 8);
    uint32_t small = unit_of_pair(g, bound - nmid, bound / 2, true, 2); /* with mid: above the bound */
    dk_groups_cache *cache = dk_groups_cache_new(g);
    assert_non_null(cache);
    for (int k = 0; k < 4; k++) {
        build_next(g, cache, &large);
        build_next(g, cache, &tiny);
    }
    assert_int_equal(dk_groups_cache_listed(cache), 2);
    build_next(g, cache, &mid); /* beside tiny, within the bound */
    build_next(g, cache, &tiny);
    assert_int_equal(dk_groups_cache_listed(cache), 3);
    build_next(g, cache, &small); /* mid, the least recently used small pair, makes room */
    build_next(g, cache, &large);
    build_next(g, cache, &tiny);
    assert_int_equal(dk_groups_cache_listed(cache), 4);
    build_next(g, cache, &mid);
    assert_int_equal(dk_groups_cache_listed(cache), 5);
    assert_int_equal(dk_groups_cache_made(cache), 14);
    dk_groups_cache_free(cache);
    dk_workgraph_free(g);
}

/* Builds of a unit the cache has kept share its groups, made once, while other units' builds come
 * between them (the solver reopening the units above); a build outlives the cache's keeping
 * (it holds its groups until freed), and the cache made free before a build is freed. */
static void test_units_shared(void **state)
{
    (void)state;
    dk_workgraph *g = test_graph(DK_BRAZILIAN, 4, 1 << 12);
    assert_non_null(g);
    assert_true(g->nunits > 40);
    dk_groups_cache *cache = dk_groups_cache_new(g);
    assert_non_null(cache);
    dk_groups first, again, held;
    uint32_t u = g->nunits - 1; /* one with groups */
    assert_int_equal(dk_groups_build(&first, cache, u), 0);
    assert_true(first.ngroups > 0);
    for (uint32_t k = 0; k < 10; k++) {
        dk_groups other;
        assert_int_equal(dk_groups_build(&other, cache, k), 0);
        dk_groups_free(&other);
    }
    assert_int_equal(dk_groups_build(&again, cache, u), 0);
    assert_ptr_equal(again.groups, first.groups);
    assert_int_equal(again.ngroups, first.ngroups);
    assert_int_equal(again.npositions, first.npositions);
    assert_int_equal(dk_groups_cache_made(cache), 11);
    dk_groups_free(&again);
    for (uint32_t k = 0; k < 40; k++) { /* more units than the cache keeps: u's dropped */
        dk_groups other;
        assert_int_equal(dk_groups_build(&other, cache, k), 0);
        dk_groups_free(&other);
    }
    assert_int_equal(dk_groups_build(&held, cache, u), 0);
    assert_int_equal(dk_groups_cache_made(cache), 11 + 30 + 1);
    assert_int_equal(held.ngroups, first.ngroups);
    for (size_t i = 0; i < held.ngroups; i++) {
        assert_int_equal(held.groups[i].men[0], first.groups[i].men[0]);
        assert_int_equal(held.groups[i].offset, first.groups[i].offset);
    }
    uint64_t last = first.groups[first.ngroups - 1].men[0];
    dk_groups_free(&first);
    dk_groups_cache_free(cache);
    assert_int_equal(held.groups[held.ngroups - 1].men[0], last); /* still held (AddressSanitizer would tell) */
    dk_groups_free(&held);
    dk_workgraph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_brazilian),
        cmocka_unit_test(test_international),
        cmocka_unit_test(test_cache_keeps_large_pair),
        cmocka_unit_test(test_counts_add_up),
        cmocka_unit_test(test_large_pairs_walk),
        cmocka_unit_test(test_units_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
