/* A unit's groups (gen/sched/groups.h): the groups of every unit lie end to end and cover its pair's
 * positions once; a unit's shape, made again from its count of positions without listing the
 * groups (how finishing a pair reopens units), is the groups built in every field, split units
 * and their parts included; the groups cache lists a large pair once while a small pair's units
 * come between its units; the units' counts add up to their layers' positions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../gen/sched/groups.h"
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
        if (ranged++ >= 2) /* each layer lists every placement of men: two are enough */
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

/* The subslices a groups cache lists for pair p. */
static uint64_t listed_subslices(const dk_wpair *p)
{
    return p->self_twin ? p->ix.men_count / 2 : p->ix.men_count;
}

/* The first unit of the pair, among those whose listed subslices lie in (lo, hi], with the most
 * (most: true) or the fewest; asserts there is one. */
static uint32_t unit_of_pair(const dk_workgraph *g, uint64_t lo, uint64_t hi, bool most)
{
    uint64_t best = 0;
    uint32_t at = UINT32_MAX;
    for (uint32_t u = 0; u < g->nunits; u++) {
        uint64_t n = listed_subslices(&g->pairs[g->units[u].pair]);
        if (n > lo && n <= hi && (at == UINT32_MAX || (most ? n > best : n < best)))
            best = n, at = u;
    }
    assert_true(at != UINT32_MAX);
    return at;
}

static void build_and_free(dk_groups_cache *cache, uint32_t u)
{
    dk_groups ug;
    assert_int_equal(dk_groups_build(&ug, cache, u), 0);
    dk_groups_free(&ug);
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
    uint32_t large = unit_of_pair(g, bound, DK_GROUPS_KEPT_LARGE, true); /* kept beside the others */
    uint32_t mid = unit_of_pair(g, bound / 2, bound, true);
    uint64_t nmid = listed_subslices(&g->pairs[g->units[mid].pair]);
    uint32_t tiny = unit_of_pair(g, 0, bound - nmid, false);
    uint32_t small = unit_of_pair(g, bound - nmid, bound / 2, true); /* with mid: above the bound */
    dk_groups_cache *cache = dk_groups_cache_new(g);
    assert_non_null(cache);
    for (int k = 0; k < 4; k++) {
        build_and_free(cache, large);
        build_and_free(cache, tiny);
    }
    assert_int_equal(dk_groups_cache_listed(cache), 2);
    build_and_free(cache, mid); /* beside tiny, within the bound */
    build_and_free(cache, tiny);
    assert_int_equal(dk_groups_cache_listed(cache), 3);
    build_and_free(cache, small); /* mid, the least recently used small pair, makes room */
    build_and_free(cache, large);
    build_and_free(cache, tiny);
    assert_int_equal(dk_groups_cache_listed(cache), 4);
    build_and_free(cache, mid);
    assert_int_equal(dk_groups_cache_listed(cache), 5);
    dk_groups_cache_free(cache);
    dk_workgraph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_brazilian),
        cmocka_unit_test(test_international),
        cmocka_unit_test(test_cache_keeps_large_pair),
        cmocka_unit_test(test_counts_add_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
