/* libdamka (query/damka.h) against the generator's own values.
 *
 * Needs Brazilian tables up to 4 pieces made with `damka gen --pieces 4 --out DIR --keep-work`
 * in the directory DK_TABLES, so that the raw files in DIR/work hold gen's uncompressed true values
 * (tests/probe.sh makes them and runs this test); without DK_TABLES it is skipped.
 *   - every position of every table, both sides to move, probed WLD, DTW and under the draw rule
 *     (counter 0), equals the raw value;
 *   - ranked moves: the best carries the position's value, order, count, damka_apply_move;
 *   - 4 threads with a 1 MB cache (evictions all the time) answer as one thread does;
 *   - engine probes: NO_CAPTURES (MUST_CAPTURE where the side to move must capture) and
 *     CACHE_ONLY (NOT_CACHED before a block is read, the value after, never a block read as
 *     damka_cache_counters counts them);
 *   - errors: materials not generated, bad positions and FENs, NULL arguments, a missing
 *     directory, bytes flipped at random offsets (DAMAGED or a right value, never a wrong one,
 *     and the full check always fails), truncated files (DAMAGED), deleted files (NOT_IN_TABLES).
 * Built with AddressSanitizer (make test-sanitize) it checks every 13th position and fewer flips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../index/perfect.h"
#include "../query/ctable.h"
#include "../query/damka.h"
#include "../query/drawrule.h"
#include "../gen/store/valuefile.h"
#include "../query/tablebase.h"
#include "../rules/movegen.h"
#include "../rules/notation.h"
#include "support.h"

static const dk_variant *V;
static const char *DIR_;
static bool SMALL;
static damka_tb *TB;

static damka_position pub(const dk_pos *p)
{
    damka_position q = {p->pieces[DK_WHITE], p->pieces[DK_BLACK], p->kings, p->side == DK_BLACK};
    return q;
}

static const char *fen_of(const dk_pos *p)
{
    static _Thread_local char fen[DK_FEN_MAX];
    dk_fen_format(V, p, false, fen, sizeof fen);
    return fen;
}

/* The value a raw value stands for, in a metric (1 WLD, 2 DTW; 3 the rule value at counter 0,
 * as {category, dtc} in the fields of a damka_value). */
static damka_value expected(dk_value v, int metric)
{
    damka_value r;
    if (metric == 3) {
        r.wdl = (damka_wdl)dk_rule_category(v);
        r.dtw = dk_rule_is_decided(v) ? (int)dk_rule_dtc(v) : -1;
        return r;
    }
    r.wdl = dk_value_is_draw(v) ? DAMKA_DRAW : dk_value_is_win(v) ? DAMKA_WIN : DAMKA_LOSS;
    r.dtw = r.wdl == DAMKA_DRAW || metric == 1 ? -1 : (int)dk_value_dtw(v);
    return r;
}

static bool same(damka_value a, damka_value b) { return a.wdl == b.wdl && a.dtw == b.dtw; }

static damka_status probe(damka_tb *tb, const dk_pos *p, int metric, damka_value *out)
{
    damka_position q = pub(p);
    if (metric == 3) {
        damka_rule_value r;
        damka_status st = damka_probe_rule(tb, &q, 0, &r);
        out->wdl = (damka_wdl)r.category;
        out->dtw = r.dtc;
        return st;
    }
    return metric == 1 ? damka_probe_wdl(tb, &q, out) : damka_probe_dtw(tb, &q, out);
}

static size_t materials(dk_material *ms, size_t cap) { return dk_material_list(V, 4, 0, ms, cap); }

static dk_vfile *open_raw(dk_material m)
{
    char path[4096], name[DK_MATERIAL_NAME_MAX], err[512];
    dk_material_name(m, name, sizeof name);
    snprintf(path, sizeof path, "%s/work/brazilian-%s.raw", DIR_, name);
    dk_vfile *t = dk_vfile_open(path, true, NULL, err, sizeof err);
    if (!t)
        fail_msg("%s (make the tables with --keep-work)", err);
    return t;
}

/* Value i of a raw file (position i / stride, value i % stride). */
static dk_value raw_value(dk_vfile *raw, uint64_t i)
{
    char err[512];
    dk_value v;
    if (dk_vfile_read(raw, i, 1, &v, err, sizeof err) != 0)
        fail_msg("%s", err);
    return v;
}

static int setup(void **state)
{
    (void)state;
    V = dk_variant_get(DK_BRAZILIAN);
    DIR_ = getenv("DK_TABLES");
#ifdef __SANITIZE_ADDRESS__
    SMALL = true;
#endif
    if (!DIR_ || !*DIR_)
        return 0;
    damka_status st;
    TB = damka_open(DIR_, "brazilian", 64, &st);
    return TB ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    damka_close(TB);
    return 0;
}

