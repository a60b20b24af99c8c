/* Move generation against docs/rules.md ("Perft", "Rule positions"): published perft numbers
 * and the rule positions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../rules/movegen.h"
#include "../rules/notation.h"
#include "../rules/perft.h"
#include "support.h"

static const dk_variant *intl(void) { return dk_variant_find("international"); }
static const dk_variant *braz(void) { return dk_variant_find("brazilian"); }
static const dk_variant *russ(void) { return dk_variant_find("russian"); }

static void test_variant_names(void **state)
{
    (void)state;
    assert_ptr_equal(dk_variant_find("20"), intl());
    assert_ptr_equal(dk_variant_find("26"), braz());
    assert_ptr_equal(dk_variant_find("International"), intl());
    assert_ptr_equal(dk_variant_find("25"), russ());
    assert_ptr_equal(dk_variant_find("RUSSIAN"), russ());
    assert_null(dk_variant_find("russia"));
    assert_null(dk_variant_find(""));
    /* Russian shares Brazilian's board: the same geometry, other capture rules */
    assert_int_equal(russ()->nsq, 32);
    assert_int_equal(russ()->men_per_side, 12);
    assert_true(russ()->algebraic);
    assert_true(braz()->majority && intl()->majority && !russ()->majority);
    assert_true(russ()->crown_in_capture && !braz()->crown_in_capture && !intl()->crown_in_capture);
    assert_memory_equal(russ()->ray, braz()->ray, sizeof braz()->ray);
    assert_memory_equal(russ()->promo, braz()->promo, sizeof braz()->promo);
    assert_int_equal(braz()->nsq, 32);
    assert_int_equal(intl()->nsq, 50);
    assert_int_equal(braz()->men_per_side, 12);
    assert_int_equal(intl()->men_per_side, 20);
}

static void check_perft(const dk_variant *v, const uint64_t *expect, int depth)
{
    dk_pos p = dk_pos_start(v);
    for (int d = 1; d <= depth; d++)
        assert_int_equal(dk_perft(v, &p, d), expect[d - 1]);
}

static void test_perft_international(void **state)
{
    (void)state;
    static const uint64_t n[] = {9, 81, 658, 4265, 27117, 167140};
    check_perft(intl(), n, 6);
}

static void test_perft_brazilian(void **state)
{
    (void)state;
    static const uint64_t n[] = {7, 49, 302, 1469, 7473, 37628, 187302, 907830};
    check_perft(braz(), n, 8);
}

static void test_perft_russian(void **state)
{
    (void)state;
    static const uint64_t n[] = {7, 49, 302, 1469, 7482, 37986, 190146, 929899};
    check_perft(russ(), n, 8);
}

/* The legal moves of fen, in notation, sorted and joined by spaces, must equal `expect`. */
static void check_moves(const dk_variant *v, const char *fen, const char *expect)
{
    dk_pos p;
    char err[DK_ERR_MAX];
    assert_int_equal(dk_fen_parse(v, fen, &p, err, sizeof err), 0);
    dk_movelist list;
    dk_gen_moves(v, &p, &list);
    char text[DK_MAX_MOVES][DK_MOVE_TEXT_MAX];
    for (int i = 0; i < list.n; i++)
        dk_move_format(v, &list, i, v->algebraic, text[i], sizeof text[i]);
    qsort(text, (size_t)list.n, sizeof text[0], (int (*)(const void *, const void *))strcmp);
    char got[4096] = "";
    for (int i = 0; i < list.n; i++) {
        if (i)
            strcat(got, " ");
        strcat(got, text[i]);
    }
    if (strcmp(got, expect) != 0)
        fail_msg("%s: got '%s', expected '%s'", fen, got, expect);
}

static void test_rule_positions_international(void **state)
{
    (void)state;
    check_moves(intl(), "W:W48:B24,K31,34,K42,43", "48x19");
    check_moves(intl(), "W:WK48:B7,8,31,34,K42,44", "48x50");
    check_moves(intl(), "W:W26:B12,K21,31,32", "26x28 26x8");
    check_moves(intl(), "W:W15:B9,10", "15x13");
    check_moves(intl(), "W:WK41,49:B9,10,12,19,38", "41x43");
    check_moves(intl(), "B:W27,28,38,39,42:BK25", "25x33");
    check_moves(intl(), "W:WK1:B7,9,17,19,20,30,31,33,43,44", "1x15");
    check_moves(intl(), "W:WK47:B9,12,33", "47x17 47x21 47x26");
}

