/* The value of a position from its moves' values (query/best.h), over hand-built move lists:
 * wins, losses and draws mixed, ties in DTW, the draw rule's limit reached by a quiet move,
 * cursed wins and blessed losses; and over random lists against an oracle written here from
 * the definitions (docs/draw-rule.md), not from query/drawrule.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../query/best.h"
#include "../rules/movegen.h"
#include "../rules/notation.h"
#include "support.h"

enum { LIMIT = 30 }; /* Brazilian: 15 moves a player */

/* One move of a hand-built list: its child's stored values and whether it converts. */
typedef struct move {
    dk_value child[2];
    bool conversion;
} move;

/* The best of the n moves, with the counter at c before them. */
static dk_best best_of(const move *m, int n, unsigned c, unsigned limit)
{
    dk_best b;
    dk_best_start(&b);
    for (int i = 0; i < n; i++)
        dk_best_add(&b, m[i].child, m[i].conversion, c, limit);
    return b;
}

/* A child's values, the opponent to move: DTW value and rule value. */
#define LOSES_IN(n) dk_value_of_dtw(n) /* n even */
#define WINS_IN(n) dk_value_of_dtw(n)  /* n odd */

static void test_no_move(void **state)
{
    (void)state;
    dk_best b = best_of(NULL, 0, 0, LIMIT);
    assert_int_equal(b.value[0], dk_value_of_dtw(0));
    assert_int_equal(b.value[1], dk_rule_loss(0));
    assert_int_equal(b.rank[0], INT32_MIN);
}

static void test_dtw(void **state)
{
    (void)state;
    /* the fastest win, whatever else there is */
    move wins[] = {{{WINS_IN(1), 0}, true}, {{LOSES_IN(4), 0}, true}, {{DK_DRAW, 0}, true},
                   {{LOSES_IN(2), 0}, false}, {{LOSES_IN(6), 0}, false}};
    assert_int_equal(best_of(wins, 5, 0, 0).value[0], dk_value_of_dtw(3));
    /* no win: a draw beats every loss */
    move draws[] = {{{WINS_IN(1), 0}, true}, {{DK_DRAW, 0}, false}, {{WINS_IN(9), 0}, true}};
    assert_int_equal(best_of(draws, 3, 0, 0).value[0], DK_DRAW);
    /* only losses: the slowest */
    move losses[] = {{{WINS_IN(3), 0}, true}, {{WINS_IN(11), 0}, false}, {{WINS_IN(1), 0}, true}};
    assert_int_equal(best_of(losses, 3, 0, 0).value[0], dk_value_of_dtw(12));
    /* a child without a move (lost in 0): a win in 1 */
    move mate[] = {{{DK_DRAW, 0}, false}, {{LOSES_IN(0), 0}, true}};
    assert_int_equal(best_of(mate, 2, 0, 0).value[0], dk_value_of_dtw(1));
    /* without a rule the rule value stays as started */
    assert_int_equal(best_of(mate, 2, 0, 0).value[1], dk_rule_loss(0));
}

static void test_rule(void **state)
{
    (void)state;
    /* a conversion into a lost child wins in 1, however long the child's DTC */
    move conv[] = {{{LOSES_IN(20), dk_rule_loss(25)}, true}};
    assert_int_equal(best_of(conv, 1, 29, LIMIT).value[1], dk_rule_win(1));
    /* a quiet king move reads the child one ply later and adds a ply */
    move quiet[] = {{{LOSES_IN(8), dk_rule_loss(5)}, false}};
    assert_int_equal(best_of(quiet, 1, 0, LIMIT).value[1], dk_rule_win(6));
    /* the limit: DTC 5 read at counter 25 (5 + 25 = 30) still wins; at counter 26 the child's
     * loss is blessed and the mover's win cursed */
    assert_int_equal(best_of(quiet, 1, 24, LIMIT).value[1], dk_rule_win(6));
    assert_int_equal(best_of(quiet, 1, 25, LIMIT).value[1], DK_RULE_CURSED_WIN);
    /* and a lost mover: the child's win of DTC 3 read at counter 27 + 1 is cursed */
    move lost[] = {{{WINS_IN(3), dk_rule_win(3)}, false}};
    assert_int_equal(best_of(lost, 1, 0, LIMIT).value[1], dk_rule_loss(4));
    assert_int_equal(best_of(lost, 1, 26, LIMIT).value[1], dk_rule_loss(4));
    assert_int_equal(best_of(lost, 1, 27, LIMIT).value[1], DK_RULE_BLESSED_LOSS);
    /* cursed and blessed children turn around; a draw stays */
    move undecided[] = {{{WINS_IN(41), DK_RULE_CURSED_WIN}, false}};
    assert_int_equal(best_of(undecided, 1, 0, LIMIT).value[1], DK_RULE_BLESSED_LOSS);
    undecided[0] = (move){{LOSES_IN(40), DK_RULE_BLESSED_LOSS}, true};
    assert_int_equal(best_of(undecided, 1, 0, LIMIT).value[1], DK_RULE_CURSED_WIN);
    undecided[0] = (move){{DK_DRAW, DK_RULE_DRAW}, false};
    assert_int_equal(best_of(undecided, 1, 0, LIMIT).value[1], DK_RULE_DRAW);
}

