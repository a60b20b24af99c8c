/* The move/un-move property that retrograde analysis relies on: every quiet move's target
 * lists the source among its un-moves, and every un-move's source lists the target among its
 * moves. Random positions of every density, every variant. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../rules/movegen.h"
#include "../rules/notation.h"
#include "support.h"

static bool contains(const dk_movelist *l, const dk_move *m)
{
    for (int i = 0; i < l->n; i++)
        if (dk_move_equal(&l->m[i], m))
            return true;
    return false;
}

static void fail_at(const dk_variant *v, const dk_pos *p, const char *what)
{
    char fen[DK_FEN_MAX];
    dk_fen_format(v, p, false, fen, sizeof fen);
    fail_msg("%s %s: %s", v->name, fen, what);
}

static void check_variant(const dk_variant *v, long count, uint64_t seed)
{
    test_rng r = {seed};
    dk_movelist moves, back;
    long quiet = 0, unmoves = 0;
    for (long i = 0; i < count; i++) {
        int n = 1 + (int)test_rand_below(&r, (uint64_t)v->men_per_side);
        dk_pos p = test_random_pos(v, &r, n, (int)test_rand_below(&r, 101));
        dk_gen_moves(v, &p, &moves);
        for (int k = 0; k < moves.n; k++) {
            if (moves.m[k].captures)
                break;
            quiet++;
            dk_pos q = dk_apply(&p, &moves.m[k]);
            dk_gen_unmoves(v, &q, &back);
            if (!contains(&back, &moves.m[k]))
                fail_at(v, &p, "a quiet move is missing from its target's un-moves");
            dk_pos u = dk_unapply(&q, &moves.m[k]);
            if (!dk_pos_equal(&u, &p))
                fail_at(v, &p, "unapply(apply(move)) is not the source");
        }
        dk_gen_unmoves(v, &p, &back);
        for (int k = 0; k < back.n; k++) {
            unmoves++;
            dk_pos q = dk_unapply(&p, &back.m[k]);
            if (dk_pos_check(v, &q) != DK_POS_OK)
                fail_at(v, &p, "an un-move leads to an illegal position");
            dk_gen_moves(v, &q, &moves);
            if (!contains(&moves, &back.m[k]))
                fail_at(v, &p, "an un-move's source does not list the move");
            dk_pos t = dk_apply(&q, &back.m[k]);
            if (!dk_pos_equal(&t, &p))
                fail_at(v, &p, "apply(unapply(un-move)) is not the target");
        }
    }
    print_message("%s: %ld positions, %ld quiet moves, %ld un-moves checked\n", v->name, count, quiet,
                  unmoves);
    assert_true(quiet > count && unmoves > count); /* the property was exercised */
}

static void test_brazilian(void **state)
{
    (void)state;
    check_variant(dk_variant_find("brazilian"), test_env_count("DK_UNMOVE_POSITIONS", 100000), 1);
}

static void test_international(void **state)
{
    (void)state;
    check_variant(dk_variant_find("international"), test_env_count("DK_UNMOVE_POSITIONS", 100000), 2);
}

/* Russian's captures differ, its quiet moves not: fewer positions are enough. */
static void test_russian(void **state)
{
    (void)state;
    check_variant(dk_variant_find("russian"), test_env_count("DK_UNMOVE_POSITIONS", 100000) / 4, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_brazilian),
        cmocka_unit_test(test_international),
        cmocka_unit_test(test_russian),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
