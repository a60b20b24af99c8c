/* The memory budget of a rank (gen/plan/budget.h): what it shares out adds up to the memory, the
 * largest task and the cache of tables fit in it together, and it refuses what cannot fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "../gen/plan/budget.h"

#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)

static const uint64_t memories[] = {153 * MiB, 200 * MiB, 256 * MiB, 1 * GiB, 3 * GiB + 7, 12 * GiB, 64 * GiB};
static const unsigned limits[] = {0, 30, 50};

static void test_parse_size(void **state)
{
    (void)state;
    struct { const char *s; uint64_t v; } good[] = {
        {"0", 0}, {"4096", 4096}, {"1K", 1024}, {"12G", 12 * GiB}, {"512M", 512 * MiB},
        {"2GiB", 2 * GiB}, {"3MB", 3 * MiB}, {"1t", (uint64_t)1 << 40}, {"77B", 77},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        uint64_t v = 1;
        assert_int_equal(dk_budget_parse_size(good[i].s, &v), 0);
        assert_int_equal(v, good[i].v);
    }
    const char *bad[] = {"", "G", "-1", "12Q", "1.5G", "12 G", "12GiBs", "99999999999999999999", "20000000T", "1Gi"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint64_t v = 7;
        assert_int_equal(dk_budget_parse_size(bad[i], &v), -1);
        assert_int_equal(v, 7);
    }
}

static void test_exit_cache(void **state)
{
    (void)state;
    uint64_t least = dk_budget_exit_cache(0);
    assert_true(least > 0);
    for (size_t i = 0; i < sizeof memories / sizeof *memories; i++) {
        uint64_t e = dk_budget_exit_cache(memories[i]);
        assert_true(e >= least);
        assert_true(e == least || e == memories[i] / 16);
    }
    assert_int_equal(dk_budget_exit_cache(64 * GiB), 4 * GiB);
}

/* What split shares out is the memory exactly; the unit bound is the default or a smaller power
 * of two, and a unit of it takes at most half of what the fixed costs and the exit cache leave. */
static void test_split(void **state)
{
    (void)state;
    char err[256];
    for (size_t l = 0; l < sizeof limits / sizeof *limits; l++)
        for (size_t i = 0; i < sizeof memories / sizeof *memories; i++) {
            uint64_t m = memories[i];
            dk_budget b;
            assert_int_equal(dk_budget_split(m, m, 0, limits[l], &b, err, sizeof err), 0);
            assert_int_equal(b.memory, m);
            assert_int_equal(b.exit_cache_bytes, dk_budget_exit_cache(m));
            assert_int_equal(dk_budget_unit_bytes(b.unit_positions, limits[l]) + b.exit_cache_bytes + b.cache_bytes, m);
            assert_true(b.unit_positions >= 1 && b.unit_positions <= DK_DEFAULT_UNIT_POSITIONS);
            assert_true((b.unit_positions & (b.unit_positions - 1)) == 0);
            assert_true(b.unit_positions <= dk_budget_split_positions(m, limits[l]) ||
                        b.unit_positions == 1);
            /* a given bound is kept */
            dk_budget c;
            assert_int_equal(dk_budget_split(m, m, 1000, limits[l], &c, err, sizeof err), 0);
            assert_int_equal(c.unit_positions, 1000);
        }
    dk_budget b = {0};
    for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
        uint64_t floor = dk_budget_floor(limits[l]);
        assert_int_equal(floor % MiB, 0);
        assert_int_equal(dk_budget_split(floor, floor, 0, limits[l], &b, err, sizeof err), 0);
        assert_int_equal(dk_budget_split(floor - 1, floor - 1, 0, limits[l], &b, err, sizeof err), -1);
        /* the refusal names the floor itself */
        char want[64];
        snprintf(want, sizeof want, "a rank needs at least %llu MiB (", (unsigned long long)(floor / MiB));
        assert_non_null(strstr(err, want));
    }
    assert_int_equal(dk_budget_split(1 * GiB, 1 * GiB, (uint64_t)1 << 40, 30, &b, err, sizeof err), -1);
}

/* Verification's reader of the tables: its quarter of the run's cache beside the run's largest
 * unit, a quarter of what a unit of the bound leaves beside such a unit when the run's cache was
 * lowered for a larger one (what is held then stays within the memory), never less than its
 * quarter, and no more than a run without the large unit would give it. */
