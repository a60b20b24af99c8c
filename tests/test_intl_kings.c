/* International king endings (docs/international-kings.md): three kings, and four, against one
 * king, what the tables say about the long diagonal 46-5, the positions of the old literature
 * and the FMJD's short counts for sparse endings. Every position of 0m3k-0m1k and 0m1k-0m3k
 * (and, at full scale, of 0m4k-0m1k and 0m1k-0m4k) is put in a class by what stands on the long
 * diagonal and who can capture; the test asserts the counts of every class and the facts that
 * explain them, so it fails if the tables ever say something else.
 *
 * Needs finished International tables of 0m3k-0m1k and 1m1k-0m1k (and what they depend on) in
 * the directory DK_TABLES; with DK_FIVE=1 also of 0m4k-0m1k. tests/gen.sh makes them and runs
 * this test; without DK_TABLES it is skipped. */
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
static bool FIVE;     /* DK_FIVE=1: the tables of four kings against one are there too */
static dk_bb LONG_DIAG; /* 46, 41, 37, 32, 28, 23, 19, 14, 10, 5 */

static int result(dk_value x) { return test_result(x); }

static void fail_at(const dk_pos *p, const char *what) { test_fail_at(V, p, what); }

static dk_value value(const dk_pos *p) { return test_value(TB, V, p, DK_METRIC_DTW); }

/* The moves of fen, each with what it brings the side to move ("win", "draw" or "loss"), as
 * "move value" pairs in the order of generation; *x is the value of fen. */
static void moves_of(const char *fen, char *out, size_t len, dk_value *x)
{
    dk_pos p;
    char err[DK_ERR_MAX];
    assert_int_equal(dk_fen_parse(V, fen, &p, err, sizeof err), 0);
    *x = value(&p);
    dk_movelist ml;
    dk_gen_moves(V, &p, &ml);
    out[0] = '\0';
    for (int k = 0; k < ml.n; k++) {
        dk_pos q = dk_apply(&p, &ml.m[k]);
        dk_value y = value(&q);
        char mv[DK_MOVE_TEXT_MAX];
        dk_move_format(V, &ml, k, false, mv, sizeof mv);
        const char *what = dk_value_is_draw(y) ? "draw" : dk_value_is_loss(y) ? "win" : "loss";
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s %s", used ? ", " : "", mv, what);
    }
}

/* A position of docs/international-kings.md: its value (a DTW, or a draw) and, unless NULL, a
 * move with its result ("27-22 win", "26x3 loss") that is the only move of that result. */
typedef struct {
    const char *fen;
    int dtw; /* -1: a draw */
    const char *only;
} example;

enum { DRAWN = -1 };

static void check_examples(const example *e, size_t n)
{
    char got[4096];
    dk_value x;
    for (size_t i = 0; i < n; i++) {
        moves_of(e[i].fen, got, sizeof got, &x);
        bool value_ok = e[i].dtw == DRAWN ? dk_value_is_draw(x) : x == dk_value_of_dtw((unsigned)e[i].dtw);
        if (!value_ok)
            fail_msg("%s: not %s %d", e[i].fen, e[i].dtw == DRAWN ? "a draw" : "a value of DTW", e[i].dtw);
        if (!e[i].only)
            continue;
        const char *kind = strchr(e[i].only, ' '), *first = strstr(got, kind);
        if (!strstr(got, e[i].only) || strstr(first + 1, kind)) /* one move of that result */
            fail_msg("%s: %s is not the only move of its result: %s", e[i].fen, e[i].only, got);
    }
}

/* The classes of a position with the kings to move (lone: the lone king's colour). */
enum { S_CAPTURE, S_FORTRESS, S_ON_DIAG, S_OFF_HELD, S_OFF_FREE, NS };
static const char *S_NAME[NS] = {
    "the kings can capture the lone king",
    "lone king on 46-5, no other king there",
    "lone king on 46-5, a king of the many too",
    "lone king off 46-5, a king of the many on it",
    "lone king off 46-5, no king on it",
};