static void test_rule_position_brazilian(void **state)
{
    (void)state;
    check_moves(braz(), "W:Wb6:Bc7,e7", "b6xf6");
    dk_pos p;
    assert_int_equal(dk_fen_parse(braz(), "W:Wb6:Bc7,e7", &p, NULL, 0), 0);
    dk_movelist list;
    dk_gen_moves(braz(), &p, &list);
    assert_false(list.m[0].promotes); /* passed d8 but ends on f6 */
    /* 15x13 in International stays a man too */
    assert_int_equal(dk_fen_parse(intl(), "W:W15:B9,10", &p, NULL, 0), 0);
    dk_gen_moves(intl(), &p, &list);
    assert_int_equal(list.n, 1);
    assert_false(list.m[0].promotes);
    dk_pos q = dk_apply(&p, &list.m[0]);
    assert_false(q.kings);
}

static void test_majority_rule_counts_kings_and_men_alike(void **state)
{
    (void)state;
    /* The king on 50 can take one piece (44), the man on 33 two (28, 17): only the man's. */
    check_moves(intl(), "W:W33,K50:B17,28,44", "33x11");
    /* A man taking two beats a king taking one on 8x8 too. */
    check_moves(braz(), "W:WKb2,h2:Ba5,e5,g3", "h2xd6");
}

static void test_promotion_and_quiet_moves(void **state)
{
    (void)state;
    check_moves(braz(), "W:Wb6:Bh8", "b6-a7 b6-c7");
    check_moves(braz(), "W:Wa7:Bh8", "a7-b8");
    dk_pos p;
    assert_int_equal(dk_fen_parse(braz(), "W:Wa7:Bh8", &p, NULL, 0), 0);
    dk_movelist list;
    dk_gen_moves(braz(), &p, &list);
    assert_true(list.m[0].promotes);
    dk_pos q = dk_apply(&p, &list.m[0]);
    assert_true(q.kings & dk_bit(0));
    /* A lone king in the corner of 8x8 reaches the whole long diagonal. */
    check_moves(braz(), "W:WKa1:Bb8", "a1-b2 a1-c3 a1-d4 a1-e5 a1-f6 a1-g7 a1-h8");
    /* No move at all: blocked men. */
    check_moves(braz(), "W:Wa1:Bb2,c3", "");
}

/* Each rule where Russian differs from Brazilian, on one position played under both. */
static void test_rule_positions_russian(void **state)
{
    (void)state;
    /* no majority rule: the king's capture of one is legal beside the man's capture of two
     * (it may land on f6, g7 or h8); the man, having taken g3, must go on over e5 */
    check_moves(braz(), "W:WKb2,h2:Ba5,e5,g3", "h2xd6");
    check_moves(russ(), "W:WKb2,h2:Ba5,e5,g3", "b2xf6 b2xg7 b2xh8 h2xd6");
    /* the king that took c3 must land on e5, the one square from which it takes f4 */
    check_moves(russ(), "W:WKa1:Bc3,f4", "a1xg3 a1xh2");
    /* a capture of one that ends where a capture of two would go on is no move: after c3 the
     * king lands on d4 (to take b6) or e5 (to take f4), never beyond */
    check_moves(russ(), "W:WKa1:Bc3,f4,b6,c7", "a1xa7 a1xb8 a1xg3 a1xh2");
    check_moves(braz(), "W:WKa1:Bc3,f4,b6,c7", "a1xa7 a1xb8 a1xg3 a1xh2");
    /* crowned in passing: the man reaches d8 over c7 and goes on as a king over e7 to any
     * square behind it; in Brazilian it goes on as a man to f6 and stays one */
    check_moves(braz(), "W:Wb6:Bc7,e7", "b6xf6");
    check_moves(russ(), "W:Wb6:Bc7,e7", "b6xf6 b6xg5 b6xh4");
    dk_pos p;
    assert_int_equal(dk_fen_parse(russ(), "W:Wb6:Bc7,e7", &p, NULL, 0), 0);
    dk_movelist list;
    dk_gen_moves(russ(), &p, &list);
    for (int i = 0; i < list.n; i++) {
        assert_true(list.m[i].promotes);
        dk_pos q = dk_apply(&p, &list.m[i]);
        assert_true(q.kings & dk_bit(list.m[i].to));
    }
    /* crowned with nothing more to take: the move ends on the last row, as in Brazilian */
    check_moves(russ(), "W:Wb6:Bc7", "b6xd8");
    /* for Black too, and the king takes at a distance where the man could not: g3 over f2 to
     * e1, crowned, then over c3 to b4 or a5; in Brazilian the man ends on e1 */
    check_moves(russ(), "B:Wf2,c3:Bg3", "g3xa5 g3xb4");
    check_moves(braz(), "B:Wf2,c3:Bg3", "g3xe1");
}