static void test_check_room(void **state)
{
    (void)state;
    char err[256];
    for (size_t l = 0; l < sizeof limits / sizeof *limits; l++)
        for (size_t i = 3; i < sizeof memories / sizeof *memories; i++) {
            uint64_t m = memories[i];
            unsigned lim = limits[l];
            dk_budget b;
            assert_int_equal(dk_budget_split(m, m, 0, lim, &b, err, sizeof err), 0);
            uint64_t bound = dk_budget_unit_bytes(b.unit_positions, lim) + b.exit_cache_bytes;
            /* units that keep to the bound: the run's quarter, whatever the unit */
            assert_int_equal(dk_budget_check_room(&b, b.unit_positions, lim), dk_budget_check_cache(b.cache_bytes));
            assert_int_equal(dk_budget_check_room(&b, 1, lim), dk_budget_check_cache(b.cache_bytes));
            /* a large unit (a third of the cache) lowered the run's cache, as gen/run/setup.c does */
            uint64_t large = b.unit_positions + b.cache_bytes / 3 / (lim ? 32 : 26);
            dk_budget low = b;
            low.cache_bytes = m - dk_budget_unit_bytes(large, lim) - b.exit_cache_bytes;
            assert_true(low.cache_bytes < b.cache_bytes);
            uint64_t quarter = dk_budget_check_cache(low.cache_bytes);
            uint64_t solver = low.cache_bytes - quarter;
            assert_int_equal(dk_budget_check_room(&low, large, lim), quarter);
            assert_true(dk_budget_check_room(&low, large * 2, lim) == quarter);
            uint64_t room = dk_budget_check_room(&low, b.unit_positions, lim);
            assert_true(room > quarter);
            assert_true(room <= dk_budget_check_cache(m - bound));
            assert_true(bound + solver + room <= m);
            /* a unit between the two: between the two rooms */
            uint64_t mid = dk_budget_check_room(&low, (b.unit_positions + large) / 2, lim);
            assert_true(mid >= quarter && mid <= room);
            uint64_t mid_unit = dk_budget_unit_bytes((b.unit_positions + large) / 2, lim);
            assert_true(mid_unit + b.exit_cache_bytes + solver + mid <= m);
        }
}

/* The least memory of a run: its largest task, the exit cache that memory gives and the least
 * cache of tables fit in it, and a MiB less does not hold them; a refusal says it. */
static void test_least(void **state)
{
    (void)state;
    const uint64_t units[] = {1, 1000, (uint64_t)1 << 22, (uint64_t)1 << 26, (uint64_t)1 << 32};
    const uint64_t pairs[] = {0, 1736, (uint64_t)1 << 24, (uint64_t)1 << 34};
    for (size_t l = 0; l < sizeof limits / sizeof *limits; l++)
        for (size_t u = 0; u < sizeof units / sizeof *units; u++)
            for (size_t p = 0; p < sizeof pairs / sizeof *pairs; p++) {
                uint64_t unit = dk_budget_unit_bytes(units[u], limits[l]);
                uint64_t finish = dk_budget_finish_bytes(pairs[p], limits[l]);
                uint64_t m = dk_budget_least(units[u], pairs[p], limits[l]);
                assert_int_equal(m % MiB, 0);
                assert_true(dk_budget_task_bytes(unit, dk_budget_exit_cache(m), finish) + DK_BUDGET_MIN_CACHE <= m);
                m -= MiB;
                assert_true(dk_budget_task_bytes(unit, dk_budget_exit_cache(m), finish) + DK_BUDGET_MIN_CACHE > m);
            }
    char err[256];
    dk_budget_refuse(err, sizeof err, 300 * MiB, 200 * MiB, "a test");
    assert_string_equal(err, "a rank needs at least 300 MiB (a test), got 200 MiB");
    /* what was given, not rounded to nothing: --memory-per-rank 1K, 1000, 5000K; from 1 GiB on
     * (a node's share) whole MiB */
    dk_budget_refuse(err, sizeof err, 300 * MiB, 1024, "a test");
    assert_string_equal(err, "a rank needs at least 300 MiB (a test), got 1 KiB");
    dk_budget_refuse(err, sizeof err, 300 * MiB, 1000, "a test");
    assert_string_equal(err, "a rank needs at least 300 MiB (a test), got 1000 bytes");
    dk_budget_refuse(err, sizeof err, 300 * MiB, 5000 * 1024, "a test");
    assert_string_equal(err, "a rank needs at least 300 MiB (a test), got 5000 KiB");
    dk_budget_refuse(err, sizeof err, 300 * MiB, 200 * MiB + 5, "a test");
    assert_string_equal(err, "a rank needs at least 300 MiB (a test), got 209715205 bytes");
    dk_budget_refuse(err, sizeof err, 3000 * MiB, 2048 * MiB + 5, "a test");
    assert_string_equal(err, "a rank needs at least 3000 MiB (a test), got 2048 MiB");
}

