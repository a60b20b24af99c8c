/* Three kings against one king on 8x8 (docs/three-kings.md for Brazilian, docs/russian-endings.md
 * for Russian): which positions are draws, and why. Every position of 0m3k-0m1k (the three kings
 * to move) and of 0m1k-0m3k (the lone king to move) is put in a class by what is on the long
 * diagonal a1-h8 and who can capture; the test asserts the value counts of every class and the
 * facts that explain them, so it fails if the tables ever say something else. The classes are
 * the same for both variants; the counts differ where the capture rules do (the majority rule).
 *
 * Needs finished tables up to 4 pieces of the variant DK_VARIANT (brazilian if unset; or
 * russian) in the directory DK_TABLES (tests/gen.sh makes them and runs this test); without
 * DK_TABLES it is skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../query/tablebase.h"
#include "../rules/movegen.h"
#include "../rules/notation.h"
#include "support.h"

static const dk_variant *V;
static dk_tablebase *TB;
static dk_bb LONG_DIAG; /* a1-h8: squares 29, 25, 22, 18, 15, 11, 8, 4 */

static int result(dk_value x) { return test_result(x); }

static void fail_at(const dk_pos *p, const char *what) { test_fail_at(V, p, what); }

static dk_value value(const dk_pos *p) { return test_value(TB, V, p, DK_METRIC_DTW); }

/* The classes of a position with the three kings to move (lone: the lone king's colour). */
enum { S_CAPTURE, S_FORTRESS, S_ON_DIAG, S_OFF_DIAG, NS };
static const char *S_NAME[NS] = {
    "the kings can capture the lone king",
    "lone king on a1-h8, no other king there",
    "lone king on a1-h8, a king of the three too",
    "lone king off a1-h8",
};

static int strong_class(const dk_pos *p, int lone)
{
    if (dk_can_capture(V, p, lone ^ 1))
        return S_CAPTURE;
    if (!(p->pieces[lone] & LONG_DIAG))
        return S_OFF_DIAG;
    return p->pieces[lone ^ 1] & LONG_DIAG ? S_ON_DIAG : S_FORTRESS;
}

/* What the tables must say, per variant. */
typedef struct {
    uint64_t strong[NS][3];      /* three kings to move: draws, wins, losses of each class */
    uint64_t sacrifice_dtw[10];  /* fortress wins by sacrifice, by DTW (odd, at most 9) */
    uint64_t double_attack, reach_diag; /* the two kinds of draw off the diagonal */
    uint64_t captures[4][3];     /* lone king to move, by the most kings it can take */
    uint64_t quiet[2][2][3];     /* no capture: [lone king on a1-h8][a king of the three on it] */
    uint64_t to_fortress, to_off_diag; /* quiet draws: by a move into the fortress, or only not */
} expected;

static const expected BRAZILIAN = { /* and Russian */
    .strong = {
        /* draws, wins, losses */
        [S_CAPTURE] = {0, 56176, 0},
        [S_FORTRESS] = {10704, 468, 0},
        [S_ON_DIAG] = {0, 5092, 0},
        [S_OFF_DIAG] = {896, 70504, 0},
    },
    .sacrifice_dtw = {[3] = 176, [5] = 252, [7] = 28, [9] = 12},
    .double_attack = 804,
    .reach_diag = 92,
    .captures = {
        [1] = {40718, 0, 5256},
        [2] = {13994, 100, 402},
        [3] = {0, 1754, 0},
    },
    .quiet = {
        [0][0] = {17012, 0, 6764},
        [0][1] = {40, 0, 39560},
        [1][0] = {13696, 0, 0},
        [1][1] = {8, 0, 4536},
    },
    .to_fortress = 30708,
    .to_off_diag = 48,
};

/* Russian gives the very same counts: among kings alone the free choice of capture changes no
 * value on 4 pieces (test_russian_endings.c compares every position), and no man is there to be
 * crowned in passing. Running the classes on Russian tables checks that from the other side. */
static const expected *const WANT = &BRAZILIAN;

static int setup(void **state)
{
    (void)state;
    const char *name = getenv("DK_VARIANT");
    V = dk_variant_find(name ? name : "brazilian");
    if (!V || V->size != 8) {
        print_message("DK_VARIANT=%s: not an 8x8 variant\n", name);
        return -1;
    }
    LONG_DIAG = dk_bit(28) | V->ray[28][DK_NE]; /* from a1 (square 29) to the north-east */
    return test_open_tables(V, &TB);
}

static int teardown(void **state)
{
    (void)state;
    dk_tb_close(TB);
    return 0;
}