static int strong_class(const dk_pos *p, int lone)
{
    if (dk_can_capture(V, p, lone ^ 1))
        return S_CAPTURE;
    bool held = p->pieces[lone ^ 1] & LONG_DIAG;
    if (p->pieces[lone] & LONG_DIAG)
        return held ? S_ON_DIAG : S_FORTRESS;
    return held ? S_OFF_HELD : S_OFF_FREE;
}

static int setup(void **state)
{
    (void)state;
    V = dk_variant_get(DK_INTERNATIONAL);
    LONG_DIAG = dk_bit(45) | V->ray[45][DK_NE]; /* from 46 to the north-east */
    const char *five = getenv("DK_FIVE");
    FIVE = five && strcmp(five, "1") == 0;
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
    static const int squares[] = {46, 41, 37, 32, 28, 23, 19, 14, 10, 5};
    dk_bb want = 0;
    for (int i = 0; i < 10; i++)
        want |= dk_bit(squares[i] - 1);
    assert_true(LONG_DIAG == want);
    /* 46 and 5 lie on no other diagonal: a king there can be captured only along 46-5 */
    for (int c = 0; c < 2; c++) {
        int corner = c ? 4 : 45, neighbours = 0;
        for (int d = 0; d < 4; d++)
            neighbours += V->nb[corner][d] >= 0;
        assert_int_equal(neighbours, 1);
    }
    /* a king off the diagonal crosses it at most once (its other diagonal is parallel to it),
     * and never in a corner: three such kings attack at most three of its ten squares */
    for (int s = 0; s < V->nsq; s++) {
        if (LONG_DIAG & dk_bit(s))
            continue;
        dk_bb seen = 0;
        for (int d = 0; d < 4; d++)
            seen |= V->ray[s][d] & LONG_DIAG;
        assert_true(dk_popcount(seen) <= 1);
        assert_false(seen & (dk_bit(45) | dk_bit(4)));
    }
}

/* What a scan of the kings to move finds. */
typedef struct {
    uint64_t size, count[NS][3];
    uint64_t fortress_dtw[16];    /* wins against the fortress by their DTW */
    uint64_t sacrifice_only;      /* fortress wins whose every winning move offers a king */
    uint64_t blocks;              /* wins in 1 without a capture: the lone king is shut in */
    uint64_t attacked_draws;      /* draws where every move of the kings leaves one en prise */
    unsigned longest;
} strong_scan;

/* Every position of the kings (kings of them) to move against one king. */
static void scan_strong(int kings, strong_scan *out)
{
    dk_material m = {0, (uint8_t)kings, 0, 1};
    dk_index ix;
    assert_int_equal(dk_index_init(&ix, V, m), 0);
    memset(out, 0, sizeof *out);
    out->size = ix.size;
    for (uint64_t i = 0; i < ix.size; i++) {
        dk_pos p = dk_index_unrank(&ix, i);
        dk_value x = value(&p);
        int c = strong_class(&p, DK_BLACK), r = result(x);
        out->count[c][r]++;
        if (r == TEST_LOSS)
            fail_at(&p, "the kings lose");
        if (r == TEST_WIN && dk_value_dtw(x) > out->longest)
            out->longest = dk_value_dtw(x);
        if (c == S_CAPTURE) {
            if (x != dk_value_of_dtw(1))
                fail_at(&p, "a capture of the lone king is not a win in 1");
            continue;
        }
        out->blocks += x == dk_value_of_dtw(1);
        if (r == TEST_WIN && c != S_FORTRESS)
            continue;
        dk_movelist ml;
        dk_gen_moves(V, &p, &ml);
        bool every_move_attacked = true, quiet_win = false;
        for (int k = 0; k < ml.n; k++) {
            dk_pos q = dk_apply(&p, &ml.m[k]);
            bool capture = dk_can_capture(V, &q, DK_BLACK);
            every_move_attacked &= capture;
            if (c == S_FORTRESS && (dk_bit(ml.m[k].to) & LONG_DIAG) && !capture)
                fail_at(&q, "a king stepped onto 46-5 and the lone king cannot capture it");
            if (r == TEST_WIN && !capture && dk_value_is_loss(value(&q)))
                quiet_win = true;
        }
        if (r == TEST_WIN) { /* against the fortress */
            unsigned d = dk_value_dtw(x);
            assert_true(d < 16);
            out->fortress_dtw[d]++;
            out->sacrifice_only += !quiet_win;
        } else {
            out->attacked_draws += every_move_attacked;
        }
    }
    print_message("0m%dk-0m1k, the kings to move: %llu positions, longest win %u plies\n", kings,
                  (unsigned long long)ix.size, out->longest);
    for (int c = 0; c < NS; c++)
        print_message("  %-45s wins %8llu  draws %6llu\n", S_NAME[c],
                      (unsigned long long)out->count[c][TEST_WIN], (unsigned long long)out->count[c][TEST_DRAW]);
    print_message("  fortress wins by DTW:");
    for (int d = 0; d < 16; d++)
        if (out->fortress_dtw[d])
            print_message(" %d: %llu", d, (unsigned long long)out->fortress_dtw[d]);
    print_message("; only by a sacrifice: %llu\n", (unsigned long long)out->sacrifice_only);
    print_message("  wins in 1 by shutting the lone king in: %llu; draws where every move leaves a "
                  "king en prise: %llu\n",
                  (unsigned long long)out->blocks, (unsigned long long)out->attacked_draws);
}