/* Mixed lists: the order win > cursed win > draw > blessed loss > loss, the shortest DTC of a
 * win and the longest of a loss. */
static void test_rule_mixes(void **state)
{
    (void)state;
    move wins[] = {{{LOSES_IN(10), dk_rule_loss(9)}, false},  /* win, DTC 10 */
                   {{LOSES_IN(30), dk_rule_loss(2)}, true},   /* win, DTC 1 */
                   {{WINS_IN(1), dk_rule_win(1)}, true}};     /* loss, DTC 1 */
    assert_int_equal(best_of(wins, 3, 0, LIMIT).value[1], dk_rule_win(1));
    move cursed[] = {{{DK_DRAW, DK_RULE_DRAW}, false},
                     {{LOSES_IN(40), DK_RULE_BLESSED_LOSS}, false},
                     {{WINS_IN(1), dk_rule_win(1)}, true}};
    assert_int_equal(best_of(cursed, 3, 0, LIMIT).value[1], DK_RULE_CURSED_WIN);
    move blessed[] = {{{WINS_IN(5), dk_rule_win(5)}, false},   /* loss, DTC 6 */
                      {{WINS_IN(41), DK_RULE_CURSED_WIN}, true}, /* blessed loss */
                      {{WINS_IN(1), dk_rule_win(1)}, true}};   /* loss, DTC 1 */
    assert_int_equal(best_of(blessed, 3, 0, LIMIT).value[1], DK_RULE_BLESSED_LOSS);
    move losses[] = {{{WINS_IN(5), dk_rule_win(5)}, false}, {{WINS_IN(1), dk_rule_win(1)}, true},
                     {{WINS_IN(3), dk_rule_win(3)}, false}};
    assert_int_equal(best_of(losses, 3, 0, LIMIT).value[1], dk_rule_loss(6));
    /* the counter turns the quiet win into a cursed one, still above a draw */
    move late[] = {{{LOSES_IN(12), dk_rule_loss(11)}, false}, {{DK_DRAW, DK_RULE_DRAW}, true}};
    assert_int_equal(best_of(late, 2, 0, LIMIT).value[1], dk_rule_win(12));
    assert_int_equal(best_of(late, 2, 18, LIMIT).value[1], dk_rule_win(12));
    assert_int_equal(best_of(late, 2, 19, LIMIT).value[1], DK_RULE_CURSED_WIN);
}

/* Ties in DTW keep the value; the rule's best may come from another move than DTW's. */
static void test_dtw_ties(void **state)
{
    (void)state;
    move tie[] = {{{LOSES_IN(4), dk_rule_loss(4)}, false},  /* win in 5, DTC 5 */
                  {{LOSES_IN(4), dk_rule_loss(1)}, true},   /* win in 5, DTC 1 */
                  {{LOSES_IN(4), dk_rule_loss(4)}, true}};  /* win in 5, DTC 1 */
    dk_best b = best_of(tie, 3, 0, LIMIT);
    assert_int_equal(b.value[0], dk_value_of_dtw(5));
    assert_int_equal(b.value[1], dk_rule_win(1));
    move apart[] = {{{LOSES_IN(2), dk_rule_loss(20)}, false}, /* win in 3, cursed at counter 10 */
                    {{LOSES_IN(8), dk_rule_loss(8)}, true}};  /* win in 9, DTC 1 */
    b = best_of(apart, 2, 10, LIMIT);
    assert_int_equal(b.value[0], dk_value_of_dtw(3));
    assert_int_equal(b.value[1], dk_rule_win(1));
}

/* One metric at a time gives what both give together; dk_move_values gives each move's. */
static void test_one_metric(void **state)
{
    (void)state;
    move m[] = {{{LOSES_IN(6), dk_rule_loss(3)}, false}, {{DK_DRAW, DK_RULE_DRAW}, true},
                {{LOSES_IN(2), DK_RULE_BLESSED_LOSS}, false}};
    dk_best both = best_of(m, 3, 4, LIMIT), dtw, rule;
    dk_best_start(&dtw);
    dk_best_start(&rule);
    for (int i = 0; i < 3; i++) {
        dk_best_add_dtw(&dtw, m[i].child[0]);
        dk_best_add_rule(&rule, m[i].child[1], m[i].conversion, 4, LIMIT);
        dk_value t[2];
        dk_move_values(m[i].child, m[i].conversion, 4, LIMIT, t);
        assert_int_equal(t[0], dk_value_through(m[i].child[0]));
        assert_int_equal(t[1], dk_rule_through(m[i].child[1], m[i].conversion, 4, LIMIT));
        dk_move_values(m[i].child, m[i].conversion, 4, 0, t);
        assert_int_equal(t[1], DK_RULE_DRAW);
    }
    assert_int_equal(dtw.value[0], both.value[0]);
    assert_int_equal(rule.value[1], both.value[1]);
    assert_int_equal(dtw.value[1], dk_rule_loss(0)); /* untouched */
    assert_int_equal(rule.value[0], dk_value_of_dtw(0));
}

