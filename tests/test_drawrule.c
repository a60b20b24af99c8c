/* The draw rule tables (.dtc) against the rule itself (issue 8; docs/draw-rule.md).
 *
 * tests/drawrule.sh generates the table sets and names them in the environment:
 *   DK_RULE_DIRS  "variant:plies:pieces:dir ..." sets made with the variant's default rule and
 *                 with --draw-rule 3 (6 plies), both variants, up to `pieces` pieces;
 *   DK_HUGE_DIR   Brazilian up to 4 pieces with a limit above every DTW (--draw-rule 200).
 * Checks:
 *   - the recurrence: every stored position's rule value is what its moves give, computed here
 *     independently of query/drawrule.h (category from the children's, DTC 1 + min over winning
 *     moves / 1 + max over all moves, conversions counting 0, a king move's child read one ply
 *     later), and its game-theoretic kind is its DTW value's;
 *   - the definition: V_r, the value with r plies left, computed for every r = 0..L by value
 *     iteration straight from the rule (no DTC anywhere), gives the stored category and DTC
 *     (DTC = the smallest r with V_r decided) for every position of every material up to 3
 *     pieces, both variants (and the 4-piece Brazilian kings-only materials);
 *   - with a limit above every DTW the rule changes nothing: no cursed win or blessed loss;
 *   - a theory win or loss in n <= L plies is a rule win or loss with DTC <= n;
 *   - hand-made positions whose values are derived by hand below;
 *   - libdamka at counters 0, L - DTC (still decided) and L - DTC + 1 (a draw), and ranked moves.
 * DK_GEN_SCALE=small (the sanitizer build) checks every 13th position in the sweeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../index/perfect.h"
#include "../query/damka.h"
#include "../query/drawrule.h"
#include "../query/tablebase.h"
#include "../rules/movegen.h"
#include "../rules/notation.h"

typedef struct set {
    const dk_variant *v;
    unsigned limit;
    int pieces;
    char dir[1024];
} set;

static set SETS[8];
static int NSETS;
static const char *HUGE_DIR;
static bool SMALL;

static int setup(void **state)
{
    (void)state;
    const char *scale = getenv("DK_GEN_SCALE");
    SMALL = scale && strcmp(scale, "small") == 0;
    HUGE_DIR = getenv("DK_HUGE_DIR");
    const char *dirs = getenv("DK_RULE_DIRS");
    char buf[8192];
    snprintf(buf, sizeof buf, "%s", dirs ? dirs : "");
    char *save = NULL;
    for (char *t = strtok_r(buf, " ", &save); t && NSETS < 8; t = strtok_r(NULL, " ", &save)) {
        char var[32];
        unsigned plies;
        int pieces, at = 0;
        if (sscanf(t, "%31[^:]:%u:%d:%n", var, &plies, &pieces, &at) != 3 || !at)
            return -1;
        SETS[NSETS].v = dk_variant_find(var);
        SETS[NSETS].limit = plies;
        SETS[NSETS].pieces = pieces;
        snprintf(SETS[NSETS].dir, sizeof SETS[NSETS].dir, "%s", t + at);
        if (!SETS[NSETS].v)
            return -1;
        NSETS++;
    }
    return 0;
}

#define NEED_TABLES()                                                                              \
    do {                                                                                           \
        if (!NSETS || !HUGE_DIR) {                                                                 \
            print_message("DK_RULE_DIRS / DK_HUGE_DIR not set: skipped (tests/drawrule.sh)\n");   \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

static const char *fen_of(const dk_variant *v, const dk_pos *p)
{
    static _Thread_local char fen[DK_FEN_MAX];
    dk_fen_format(v, p, false, fen, sizeof fen);
    return fen;
}

static dk_tablebase *open_set(const set *s)
{
    dk_tablebase *tb = dk_tb_open(s->dir, s->v, NULL);
    assert_non_null(tb);
    assert_int_equal(dk_tb_rule_limit(tb), s->limit);
    return tb;
}

/* The stored values of p (either side to move): DTW and rule, with the counter at 0. */
static void stored(dk_tablebase *tb, const dk_pos *p, dk_value *dtw, dk_value *rule)
{
    if (dk_tb_probe(tb, p, DK_METRIC_DTW, dtw) != DK_OK ||
        dk_tb_probe(tb, p, DK_METRIC_DTC, rule) != DK_OK)
        fail_msg("no value for %s: %s", fen_of(dk_tb_variant(tb), p), dk_tb_last_error());
}