/* The board facts the explanation rests on. */
static void test_geometry(void **state)
{
    (void)state;
    const dk_variant *v = V;
    static const int squares[] = {29, 25, 22, 18, 15, 11, 8, 4};
    dk_bb want = 0;
    for (int i = 0; i < 8; i++)
        want |= dk_bit(squares[i] - 1);
    assert_true(LONG_DIAG == want);
    /* a1 and h8 lie on no other diagonal: a king there can be captured only along a1-h8 */
    for (int c = 0; c < 2; c++) {
        int corner = c ? 3 : 28, neighbours = 0;
        for (int d = 0; d < 4; d++)
            neighbours += v->nb[corner][d] >= 0;
        assert_int_equal(neighbours, 1);
    }
    /* a king off the diagonal sees one of its squares at most (one of its diagonals is parallel
     * to a1-h8, the other crosses it once), never a corner: three such kings attack at most
     * three of the eight */
    for (int s = 0; s < v->nsq; s++) {
        if (LONG_DIAG & dk_bit(s))
            continue;
        dk_bb seen = 0;
        for (int d = 0; d < 4; d++)
            seen |= v->ray[s][d] & LONG_DIAG;
        assert_true(dk_popcount(seen) <= 1);
        assert_false(seen & (dk_bit(28) | dk_bit(3)));
    }
}

/* The three kings to move: every position of 0m3k-0m1k. */
static void test_three_kings_to_move(void **state)
{
    (void)state;
    TEST_NEED_TABLES(TB);
    dk_material m = {0, 3, 0, 1};
    dk_index ix;
    assert_int_equal(dk_index_init(&ix, V, m), 0);
    uint64_t count[NS][3] = {{0}}, sacrifice_wins = 0, dtw[10] = {0};
    uint64_t double_attack = 0, reach_diag = 0;
    for (uint64_t i = 0; i < ix.size; i++) {
        dk_pos p = dk_index_unrank(&ix, i);
        dk_value x = value(&p);
        int c = strong_class(&p, DK_BLACK), r = result(x);
        count[c][r]++;
        if (c == S_CAPTURE && x != dk_value_of_dtw(1))
            fail_at(&p, "a capture of the lone king is not a win in 1");
        if (c != S_FORTRESS && c != S_OFF_DIAG)
            continue;
        dk_movelist ml;
        dk_gen_moves(V, &p, &ml);
        bool every_move_attacked = true, every_move_answered = true;
        for (int k = 0; k < ml.n; k++) {
            dk_pos q = dk_apply(&p, &ml.m[k]);
            bool capture = dk_can_capture(V, &q, DK_BLACK);
            if (c == S_FORTRESS && (dk_bit(ml.m[k].to) & LONG_DIAG) && !capture)
                fail_at(&q, "a king stepped onto a1-h8 and the lone king cannot capture it");
            if (c == S_FORTRESS && r == TEST_WIN && dk_value_is_loss(value(&q)) && !capture)
                fail_at(&p, "a win against the fortress that is not a sacrifice");
            every_move_attacked &= capture;
            if (!capture) { /* can the lone king step onto the diagonal, and hold there? */
                dk_movelist bl;
                dk_gen_moves(V, &q, &bl);
                bool holds = false;
                for (int j = 0; j < bl.n && !holds; j++) {
                    dk_pos s = dk_apply(&q, &bl.m[j]);
                    holds = strong_class(&s, DK_BLACK) == S_FORTRESS && dk_value_is_draw(value(&s));
                }
                every_move_answered &= holds;
            }
        }
        if (c == S_FORTRESS && r == TEST_WIN) {
            sacrifice_wins++;
            unsigned d = dk_value_dtw(x);
            assert_true(d < 10);
            dtw[d]++;
        }
        if (c == S_OFF_DIAG && r == TEST_DRAW) {
            if (!every_move_answered)
                fail_at(&p, "a draw off the diagonal that a move of the kings neither loses a "
                            "king nor keeps the lone king off the diagonal");
            double_attack += every_move_attacked;
            reach_diag += !every_move_attacked;
        }
    }
    print_message("%s 0m3k-0m1k, three kings to move: %llu positions\n", V->name, (unsigned long long)ix.size);
    for (int c = 0; c < NS; c++)
        print_message("  %-45s wins %6llu  draws %6llu  losses %llu\n", S_NAME[c],
                      (unsigned long long)count[c][TEST_WIN], (unsigned long long)count[c][TEST_DRAW],
                      (unsigned long long)count[c][TEST_LOSS]);
    print_message("  fortress wins by sacrifice: %llu (DTW 1: %llu, 3: %llu, 5: %llu, 7: %llu, 9: %llu)\n",
                  (unsigned long long)sacrifice_wins, (unsigned long long)dtw[1],
                  (unsigned long long)dtw[3], (unsigned long long)dtw[5], (unsigned long long)dtw[7],
                  (unsigned long long)dtw[9]);
    print_message("  draws off the diagonal: %llu double attacks, %llu reach the diagonal\n",
                  (unsigned long long)double_attack, (unsigned long long)reach_diag);

    assert_int_equal(ix.size, 143840);
    for (int c = 0; c < NS; c++)
        for (int r = 0; r < 3; r++)
            assert_int_equal(count[c][r], WANT->strong[c][r]);
    for (int d = 0; d < 10; d++)
        assert_int_equal(dtw[d], WANT->sacrifice_dtw[d]);
    assert_int_equal(double_attack, WANT->double_attack);
    assert_int_equal(reach_diag, WANT->reach_diag);
}

