/* Helpers shared by the test suites: a seeded random generator, random legal positions, work
 * graphs. */
#ifndef DK_TEST_SUPPORT_H
#define DK_TEST_SUPPORT_H

#include <stdint.h>
#include "../gen/sched/workgraph.h"
#include "../index/material.h"
#include "../query/tablebase.h"
#include "../rules/position.h"

typedef struct { uint64_t s; } test_rng;

/* splitmix64: small, fast, reproducible across machines. */
uint64_t test_rand(test_rng *r);

/* A uniform number in [0, n). */
uint64_t test_rand_below(test_rng *r, uint64_t n);

/* A random legal position with `pieces` pieces (each side at most men_per_side), kings with
 * probability king_pct percent, random side to move. */
dk_pos test_random_pos(const dk_variant *v, test_rng *r, int pieces, int king_pct);

/* A random position of material m (men only where a man may stand, not necessarily legal
 * otherwise), side to move `side`. */
dk_pos test_random_material_pos(const dk_variant *v, test_rng *r, dk_material m, int side);

/* Every material of v with 2..pieces pieces into a new array *out (NULL when out of memory);
 * returns how many. */
size_t test_materials(const dk_variant *v, int pieces, dk_material **out);

/* How much random testing to do: DK_TEST_SCALE if set and positive, else 1. */
double test_scale(void);

/* A count from the environment variable `name` if set, else `dflt`. */
long test_env_count(const char *name, long dflt);

/* The work graph of every material of 2 to `pieces` pieces of variant id, units of at most
 * unit_positions positions; NULL when out of memory. */
dk_workgraph *test_graph(dk_variant_id id, int pieces, uint64_t unit_positions);

/* The tables of variant v in the directory $DK_TABLES, which the shell test that runs a table
 * suite sets (TABLE_TESTS in the Makefile). Returns 0 with *tb NULL when it is not set (the
 * suite's tests then skip: TEST_NEED_TABLES), 0 with *tb open, or -1 when they cannot be opened. */
int test_open_tables(const dk_variant *v, dk_tablebase **tb);

/* A value's result, for counting: TEST_DRAW, TEST_WIN or TEST_LOSS. */
enum { TEST_DRAW, TEST_WIN, TEST_LOSS };
static inline int test_result(dk_value x)
{
    return dk_value_is_draw(x) ? TEST_DRAW : dk_value_is_win(x) ? TEST_WIN : TEST_LOSS;
}

/* Fails the running cmocka test with "FEN: what", the FEN in v's official notation. */
void test_fail_at(const dk_variant *v, const dk_pos *p, const char *what);

/* p's value in `metric` from tb (of variant v); fails the running test at p when it cannot be
 * probed. */
dk_value test_value(dk_tablebase *tb, const dk_variant *v, const dk_pos *p, dk_metric metric);

/* In a cmocka test: skips it, saying why, when tb is NULL. */
#define TEST_NEED_TABLES(tb)                                                                       \
    do {                                                                                           \
        if (!(tb)) {                                                                               \
            print_message("DK_TABLES is not set: skipped (a shell test of tests/ runs this one)\n"); \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

#endif