static void check_unique_notation(const dk_variant *v, const char *fen, const char *expect)
{
    check_moves(v, fen, expect);
    dk_pos p;
    assert_int_equal(dk_fen_parse(v, fen, &p, NULL, 0), 0);
    dk_movelist list;
    dk_gen_moves(v, &p, &list);
    for (int i = 0; i < list.n; i++) {
        char text[DK_MOVE_TEXT_MAX];
        dk_move_format(v, &list, i, v->algebraic, text, sizeof text);
        assert_int_equal(dk_move_parse(v, &list, text), i);
    }
}

static void test_same_from_to_different_captures(void **state)
{
    (void)state;
    check_unique_notation(intl(), "W:WK15:B9,K33,37,41", "15x4(9,33,37) 15x4(9,33,41)");
    check_unique_notation(braz(), "W:WKa1:BKd8,c7,Kb6,Ke3,g3,b2,d2",
                          "a1xh4(e3,g3,b2) a1xh4(g3,b2,d2)");
    /* A king may come back to its own square: Turkish strike allows crossing it again. */
    check_unique_notation(braz(), "W:WKd6:BKc5,e5,Kc3,Ke3,f2,Kh2",
                          "d6xb8(c5,e5,c3,e3) d6xb8(c5,e5,c3,f2) d6xc7(c5,e5,c3,e3) "
                          "d6xc7(c5,e5,c3,f2) d6xd6(c5,e5,c3,e3) d6xd6(c5,e5,c3,f2) "
                          "d6xe7(c5,e5,c3,e3) d6xe7(c5,e5,c3,f2) d6xf8(c5,e5,c3,e3) "
                          "d6xf8(c5,e5,c3,f2)");
    /* Short forms: unique "from x to" names its move, an ambiguous one is refused. */
    dk_pos p;
    assert_int_equal(dk_fen_parse(intl(), "W:WK24:B9,11,K12,K19,K32", &p, NULL, 0), 0);
    dk_movelist list;
    dk_gen_moves(intl(), &p, &list);
    assert_int_equal(list.n, 7);
    assert_true(dk_move_parse(intl(), &list, "24x6") >= 0);
    assert_int_equal(dk_move_parse(intl(), &list, "24x38"), -2);
    assert_int_equal(dk_move_parse(intl(), &list, "24x39"), -1);
}

/* The quiet king moves verification reads alone are, on random positions of both variants,
 * exactly the king moves of the full generator when no capture exists, and dk_can_capture
 * says whether one does. */
static void test_quiet_moves_by_kind_and_can_capture(void **state)
{
    (void)state;
    const dk_variant *vs[2] = {braz(), intl()};
    test_rng r = {20261124};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 20000; i++) {
            dk_pos p = test_random_pos(vs[k], &r, 2 + (int)test_rand_below(&r, 7), 50);
            dk_movelist all, kings;
            dk_gen_moves(vs[k], &p, &all);
            bool capture = all.n > 0 && all.m[0].captures != 0;
            assert_int_equal(dk_can_capture(vs[k], &p, p.side), capture);
            if (capture)
                continue;
            dk_movelist men;
            dk_gen_quiet_king_moves(vs[k], &p, &kings);
            dk_gen_quiet_man_moves(vs[k], &p, &men);
            assert_int_equal(dk_count_quiet_king_moves(vs[k], &p), kings.n);
            int n = 0, nm = 0; /* the full list, in order, split by the kind of piece moving */
            for (int j = 0; j < all.n; j++)
                if (p.kings & dk_bit(all.m[j].from)) {
                    assert_true(n < kings.n && dk_move_equal(&all.m[j], &kings.m[n]));
                    n++;
                } else {
                    assert_true(nm < men.n && dk_move_equal(&all.m[j], &men.m[nm]));
                    nm++;
                }
            assert_int_equal(n, kings.n);
            assert_int_equal(nm, men.n);
        }
}

static bool has_move(const dk_movelist *l, const dk_move *m)
{
    for (int i = 0; i < l->n; i++)
        if (dk_move_equal(&l->m[i], m))
            return true;
    return false;
}