/* The lone king to move: every position of 0m1k-0m3k (White is the lone king). */
static void test_lone_king_to_move(void **state)
{
    (void)state;
    TEST_NEED_TABLES(TB);
    dk_material m = {0, 1, 0, 3};
    dk_index ix;
    assert_int_equal(dk_index_init(&ix, V, m), 0);
    uint64_t captures[4][3] = {{0}}, quiet[2][2][3] = {{{0}}}, to_fortress = 0, to_off_diag = 0;
    for (uint64_t i = 0; i < ix.size; i++) {
        dk_pos p = dk_index_unrank(&ix, i);
        int r = result(value(&p));
        dk_movelist ml;
        dk_gen_moves(V, &p, &ml);
        int most = 0; /* under the majority rule every capture takes as many */
        for (int k = 0; k < ml.n; k++)
            most = ml.m[k].ncaptures > most ? ml.m[k].ncaptures : most;
        if (most) {
            captures[most][r]++;
            continue;
        }
        bool fortress = false, off_diag = false;
        for (int k = 0; k < ml.n; k++) {
            dk_pos s = dk_apply(&p, &ml.m[k]);
            if (!dk_value_is_draw(value(&s)))
                continue;
            int c = strong_class(&s, DK_WHITE);
            fortress |= c == S_FORTRESS;
            off_diag |= c == S_OFF_DIAG;
            if (c != S_FORTRESS && c != S_OFF_DIAG)
                fail_at(&s, "a draw in a class that has none");
        }
        if ((r == TEST_DRAW) != (fortress || off_diag))
            fail_at(&p, "a quiet position drawn without a move to a draw, or lost with one");
        to_fortress += r == TEST_DRAW && fortress;
        to_off_diag += r == TEST_DRAW && !fortress;
        quiet[(p.pieces[DK_WHITE] & LONG_DIAG) != 0][(p.pieces[DK_BLACK] & LONG_DIAG) != 0][r]++;
    }
    print_message("%s 0m1k-0m3k, lone king to move: %llu positions\n", V->name, (unsigned long long)ix.size);
    for (int n = 1; n <= 3; n++)
        print_message("  can capture %d at most: wins %6llu  draws %6llu  losses %llu\n", n,
                      (unsigned long long)captures[n][TEST_WIN], (unsigned long long)captures[n][TEST_DRAW],
                      (unsigned long long)captures[n][TEST_LOSS]);
    for (int a = 1; a >= 0; a--)
        for (int b = 0; b < 2; b++)
            print_message("  no capture, lone king %s a1-h8, %s king there: draws %6llu  losses %llu\n",
                          a ? "on" : "off", b ? "a" : "no", (unsigned long long)quiet[a][b][TEST_DRAW],
                          (unsigned long long)quiet[a][b][TEST_LOSS]);
    print_message("  quiet draws: %llu move onto or along the diagonal, %llu only to a double attack\n",
                  (unsigned long long)to_fortress, (unsigned long long)to_off_diag);

    assert_int_equal(ix.size, 143840);
    for (int n = 1; n <= 3; n++)
        for (int r = 0; r < 3; r++)
            assert_int_equal(captures[n][r], WANT->captures[n][r]);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            for (int r = 0; r < 3; r++)
                assert_int_equal(quiet[a][b][r], WANT->quiet[a][b][r]);
    assert_int_equal(to_fortress, WANT->to_fortress);
    assert_int_equal(to_off_diag, WANT->to_off_diag);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry),
        cmocka_unit_test(test_three_kings_to_move),
        cmocka_unit_test(test_lone_king_to_move),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
