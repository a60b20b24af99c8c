/* Unit plans (gen/plan.h): the groups of every unit lie end to end and cover its pair's
 * positions once; a plan's shape, made again from its count of positions without listing the
 * groups (how finishing a pair reopens units), is the built plan's in every field, split units
 * and their parts included. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../gen/plan.h"
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
    dk_plan_cache *cache = dk_plan_cache_new(g);
    assert_non_null(cache);
    uint64_t *covered = calloc(g->npairs, sizeof *covered);
    int split_seen = 0;
    for (uint32_t u = 0; u < g->nunits; u++) {
        dk_plan built, shape;
        assert_int_equal(dk_plan_build(&built, cache, u), 0);
        uint64_t at = 0;
        for (size_t i = 0; i < built.ngroups; i++) {
            assert_int_equal(built.groups[i].offset, at);
            at += built.groups[i].self_flip ? built.K : 2 * built.K;
        }
        assert_int_equal(at, built.npositions);
        covered[g->units[u].pair] += built.npositions;
        dk_plan_shape(&shape, g, u, built.npositions);
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
        dk_plan_free(&built);
        dk_plan_free(&shape);
    }
    /* both materials of a pair, every position once (one material for a self-twin pair) */
    for (uint32_t p = 0; p < g->npairs; p++) {
        const dk_wpair *pair = &g->pairs[p];
        uint64_t both = pair->self_twin ? pair->ix.size : pair->ix.size + pair->ix_twin.size;
        assert_int_equal(covered[p], both);
    }
    assert_true(split_seen > 0);
    free(covered);
    dk_plan_cache_free(cache);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_brazilian),
        cmocka_unit_test(test_international),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
