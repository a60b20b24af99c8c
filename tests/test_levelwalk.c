/* The walk over one level's placements of men (gen/sched/levelwalk.h) against the plain walk that
 * unranks every men_index of the range and keeps those of the level: the same placements, the
 * same men, in the same order, for every level of materials of all three variants (men of one
 * colour only, both, many, a row of white men that the black men skip, a material without
 * white men), the counts dk_level_counts makes without walking, whole ranges and ranges cut inside a
 * white configuration; and a visit that stops the walk stops it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../gen/sched/levelwalk.h"
#include "../gen/sched/subslice.h"

typedef struct seen {
    uint64_t *men;
    dk_bb *w, *b;
    size_t n, cap;
    size_t stop_after; /* 0: never stop */
} seen;

static int record(void *ctx, uint64_t men_index, dk_bb wmen, dk_bb bmen)
{
    seen *s = ctx;
    assert_true(s->n < s->cap);
    s->men[s->n] = men_index;
    s->w[s->n] = wmen;
    s->b[s->n++] = bmen;
    return s->stop_after && s->n == s->stop_after ? 7 : 0;
}

/* levels[x] is the level of men_index x, from the plain walk. */
static void check_range(const dk_index *ix, const uint8_t *levels, int level, uint64_t lo, uint64_t hi)
{
    size_t cap = (size_t)(hi - lo) + 1;
    seen s = {malloc(cap * sizeof *s.men), malloc(cap * sizeof *s.w), malloc(cap * sizeof *s.b), 0, cap, 0};
    assert_int_equal(dk_level_walk(ix, level, lo, hi, record, &s), 0);
    size_t i = 0;
    for (uint64_t x = lo; x < hi; x++) {
        if (levels[x] != level)
            continue;
        dk_bb w, b;
        dk_index_men_unrank(ix, x, &w, &b);
        assert_true(i < s.n);
        assert_int_equal(s.men[i], x);
        assert_int_equal(s.w[i], w);
        assert_int_equal(s.b[i], b);
        i++;
    }
    assert_int_equal(i, s.n);
    free(s.men);
    free(s.w);
    free(s.b);
}

/* Every level of the material, the whole range and ranges cut at odd places. */
static void check_material(dk_variant_id id, const char *name)
{
    const dk_variant *v = dk_variant_get(id);
    dk_material m;
    dk_index ix;
    assert_int_equal(dk_material_parse(name, &m), 0);
    assert_int_equal(dk_index_init(&ix, v, m), 0);
    uint64_t n = ix.men_count;
    uint8_t *levels = malloc(n);
    uint64_t *counts = calloc((size_t)dk_max_level(v, m) + 1, sizeof *counts);
    assert_non_null(levels);
    for (uint64_t x = 0; x < n; x++) {
        dk_bb w, b;
        dk_index_men_unrank(&ix, x, &w, &b);
        levels[x] = (uint8_t)dk_men_level(v, w, b);
    }
    assert_int_equal(dk_level_counts(v, m, counts), 0);
    for (int level = 0; level <= dk_max_level(v, m); level++) {
        uint64_t third = n / 3 + 1, cut = 2 * n / 3 + 5 < n ? 2 * n / 3 + 5 : n, seven = 7 < n ? 7 : n;
        check_range(&ix, levels, level, 0, n);
        check_range(&ix, levels, level, third, cut);
        check_range(&ix, levels, level, n - 1, n);
        check_range(&ix, levels, level, seven, seven); /* empty */
        uint64_t held = 0;
        for (uint64_t x = 0; x < n; x++)
            held += levels[x] == level;
        assert_int_equal(held, counts[level]); /* what dk_level_counts counts without walking */
    }
    free(counts);
    free(levels);
}

static void test_brazilian(void **state)
{
    (void)state;
    const char *ms[] = {"1m0k-0m1k", "2m0k-3m0k", "3m0k-2m0k", "0m1k-3m0k", "4m0k-0m1k", "4m0k-1m0k", "2m1k-2m0k", "1m0k-1m0k"};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        check_material(DK_BRAZILIAN, ms[i]);
}

static void test_russian(void **state)
{
    (void)state;
    check_material(DK_RUSSIAN, "2m0k-2m0k");
    check_material(DK_RUSSIAN, "3m0k-1m1k");
}

static void test_international(void **state)
{
    (void)state;
    const char *ms[] = {"1m0k-1m0k", "2m0k-2m0k", "0m2k-3m0k", "3m0k-0m1k", "1m1k-2m0k", "5m0k-0m1k"};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        check_material(DK_INTERNATIONAL, ms[i]);
}

/* A visit that returns non-zero stops the walk, which returns its value. */
static void test_stops(void **state)
{
    (void)state;
    const dk_variant *v = dk_variant_get(DK_BRAZILIAN);
    dk_material m;
    dk_index ix;
    assert_int_equal(dk_material_parse("2m0k-2m0k", &m), 0);
    assert_int_equal(dk_index_init(&ix, v, m), 0);
    seen s = {malloc(8 * sizeof *s.men), malloc(8 * sizeof *s.w), malloc(8 * sizeof *s.b), 0, 8, 3};
    assert_int_equal(dk_level_walk(&ix, 10, 0, ix.men_count, record, &s), 7);
    assert_int_equal(s.n, 3);
    free(s.men);
    free(s.w);
    free(s.b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_brazilian),
        cmocka_unit_test(test_russian),
        cmocka_unit_test(test_international),
        cmocka_unit_test(test_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