/* --- the recurrence, written out without query/drawrule.h's helpers --- */

/* A rule value taken apart: kind +1 win, -1 loss, 0 neither; theory +1/-1/0 the
 * game-theoretic result; dtc for kind != 0. */
typedef struct split {
    int kind, theory;
    unsigned dtc;
} split;

static split split_of(dk_value r)
{
    split s = {0, 0, 0};
    if (r >= 4) {
        s.kind = s.theory = (r & 1) ? 1 : -1;
        s.dtc = (unsigned)(r - 4) / 2;
    } else {
        s.theory = r == 1 ? 1 : r == 2 ? -1 : 0;
    }
    return s;
}

/* What p's rule value must be, from its moves' children as stored (limit L). */
static split expected(dk_tablebase *tb, const dk_pos *p, unsigned L)
{
    const dk_variant *v = dk_tb_variant(tb);
    dk_movelist list;
    dk_gen_moves(v, p, &list);
    split e = {-1, -1, 0};
    if (list.n == 0)
        return e; /* no legal move: lost, DTC 0 */
    bool win = false, all_lose = true, theory_win = false, theory_all_lose = true;
    unsigned best_win = ~0u, worst_loss = 0;
    for (int i = 0; i < list.n; i++) {
        const dk_move *m = &list.m[i];
        dk_pos after = dk_apply(p, m);
        dk_value dtw, r;
        stored(tb, &after, &dtw, &r);
        split c = split_of(r);
        bool conversion = m->captures || !(p->kings & dk_bit(m->from));
        /* the child's kind as the opponent sees it after this move: a conversion resets the
         * counter (the stored value holds); a king move leaves one ply less */
        int kind = c.kind != 0 && (conversion || c.dtc <= L - 1) ? c.kind : 0;
        unsigned d = conversion ? 1 : c.dtc + 1;
        if (kind < 0) { /* the opponent loses: this move wins */
            win = true;
            best_win = d < best_win ? d : best_win;
        }
        if (kind <= 0)
            all_lose = false;
        else
            worst_loss = d > worst_loss ? d : worst_loss;
        theory_win |= c.theory < 0;
        theory_all_lose &= c.theory > 0;
    }
    if (win)
        return (split){1, 1, best_win};
    if (all_lose)
        return (split){-1, -1, worst_loss};
    return (split){0, theory_win ? 1 : theory_all_lose ? -1 : 0, 0};
}

static void check_recurrence(const set *s)
{
    dk_tablebase *tb = open_set(s);
    dk_material ms[512];
    size_t n = dk_material_list(s->v, s->pieces, 0, ms, 512);
    uint64_t checked = 0, cursed = 0, blessed = 0;
    for (size_t k = 0; k < n; k++) {
        dk_index ix;
        assert_int_equal(dk_index_init(&ix, s->v, ms[k]), 0);
        /* every position, but for the 42 M of 4 pieces on 10x10 (every 7th) and the
         * sanitizer build (every 13th) */
        uint64_t step = SMALL ? 13 : s->v->id == DK_INTERNATIONAL && dk_material_pieces(ms[k]) == 4 ? 7 : 1;
        for (uint64_t i = k % step; i < ix.size; i += step) {
            dk_pos p = dk_index_unrank(&ix, i);
            dk_value dtw, r;
            stored(tb, &p, &dtw, &r);
            split got = split_of(r), want = expected(tb, &p, s->limit);
            int theory = dk_value_is_draw(dtw) ? 0 : dk_value_is_win(dtw) ? 1 : -1;
            if (got.kind != want.kind || got.theory != want.theory || got.dtc != want.dtc ||
                got.theory != theory || got.dtc > s->limit)
                fail_msg("%s %u plies, %s: stored kind %d theory %d dtc %u, the moves give %d %d %u "
                         "(DTW theory %d)", s->v->name, s->limit, fen_of(s->v, &p), got.kind,
                         got.theory, got.dtc, want.kind, want.theory, want.dtc, theory);
            cursed += r == DK_RULE_CURSED_WIN;
            blessed += r == DK_RULE_BLESSED_LOSS;
            checked++;
        }
    }
    print_message("%s, limit %u plies: %llu positions follow the recurrence (%llu cursed wins, "
                  "%llu blessed losses)\n", s->v->name, s->limit, (unsigned long long)checked,
                  (unsigned long long)cursed, (unsigned long long)blessed);
    if (s->limit == 6)
        assert_true(cursed > 0 && blessed > 0); /* a short rule curses wins */
    dk_tb_close(tb);
}