static void assert_counts(const uint64_t got[NS][3], const uint64_t want[NS][2])
{
    for (int c = 0; c < NS; c++) {
        assert_int_equal(got[c][TEST_DRAW], want[c][0]);
        assert_int_equal(got[c][TEST_WIN], want[c][1]);
    }
}

static void test_three_kings_to_move(void **state)
{
    (void)state;
    TEST_NEED_TABLES(TB);
    strong_scan s;
    scan_strong(3, &s);
    assert_int_equal(s.size, 921200);
    static const uint64_t want[NS][2] = {
        /* draws, wins */
        [S_CAPTURE] = {0, 351640},      [S_FORTRESS] = {70632, 2472}, [S_ON_DIAG] = {0, 17424},
        [S_OFF_HELD] = {198752, 56464}, [S_OFF_FREE] = {165372, 58444},
    };
    assert_counts(s.count, want);
    assert_int_equal(s.longest, 15);
    assert_int_equal(s.fortress_dtw[3], 1364);
    assert_int_equal(s.fortress_dtw[5], 1044);
    assert_int_equal(s.fortress_dtw[7], 52);
    assert_int_equal(s.fortress_dtw[9], 12);
    assert_int_equal(s.sacrifice_only, 2472); /* every win against the fortress */
    assert_int_equal(s.blocks, 1266);
    assert_int_equal(s.attacked_draws, 4108);
}

static void test_four_kings_to_move(void **state)
{
    (void)state;
    TEST_NEED_TABLES(TB);
    if (!FIVE) {
        print_message("DK_FIVE is not 1: skipped (tests/gen.sh runs it at DK_GEN_SCALE=full)\n");
        skip();
    }
    strong_scan s;
    scan_strong(4, &s);
    assert_int_equal(s.size, 10593800);
    static const uint64_t want[NS][2] = {
        [S_CAPTURE] = {0, 4755736},     [S_FORTRESS] = {90, 618426},    [S_ON_DIAG] = {8, 247880},
        [S_OFF_HELD] = {14848, 3147128}, [S_OFF_FREE] = {5612, 1804072},
    };
    assert_counts(s.count, want);
    assert_int_equal(s.longest, 15);
    assert_int_equal(s.fortress_dtw[13], 10778); /* the longest wins against the fortress */
    assert_int_equal(s.fortress_dtw[15], 0);
    assert_int_equal(s.sacrifice_only, 3694);
    assert_int_equal(s.blocks, 28558);
    /* every draw is a position where each move leaves a king en prise */
    assert_int_equal(s.attacked_draws, 90 + 8 + 14848 + 5612);
    static const example e[] = {
        {"W:WK7,K20,K21,K27:BK36", 15, NULL}, /* the longest win */
        {"W:WK1,K2,K3,K4:BK46", 5, NULL},     /* the long diagonal does not hold */
        {"W:WK1,K7,K9,K20:BK14", DRAWN, NULL}, /* every move leaves a king en prise */
    };
    check_examples(e, sizeof e / sizeof e[0]);
}

