/* Russian draughts endings against the literature (docs/russian-endings.md): Petrov's triangle
 * and the 13-move bound of three kings against one, two kings against one, and where Russian and
 * Brazilian values differ on 4 pieces and which rule makes them differ. (The classes of three
 * kings against one, the same for both 8x8 variants, are test_three_kings.c's, run on Russian
 * tables too.)
 *
 * Needs finished Russian tables up to 4 pieces (with their DTC tables) in DK_TABLES and
 * Brazilian ones up to 4 pieces in DK_BRAZILIAN (tests/gen.sh makes both and runs this test);
 * without DK_TABLES it is skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../query/drawrule.h"
#include "../query/tablebase.h"
#include "../rules/movegen.h"
#include "../rules/notation.h"
#include "support.h"

static const dk_variant *RU, *BR;
static dk_tablebase *TB, *TB_BR;
static dk_bb MAIN_ROAD;     /* a1-h8, the main road (bol'shak) */
static dk_bb EDGE;          /* the squares on the board's edge */
static dk_bb DOUBLE_CORNER; /* a7, b8 and g1, h2: the ends of the double road (dvoinik) */


static dk_pos parse(const dk_variant *v, const char *fen)
{
    dk_pos p = {0};
    char err[DK_ERR_MAX];
    if (dk_fen_parse(v, fen, &p, err, sizeof err) != 0)
        fail_msg("%s: %s", fen, err);
    return p;
}

static dk_bb squares(const char *list)
{
    dk_bb b = 0;
    for (const char *t = list; *t;) {
        int s = dk_square_parse(RU, &t);
        if (s < 0)
            fail_msg("not a square list: %s", list);
        b |= dk_bit(s);
        t += *t == ' ';
    }
    return b;
}