static void test_recurrence(void **state)
{
    (void)state;
    NEED_TABLES();
    for (int k = 0; k < NSETS; k++)
        check_recurrence(&SETS[k]);
}

/* --- the definition: V_r by value iteration --- */

enum { LOSS = -1, DRAW = 0, WIN = 1 };

/* One material pair's positions (White to move in m, then in its twin) with, per position,
 * the best result its conversions reach (under the rule, counter 0: from the tables) and its
 * king moves as indexes of the positions they reach. */
typedef struct graph {
    uint64_t n, size0;
    int8_t *conv;       /* WIN if a conversion wins, else DRAW if one does not lose, else LOSS;
                         * 2: no conversion */
    uint8_t *nmoves;    /* legal moves */
    uint64_t *first;    /* king moves of position i: to[first[i] .. first[i+1]) */
    uint32_t *to;
} graph;

static uint64_t pair_index(const dk_index ix[2], const dk_pos *p)
{
    dk_material m = dk_material_of(p);
    return dk_material_equal(m, ix[0].m) ? dk_index_rank(&ix[0], p)
                                          : ix[0].size + dk_index_rank(&ix[1], p);
}

static void build_graph(dk_tablebase *tb, const dk_index ix[2], int nmat, graph *g)
{
    const dk_variant *v = dk_tb_variant(tb);
    g->size0 = ix[0].size;
    g->n = ix[0].size + (nmat > 1 ? ix[1].size : 0);
    g->conv = malloc(g->n);
    g->nmoves = malloc(g->n);
    g->first = malloc((g->n + 1) * sizeof *g->first);
    size_t cap = 1 << 16, used = 0;
    g->to = malloc(cap * sizeof *g->to);
    assert_true(g->conv && g->nmoves && g->first && g->to);
    for (uint64_t i = 0; i < g->n; i++) {
        const dk_index *x = i < g->size0 ? &ix[0] : &ix[1];
        dk_pos p = dk_index_unrank(x, i < g->size0 ? i : i - g->size0);
        dk_movelist list;
        dk_gen_moves(v, &p, &list);
        g->nmoves[i] = (uint8_t)list.n;
        g->first[i] = used;
        int conv = 2;
        for (int k = 0; k < list.n; k++) {
            const dk_move *m = &list.m[k];
            dk_pos after = dk_apply(&p, m);
            if (!m->captures && (p.kings & dk_bit(m->from))) {
                dk_pos f = dk_pos_flip(v, &after);
                if (used == cap)
                    assert_non_null(g->to = realloc(g->to, (cap *= 2) * sizeof *g->to));
                g->to[used++] = (uint32_t)pair_index(ix, &f);
                continue;
            }
            dk_value dtw, r;
            stored(tb, &after, &dtw, &r);
            int child = dk_rule_is_win(r) ? WIN : dk_rule_is_loss(r) ? LOSS : DRAW; /* counter 0 */
            int mine = -child;
            conv = conv == 2 || mine > conv ? mine : conv;
        }
        g->conv[i] = (int8_t)conv;
    }
    g->first[g->n] = used;
}

static void free_graph(graph *g)
{
    free(g->conv);
    free(g->nmoves);
    free(g->first);
    free(g->to);
}