#define NEED_TABLES()                                                                              \
    do {                                                                                           \
        if (!TB) {                                                                                 \
            print_message("DK_TABLES is not set: skipped (tests/probe.sh sets it)\n");           \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* ---------------------------------------------------------------------------------------- */

static void test_every_position(void **state)
{
    (void)state;
    NEED_TABLES();
    assert_int_equal(damka_max_pieces(TB), 4);
    dk_material ms[64];
    size_t n = materials(ms, 64);
    assert_int_equal(n, 41);
    uint64_t checked = 0, stride = SMALL ? 13 : 1, wins = 0, losses = 0, draws = 0;
    for (size_t k = 0; k < n; k++) {
        dk_vfile *raw = open_raw(ms[k]);
        dk_index ix;
        assert_int_equal(dk_index_init(&ix, V, ms[k]), 0);
        assert_int_equal(dk_vfile_get_info(raw)->count, ix.size);
        for (uint64_t i = k % stride; i < ix.size; i += stride) {
            dk_pos p = dk_index_unrank(&ix, i);
            dk_pos both[2] = {p, dk_pos_flip(V, &p)}; /* White to move, and the same as Black */
            const dk_vfile_info *in = dk_vfile_get_info(raw);
            assert_int_equal(in->stride, 2); /* made with the default draw rule */
            dk_value v = raw_value(raw, i * in->stride), r = raw_value(raw, i * in->stride + 1);
            for (int side = 0; side < 2; side++) {
                damka_position q = pub(&both[side]);
                damka_rule_value rv;
                damka_status rst = damka_probe_rule(TB, &q, 0, &rv);
                int cat = dk_rule_category(r);
                if (rst != DAMKA_OK || (int)rv.category != cat ||
                    rv.dtc != (dk_rule_is_decided(r) ? (int)dk_rule_dtc(r) : -1))
                    fail_msg("rule %s: status '%s' (%s), category %d dtc %d, raw value %u",
                             fen_of(&both[side]), damka_status_text(rst), damka_last_error(),
                             rv.category, rv.dtc, r);
                for (int metric = 1; metric <= 2; metric++) {
                    damka_value got = {99, 99}, want = expected(v, metric);
                    damka_status st = probe(TB, &both[side], metric, &got);
                    if (st != DAMKA_OK || !same(got, want))
                        fail_msg("%s %s: status '%s' (%s), value %d/%d, expected %d/%d",
                                 metric == 1 ? "WLD" : "DTW", fen_of(&both[side]),
                                 damka_status_text(st), damka_last_error(), got.wdl, got.dtw,
                                 want.wdl, want.dtw);
                }
            }
            checked++;
            wins += dk_value_is_win(v);
            losses += dk_value_is_loss(v);
            draws += dk_value_is_draw(v);
        }
        dk_vfile_close(raw);
    }
    print_message("%llu positions (x2 sides to move, x2 metrics) agree with gen's raw values: "
                  "%llu wins, %llu losses, %llu draws\n", (unsigned long long)checked,
                  (unsigned long long)wins, (unsigned long long)losses, (unsigned long long)draws);
    if (!SMALL)
        assert_int_equal(checked * 2, 6976 + 392064 + 12418632); /* docs/rules.md, "Position counts" */
}

/* ---------------------------------------------------------------------------------------- */

static void test_rank_moves(void **state)
{
    (void)state;
    NEED_TABLES();
    test_rng r = {42};
    static damka_move_value mv[DAMKA_MAX_MOVES], mw[DAMKA_MAX_MOVES];
    int n_checked = SMALL ? 300 : 3000;
    for (int k = 0; k < n_checked; k++) {
        dk_pos p = test_random_pos(V, &r, 2 + (int)test_rand_below(&r, 3), 50);
        if (!p.pieces[0] || !p.pieces[1])
            continue;
        damka_position q = pub(&p);
        damka_value own, ownw;
        int n = -1, nw = -1;
        assert_int_equal(damka_probe_dtw(TB, &q, &own), DAMKA_OK);
        assert_int_equal(damka_probe_wdl(TB, &q, &ownw), DAMKA_OK);
        assert_int_equal(damka_rank_moves(TB, &q, mv, DAMKA_MAX_MOVES, &n), DAMKA_OK);
        assert_int_equal(damka_rank_moves_wdl(TB, &q, mw, DAMKA_MAX_MOVES, &nw), DAMKA_OK);
        dk_movelist list;
        assert_int_equal(n, dk_gen_moves(V, &p, &list));
        assert_int_equal(nw, n);
        if (n == 0) {
            assert_true(own.wdl == DAMKA_LOSS && own.dtw == 0);
            continue;
        }
        if (!same(mv[0].value, own))
            fail_msg("%s: best move %s has %d/%d, the position %d/%d", fen_of(&p), mv[0].notation,
                     mv[0].value.wdl, mv[0].value.dtw, own.wdl, own.dtw);
        assert_int_equal(mw[0].value.wdl, ownw.wdl);
        for (int i = 0; i < n; i++) {
            /* order: fastest win, draws, slowest loss */
            if (i > 0) {
                damka_value a = mv[i - 1].value, b = mv[i].value;
                bool ok = a.wdl > b.wdl ||
                          (a.wdl == b.wdl && (a.wdl == DAMKA_DRAW || (a.wdl == DAMKA_WIN ? a.dtw <= b.dtw : a.dtw >= b.dtw)));
                if (!ok)
                    fail_msg("%s: %s (%d/%d) before %s (%d/%d)", fen_of(&p), mv[i - 1].notation, a.wdl,
                             a.dtw, mv[i].notation, b.wdl, b.dtw);
            }
            /* the move's value is the opponent's value after it, one ply further */
            damka_position after;
            damka_value v;
            assert_int_equal(damka_apply_move(TB, &q, &mv[i], &after), DAMKA_OK);
            assert_int_equal(after.black_to_move, !q.black_to_move);
            assert_int_equal(damka_probe_dtw(TB, &after, &v), DAMKA_OK);
            damka_value want = {(damka_wdl)-v.wdl, v.wdl == DAMKA_DRAW ? -1 : v.dtw + 1};
            if (!same(mv[i].value, want))
                fail_msg("%s: %s has %d/%d, after it %d/%d", fen_of(&p), mv[i].notation,
                         mv[i].value.wdl, mv[i].value.dtw, v.wdl, v.dtw);
            assert_true(mv[i].from >= 1 && mv[i].from <= 32 && mv[i].to >= 1 && mv[i].to <= 32);
            assert_true(mv[i].notation[0] != 0);
            assert_int_equal(mw[i].value.wdl != DAMKA_DRAW ? mw[i].value.dtw : -1, -1);
        }
        /* a small array: the count of every move, the best ones written */
        damka_move_value two[2];
        int m = -1;
        assert_int_equal(damka_rank_moves(TB, &q, two, n > 1 ? 1 : 0, &m), DAMKA_OK);
        assert_int_equal(m, n);
        if (n > 1)
            assert_string_equal(two[0].notation, mv[0].notation);
    }
}

/* ---------------------------------------------------------------------------------------- */

enum { THREADS = 4 };

typedef struct answer {
    damka_status st[2];
    damka_value v[2];
} answer;

typedef struct job {
    damka_tb *tb;
    const dk_pos *pos;
    const answer *want;
    int n, id;
    long mismatches;
    char first[512];
} job;

static void *prober(void *arg)
{
    job *j = arg;
    test_rng r = {(uint64_t)j->id * 7919 + 1};
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < j->n; k++) {
            /* each thread in its own order */
            int i = (int)((j->id % 2 ? (uint64_t)(j->n - 1 - k) : (uint64_t)k) + test_rand_below(&r, 3)) % j->n;
            for (int metric = 1; metric <= 2; metric++) {
                damka_value v = {99, 99};
                damka_status st = probe(j->tb, &j->pos[i], metric, &v);
                if (st != j->want[i].st[metric - 1] || (st == DAMKA_OK && !same(v, j->want[i].v[metric - 1]))) {
                    if (!j->mismatches++)
                        snprintf(j->first, sizeof j->first, "thread %d, %s: status %d value %d/%d", j->id,
                                 fen_of(&j->pos[i]), st, v.wdl, v.dtw);
                }
            }
        }
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    NEED_TABLES();
    int n = SMALL ? 4000 : 60000;
    dk_pos *pos = malloc((size_t)n * sizeof *pos);
    answer *want = malloc((size_t)n * sizeof *want);
    assert_non_null(pos);
    assert_non_null(want);
    test_rng r = {2024};
    for (int i = 0; i < n; i++) {
        pos[i] = test_random_pos(V, &r, 2 + (int)test_rand_below(&r, 3), 40);
        for (int metric = 1; metric <= 2; metric++)
            want[i].st[metric - 1] = probe(TB, &pos[i], metric, &want[i].v[metric - 1]);
    }
    damka_status st;
    damka_tb *small = damka_open(DIR_, "26", 1, &st); /* 1 MB: blocks are evicted all the time */
    assert_non_null(small);
    pthread_t th[THREADS];
    job jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (job){small, pos, want, n, t, 0, ""};
        assert_int_equal(pthread_create(&th[t], NULL, prober, &jobs[t]), 0);
    }
    long bad = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        if (jobs[t].mismatches)
            print_error("%ld mismatches, first: %s\n", jobs[t].mismatches, jobs[t].first);
        bad += jobs[t].mismatches;
    }
    damka_close(small);
    free(pos);
    free(want);
    assert_int_equal(bad, 0);
}