/* What a scan of the lone king to move finds. */
typedef struct {
    uint64_t size, captures[5][3], quiet[2][2][3];
    /* quiet draws by their drawing moves: onto or along 46-5 (the fortress), else off it with
     * 46-5 free, else off it with a king of the many on it, else onto it beside such a king */
    uint64_t to_fortress, to_off_free, to_off_held, to_on_held;
    uint64_t traps;       /* fortress positions where a quiet move along 46-5 loses */
    uint64_t leave_diag;  /* drawn fortress positions where every drawing move leaves 46-5 */
} lone_scan;

/* Every position of one king to move against kings kings (White is the lone king). */
static void scan_lone(int kings, lone_scan *out)
{
    dk_material m = {0, 1, 0, (uint8_t)kings};
    dk_index ix;
    assert_int_equal(dk_index_init(&ix, V, m), 0);
    memset(out, 0, sizeof *out);
    out->size = ix.size;
    for (uint64_t i = 0; i < ix.size; i++) {
        dk_pos p = dk_index_unrank(&ix, i);
        int r = result(value(&p));
        dk_movelist ml;
        dk_gen_moves(V, &p, &ml);
        if (ml.n && ml.m[0].ncaptures) {
            out->captures[ml.m[0].ncaptures][r]++;
            continue;
        }
        bool on = p.pieces[DK_WHITE] & LONG_DIAG, held = p.pieces[DK_BLACK] & LONG_DIAG;
        out->quiet[on][held][r]++;
        if (r == TEST_WIN)
            fail_at(&p, "the lone king wins without a capture");
        bool fortress_position = on && !held;
        if (r == TEST_LOSS && !fortress_position)
            continue;
        bool to_class[NS] = {false}, trap = false;
        for (int k = 0; k < ml.n; k++) {
            dk_pos s = dk_apply(&p, &ml.m[k]);
            dk_value x = value(&s);
            int c = strong_class(&s, DK_WHITE);
            if (dk_value_is_draw(x))
                to_class[c] = true;
            else if (fortress_position && c == S_FORTRESS)
                trap = true;
        }
        if ((r == TEST_DRAW) != (to_class[S_FORTRESS] || to_class[S_OFF_HELD] || to_class[S_OFF_FREE] ||
                            to_class[S_CAPTURE] || to_class[S_ON_DIAG]))
            fail_at(&p, "a quiet position drawn without a move to a draw, or lost with one");
        out->traps += trap;
        out->leave_diag += fortress_position && r == TEST_DRAW && !to_class[S_FORTRESS];
        if (r == TEST_DRAW) {
            if (to_class[S_FORTRESS])
                out->to_fortress++;
            else if (to_class[S_OFF_FREE])
                out->to_off_free++;
            else if (to_class[S_OFF_HELD])
                out->to_off_held++;
            else
                out->to_on_held++;
        }
    }
    print_message("0m1k-0m%dk, the lone king to move: %llu positions\n", kings, (unsigned long long)ix.size);
    for (int n = 1; n <= kings; n++)
        print_message("  must capture %d: wins %8llu  draws %8llu  losses %llu\n", n,
                      (unsigned long long)out->captures[n][TEST_WIN], (unsigned long long)out->captures[n][TEST_DRAW],
                      (unsigned long long)out->captures[n][TEST_LOSS]);
    for (int a = 1; a >= 0; a--)
        for (int b = 0; b < 2; b++)
            print_message("  no capture, lone king %s 46-5, %s king there: draws %8llu  losses %llu\n",
                          a ? "on" : "off", b ? "a" : "no", (unsigned long long)out->quiet[a][b][TEST_DRAW],
                          (unsigned long long)out->quiet[a][b][TEST_LOSS]);
    print_message("  quiet draws: %llu onto or along 46-5, else %llu off it with 46-5 free, else %llu "
                  "off it with a king on it, else %llu onto it beside a king\n",
                  (unsigned long long)out->to_fortress, (unsigned long long)out->to_off_free,
                  (unsigned long long)out->to_off_held, (unsigned long long)out->to_on_held);
    print_message("  on 46-5, no king there: %llu positions where a move along it loses, %llu drawn "
                  "only by leaving it\n",
                  (unsigned long long)out->traps, (unsigned long long)out->leave_diag);
}