/* Checks one material pair against V_0 .. V_L. */
static void check_definition_pair(dk_tablebase *tb, dk_material m, unsigned L, uint64_t *count)
{
    const dk_variant *v = dk_tb_variant(tb);
    dk_index ix[2];
    dk_material twin = dk_material_twin(m);
    int nmat = dk_material_equal(m, twin) ? 1 : 2;
    assert_int_equal(dk_index_init(&ix[0], v, m), 0);
    assert_int_equal(dk_index_init(&ix[1], v, twin), 0);
    graph g;
    build_graph(tb, ix, nmat, &g);
    int8_t *prev = malloc(g.n), *cur = malloc(g.n);
    unsigned *first_decided = malloc(g.n * sizeof *first_decided);
    assert_true(prev && cur && first_decided);
    for (uint64_t i = 0; i < g.n; i++) { /* V_0: lost without a legal move, else drawn */
        prev[i] = g.nmoves[i] == 0 ? LOSS : DRAW;
        first_decided[i] = g.nmoves[i] == 0 ? 0 : ~0u;
    }
    for (unsigned r = 1; r <= L; r++) {
        for (uint64_t i = 0; i < g.n; i++) {
            if (g.nmoves[i] == 0) {
                cur[i] = LOSS;
                continue;
            }
            int best = g.conv[i] == 2 ? LOSS - 1 : g.conv[i];
            for (uint64_t k = g.first[i]; k < g.first[i + 1]; k++) {
                uint64_t j = g.to[k];
                if (nmat == 1 && j >= g.size0)
                    j -= g.size0; /* cannot happen: a self-twin pair has one material */
                int mine = -prev[j];
                best = mine > best ? mine : best;
            }
            cur[i] = (int8_t)best;
            if (best != DRAW && first_decided[i] == ~0u)
                first_decided[i] = r;
            if (prev[i] != DRAW && cur[i] != prev[i])
                fail_msg("V_%u not monotone at position %llu", r, (unsigned long long)i);
        }
        int8_t *t = prev;
        prev = cur;
        cur = t;
    }
    for (uint64_t i = 0; i < g.n; i++) {
        const dk_index *x = i < g.size0 ? &ix[0] : &ix[1];
        dk_pos p = dk_index_unrank(x, i < g.size0 ? i : i - g.size0);
        dk_value dtw, r;
        stored(tb, &p, &dtw, &r);
        int kind = dk_rule_is_win(r) ? WIN : dk_rule_is_loss(r) ? LOSS : DRAW;
        if (kind != prev[i] || (kind != DRAW && dk_rule_dtc(r) != first_decided[i]))
            fail_msg("%s, limit %u: %s stored %u, V_L %d first decided at r = %u", v->name, L,
                     fen_of(v, &p), r, prev[i], first_decided[i]);
        (*count)++;
    }
    free(prev);
    free(cur);
    free(first_decided);
    free_graph(&g);
}

static void test_definition(void **state)
{
    (void)state;
    NEED_TABLES();
    for (int k = 0; k < NSETS; k++) {
        dk_tablebase *tb = open_set(&SETS[k]);
        dk_material ms[512];
        size_t n = dk_material_list(SETS[k].v, SETS[k].pieces, 0, ms, 512);
        uint64_t count = 0;
        for (size_t i = 0; i < n; i++) {
            dk_material twin = dk_material_twin(ms[i]);
            bool canonical = dk_material_cmp(ms[i], twin) <= 0;
            int pieces = dk_material_pieces(ms[i]);
            bool kings_only_br4 = !SMALL && SETS[k].v->id == DK_BRAZILIAN && pieces == 4 &&
                                  ms[i].wm == 0 && ms[i].bm == 0;
            if (canonical && (pieces <= 3 || kings_only_br4))
                check_definition_pair(tb, ms[i], SETS[k].limit, &count);
        }
        print_message("%s, limit %u plies: %llu positions (both sides to move) equal V_L of the "
                      "definition, DTC the first r deciding V_r\n", SETS[k].v->name, SETS[k].limit,
                      (unsigned long long)count);
        dk_tb_close(tb);
    }
}

/* --- limits --- */

static void test_large_limit(void **state)
{
    (void)state;
    NEED_TABLES();
    set huge = {dk_variant_get(DK_BRAZILIAN), 400, 4, ""};
    snprintf(huge.dir, sizeof huge.dir, "%s", HUGE_DIR);
    dk_tablebase *tb = open_set(&huge);
    dk_material ms[64];
    size_t n = dk_material_list(huge.v, 4, 0, ms, 64);
    uint64_t checked = 0, step = SMALL ? 7 : 1;
    for (size_t k = 0; k < n; k++) {
        dk_index ix;
        assert_int_equal(dk_index_init(&ix, huge.v, ms[k]), 0);
        for (uint64_t i = k % step; i < ix.size; i += step) {
            dk_pos p = dk_index_unrank(&ix, i);
            dk_value dtw, r;
            stored(tb, &p, &dtw, &r);
            assert_true(dk_value_dtw(dtw) < 400 || dk_value_is_draw(dtw));
            /* no cursed win, no blessed loss: the category is the WLD value, DTC <= DTW */
            bool ok = dk_value_is_draw(dtw) ? r == DK_RULE_DRAW
                      : dk_value_is_win(dtw) ? dk_rule_is_win(r) && dk_rule_dtc(r) <= dk_value_dtw(dtw)
                                             : dk_rule_is_loss(r) && dk_rule_dtc(r) <= dk_value_dtw(dtw);
            if (!ok)
                fail_msg("limit 400: %s DTW value %u, rule value %u", fen_of(huge.v, &p), dtw, r);
            checked++;
        }
    }
    print_message("limit 400 plies: %llu positions, the rule category is the WLD value everywhere\n",
                  (unsigned long long)checked);
    dk_tb_close(tb);
}