/* ---------------------------------------------------------------------------------------- */

/* True if the side to move in p has a capture: from its legal moves, not from the probe code. */
static bool must_capture(const dk_pos *p)
{
    dk_movelist list;
    dk_gen_moves(V, p, &list);
    return list.n > 0 && list.m[0].ncaptures > 0;
}

/* The flags of engine probes (damka_probe_wdl_flags, damka_probe_dtw_flags), on every 5th
 * position of every table, both sides to move (every 65th under AddressSanitizer):
 * NO_CAPTURES answers MUST_CAPTURE exactly where the side to move has a capture and the plain
 * value elsewhere; CACHE_ONLY on a fresh handle answers NOT_CACHED without touching *out, and
 * after a plain probe of the same position (a cache that holds everything) the plain value;
 * both flags together are MUST_CAPTURE or that value; an unknown flag is BAD_ARGUMENT. */
static void test_probe_flags(void **state)
{
    (void)state;
    NEED_TABLES();
    dk_material ms[64];
    size_t n = materials(ms, 64);
    uint64_t stride = SMALL ? 65 : 5, checked = 0, captures = 0, not_cached = 0;
    const unsigned NC = DAMKA_PROBE_NO_CAPTURES, CO = DAMKA_PROBE_CACHE_ONLY;
    for (size_t k = 0; k < n; k++) {
        damka_status st;
        damka_tb *tb = damka_open(DIR_, "brazilian", 64, &st); /* a fresh cache per material */
        assert_non_null(tb);
        dk_index ix;
        assert_int_equal(dk_index_init(&ix, V, ms[k]), 0);
        for (uint64_t i = k % stride; i < ix.size; i += stride) {
            dk_pos p = dk_index_unrank(&ix, i);
            dk_pos both[2] = {p, dk_pos_flip(V, &p)};
            for (int side = 0; side < 2; side++) {
                damka_position q = pub(&both[side]);
                bool capture = must_capture(&both[side]);
                for (int metric = 1; metric <= 2; metric++) {
                    damka_status (*flagged)(damka_tb *, const damka_position *, unsigned, damka_value *) =
                        metric == 1 ? damka_probe_wdl_flags : damka_probe_dtw_flags;
                    damka_value plain, got = {99, 99};
                    /* before any plain probe of this position: its block may not be cached */
                    uint64_t lookups0, misses0, lookups1, misses1;
                    assert_int_equal(damka_cache_counters(tb, &lookups0, &misses0), DAMKA_OK);
                    st = flagged(tb, &q, CO | NC, &got);
                    assert_int_equal(damka_cache_counters(tb, &lookups1, &misses1), DAMKA_OK);
                    assert_true(misses1 == misses0 && lookups1 == lookups0 + (capture ? 0 : 1));
                    if (capture)
                        assert_int_equal(st, DAMKA_MUST_CAPTURE);
                    else if (st == DAMKA_NOT_CACHED) {
                        not_cached++;
                        assert_true(got.wdl == 99 && got.dtw == 99); /* *out untouched */
                        assert_non_null(strstr(damka_last_error(), "cache"));
                    } else
                        assert_int_equal(st, DAMKA_OK);
                    assert_int_equal(probe(tb, &both[side], metric, &plain), DAMKA_OK);
                    st = flagged(tb, &q, NC, &got);
                    if (capture)
                        assert_int_equal(st, DAMKA_MUST_CAPTURE);
                    else if (st != DAMKA_OK || !same(got, plain))
                        fail_msg("NO_CAPTURES %s: status '%s', value %d/%d, expected %d/%d",
                                 fen_of(&both[side]), damka_status_text(st), got.wdl, got.dtw,
                                 plain.wdl, plain.dtw);
                    got = (damka_value){99, 99};
                    uint64_t misses_before, misses_after;
                    assert_int_equal(damka_cache_counters(tb, NULL, &misses_before), DAMKA_OK);
                    st = flagged(tb, &q, CO, &got); /* every block it needs was just read */
                    assert_int_equal(damka_cache_counters(tb, NULL, &misses_after), DAMKA_OK);
                    assert_true(misses_after == misses_before); /* CACHE_ONLY reads no block */
                    if (st != DAMKA_OK || !same(got, plain))
                        fail_msg("CACHE_ONLY %s: status '%s', value %d/%d, expected %d/%d",
                                 fen_of(&both[side]), damka_status_text(st), got.wdl, got.dtw,
                                 plain.wdl, plain.dtw);
                    st = flagged(tb, &q, CO | NC, &got);
                    assert_int_equal(st, capture ? DAMKA_MUST_CAPTURE : DAMKA_OK);
                    assert_int_equal(flagged(tb, &q, 4, &got), DAMKA_BAD_ARGUMENT);
                }
                captures += capture;
                checked++;
            }
        }
        damka_close(tb);
    }
    print_message("probe flags: %llu positions (%llu must capture), %llu answered NOT_CACHED "
                  "before their block was read\n", (unsigned long long)checked,
                  (unsigned long long)captures, (unsigned long long)not_cached);
    assert_int_equal(damka_cache_counters(NULL, NULL, NULL), DAMKA_BAD_ARGUMENT);
    assert_true(captures > 0 && captures < checked);
    assert_true(not_cached >= n); /* at least the first position of every table */
}