static int setup(void **state)
{
    (void)state;
    RU = dk_variant_get(DK_RUSSIAN);
    BR = dk_variant_get(DK_BRAZILIAN);
    MAIN_ROAD = dk_bit(28) | RU->ray[28][DK_NE]; /* from a1 (square 29) to the north-east */
    for (int s = 0; s < RU->nsq; s++)
        if (RU->row[s] == 0 || RU->row[s] == 7 || RU->col[s] == 0 || RU->col[s] == 7)
            EDGE |= dk_bit(s);
    DOUBLE_CORNER = squares("a7 b8 g1 h2");
    if (test_open_tables(RU, &TB) != 0)
        return -1;
    const char *br = getenv("DK_BRAZILIAN");
    if (TB && (!br || !(TB_BR = dk_tb_open(br, BR, NULL)))) {
        print_message("DK_BRAZILIAN must name Brazilian tables up to 4 pieces\n");
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    dk_tb_close(TB);
    dk_tb_close(TB_BR);
    return 0;
}

/* The board facts the page uses: the main road has 8 squares, the edge 14, the double corner 4,
 * all on the edge. */
static void test_geometry(void **state)
{
    (void)state;
    assert_true(MAIN_ROAD == squares("a1 b2 c3 d4 e5 f6 g7 h8"));
    assert_int_equal(dk_popcount(EDGE), 14);
    assert_true((DOUBLE_CORNER & EDGE) == DOUBLE_CORNER);
    assert_int_equal(dk_popcount(DOUBLE_CORNER), 4);
}

/* Three kings against one (0m3k-0m1k): the longest win is 25 plies, the strong side's 13th move,
 * as the literature bounds Petrov's triangle; so the 15-move count of three kings against one
 * (7.2.4) never draws a win; and the positions the books start from. */
static void test_petrov_triangle(void **state)
{
    (void)state;
    TEST_NEED_TABLES(TB);
    dk_index ix;
    assert_int_equal(dk_index_init(&ix, RU, (dk_material){0, 3, 0, 1}), 0);
    uint64_t by_dtw[32] = {0}, held = 0, held_longest = 0, held_at_25 = 0, cursed = 0, longest = 0;
    for (uint64_t i = 0; i < ix.size; i++) {
        dk_pos p = dk_index_unrank(&ix, i);
        dk_value x = test_value(TB, RU, &p, DK_METRIC_DTW);
        cursed += dk_rule_category(test_value(TB, RU, &p, DK_METRIC_DTC)) == DK_CAT_CURSED_WIN;
        if (!dk_value_is_win(x))
            continue;
        unsigned d = dk_value_dtw(x);
        assert_true(d < 32);
        by_dtw[d]++;
        longest = d > longest ? d : longest;
        /* a king of the three holds the main road and the lone king is off it */
        if ((p.pieces[DK_WHITE] & MAIN_ROAD) && !(p.pieces[DK_BLACK] & MAIN_ROAD)) {
            held++;
            held_longest = d > held_longest ? d : held_longest;
            held_at_25 += d == 25;
        }
    }
    print_message("0m3k-0m1k wins by DTW:");
    for (int d = 1; d < 32; d += 2)
        if (by_dtw[d])
            print_message(" %d:%llu", d, (unsigned long long)by_dtw[d]);
    print_message("\n  longest %llu plies; with the main road held %llu wins, longest %llu; cursed %llu\n",
                  (unsigned long long)longest, (unsigned long long)held,
                  (unsigned long long)held_longest, (unsigned long long)cursed);
    static const uint64_t want[32] = {
        [1] = 56848, [3] = 17402, [5] = 6602,  [7] = 6000,   [9] = 2092,  [11] = 2528, [13] = 2012,
        [15] = 4720, [17] = 7272, [19] = 8164, [21] = 10468, [23] = 7264, [25] = 868,
    };
    for (int d = 0; d < 32; d++)
        assert_int_equal(by_dtw[d], want[d]);
    assert_int_equal(longest, 25);
    assert_int_equal(held, 64800);
    assert_int_equal(held_longest, 25);
    assert_int_equal(held_at_25, 60);
    dk_pos p = parse(RU, "W:WKh8,Ke7,Kf6:BKa3"); /* the page's example of 13 moves */
    assert_true(test_value(TB, RU, &p, DK_METRIC_DTW) == dk_value_of_dtw(25));
    assert_int_equal(cursed, 0);

    /* lone king to move: no loss is turned into a draw by the count either */
    assert_int_equal(dk_index_init(&ix, RU, (dk_material){0, 1, 0, 3}), 0);
    uint64_t blessed = 0;
    for (uint64_t i = 0; i < ix.size; i++) {
        dk_pos p = dk_index_unrank(&ix, i);
        blessed += dk_rule_category(test_value(TB, RU, &p, DK_METRIC_DTC)) == DK_CAT_BLESSED_LOSS;
    }
    assert_int_equal(blessed, 0);

    static const struct { const char *fen; int result; unsigned dtw; } book[] = {
        {"W:WKa1,Kc1,Ke1:BKf8", TEST_WIN, 21},  /* Petrov, 1827 */
        {"W:WKa1,Kb2,Kc3:BKb8", TEST_WIN, 23},  /* Montero, 1591 */
        {"W:WKa1,Kc1,Ke1:BKc7", TEST_WIN, 21},  /* Timoneda, 1635 */
        {"W:WKc3,Ke3,Kd6:BKd8", TEST_WIN, 9},   /* the triangle itself */
        {"B:WKc3,Ke3,Kd6:BKd8", TEST_LOSS, 8},
    };
    for (size_t k = 0; k < sizeof book / sizeof *book; k++) {
        dk_pos p = parse(RU, book[k].fen);
        dk_value x = test_value(TB, RU, &p, DK_METRIC_DTW);
        if (test_result(x) != book[k].result || dk_value_dtw(x) != book[k].dtw)
            fail_msg("%s: %s in %u plies, the page says %s in %u", book[k].fen,
                     dk_value_is_win(x) ? "win" : dk_value_is_loss(x) ? "loss" : "draw",
                     dk_value_dtw(x), book[k].result == TEST_WIN ? "win" : "loss", book[k].dtw);
    }
}

/* Two kings against one (0m2k-0m1k): they win only by taking the lone king at once or by
 * trapping it, nearly always on the edge, and the longest wins start in the double corner; the
 * longest, 7 plies, is within the 5 moves of clause 7.2.8. */
static void test_two_kings(void **state)
{
    (void)state;
    TEST_NEED_TABLES(TB);
    dk_index ix;
    assert_int_equal(dk_index_init(&ix, RU, (dk_material){0, 2, 0, 1}), 0);
    /* traps (wins in 3 plies or more) by where the lone king stands */
    enum { CORNER, EDGE_ELSE, INSIDE, NPLACE };
    uint64_t draws = 0, by_dtw[8] = {0}, traps[NPLACE][8] = {{0}};
    for (uint64_t i = 0; i < ix.size; i++) {
        dk_pos p = dk_index_unrank(&ix, i);
        dk_value x = test_value(TB, RU, &p, DK_METRIC_DTW);
        if (dk_value_is_loss(x))
            test_fail_at(RU, &p, "two kings to move lose");
        if (dk_value_is_draw(x)) {
            draws++;
            continue;
        }
        unsigned d = dk_value_dtw(x);
        assert_true(d < 8);
        by_dtw[d]++;
        dk_bb lone = p.pieces[DK_BLACK];
        if (d > 1)
            traps[lone & DOUBLE_CORNER ? CORNER : lone & EDGE ? EDGE_ELSE : INSIDE][d]++;
    }
    print_message("0m2k-0m1k: %llu positions, %llu draws; wins in 1: %llu, 3: %llu, 5: %llu, 7: %llu\n",
                  (unsigned long long)ix.size, (unsigned long long)draws,
                  (unsigned long long)by_dtw[1], (unsigned long long)by_dtw[3],
                  (unsigned long long)by_dtw[5], (unsigned long long)by_dtw[7]);
    static const char *place[NPLACE] = {"double corner", "elsewhere on the edge", "off the edge"};
    for (int c = 0; c < NPLACE; c++)
        print_message("  traps, lone king %-22s in 3: %4llu, 5: %4llu, 7: %4llu\n", place[c],
                      (unsigned long long)traps[c][3], (unsigned long long)traps[c][5],
                      (unsigned long long)traps[c][7]);
    assert_int_equal(ix.size, 14880);
    assert_int_equal(draws, 9252);
    static const uint64_t want_dtw[8] = {[1] = 4600, [3] = 888, [5] = 108, [7] = 32};
    static const uint64_t want_traps[NPLACE][8] = {
        [CORNER] = {[3] = 188, [5] = 104, [7] = 32},
        [EDGE_ELSE] = {[3] = 700},
        [INSIDE] = {[5] = 4}, /* the lone king between two kings on a diagonal: W:WKg7,Ke5:BKf6 */
    };
    for (int d = 0; d < 8; d++) {
        assert_int_equal(by_dtw[d], want_dtw[d]);
        for (int c = 0; c < NPLACE; c++)
            assert_int_equal(traps[c][d], want_traps[c][d]);
    }
}

/* Where Russian and Brazilian values differ on up to 4 pieces: nowhere among kings alone, and
 * per material as the page's table says; three positions show the rules at work. */
static void test_against_brazilian(void **state)
{
    (void)state;
    TEST_NEED_TABLES(TB);
    static const struct { const char *material; uint64_t dtw, result; } want[] = {
        {"1m0k-0m2k", 6, 6},     {"1m0k-1m1k", 12, 7},    {"1m0k-2m0k", 6, 1},
        {"1m0k-0m3k", 163, 139}, {"1m1k-0m2k", 137, 131}, {"0m3k-1m0k", 3, 0},
        {"0m1k-2m1k", 73, 62},   {"1m0k-1m2k", 563, 475}, {"1m1k-1m1k", 305, 121},
        {"2m0k-0m2k", 134, 134}, {"1m2k-1m0k", 21, 11},   {"2m1k-0m1k", 33, 8},
        {"0m1k-3m0k", 26, 18},   {"1m0k-2m1k", 634, 532}, {"1m1k-2m0k", 193, 4},
        {"2m0k-1m1k", 323, 143}, {"2m1k-1m0k", 31, 18},   {"3m0k-0m1k", 30, 5},
        {"1m0k-3m0k", 228, 180}, {"2m0k-2m0k", 173, 16},  {"3m0k-1m0k", 24, 13},
    };
    dk_material ms[64];
    size_t n = dk_material_list(RU, 4, 0, ms, 64), listed = 0;
    assert_true(n <= 64);
    uint64_t total = 0, total_dtw = 0, total_result = 0;
    for (size_t k = 0; k < n; k++) {
        dk_index ix;
        assert_int_equal(dk_index_init(&ix, RU, ms[k]), 0);
        uint64_t dtw = 0, res = 0;
        for (uint64_t i = 0; i < ix.size; i++) {
            dk_pos p = dk_index_unrank(&ix, i);
            dk_value a = test_value(TB, RU, &p, DK_METRIC_DTW), b = test_value(TB_BR, BR, &p, DK_METRIC_DTW);
            dtw += a != b;
            res += test_result(a) != test_result(b);
        }
        total += ix.size;
        total_dtw += dtw;
        total_result += res;
        char name[DK_MATERIAL_NAME_MAX];
        dk_material_name(ms[k], name, sizeof name);
        size_t w = 0;
        while (w < sizeof want / sizeof *want && strcmp(want[w].material, name) != 0)
            w++;
        uint64_t want_dtw = w < sizeof want / sizeof *want ? want[w].dtw : 0;
        uint64_t want_result = w < sizeof want / sizeof *want ? want[w].result : 0;
        listed += w < sizeof want / sizeof *want;
        if (dtw != want_dtw || res != want_result)
            fail_msg("%s: %llu positions differ in DTW and %llu in result, the page says %llu and %llu",
                     name, (unsigned long long)dtw, (unsigned long long)res,
                     (unsigned long long)want_dtw, (unsigned long long)want_result);
        if (ms[k].wm + ms[k].bm == 0)
            assert_int_equal(dtw, 0); /* kings alone: the same values under both rules */
    }
    assert_int_equal(listed, sizeof want / sizeof *want);
    print_message("up to 4 pieces: %llu positions, %llu differ in DTW, %llu in result\n",
                  (unsigned long long)total, (unsigned long long)total_dtw,
                  (unsigned long long)total_result);

    static const struct { const char *fen; int russian; unsigned ru_dtw; int brazilian; unsigned br_dtw; } shown[] = {
        {"W:Wb6:BKc7,Kf6", TEST_WIN, 1, TEST_DRAW, 0},        /* crowned on d8, it takes on as a king */
        {"W:WKc3:Bb6,b4,d4", TEST_WIN, 13, TEST_DRAW, 0},     /* free choice: take one man, not two */
        {"W:WKb6,Kb4,b2:Ba3", TEST_DRAW, 0, TEST_WIN, 3},     /* b4-d2 is a sacrifice only in Brazilian */
        {"B:WKb6,Kd2,b2:Ba3", TEST_WIN, 1, TEST_LOSS, 2},
    };
    for (size_t k = 0; k < sizeof shown / sizeof *shown; k++) {
        dk_pos p = parse(RU, shown[k].fen);
        dk_value a = test_value(TB, RU, &p, DK_METRIC_DTW), b = test_value(TB_BR, BR, &p, DK_METRIC_DTW);
        if (test_result(a) != shown[k].russian || (shown[k].russian != TEST_DRAW && dk_value_dtw(a) != shown[k].ru_dtw))
            fail_msg("%s: the Russian value is not the page's", shown[k].fen);
        if (test_result(b) != shown[k].brazilian || (shown[k].brazilian != TEST_DRAW && dk_value_dtw(b) != shown[k].br_dtw))
            fail_msg("%s: the Brazilian value is not the page's", shown[k].fen);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry),
        cmocka_unit_test(test_petrov_triangle),
        cmocka_unit_test(test_two_kings),
        cmocka_unit_test(test_against_brazilian),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