/* A theory win (loss) in n <= L plies is a rule win (loss) with DTC <= n. */
static void test_short_wins_survive(void **state)
{
    (void)state;
    NEED_TABLES();
    for (int k = 0; k < NSETS; k++) {
        dk_tablebase *tb = open_set(&SETS[k]);
        dk_material ms[512];
        size_t n = dk_material_list(SETS[k].v, SETS[k].pieces, 0, ms, 512);
        uint64_t short_ones = 0, step = SMALL ? 11 : 3;
        for (size_t m = 0; m < n; m++) {
            dk_index ix;
            assert_int_equal(dk_index_init(&ix, SETS[k].v, ms[m]), 0);
            for (uint64_t i = m % step; i < ix.size; i += step) {
                dk_pos p = dk_index_unrank(&ix, i);
                dk_value dtw, r;
                stored(tb, &p, &dtw, &r);
                if (dk_value_is_draw(dtw) || dk_value_dtw(dtw) > SETS[k].limit)
                    continue;
                bool same_kind = dk_value_is_win(dtw) ? dk_rule_is_win(r) : dk_rule_is_loss(r);
                if (!same_kind || dk_rule_dtc(r) > dk_value_dtw(dtw))
                    fail_msg("%s: DTW %u plies, rule value %u", fen_of(SETS[k].v, &p),
                             dk_value_dtw(dtw), r);
                short_ones++;
            }
        }
        assert_true(short_ones > 0);
        dk_tb_close(tb);
    }
}

/* --- hand-made positions --- */

static const set *find_set(dk_variant_id id, unsigned limit)
{
    for (int k = 0; k < NSETS; k++)
        if (SETS[k].v->id == id && SETS[k].limit == limit)
            return &SETS[k];
    fail_msg("no table set of variant %d with limit %u", (int)id, limit);
    return NULL;
}

static void expect_rule(damka_tb *tb, const char *fen, int counter, damka_category cat, int dtc)
{
    damka_position p;
    damka_rule_value r;
    assert_int_equal(damka_position_from_fen(tb, fen, &p), DAMKA_OK);
    damka_status st = damka_probe_rule(tb, &p, counter, &r);
    if (st != DAMKA_OK || r.category != cat || r.dtc != dtc || r.counter != counter)
        fail_msg("%s at counter %d: status %s, category %d dtc %d; expected %d %d", fen, counter,
                 damka_status_text(st), r.category, r.dtc, cat, dtc);
}