/* ---------------------------------------------------------------------------------------- */

static void test_bad_input(void **state)
{
    (void)state;
    NEED_TABLES();
    damka_status st = DAMKA_OK;
    damka_position p;
    damka_value v;
    int count = -1;
    damka_move_value mv[4];

    /* opening */
    assert_null(damka_open(NULL, "brazilian", 1, &st));
    assert_int_equal(st, DAMKA_BAD_ARGUMENT);
    assert_null(damka_open(DIR_, "checkers", 1, &st));
    assert_int_equal(st, DAMKA_BAD_ARGUMENT);
    assert_null(damka_open("/nonexistent/damka", "brazilian", 1, &st));
    assert_int_equal(st, DAMKA_NO_DIRECTORY);
    damka_tb *plain = damka_open(DIR_, "BRAZILIAN", 0, NULL); /* no status wanted, default cache */
    assert_non_null(plain);
    damka_close(plain);
    damka_close(NULL);
    for (int s = DAMKA_OK; s <= DAMKA_NO_DIRECTORY + 1; s++)
        assert_non_null(damka_status_text((damka_status)s));

    /* FENs */
    const char *bad_fens[] = {"", "X:W1:B2", "W:W1:B1", "W:W33:B1", "W:W4:B1", "W:W1", "garbage",
                              "W:Wa1:Bz9", "W:W1-20:B21-32"};
    for (size_t i = 0; i < sizeof bad_fens / sizeof *bad_fens; i++) {
        st = damka_position_from_fen(TB, bad_fens[i], &p);
        if (st != DAMKA_BAD_POSITION)
            fail_msg("FEN '%s': %s", bad_fens[i], damka_status_text(st));
        assert_true(damka_last_error()[0] != 0);
    }
    assert_int_equal(damka_position_from_fen(NULL, "W:W1:B2", &p), DAMKA_BAD_ARGUMENT);
    assert_int_equal(damka_position_from_fen(TB, NULL, &p), DAMKA_BAD_ARGUMENT);
    assert_int_equal(damka_position_from_fen(TB, "W:W21:B2", NULL), DAMKA_BAD_ARGUMENT);

    /* a FEN round trip */
    char fen[256];
    assert_int_equal(damka_position_from_fen(TB, "B:Wc3,Kh8:Ba7", &p), DAMKA_OK);
    assert_int_equal(p.black_to_move, 1);
    assert_int_equal(damka_position_to_fen(TB, &p, fen, sizeof fen), DAMKA_OK);
    damka_position p2;
    assert_int_equal(damka_position_from_fen(TB, fen, &p2), DAMKA_OK);
    assert_true(p.white == p2.white && p.black == p2.black && p.kings == p2.kings &&
                p.black_to_move == p2.black_to_move);
    assert_int_equal(damka_position_to_fen(TB, &p, fen, 3), DAMKA_BAD_ARGUMENT);
    assert_string_equal(fen, "");
    assert_int_equal(damka_position_to_fen(TB, &p, NULL, 10), DAMKA_BAD_ARGUMENT);

    /* positions the library must refuse: none of them may crash */
    const damka_position bad[] = {
        {1u << 20, 1u << 20, 0, 0},              /* two pieces on one square */
        {1u << 20, 1ull << 40, 0, 0},            /* a square 8x8 lacks */
        {1u << 20, 1u << 3, 1u << 5, 0},        /* a king bit without a piece */
        {1u << 0, 1u << 20, 0, 0},               /* a white man on square 1 (its promotion row) */
        {1u << 20, 1u << 31, 0, 0},              /* a black man on square 32 */
        {0x00000fff, 0xfffff000, 0, 0},          /* 20 black pieces */
        {1u << 20, 0, 0, 0},                     /* Black (not to move) has no piece */
        {0, 0, 0, 1},                            /* no piece at all */
        {~0ull, ~0ull, ~0ull, 7},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        st = damka_probe_wdl(TB, &bad[i], &v);
        if (st != DAMKA_BAD_POSITION)
            fail_msg("bad position %zu: WLD %s", i, damka_status_text(st));
        assert_int_equal(damka_probe_dtw(TB, &bad[i], &v), DAMKA_BAD_POSITION);
        assert_int_equal(damka_rank_moves(TB, &bad[i], mv, 4, &count), DAMKA_BAD_POSITION);
        assert_int_equal(count, 0);
        /* nor written: the verdict of every interface (docs/cli.md) */
        assert_int_equal(damka_position_to_fen(TB, &bad[i], fen, sizeof fen), DAMKA_BAD_POSITION);
    }
    /* the side to move without pieces has lost: no table needed */
    damka_position over = {0, 1u << 5, 0, 0};
    assert_int_equal(damka_position_to_fen(TB, &over, fen, sizeof fen), DAMKA_OK);
    assert_string_equal(fen, "W:W:B6");
    assert_int_equal(damka_probe_dtw(TB, &over, &v), DAMKA_OK);
    assert_true(v.wdl == DAMKA_LOSS && v.dtw == 0);
    assert_int_equal(damka_rank_moves(TB, &over, mv, 4, &count), DAMKA_OK);
    assert_int_equal(count, 0);

    /* NULL pointers */
    damka_position ok = {1u << 20, 1u << 5, 0, 0};
    assert_int_equal(damka_probe_wdl(NULL, &ok, &v), DAMKA_BAD_ARGUMENT);
    assert_int_equal(damka_probe_dtw(TB, NULL, &v), DAMKA_BAD_ARGUMENT);
    assert_int_equal(damka_probe_dtw(TB, &ok, NULL), DAMKA_BAD_ARGUMENT);
    assert_int_equal(damka_rank_moves(TB, &ok, NULL, 4, &count), DAMKA_BAD_ARGUMENT);
    assert_int_equal(damka_rank_moves(TB, &ok, mv, 4, NULL), DAMKA_BAD_ARGUMENT);
    assert_int_equal(damka_rank_moves(TB, &ok, mv, -1, &count), DAMKA_BAD_ARGUMENT);
    assert_int_equal(damka_rank_moves(TB, &ok, NULL, 0, &count), DAMKA_OK);
    assert_true(count > 0);
    assert_int_equal(damka_apply_move(TB, &ok, NULL, &p), DAMKA_BAD_ARGUMENT);
    damka_move_value nonsense = {1, 32, 0, 0, "", {DAMKA_DRAW, -1}};
    assert_int_equal(damka_apply_move(TB, &ok, &nonsense, &p), DAMKA_BAD_POSITION);
    assert_null(damka_variant(NULL));
    assert_string_equal(damka_variant(TB), "brazilian");
    assert_int_equal(damka_squares(TB), 32);

    /* materials not generated: 5 pieces, and more than any table holds */
    assert_int_equal(damka_position_from_fen(TB, "W:W21,22,23:B5,6", &p), DAMKA_OK);
    assert_int_equal(damka_probe_wdl(TB, &p, &v), DAMKA_NOT_IN_TABLES);
    assert_int_equal(damka_probe_dtw(TB, &p, &v), DAMKA_NOT_IN_TABLES);
    assert_true(strstr(damka_last_error(), "2m0k") != NULL || strstr(damka_last_error(), "3m0k") != NULL);
    assert_int_equal(damka_rank_moves(TB, &p, mv, 4, &count), DAMKA_NOT_IN_TABLES);
    assert_int_equal(damka_position_from_fen(TB, "W:W21-32:B1-12", &p), DAMKA_OK);
    assert_int_equal(damka_probe_wdl(TB, &p, &v), DAMKA_NOT_IN_TABLES);
    /* 10 pieces may have a table (this directory lacks it); 11 none on 8x8 */
    assert_int_equal(damka_position_from_fen(TB, "W:W21-25:B1-5", &p), DAMKA_OK);
    assert_int_equal(damka_probe_dtw(TB, &p, &v), DAMKA_NOT_IN_TABLES);
    assert_null(strstr(damka_last_error(), "no table holds"));
    assert_int_equal(damka_position_from_fen(TB, "W:W21-26:B1-5", &p), DAMKA_OK);
    assert_int_equal(damka_probe_dtw(TB, &p, &v), DAMKA_NOT_IN_TABLES);
    assert_non_null(strstr(damka_last_error(), "no table holds more than 10"));
    /* a 5-piece position whose only moves capture into 4 pieces is ranked */
    assert_int_equal(damka_position_from_fen(TB, "W:W22,23:B18,K1,K4", &p), DAMKA_OK);
    assert_int_equal(damka_rank_moves(TB, &p, mv, 4, &count), DAMKA_OK);
    assert_true(count >= 1);
    assert_true(strchr(mv[0].notation, 'x') != NULL);

    /* the International variant opens (no tables: every probe says so) */
    damka_tb *intl = damka_open(DIR_, "international", 1, &st);
    assert_non_null(intl);
    assert_int_equal(damka_max_pieces(intl), 0);
    assert_int_equal(damka_squares(intl), 50);
    assert_int_equal(damka_position_from_fen(intl, "W:W33:B2", &p), DAMKA_OK);
    assert_int_equal(damka_probe_wdl(intl, &p, &v), DAMKA_NOT_IN_TABLES);
    assert_int_equal(damka_check_files(intl, &count), DAMKA_NOT_IN_TABLES);
    damka_close(intl);
}