/* What a rank holds, part by part: with its solver's cache full and the check's reader at its
 * room, a unit of the bound fills the budget and no more (the budget shares the memory out to
 * exactly these parts); the check reads what the solver reads, no more than its room; the exit
 * cache's blocks never exceed it; finishing gives the exit cache back. */
static void test_use(void **state)
{
    (void)state;
    const uint64_t memories[] = {200 * MiB, 1024 * MiB, 16384 * MiB};
    const unsigned limits[] = {0, 30};
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < 3; i++) {
            dk_budget b;
            char err[256];
            assert_int_equal(dk_budget_split(memories[i], memories[i], 0, limits[l], &b, err, sizeof err), 0);
            uint64_t solver = b.cache_bytes - dk_budget_check_cache(b.cache_bytes);
            dk_budget_use u = dk_budget_unit_use(&b, b.unit_positions, limits[l], solver);
            assert_true(dk_budget_use_total(&u) <= b.memory);
            assert_true(u.exits <= b.exit_cache_bytes && u.tables == solver);
            assert_int_equal(u.fixed + u.task, dk_budget_unit_bytes(b.unit_positions, limits[l]));
            assert_int_equal(u.check, dk_budget_check_room(&b, b.unit_positions, limits[l]) < solver
                                          ? dk_budget_check_room(&b, b.unit_positions, limits[l]) : solver);
            dk_budget_use few = dk_budget_unit_use(&b, 1000, limits[l], 5 * MiB);
            assert_int_equal(few.tables, 5 * MiB);
            assert_int_equal(few.check, 5 * MiB);
            assert_int_equal(dk_budget_use_total(&few), few.fixed + few.task + few.exits + 10 * MiB);
            dk_budget_use fin = dk_budget_finish_use(&b, 1 << 16, limits[l], solver);
            assert_int_equal(fin.exits, 0);
            assert_int_equal(fin.fixed + fin.task, dk_budget_finish_bytes(1 << 16, limits[l]));
            assert_int_equal(fin.check, dk_budget_check_cache(b.cache_bytes));
        }
}

static void test_task_bytes(void **state)
{
    (void)state;
    assert_int_equal(dk_budget_task_bytes(100, 20, 50), 120);
    assert_int_equal(dk_budget_task_bytes(100, 20, 121), 121);
    assert_int_equal(dk_budget_task_bytes(100, 20, 120), 120);
}

/* After reserving a pair's finishing, the larger task and the cache fit in the memory together,
 * the cache only ever shrinks, a pair that cannot fit is refused with a message, and the
 * values finishing may hold in memory fit in the task's share. */
static void test_reserve_finish(void **state)
{
    (void)state;
    char err[256];
    const uint64_t pairs[] = {0, 1000, (uint64_t)1 << 24, 217836864, (uint64_t)1 << 31, (uint64_t)1 << 34};
    for (size_t l = 0; l < sizeof limits / sizeof *limits; l++)
        for (size_t i = 0; i < sizeof memories / sizeof *memories; i++)
            for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
                dk_budget b;
                assert_int_equal(dk_budget_split(memories[i], memories[i], 0, limits[l], &b, err, sizeof err), 0);
                dk_budget before = b;
                uint64_t unit = dk_budget_unit_bytes(b.unit_positions, limits[l]);
                uint64_t finish = dk_budget_finish_bytes(pairs[k], limits[l]);
                if (dk_budget_reserve_finish(&b, pairs[k], limits[l], err, sizeof err) != 0) {
                    assert_true(dk_budget_task_bytes(unit, b.exit_cache_bytes, finish) > b.memory - DK_BUDGET_MIN_CACHE);
                    assert_true(err[0] != '\0');
                    continue;
                }
                assert_true(b.cache_bytes <= before.cache_bytes);
                assert_true(dk_budget_task_bytes(unit, b.exit_cache_bytes, finish) + b.cache_bytes <= b.memory);
                /* the values a finishing rank holds stay within the task's share */
                uint64_t hold = dk_budget_finish_hold(&b, pairs[k], limits[l]);
                assert_true(finish + hold <= dk_budget_task_bytes(unit, b.exit_cache_bytes, finish));
                assert_true(hold == 0 || finish + hold == unit + b.exit_cache_bytes);
                if (finish <= unit + b.exit_cache_bytes)
                    assert_int_equal(b.cache_bytes, before.cache_bytes);
                else
                    assert_int_equal(b.cache_bytes, b.memory - finish);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_exit_cache),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_use),
        cmocka_unit_test(test_check_room),
        cmocka_unit_test(test_least),
        cmocka_unit_test(test_task_bytes),
        cmocka_unit_test(test_reserve_finish),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