static void test_hand_made(void **state)
{
    (void)state;
    NEED_TABLES();
    const set *br = find_set(DK_BRAZILIAN, 30), *br3 = find_set(DK_BRAZILIAN, 6);
    damka_status st;
    damka_tb *tb = damka_open(br->dir, "brazilian", 16, &st), *tb3 = damka_open(br3->dir, "brazilian", 16, &st);
    assert_non_null(tb);
    assert_non_null(tb3);
    assert_int_equal(damka_draw_rule(tb), 30);
    assert_int_equal(damka_draw_rule(tb3), 6);

    /* Squares on 8x8: 1 = b8 ... 4 = h8, 18 = d4, 22 = c3, 25 = b2, 29 = a1, 5 = a7.
     *
     * W:WK29:B22 -- White king a1, Black man c3, b2 empty: the king must take c3 (landing on
     * d4..h8), a capture, so a conversion, after which Black has no piece: a win in 1 ply,
     * 1 ply to conversion, at every counter below 30. With the counter at 30 the game was
     * drawn before the capture: a cursed win. */
    expect_rule(tb, "W:WK29:B22", 0, DAMKA_RULE_WIN, 1);
    expect_rule(tb, "W:WK29:B22", 29, DAMKA_RULE_WIN, 1);
    expect_rule(tb, "W:WK29:B22", 30, DAMKA_RULE_CURSED_WIN, -1);

    /* W:W5:B1 -- White man a7, Black man b8: the man's only step (b8) is taken and there is
     * nothing to capture: no legal move, lost in 0 plies, DTC 0, at every counter (the end of
     * the game comes before the rule). */
    expect_rule(tb, "W:W5:B1", 0, DAMKA_RULE_LOSS, 0);
    expect_rule(tb, "W:W5:B1", 30, DAMKA_RULE_LOSS, 0);
    expect_rule(tb3, "W:W5:B1", 6, DAMKA_RULE_LOSS, 0);

    /* W:WK25,K29:BK4 -- White kings b2 and a1, Black king h8, all on the long diagonal. White
     * plays b2-d4 (a quiet king move, ply 1); Black's king must take d4 (ply 2, a capture:
     * the conversion), landing on c3 or b2 (a1 is taken); then White's a1 king takes it and
     * Black has nothing: DTW 3. Black's capture leads to a position lost at counter 0, so
     * B:WK18,K29:BK4 (after b2-d4) is lost with DTC 1 and White's position won with DTC 2.
     * No move converts sooner: White has no capture and no man. With the counter at 28 the
     * two plies still fit; at 29 the king move reaches 30, where Black (who has a move) draws:
     * a cursed win. Black's side of it is lost at 29 and blessed at 30. The 3-move rule (6
     * plies) leaves room for both. */
    expect_rule(tb, "W:WK25,K29:BK4", 0, DAMKA_RULE_WIN, 2);
    expect_rule(tb, "W:WK25,K29:BK4", 28, DAMKA_RULE_WIN, 2);
    expect_rule(tb, "W:WK25,K29:BK4", 29, DAMKA_RULE_CURSED_WIN, -1);
    expect_rule(tb, "B:WK18,K29:BK4", 29, DAMKA_RULE_LOSS, 1);
    expect_rule(tb, "B:WK18,K29:BK4", 30, DAMKA_RULE_BLESSED_LOSS, -1);
    expect_rule(tb3, "W:WK25,K29:BK4", 0, DAMKA_RULE_WIN, 2);
    expect_rule(tb3, "W:WK25,K29:BK4", 5, DAMKA_RULE_CURSED_WIN, -1);
    damka_position p;
    damka_value dtw;
    assert_int_equal(damka_position_from_fen(tb, "W:WK25,K29:BK4", &p), DAMKA_OK);
    assert_int_equal(damka_probe_dtw(tb, &p, &dtw), DAMKA_OK);
    assert_int_equal(dtw.dtw, 3);

    /* W:WK1,K2,K3:BK29 -- three kings against one that holds the long diagonal (a1): a
     * game-theoretic draw (docs/three-kings.md), and the rule only turns wins and losses into
     * draws: a draw, at every limit. */
    expect_rule(tb, "W:WK1,K2,K3:BK29", 0, DAMKA_RULE_DRAW, -1);
    expect_rule(tb3, "W:WK1,K2,K3:BK29", 0, DAMKA_RULE_DRAW, -1);
    damka_close(tb);
    damka_close(tb3);
}

/* --- libdamka at counters --- */