/* Whether no man of the side to move can reach its promotion row by jumping: a jump moves
 * two rows, so only men on rows of the promotion row's parity can. */
static bool men_cannot_crown(const dk_variant *v, const dk_pos *p)
{
    int promo_row = p->side == DK_WHITE ? 0 : v->size - 1;
    for (dk_bb b = dk_men(p, p->side); b; b &= b - 1)
        if ((v->row[dk_lsb(b)] - promo_row) % 2 == 0)
            return false;
    return true;
}

/* Russian against Brazilian on random positions, through a third rule set X that is Russian
 * without crowning in passing (Brazilian without the majority rule). The two rules predict:
 * the same quiet moves; Brazilian's captures are exactly X's longest; Russian's differ from
 * X's only in men that reach the last row mid-capture: kings capture alike, men that cannot
 * reach it capture alike, and a Russian capture by a man that was never crowned is one of
 * X's. Every Russian move reads differently and parses back. */
static void test_russian_against_brazilian(void **state)
{
    (void)state;
    static dk_variant x;
    x = *russ();
    x.crown_in_capture = false;
    test_rng r = {20261128};
    int differ_majority = 0, differ_crown = 0;
    long n = test_env_count("DK_TEST_RUSSIAN_POSITIONS", 40000);
    for (long i = 0; i < n; i++) {
        dk_pos p = test_random_pos(russ(), &r, 2 + (int)test_rand_below(&r, 9), 30);
        dk_movelist rl, bl, xl;
        dk_gen_moves(russ(), &p, &rl);
        dk_gen_moves(braz(), &p, &bl);
        dk_gen_moves(&x, &p, &xl);
        bool capture = dk_can_capture(braz(), &p, p.side);
        assert_int_equal(dk_can_capture(russ(), &p, p.side), capture);
        assert_int_equal(dk_count_moves(russ(), &p), rl.n);
        if (!capture) {
            assert_int_equal(rl.n, bl.n);
            for (int j = 0; j < rl.n; j++)
                assert_true(rl.m[j].captures == 0 && dk_move_equal(&rl.m[j], &bl.m[j]));
            continue;
        }
        int most = 0;
        for (int j = 0; j < xl.n; j++)
            most = xl.m[j].ncaptures > most ? xl.m[j].ncaptures : most;
        int longest = 0;
        for (int j = 0; j < xl.n; j++)
            if (xl.m[j].ncaptures == most) {
                assert_true(has_move(&bl, &xl.m[j]));
                longest++;
            }
        assert_int_equal(bl.n, longest);
        differ_majority += xl.n != longest;
        int rk = 0, xk = 0;
        for (int j = 0; j < rl.n; j++) {
            assert_true(rl.m[j].captures != 0);
            bool king = (p.kings & dk_bit(rl.m[j].from)) != 0;
            rk += king;
            if (king || !rl.m[j].promotes)
                assert_true(has_move(&xl, &rl.m[j]));
            char text[DK_MOVE_TEXT_MAX];
            dk_move_format(russ(), &rl, j, true, text, sizeof text);
            assert_int_equal(dk_move_parse(russ(), &rl, text), j);
        }
        for (int j = 0; j < xl.n; j++)
            xk += (p.kings & dk_bit(xl.m[j].from)) != 0;
        assert_int_equal(rk, xk);
        bool same = rl.n == xl.n;
        for (int j = 0; same && j < xl.n; j++)
            same = has_move(&rl, &xl.m[j]);
        if (men_cannot_crown(russ(), &p))
            assert_true(same);
        differ_crown += !same;
    }
    /* the positions exercised both rules */
    assert_true(differ_majority > n / 1000);
    assert_true(differ_crown > n / 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variant_names),
        cmocka_unit_test(test_perft_international),
        cmocka_unit_test(test_perft_brazilian),
        cmocka_unit_test(test_perft_russian),
        cmocka_unit_test(test_rule_positions_international),
        cmocka_unit_test(test_rule_positions_russian),
        cmocka_unit_test(test_rule_position_brazilian),
        cmocka_unit_test(test_majority_rule_counts_kings_and_men_alike),
        cmocka_unit_test(test_promotion_and_quiet_moves),
        cmocka_unit_test(test_same_from_to_different_captures),
        cmocka_unit_test(test_quiet_moves_by_kind_and_can_capture),
        cmocka_unit_test(test_russian_against_brazilian),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