static void assert_lone(const lone_scan *s, int kings, const uint64_t want_captures[5][3],
                        const uint64_t want_quiet[2][2][3])
{
    for (int n = 1; n <= kings; n++)
        for (int r = 0; r < 3; r++)
            assert_int_equal(s->captures[n][r], want_captures[n][r]);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            for (int r = 0; r < 3; r++)
                assert_int_equal(s->quiet[a][b][r], want_quiet[a][b][r]);
}

static void test_lone_king_against_three(void **state)
{
    (void)state;
    TEST_NEED_TABLES(TB);
    lone_scan s;
    scan_lone(3, &s);
    assert_int_equal(s.size, 921200);
    static const uint64_t want_captures[5][3] = {
        /* draws, wins, losses */
        [1] = {238100, 0, 21104},
        [2] = {96712, 350, 2272},
        [3] = {0, 16462, 0},
    };
    static const uint64_t want_quiet[2][2][3] = {
        /* [lone king on 46-5][a king of the three on it]: draws, wins, losses */
        [1][0] = {83480, 0, 0},
        [1][1] = {11546, 0, 3990},
        [0][0] = {202768, 0, 8544},
        [0][1] = {231196, 0, 4676},
    };
    assert_lone(&s, 3, want_captures, want_quiet);
    assert_int_equal(s.to_fortress, 255816);
    assert_int_equal(s.to_off_free, 30432);
    assert_int_equal(s.to_off_held, 242742);
    assert_int_equal(s.to_on_held, 0);
    assert_int_equal(s.traps, 12556);
    assert_int_equal(s.leave_diag, 0); /* on 46-5 the lone king always has a safe square on it */
}

static void test_lone_king_against_four(void **state)
{
    (void)state;
    TEST_NEED_TABLES(TB);
    if (!FIVE) {
        print_message("DK_FIVE is not 1: skipped (tests/gen.sh runs it at DK_GEN_SCALE=full)\n");
        skip();
    }
    lone_scan s;
    scan_lone(4, &s);
    assert_int_equal(s.size, 10593800);
    static const uint64_t want_captures[5][3] = {
        [1] = {2496852, 0, 603646},
        [2] = {1428620, 0, 127868},
        [3] = {464170, 1050, 11046},
        [4] = {0, 86280, 0},
    };
    static const uint64_t want_quiet[2][2][3] = {
        [1][0] = {742, 0, 737338},
        [1][1] = {12, 0, 211600},
        [0][0] = {184, 0, 1617372},
        [0][1] = {888, 0, 2806132},
    };
    assert_lone(&s, 4, want_captures, want_quiet);
    assert_int_equal(s.to_fortress, 710);
    assert_int_equal(s.to_off_free, 216);
    assert_int_equal(s.to_off_held, 848);
    assert_int_equal(s.to_on_held, 52);
    assert_int_equal(s.traps, 737338 + 742); /* on 46-5, some move along it loses every time */
    assert_int_equal(s.leave_diag, 32);
}

/* The positions of the Polish Draughts chapter of Hoyle's Games, and the examples of three kings
 * against one (docs/international-kings.md). */