static void test_conversions(void **state)
{
    (void)state;
    const dk_variant *v = dk_variant_get(DK_BRAZILIAN);
    dk_pos p;
    dk_movelist list;
    /* a man and a king, no capture: the man's moves convert, the king's do not */
    assert_int_equal(dk_fen_parse(v, "W:W21,K30:B4", &p, NULL, 0), 0);
    dk_gen_moves(v, &p, &list);
    assert_true(list.n > 0);
    for (int i = 0; i < list.n; i++)
        assert_int_equal(dk_move_converts(&p, &list.m[i]), list.m[i].from != 29);
    /* a king's capture converts */
    assert_int_equal(dk_fen_parse(v, "W:WK30:B26", &p, NULL, 0), 0);
    dk_gen_moves(v, &p, &list);
    assert_true(list.n > 0);
    for (int i = 0; i < list.n; i++)
        assert_true(list.m[i].captures && dk_move_converts(&p, &list.m[i]));
}

/* The oracle: a rule value as (category, DTC), from the definitions. */
typedef struct kind {
    int cat; /* 2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss */
    int dtc; /* decided only */
} kind;

static kind kind_of(dk_value r)
{
    if (r == 0)
        return (kind){0, 0};
    if (r == 1)
        return (kind){1, 0};
    if (r == 2)
        return (kind){-1, 0};
    int d = (r - 4) / 2;
    return (r - 4) % 2 ? (kind){2, d} : (kind){-2, d};
}

/* The mover's kind through a move to a child of stored kind k, read with `left` plies left
 * before the rule draws (the limit less the child's counter). */
static kind through(kind k, bool conversion, int c, int limit)
{
    int left = conversion ? limit : limit - (c + 1);
    if ((k.cat == 2 || k.cat == -2) && k.dtc > left)
        k.cat /= 2; /* no longer decided: cursed or blessed */
    kind t = {-k.cat, 0};
    if (t.cat == 2 || t.cat == -2)
        t.dtc = conversion ? 1 : k.dtc + 1;
    return t;
}

static bool better(kind a, kind b)
{
    if (a.cat != b.cat)
        return a.cat > b.cat;
    return a.cat == 2 ? a.dtc < b.dtc : a.cat == -2 ? a.dtc > b.dtc : false;
}

static dk_value random_rule(test_rng *r, unsigned limit)
{
    switch (test_rand_below(r, 5)) {
    case 0: return DK_RULE_DRAW;
    case 1: return DK_RULE_CURSED_WIN;
    case 2: return DK_RULE_BLESSED_LOSS;
    case 3: return dk_rule_win(1 + (unsigned)test_rand_below(r, limit));
    default: return dk_rule_loss((unsigned)test_rand_below(r, limit + 1));
    }
}

static void test_against_oracle(void **state)
{
    (void)state;
    test_rng r = {31};
    for (int round = 0; round < 20000; round++) {
        unsigned limit = 1 + (unsigned)test_rand_below(&r, 40), c = (unsigned)test_rand_below(&r, limit);
        int n = (int)test_rand_below(&r, 8);
        move m[8];
        kind want = {-2, 0};           /* no move: lost, DTC 0 */
        int fastest = -1, slowest = 0; /* DTW in plies of the best win, the slowest loss */
        bool draw = false;
        for (int i = 0; i < n; i++) {
            m[i].child[0] = (dk_value)test_rand_below(&r, 60);
            m[i].child[1] = random_rule(&r, limit);
            m[i].conversion = test_rand_below(&r, 2);
            kind t = through(kind_of(m[i].child[1]), m[i].conversion, (int)c, (int)limit);
            if (i == 0 || better(t, want))
                want = t;
            int plies = m[i].child[0] ? m[i].child[0] : -1; /* the mover's plies: the child's + 1 */
            if (plies < 0)
                draw = true;
            else if (plies % 2 == 1 && (fastest < 0 || plies < fastest))
                fastest = plies;
            else if (plies % 2 == 0 && plies > slowest)
                slowest = plies;
        }
        dk_best b = best_of(m, n, c, limit);
        dk_value dtw = fastest >= 0 ? dk_value_of_dtw((unsigned)fastest)
                       : draw       ? DK_DRAW
                                    : dk_value_of_dtw((unsigned)slowest);
        assert_int_equal(b.value[0], dtw);
        kind got = kind_of(b.value[1]);
        assert_int_equal(got.cat, want.cat);
        assert_int_equal(got.dtc, want.dtc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_move),
        cmocka_unit_test(test_dtw),
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_rule_mixes),
        cmocka_unit_test(test_dtw_ties),
        cmocka_unit_test(test_one_metric),
        cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_against_oracle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