static void test_counters(void **state)
{
    (void)state;
    NEED_TABLES();
    for (int k = 0; k < NSETS; k++) {
        const set *s = &SETS[k];
        damka_status st;
        damka_tb *tb = damka_open(s->dir, s->v->name, 16, &st);
        dk_tablebase *itb = open_set(s);
        assert_non_null(tb);
        dk_material ms[512];
        size_t n = dk_material_list(s->v, s->pieces, 0, ms, 512);
        uint64_t decided = 0, step = SMALL ? 997 : 97;
        for (size_t m = 0; m < n; m++) {
            dk_index ix;
            assert_int_equal(dk_index_init(&ix, s->v, ms[m]), 0);
            for (uint64_t i = m % step; i < ix.size; i += step) {
                dk_pos p = dk_index_unrank(&ix, i);
                if (i % 2)
                    p = dk_pos_flip(s->v, &p);
                dk_value dtw, r;
                stored(itb, &p, &dtw, &r);
                damka_position q = {p.pieces[DK_WHITE], p.pieces[DK_BLACK], p.kings, p.side == DK_BLACK};
                damka_rule_value got;
                assert_int_equal(damka_probe_rule(tb, &q, 0, &got), DAMKA_OK);
                assert_int_equal(got.limit, (int)s->limit);
                assert_int_equal(got.dtc, dk_rule_is_decided(r) ? (int)dk_rule_dtc(r) : -1);
                int c = (int)s->limit;
                if (dk_rule_is_decided(r)) {
                    decided++;
                    int dtc = (int)dk_rule_dtc(r);
                    damka_category cat = dk_rule_is_win(r) ? DAMKA_RULE_WIN : DAMKA_RULE_LOSS;
                    assert_int_equal(got.category, cat);
                    assert_int_equal(damka_probe_rule(tb, &q, c - dtc, &got), DAMKA_OK);
                    assert_int_equal(got.category, cat);
                    assert_int_equal(got.dtc, dtc);
                    if (dtc > 0) { /* one ply less than it needs: the rule draws it */
                        assert_int_equal(damka_probe_rule(tb, &q, c - dtc + 1, &got), DAMKA_OK);
                        assert_int_equal(got.category, cat == DAMKA_RULE_WIN ? DAMKA_RULE_CURSED_WIN
                                                                           : DAMKA_RULE_BLESSED_LOSS);
                        assert_int_equal(got.dtc, -1);
                    }
                }
                /* ranked moves at a few counters: the first carries the position's own value,
                 * the order is by category */
                for (int counter = 0; counter < c; counter += c / 3 + 1) {
                    damka_rule_move mv[DAMKA_MAX_MOVES];
                    damka_rule_value own;
                    int count;
                    assert_int_equal(damka_rank_moves_rule(tb, &q, counter, mv, DAMKA_MAX_MOVES, &count),
                                     DAMKA_OK);
                    assert_int_equal(damka_probe_rule(tb, &q, counter, &own), DAMKA_OK);
                    if (count == 0)
                        continue;
                    /* the first move has the position's category; among the moves of that
                     * category the fastest win (slowest loss) converts in the position's DTC */
                    int best_dtc = mv[0].rule.dtc;
                    for (int j = 1; j < count; j++) {
                        assert_true(mv[j].rule.category <= mv[j - 1].rule.category);
                        if (mv[j].rule.category == mv[0].rule.category && mv[j].rule.dtc >= 0)
                            best_dtc = own.category == DAMKA_RULE_WIN
                                           ? (mv[j].rule.dtc < best_dtc ? mv[j].rule.dtc : best_dtc)
                                           : (mv[j].rule.dtc > best_dtc ? mv[j].rule.dtc : best_dtc);
                    }
                    if (mv[0].rule.category != own.category || best_dtc != own.dtc)
                        fail_msg("%s counter %d: first move %s has %d, the best DTC of its kind %d, "
                                 "the position %d/%d", fen_of(s->v, &p), counter, mv[0].move.notation,
                                 mv[0].rule.category, best_dtc, own.category, own.dtc);
                }
            }
        }
        assert_true(decided > 0);
        damka_position q;
        damka_rule_value r;
        assert_int_equal(damka_position_from_fen(tb, s->v->id == DK_BRAZILIAN ? "W:WK29:B22" : "W:WK46:B41", &q),
                         DAMKA_OK);
        assert_int_equal(damka_probe_rule(tb, &q, -1, &r), DAMKA_BAD_ARGUMENT);
        assert_int_equal(damka_probe_rule(tb, &q, (int)s->limit + 1, &r), DAMKA_BAD_ARGUMENT);
        int count;
        assert_int_equal(damka_rank_moves_rule(tb, &q, (int)s->limit, NULL, 0, &count), DAMKA_BAD_ARGUMENT);
        assert_int_equal(damka_probe_rule(NULL, &q, 0, &r), DAMKA_BAD_ARGUMENT);
        dk_tb_close(itb);
        damka_close(tb);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recurrence),    cmocka_unit_test(test_definition),
        cmocka_unit_test(test_large_limit),   cmocka_unit_test(test_short_wins_survive),
        cmocka_unit_test(test_hand_made),     cmocka_unit_test(test_counters),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