static void test_literature(void **state)
{
    (void)state;
    TEST_NEED_TABLES(TB);
    char got[4096];
    dk_value x;
    /* the lone king on 46 against 13, 16, 27: 41, 37, 28 and 23 hold; 5, 10 and 14 lose to a
     * sacrifice of two kings; 32 and 19 stand en prise */
    moves_of("W:WK46:BK13,K16,K27", got, sizeof got, &x);
    print_message("W:WK46:BK13,K16,K27: %s\n", got);
    assert_true(dk_value_is_draw(x));
    assert_string_equal(got, "46-5 loss, 46-10 loss, 46-14 loss, 46-19 loss, 46-23 draw, 46-28 draw, "
                             "46-32 loss, 46-37 draw, 46-41 draw");
    static const example e[] = {
        /* the three kings hold the line: the first and second coups */
        {"W:WK46,K37,K27:BK11", 3, "27-22 win"},
        {"W:WK19,K27,K37:BK11", 5, "27-22 win"},
        /* the twentieth move: a sacrifice on 8, the lone king lands on 3, a second one on 14 */
        {"W:WK13,K25,K41:BK26", 5, "13-8 win"},
        {"B:WK8,K25,K41:BK26", 4, "26x3 loss"},
        {"W:WK25,K41:BK3", 3, "41-14 win"},
        /* the longest win against the fortress, by a sacrifice */
        {"W:WK1,K7,K35:BK28", 9, "35-44 win"},
        {"B:WK1,K7,K44:BK28", 8, "28x50 loss"},
        {"W:WK6,K22,K27:BK49", 15, "27-16 win"}, /* the longest win */
        {"W:WK3,K6,K7:BK1", 1, NULL},       /* 3-12 shuts the lone king in: */
        {"B:WK6,K7,K12:BK1", 0, NULL},
        {"W:WK1,K16,K28:BK8", DRAWN, NULL}, /* White holds the diagonal, and draws */
        {"W:WK2,6:BK50", 9, NULL},          /* the longest win of a king and a man */
    };
    check_examples(e, sizeof e / sizeof e[0]);
}

/* The longest win of the stronger side in material m, from both sides to move, in moves of
 * the stronger side (White in m). */
static unsigned longest_in_moves(dk_material m)
{
    unsigned longest = 0;
    for (int twin = 0; twin < 2; twin++) {
        dk_material t = twin ? (dk_material){m.bm, m.bk, m.wm, m.wk} : m;
        dk_index ix;
        assert_int_equal(dk_index_init(&ix, V, t), 0);
        for (uint64_t i = 0; i < ix.size; i++) {
            dk_pos p = dk_index_unrank(&ix, i);
            dk_value x = value(&p);
            /* the stronger side is White in m, Black (the side not to move) in its twin */
            bool stronger_wins = twin ? dk_value_is_loss(x) : dk_value_is_win(x);
            unsigned moves = (dk_value_dtw(x) + 1) / 2;
            if (stronger_wins && moves > longest)
                longest = moves;
        }
    }
    return longest;
}

/* The FMJD's short counts: 16 moves for three kings against a king, 5 for two pieces against
 * one. Every win of these endings ends within them. */
static void test_fmjd_counts(void **state)
{
    (void)state;
    TEST_NEED_TABLES(TB);
    unsigned three = longest_in_moves((dk_material){0, 3, 0, 1});
    unsigned kings = longest_in_moves((dk_material){0, 2, 0, 1});
    unsigned king_man = longest_in_moves((dk_material){1, 1, 0, 1});
    print_message("longest wins in moves of the winner: 0m3k-0m1k %u, 0m2k-0m1k %u, 1m1k-0m1k %u\n",
                  three, kings, king_man);
    assert_int_equal(three, 8);
    assert_int_equal(kings, 4);
    assert_int_equal(king_man, 5);
    assert_true(three <= 16 && kings <= 5 && king_man <= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry),
        cmocka_unit_test(test_three_kings_to_move),
        cmocka_unit_test(test_lone_king_against_three),
        cmocka_unit_test(test_literature),
        cmocka_unit_test(test_fmjd_counts),
        cmocka_unit_test(test_four_kings_to_move),
        cmocka_unit_test(test_lone_king_against_four),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