/* ---------------------------------------------------------------------------------------- */

static char *temp_copy(void)
{
    char tmpl[] = "/tmp/damka-probe-XXXXXX";
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    DIR *in = opendir(DIR_);
    assert_non_null(in);
    struct dirent *e;
    while ((e = readdir(in))) {
        size_t n = strlen(e->d_name);
        if (n < 4 || (strcmp(e->d_name + n - 4, ".wld") && strcmp(e->d_name + n - 4, ".dtw") &&
                      strcmp(e->d_name + n - 4, ".dtc")))
            continue;
        char from[4096], to[4096];
        snprintf(from, sizeof from, "%s/%s", DIR_, e->d_name);
        snprintf(to, sizeof to, "%s/%s", d, e->d_name);
        FILE *f = fopen(from, "rb"), *g = fopen(to, "wb");
        assert_true(f && g);
        char buf[65536];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, f)) > 0)
            assert_int_equal(fwrite(buf, 1, k, g), k);
        fclose(f);
        assert_int_equal(fclose(g), 0);
    }
    closedir(in);
    return strdup(d);
}

static void remove_dir(const char *d)
{
    DIR *in = opendir(d);
    struct dirent *e;
    while (in && (e = readdir(in))) {
        if (e->d_name[0] == '.')
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", d, e->d_name);
        unlink(p);
    }
    if (in)
        closedir(in);
    rmdir(d);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*len);
    assert_int_equal(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

static void spit(const char *path, const uint8_t *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Probes every position of material m (White to move, every 5th as Black to move) in `metric`
 * through a fresh handle on dir (every `stride`-th: a file that does not open is tried again
 * at each probe): counts DAMAGED answers, fails on a wrong value. */
static long probe_material(const char *dir, dk_material m, int metric, uint64_t stride, const char *what)
{
    damka_status st;
    damka_tb *tb = damka_open(dir, "brazilian", 1, &st);
    assert_non_null(tb);
    dk_vfile *raw = open_raw(m);
    dk_index ix;
    dk_index_init(&ix, V, m);
    long damaged = 0;
    for (uint64_t i = 0; i < ix.size; i += stride) {
        dk_pos p = dk_index_unrank(&ix, i);
        if (i % 5 == 0)
            p = dk_pos_flip(V, &p);
        uint64_t at = i * dk_vfile_get_info(raw)->stride + (metric == 3);
        damka_value v, want = expected(raw_value(raw, at), metric);
        st = probe(tb, &p, metric, &v);
        if (st == DAMKA_DAMAGED) {
            damaged++;
            assert_true(damka_last_error()[0] != 0);
        } else if (st != DAMKA_OK || !same(v, want)) {
            fail_msg("%s: %s: status '%s', value %d/%d, expected %d/%d", what, fen_of(&p),
                     damka_status_text(st), v.wdl, v.dtw, want.wdl, want.dtw);
        }
    }
    dk_vfile_close(raw);
    damka_close(tb);
    return damaged;
}

static bool opens(const char *path)
{
    dk_ctable *t = dk_ctable_open(path, NULL, 0);
    dk_ctable_close(t);
    return t != NULL;
}

static bool full_check_fails(const char *path)
{
    char err[512];
    dk_ctable *t = dk_ctable_open(path, err, sizeof err);
    if (!t)
        return true;
    bool bad = dk_ctable_check(t, err, sizeof err) != 0;
    dk_ctable_close(t);
    return bad;
}

/* Flips bytes of a WLD, a DTW and a DTC file (one with a dictionary if there is one), one flip
 * at a time, at random offsets drawn from each region of the file. */
static void test_flipped_bytes(void **state)
{
    (void)state;
    NEED_TABLES();
    char *dir = temp_copy();
    /* the DTW file of 4 pieces with a dictionary and the most blocks; a 3-piece WLD file */
    dk_material ms[64], dtw_m = {0, 0, 0, 0}, wld_m = {1, 1, 0, 1};
    size_t n = materials(ms, 64);
    uint32_t best = 0;
    for (size_t k = 0; k < n; k++) {
        char path[4096], err[512];
        dk_tb_path(dir, V, ms[k], "dtw", path, sizeof path);
        dk_ctable *t = dk_ctable_open(path, err, sizeof err);
        assert_non_null(t);
        const dk_ctable_info *in = dk_ctable_get_info(t);
        uint32_t score = in->nblocks + (in->dict_size ? 1000 : 0);
        if (dk_material_pieces(ms[k]) <= 3 && score > best) { /* small: probed after each flip */
            best = score;
            dtw_m = ms[k];
        }
        dk_ctable_close(t);
    }
    int flips = SMALL ? 20 : 60, caught = 0, harmless = 0;
    test_rng r = {77};
    static const char *const ext[3] = {"wld", "dtw", "dtc"};
    for (int which = 0; which < 3; which++) { /* a WLD, a DTW and a DTC file */
        dk_material m = which ? dtw_m : wld_m;
        int metric = which + 1;
        char path[4096];
        dk_tb_path(dir, V, m, ext[which], path, sizeof path);
        size_t len;
        uint8_t *orig = slurp(path, &len), *copy = malloc(len);
        char err[512];
        dk_ctable *t = dk_ctable_open(path, err, sizeof err);
        assert_non_null(t);
        const dk_ctable_info in = *dk_ctable_get_info(t);
        dk_ctable_close(t);
        size_t index_at = 64 + in.dict_size, blocks_at = index_at + 8 * ((size_t)in.nblocks + 1);
        /* regions: header, dictionary, index, blocks, trailer */
        size_t lo[5] = {0, 64, index_at, blocks_at, len - 8}, hi[5] = {64, index_at, blocks_at, len - 8, len};
        for (int f = 0; f < flips; f++) {
            int reg = f % 5;
            if (hi[reg] <= lo[reg])
                reg = 3;
            size_t off = lo[reg] + test_rand_below(&r, hi[reg] - lo[reg]);
            memcpy(copy, orig, len);
            copy[off] ^= (uint8_t)(1 + test_rand_below(&r, 255));
            spit(path, copy, len);
            char what[128];
            snprintf(what, sizeof what, "%s byte %zu of %zu flipped", ext[which], off, len);
            long damaged = probe_material(dir, m, metric, opens(path) ? 1 : 97, what);
            if (damaged)
                caught++;
            else
                harmless++;
            if (!full_check_fails(path))
                fail_msg("%s: the full check passes", what);
        }
        spit(path, orig, len);
        assert_int_equal(probe_material(dir, m, metric, 1, "restored"), 0);
        free(orig);
        free(copy);
    }
    print_message("%d flips: %d caught by probes, %d left every probe right (all caught by the full "
                  "check)\n", caught + harmless, caught, harmless);
    assert_true(caught > 0);
    /* the public full check */
    damka_status st;
    int files = 0;
    damka_tb *tb = damka_open(dir, NULL, 1, &st);
    assert_int_equal(damka_check_files(tb, &files), DAMKA_OK);
    assert_int_equal(files, 123); /* .wld, .dtw and .dtc of 41 materials */
    char path[4096];
    dk_tb_path(dir, V, wld_m, "wld", path, sizeof path);
    size_t len;
    uint8_t *b = slurp(path, &len);
    b[len - 6] ^= 1; /* the trailer: only the full check sees it */
    spit(path, b, len);
    assert_int_equal(damka_check_files(tb, &files), DAMKA_DAMAGED);
    assert_non_null(strstr(damka_last_error(), "1m1k-0m1k"));
    damka_close(tb);
    free(b);
    remove_dir(dir);
    free(dir);
}

static void test_truncated_and_deleted(void **state)
{
    (void)state;
    NEED_TABLES();
    char *dir = temp_copy();
    dk_material m = {1, 2, 0, 1}, small = {1, 1, 1, 0};
    char path[4096];
    size_t len;
    /* truncated: every probe of the material that reads the file is DAMAGED */
    for (int metric = 1; metric <= 2; metric++) {
        dk_tb_path(dir, V, m, metric == 1 ? "wld" : "dtw", path, sizeof path);
        uint8_t *orig = slurp(path, &len);
        size_t cuts[] = {0, 10, 63, 64 + 8, len / 2, len - 9, len - 1};
        for (size_t c = 0; c < sizeof cuts / sizeof *cuts; c++) {
            spit(path, orig, cuts[c]);
            damka_status st;
            damka_tb *tb = damka_open(dir, "brazilian", 1, &st);
            dk_pos p;
            assert_int_equal(dk_fen_parse(V, "W:Wc3,Ka1,Kh8:BKd8", &p, NULL, 0), 0);
            assert_false(dk_can_capture(V, &p, DK_WHITE)); /* read from this very file */
            damka_value v;
            st = probe(tb, &p, metric, &v);
            if (st != DAMKA_DAMAGED)
                fail_msg("%s truncated to %zu of %zu bytes: %s", path, cuts[c], len, damka_status_text(st));
            assert_non_null(strstr(damka_last_error(), "1m2k-0m1k"));
            /* other materials are unaffected */
            assert_int_equal(dk_fen_parse(V, "W:Wc3,Kh8:BKd8", &p, NULL, 0), 0);
            assert_int_equal(probe(tb, &p, metric, &v), DAMKA_OK);
            damka_close(tb);
        }
        spit(path, orig, len);
        free(orig);
    }
    /* deleted: NOT_IN_TABLES, also for a larger material whose captures need it */
    dk_tb_path(dir, V, small, "dtw", path, sizeof path);
    assert_int_equal(unlink(path), 0);
    damka_status st;
    int count;
    damka_tb *tb = damka_open(dir, "brazilian", 1, &st);
    assert_int_equal(damka_max_pieces(tb), 2);
    damka_position p;
    damka_value v;
    assert_int_equal(damka_position_from_fen(tb, "W:Wc3,Kh8:Bd8", &p), DAMKA_OK);
    assert_int_equal(damka_probe_dtw(tb, &p, &v), DAMKA_NOT_IN_TABLES);
    assert_non_null(strstr(damka_last_error(), "1m1k-1m0k"));
    assert_int_equal(damka_probe_wdl(tb, &p, &v), DAMKA_OK); /* the WLD file is still there */
    /* Black must capture d6xf4, which leads to 1m1k-1m0k with White to move */
    assert_int_equal(damka_position_from_fen(tb, "B:Wc3,Kh8,e5:Bd6", &p), DAMKA_OK);
    assert_int_equal(damka_probe_dtw(tb, &p, &v), DAMKA_NOT_IN_TABLES);
    assert_int_equal(damka_rank_moves(tb, &p, NULL, 0, &count), DAMKA_NOT_IN_TABLES);
    assert_int_equal(damka_probe_wdl(tb, &p, &v), DAMKA_OK);
    damka_close(tb);
    remove_dir(dir);
    free(dir);
}

/* Ways to spoil the table at path whose good copy is at `from`: none left, half of it, or a
 * directory in its place (it opens, but every read fails). */
static void spoil_missing(const char *from, const char *path) { (void)from, (void)path; }

static void spoil_truncated(const char *from, const char *path)
{
    size_t len;
    uint8_t *b = slurp(from, &len);
    spit(path, b, len / 2);
    free(b);
}

static void spoil_unreadable(const char *from, const char *path)
{
    (void)from;
    assert_int_equal(mkdir(path, 0755), 0);
}

/* What a probe says is what its caller acts on: a table that cannot be read is DK_IO and tried
 * again, so that it answers once the file is back; a missing one is DK_MISSING, a truncated one
 * DK_DAMAGED, and both stay so for the handle. */
static void test_status_kinds(void **state)
{
    (void)state;
    NEED_TABLES();
    char *dir = temp_copy();
    dk_material m = {1, 2, 0, 1};
    char path[4096], good[4200];
    dk_tb_path(dir, V, m, "dtw", path, sizeof path);
    snprintf(good, sizeof good, "%s.good", path);
    dk_pos p;
    dk_value v;
    assert_int_equal(dk_fen_parse(V, "W:Wc3,Ka1,Kh8:BKd8", &p, NULL, 0), 0);
    const struct {
        void (*spoil)(const char *from, const char *path);
        dk_status want;
        bool kept; /* the status stays once the file is back */
    } kinds[] = {{spoil_missing, DK_MISSING, true}, {spoil_truncated, DK_DAMAGED, true},
                 {spoil_unreadable, DK_IO, false}};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        dk_tablebase *tb = dk_tb_open(dir, V, NULL);
        assert_int_equal(rename(path, good), 0);
        kinds[k].spoil(good, path);
        dk_status st = dk_tb_probe(tb, &p, DK_METRIC_DTW, &v);
        if (st != kinds[k].want)
            fail_msg("case %zu: %s, not %s (%s)", k, dk_status_text(st), dk_status_text(kinds[k].want),
                     dk_tb_last_error());
        assert_non_null(strstr(dk_tb_last_error(), "1m2k-0m1k"));
        remove(path);
        assert_int_equal(rename(good, path), 0);
        st = dk_tb_probe(tb, &p, DK_METRIC_DTW, &v);
        assert_int_equal(st, kinds[k].kept ? kinds[k].want : DK_OK);
        dk_tb_close(tb);
    }
    remove_dir(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_position),
        cmocka_unit_test(test_rank_moves),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_probe_flags),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_flipped_bytes),
        cmocka_unit_test(test_truncated_and_deleted),
        cmocka_unit_test(test_status_kinds),
    };
    if (getenv("DK_TEST_FILTER"))
        cmocka_set_test_filter(getenv("DK_TEST_FILTER"));
    return cmocka_run_group_tests(tests, setup, teardown);
}
