/* The scheduler core (gen/sched/scheduler.h) as its two transports carry out its grants, over the
 * same work graph with the same task times: gen's rank 0 (gen/run/rank0.c: every rank exists and
 * reports on its own, one report at a time; rank 0 solves a split unit of every rank itself,
 * before the other ranks of the unit report; a group's ranks wait again once all of them have
 * reported), its sends recorded instead of sent over MPI, and damka plan's simulation
 * (gen/plan/simulate.c: ranks made on demand, the tasks ending at one time all reported before
 * anything is handed out), watched: both hand out the same tasks to the same ranks in the same
 * order. Also, on the core alone: a split unit's group is the fewest ranks whose shares fit the
 * run's share, more when nothing else is ready; a group of some ranks gathers ranks other than 0
 * while the others work, and groups run side by side; a group of every rank waits for every rank
 * and nothing else runs meanwhile; after a failure only stops are handed out; every rank waiting
 * while nothing is ready is an internal error. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../gen/plan/costmodel.h"
#include "../gen/plan/simulate.h"
#include "../gen/run/rank0.h"
#include "../gen/sched/scheduler.h"
#include "support.h"

/* Brazilian up to 4 pieces, units of at most 20000 positions, the oversize ones split (as gen's
 * setup marks them with a small memory), the pairs above 100000 positions finished in parts,
 * priorities from the forecast's model as gen sets them. */
static dk_workgraph *split_graph(void)
{
    dk_workgraph *g = test_graph(DK_BRAZILIAN, 4, 20000);
    assert_non_null(g);
    assert_int_equal(dk_workgraph_cut_finishes(g, 100000), 0);
    assert_true(g->nparts > 0);
    uint32_t marked = 0;
    for (uint32_t u = 0; u < g->nunits; u++)
        marked += g->units[u].split = g->units[u].oversize;
    assert_true(marked > 0);
    dk_forecast_model m = dk_forecast_default_model(g, 30, (uint64_t)1 << 30, 0);
    assert_int_equal(dk_forecast_prioritize(g, &m), 0);
    return g;
}

/* A task's time: distinct for every task, so that no two tasks end at once by chance (the model's
 * costs tie: units of a layer alike); both loops are given it. */
static double task_time(dk_wg_task t)
{
    test_rng r = {(uint64_t)t.kind << 32 | t.id};
    return 1 + (double)(test_rand(&r) >> 11) * 0x1p-53;
}

/* One hand-out as a loop carried it out: a task to a rank, or a split unit to its ranks. */
typedef struct handed {
    dk_sched_kind kind; /* DK_SCHED_TASK or DK_SCHED_SPLIT */
    dk_wg_task task;
    size_t first;       /* its ranks: trace.ranks[first, first + n), lowest first */
    uint32_t n;
    bool every;         /* a split unit of every rank */
} handed;

/* What a loop handed out, in order, and how many stops. */
typedef struct trace {
    handed *h;
    size_t n, cap;
    uint32_t *ranks;
    size_t nranks, ranks_cap;
    uint32_t stops;
} trace;

/* A hand-out begins in tr; its ranks follow (trace_rank). */
static void trace_begin(trace *tr, dk_sched_kind kind, dk_wg_task t, bool every)
{
    if (tr->n == tr->cap) {
        tr->cap = tr->cap ? 2 * tr->cap : 256;
        tr->h = realloc(tr->h, tr->cap * sizeof *tr->h);
        assert_non_null(tr->h);
    }
    tr->h[tr->n++] = (handed){kind, t, tr->nranks, 0, every};
}

/* Rank r is one of the last hand-out's, kept lowest first. */
static void trace_rank(trace *tr, uint32_t r)
{
    if (tr->nranks == tr->ranks_cap) {
        tr->ranks_cap = tr->ranks_cap ? 2 * tr->ranks_cap : 256;
        tr->ranks = realloc(tr->ranks, tr->ranks_cap * sizeof *tr->ranks);
        assert_non_null(tr->ranks);
    }
    handed *h = &tr->h[tr->n - 1];
    size_t i = tr->nranks++;
    for (; i > h->first && tr->ranks[i - 1] > r; i--)
        tr->ranks[i] = tr->ranks[i - 1];
    tr->ranks[i] = r;
    h->n++;
}

static void trace_free(trace *tr)
{
    free(tr->h);
    free(tr->ranks);
}

/* --- gen's rank 0: its bookkeeping (dk_rank0_report, dk_rank0_hand_out), the ranks' reports
 * coming in one at a time as their tasks end, what it sends recorded --- */

/* A rank busy until `end` with the order of this kind (rank0.h) and id. */
typedef struct busy {
    double end;
    uint32_t rank;
    int32_t kind, id;
} busy;

static bool busy_less(const void *a, const void *b)
{
    const busy *x = a, *y = b;
    return x->end < y->end || (x->end == y->end && x->rank < y->rank);
}

typedef struct gen_side {
    dk_rank0 s;
    dk_heap busy; /* every rank at most once */
    double now;
    uint32_t *every, nevery; /* ranks sent a part of the split unit of every rank starting */
    trace tr;
} gen_side;

/* dk_rank0_sends.send: recorded, and the rank busy for its task's time. */
static void gen_send(void *ctx, uint32_t rank, int32_t kind, uint32_t id, const int32_t *group, uint32_t n)
{
    gen_side *d = ctx;
    if (kind == DK_ORDER_STOP) {
        d->tr.stops++;
        return;
    }
    dk_wg_task t = {kind == DK_ORDER_SPLIT ? DK_WG_UNIT : (dk_wg_kind)kind, id};
    if (kind != DK_ORDER_SPLIT) {
        trace_begin(&d->tr, DK_SCHED_TASK, t, false);
        trace_rank(&d->tr, rank);
    } else if (!group) {
        assert_true(rank != 0);
        d->every[d->nevery++] = rank;
    } else if (rank == (uint32_t)group[0]) { /* the group's first rank: the group once */
        trace_begin(&d->tr, DK_SCHED_SPLIT, t, false);
        for (uint32_t k = 0; k < n; k++)
            trace_rank(&d->tr, (uint32_t)group[k]);
    }
    busy b = {d->now + task_time(t), rank, kind, (int32_t)id};
    dk_heap_push(&d->busy, &b);
}

/* dk_rank0_sends.solve: rank 0's part of a split unit of every rank, done after its time. */
static int gen_solve(void *ctx, uint32_t u, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    gen_side *d = ctx;
    dk_wg_task t = {DK_WG_UNIT, u};
    trace_begin(&d->tr, DK_SCHED_SPLIT, t, true);
    trace_rank(&d->tr, 0);
    for (uint32_t k = 0; k < d->nevery; k++)
        trace_rank(&d->tr, d->every[k]);
    d->nevery = 0;
    d->now += task_time(t);
    return DK_OK;
}

/* gen's rank 0 on n ranks, groups of `fixed` ranks (0: by the share): each rank's first request,
 * then each report on its own in the order the tasks end, each followed by the hand-out. */
static trace gen_run(dk_workgraph *g, uint32_t n, uint32_t fixed)
{
    dk_workgraph_reset(g, NULL, NULL);
    gen_side *d = calloc(1, sizeof *d);
    assert_non_null(d);
    d->s = (dk_rank0){.g = g, .nranks = (int)n, .sends = {d, gen_send, gen_solve}};
    d->s.since = calloc(n, sizeof *d->s.since);
    d->busy = (dk_heap){malloc(n * sizeof(busy)), sizeof(busy), 0, busy_less};
    d->every = malloc(n * sizeof *d->every);
    assert_true(d->s.since && d->busy.data && d->every);
    assert_int_equal(dk_sched_init(&d->s.core, g, n, false, fixed), 0);
    dk_progress_start(&d->s.pr, true, 0, 0);
    for (uint32_t r = 0; r < n; r++) {
        dk_rank_report first = {DK_ORDER_NONE, 0, DK_OK, ""};
        dk_rank0_report(&d->s, r, &first);
        dk_rank0_hand_out(&d->s);
    }
    while (d->busy.n) {
        busy b;
        dk_heap_pop(&d->busy, &b);
        d->now = b.end;
        dk_rank_report done = {b.kind, b.id, DK_OK, ""};
        dk_rank0_report(&d->s, b.rank, &done);
        dk_rank0_hand_out(&d->s);
    }
    assert_true(dk_workgraph_all_finished(g));
    assert_string_equal(d->s.err, "");
    assert_int_equal(d->s.stopped, n);
    assert_int_equal(d->s.ngroups, 0);
    trace tr = d->tr;
    free(d->s.since);
    free(d->s.groups);
    free(d->busy.data);
    free(d->every);
    dk_sched_free(&d->s.core);
    free(d);
    return tr;
}

/* --- damka plan's simulation (dk_forecast_watched), its hand-outs recorded, each task given its
 * time --- */

static void plan_handed(void *ctx, const dk_sched_grant *a, const uint32_t *ranks, double *seconds)
{
    trace *tr = ctx;
    if (a->kind == DK_SCHED_STOP) {
        tr->stops++;
        return;
    }
    assert_true(a->kind == DK_SCHED_TASK || a->kind == DK_SCHED_SPLIT);
    trace_begin(tr, a->kind, a->task, a->kind == DK_SCHED_SPLIT && a->every);
    for (uint32_t k = 0; k < (a->kind == DK_SCHED_SPLIT ? a->ranks : 1); k++)
        trace_rank(tr, ranks[k]);
    *seconds = task_time(a->task);
}

/* The simulation on n ranks (or DK_SCHED_UNLIMITED), groups of `fixed` ranks (0: by the share);
 * the ranks it made into *made. */
static trace plan_run(dk_workgraph *g, uint32_t n, uint32_t fixed, uint32_t *made)
{
    trace tr = {0};
    dk_forecast_model m = dk_forecast_default_model(g, 30, (uint64_t)1 << 30, 0);
    dk_forecast_watch w = {fixed, &tr, plan_handed};
    dk_forecast f;
    assert_int_equal(dk_forecast_watched(g, &m, n, &w, &f), 0);
    assert_true(dk_workgraph_all_finished(g));
    *made = f.ranks_used;
    return tr;
}

static void assert_same(const trace *a, const trace *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        const handed *x = &a->h[i], *y = &b->h[i];
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->task.kind, y->task.kind);
        assert_int_equal(x->task.id, y->task.id);
        assert_int_equal(x->every, y->every);
        assert_int_equal(x->n, y->n);
        assert_memory_equal(&a->ranks[x->first], &b->ranks[y->first], x->n * sizeof *a->ranks);
    }
}

/* Every task of g once in tr; a split unit on every rank 0 .. n - 1, or on a group of fewer,
 * none of them 0; the split units of every rank and of groups counted into *every and *some. */
static void assert_every_task_once(const dk_workgraph *g, const trace *tr, uint32_t n, uint32_t *every,
                                   uint32_t *some)
{
    size_t tasks = (size_t)g->nunits + g->npairs + 2 * (size_t)g->nparts;
    assert_int_equal(tr->n, tasks);
    bool *seen = calloc(tasks, sizeof *seen);
    assert_non_null(seen);
    for (size_t i = 0; i < tr->n; i++) {
        const handed *h = &tr->h[i];
        dk_wg_task t = h->task;
        size_t k = t.kind == DK_WG_UNIT     ? t.id
                   : t.kind == DK_WG_FINISH ? g->nunits + t.id
                   : t.kind == DK_WG_SCAN   ? g->nunits + g->npairs + t.id
                                            : g->nunits + g->npairs + g->nparts + t.id;
        assert_false(seen[k]);
        seen[k] = true;
        const uint32_t *r = &tr->ranks[h->first];
        if (h->kind == DK_SCHED_TASK) {
            assert_int_equal(h->n, 1);
            continue;
        }
        assert_int_equal(t.kind, DK_WG_UNIT);
        assert_true(g->units[t.id].split);
        *(h->every ? every : some) += 1;
        assert_true(h->every ? h->n == n : h->n >= 1 && h->n < n);
        for (uint32_t j = 0; j < h->n; j++) /* 0 .. n - 1, or distinct ranks other than 0 */
            assert_true(h->every ? r[j] == j : r[j] > 0 && (j == 0 || r[j] > r[j - 1]));
    }
    free(seen);
}

/* The same hand-outs from gen's rank 0 and plan's simulation, on 1, 2, 3 and 7 ranks and on as
 * many ranks as tasks against unlimited ranks, with groups sized by the share and groups of 3;
 * every task handed out once; gen stops every rank, plan every rank it made. Groups of some
 * ranks and of every rank both occur. */
static void test_gen_and_plan_agree(void **state)
{
    (void)state;
    dk_workgraph *g = split_graph();
    uint32_t tasks = g->nunits + g->npairs + 2 * g->nparts, all = tasks + 1, ranks[] = {1, 2, 3, 7, all};
    uint32_t some = 0, every = 0;
    for (uint32_t fixed = 0; fixed <= 3; fixed += 3)
        for (size_t i = 0; i < sizeof ranks / sizeof *ranks; i++) {
            uint32_t n = ranks[i], made;
            trace gen = gen_run(g, n, fixed);
            trace plan = plan_run(g, n == all ? DK_SCHED_UNLIMITED : n, fixed, &made);
            assert_same(&gen, &plan);
            assert_int_equal(gen.stops, n);
            assert_int_equal(plan.stops, made);
            assert_true(made <= n);
            assert_every_task_once(g, &gen, n, &every, &some);
            trace_free(&gen);
            trace_free(&plan);
        }
    assert_true(some > 0);
    assert_true(every > 0);
    dk_workgraph_free(g);
}

/* A bitset of the pairs of g for which finished(g, p, arg) holds, for dk_workgraph_reset. */
static uint64_t *pairs_where(const dk_workgraph *g, bool (*finished)(const dk_workgraph *, uint32_t, const void *),
                             const void *arg)
{
    uint64_t *set = calloc(g->npairs / 64 + 1, sizeof *set);
    assert_non_null(set);
    for (uint32_t p = 0; p < g->npairs; p++)
        if (finished(g, p, arg))
            set[p / 64] |= (uint64_t)1 << (p % 64);
    return set;
}

static int pieces_of(const dk_workgraph *g, uint32_t p)
{
    dk_material m = g->pairs[p].m;
    return m.wm + m.wk + m.bm + m.bk;
}

static bool below_4(const dk_workgraph *g, uint32_t p, const void *arg) { return (void)arg, pieces_of(g, p) < 4; }

static bool below_4_or_kings(const dk_workgraph *g, uint32_t p, const void *arg)
{
    return below_4(g, p, arg) || g->pairs[p].m.wm + g->pairs[p].m.bm == 0;
}

static bool not_pair(const dk_workgraph *g, uint32_t p, const void *arg) { return (void)g, (int)p != *(const int *)arg; }

/* A group's size: the fewest ranks whose shares of the unit fit the share of the largest split
 * unit on every rank of the run (dk_workgraph_held), on 2 to 64 ranks and on unlimited ranks. */
static void test_group_size(void **state)
{
    (void)state;
    dk_workgraph *g = split_graph();
    uint32_t ns[] = {2, 3, 4, 5, 8, 13, 64, DK_SCHED_UNLIMITED};
    bool smaller = false;
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        dk_sched s;
        assert_int_equal(dk_sched_init(&s, g, ns[i], true, 0), 0);
        uint64_t share = 0;
        for (uint32_t u = 0; u < g->nunits; u++)
            share = dk_workgraph_held(g, u, ns[i]) > share ? dk_workgraph_held(g, u, ns[i]) : share;
        assert_int_equal(s.share, share);
        for (uint32_t u = 0; u < g->nunits; u++) {
            if (!g->units[u].split)
                continue;
            uint32_t k = dk_sched_group(&s, u);
            assert_true(k >= 1 && k <= ns[i]);
            assert_true(dk_workgraph_held(g, u, k) <= share);
            if (k > 1)
                assert_true(dk_workgraph_held(g, u, k - 1) > share);
            smaller |= ns[i] != DK_SCHED_UNLIMITED && k < ns[i];
        }
        dk_sched_free(&s);
    }
    assert_true(smaller);
    dk_workgraph_free(g);
}

/* Every unit split, three ranks, groups of every rank: the unit taken waits until the third
 * rank waits, then takes all three; nothing is handed out until it is done, then the next one
 * waits for every rank again. */
static void test_split_gathers(void **state)
{
    (void)state;
    dk_workgraph *g = test_graph(DK_BRAZILIAN, 3, 20000);
    assert_non_null(g);
    for (uint32_t u = 0; u < g->nunits; u++)
        g->units[u].split = true;
    dk_workgraph_reset(g, NULL, NULL);
    dk_sched s;
    assert_int_equal(dk_sched_init(&s, g, 3, false, 3), 0);
    dk_sched_waits(&s, 0);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT);
    dk_sched_waits(&s, 2);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT);
    dk_sched_waits(&s, 1);
    dk_sched_grant a = dk_sched_next(&s);
    assert_int_equal(a.kind, DK_SCHED_SPLIT);
    assert_int_equal(a.task.kind, DK_WG_UNIT);
    assert_true(a.every);
    assert_int_equal(a.ranks, 3);
    uint32_t r;
    for (uint32_t k = 0; k < 3; k++) {
        assert_int_equal(dk_sched_take_rank(&s, &r), 1);
        assert_int_equal(r, k);
    }
    assert_int_equal(dk_sched_take_rank(&s, &r), 0);
    dk_sched_waits(&s, 1); /* a rank done with its part first */
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT);
    dk_sched_done(&s, a.task);
    dk_sched_waits(&s, 0);
    /* rank 0 finishes what is not a unit, until the next unit is taken and held: ranks 0 and 1
     * wait, rank 2 is still in the last one */
    dk_sched_grant f;
    while ((f = dk_sched_next(&s)).kind == DK_SCHED_TASK) {
        assert_int_equal(f.rank, 0);
        assert_int_equal(f.task.kind, DK_WG_FINISH);
        dk_sched_done(&s, f.task);
        dk_sched_waits(&s, 0);
    }
    assert_int_equal(f.kind, DK_SCHED_WAIT);
    assert_true(s.held >= 0);
    dk_sched_waits(&s, 2);
    dk_sched_grant b = dk_sched_next(&s);
    assert_int_equal(b.kind, DK_SCHED_SPLIT);
    assert_int_equal(b.task.id, (uint32_t)s.splitting);
    assert_true(b.task.id != a.task.id);
    dk_sched_free(&s);
    dk_workgraph_free(g);
}

/* Groups of 3 of 8 ranks, every unit split: a group gathers ranks other than 0 as they come
 * free while the others work (rank 0 on tasks that are not split units), starts once 3 wait,
 * and another group starts beside it; with ranks made on demand, the ranks of a group are made
 * as needed, rank 0 never among them. */
static void test_groups_beside(void **state)
{
    (void)state;
    dk_workgraph *g = test_graph(DK_BRAZILIAN, 4, 2000);
    assert_non_null(g);
    for (uint32_t u = 0; u < g->nunits; u++)
        g->units[u].split = true;
    /* the pairs of up to 3 pieces and of kings only finished: the units of many pairs are ready */
    uint64_t *finished = pairs_where(g, below_4_or_kings, NULL);
    dk_workgraph_reset(g, NULL, finished);
    assert_true(dk_workgraph_nready(g) > 10);
    dk_sched s;
    assert_int_equal(dk_sched_init(&s, g, 8, false, 3), 0);
    dk_sched_waits(&s, 0);
    dk_sched_waits(&s, 1);
    dk_sched_waits(&s, 2);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT); /* held: ranks 1 and 2 kept for it */
    assert_true(s.held >= 0);
    dk_sched_waits(&s, 5);
    dk_sched_grant a = dk_sched_next(&s);
    assert_int_equal(a.kind, DK_SCHED_SPLIT);
    assert_false(a.every);
    assert_int_equal(a.ranks, 3);
    uint32_t r, want[] = {1, 2, 5};
    for (uint32_t k = 0; k < 3; k++) {
        assert_int_equal(dk_sched_take_rank(&s, &r), 1);
        assert_int_equal(r, want[k]);
    }
    /* rank 0 still waits; the next unit is held for ranks 3, 4, 6 and 7 as they come */
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT);
    dk_sched_waits(&s, 3);
    dk_sched_waits(&s, 4);
    dk_sched_waits(&s, 6);
    dk_sched_grant b = dk_sched_next(&s);
    assert_int_equal(b.kind, DK_SCHED_SPLIT);
    assert_true(b.task.id != a.task.id);
    uint32_t want2[] = {3, 4, 6};
    for (uint32_t k = 0; k < 3; k++) {
        assert_int_equal(dk_sched_take_rank(&s, &r), 1);
        assert_int_equal(r, want2[k]);
    }
    /* the first group done: its ranks wait again, and with rank 7 a third group starts; rank 0
     * meanwhile takes what is not a split unit (the pair's finishing, if its units are done) */
    dk_sched_done(&s, a.task);
    dk_sched_waits(&s, 7);
    dk_sched_waits(&s, 1);
    dk_sched_grant c;
    while ((c = dk_sched_next(&s)).kind == DK_SCHED_TASK) {
        assert_int_equal(c.rank, 0);
        assert_false(c.task.kind == DK_WG_UNIT);
    }
    assert_int_equal(c.kind, DK_SCHED_WAIT); /* ranks 1 and 7: two of three */
    dk_sched_waits(&s, 2);
    c = dk_sched_next(&s);
    assert_int_equal(c.kind, DK_SCHED_SPLIT);
    assert_int_equal(dk_sched_take_rank(&s, &r), 1);
    assert_int_equal(r, 1);
    assert_int_equal(dk_sched_take_rank(&s, &r), 1);
    assert_int_equal(r, 2);
    assert_int_equal(dk_sched_take_rank(&s, &r), 1);
    assert_int_equal(r, 7);
    dk_sched_free(&s);

    /* rank 0 takes what is not a split unit while a group gathers: the first unit handed out
     * split, no other */
    for (uint32_t u = 0; u < g->nunits; u++)
        g->units[u].split = false;
    dk_workgraph_reset(g, NULL, finished);
    dk_wg_task first;
    assert_true(dk_workgraph_take(g, &first));
    assert_int_equal(first.kind, DK_WG_UNIT);
    g->units[first.id].split = true;
    dk_workgraph_reset(g, NULL, finished);
    free(finished);
    assert_int_equal(dk_sched_init(&s, g, 4, false, 3), 0);
    dk_sched_waits(&s, 0);
    dk_sched_grant t;
    uint32_t to_zero = 0;
    while ((t = dk_sched_next(&s)).kind == DK_SCHED_TASK) { /* rank 0 alone: all but the first */
        assert_int_equal(t.rank, 0);
        assert_false(t.task.kind == first.kind && t.task.id == first.id);
        assert_int_equal(s.held, first.id);
        dk_sched_done(&s, t.task);
        dk_sched_waits(&s, 0);
        to_zero++;
    }
    assert_int_equal(t.kind, DK_SCHED_WAIT);
    assert_true(to_zero > 10);
    dk_sched_waits(&s, 3);
    dk_sched_waits(&s, 1);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT);
    dk_sched_waits(&s, 2);
    t = dk_sched_next(&s);
    assert_int_equal(t.kind, DK_SCHED_SPLIT);
    assert_int_equal(t.task.id, first.id);
    assert_false(t.every);
    dk_sched_free(&s);

    /* made on demand: the group's ranks are 1, 2 and 3, made for it */
    for (uint32_t u = 0; u < g->nunits; u++)
        g->units[u].split = true;
    dk_workgraph_reset(g, NULL, NULL);
    assert_int_equal(dk_sched_init(&s, g, DK_SCHED_UNLIMITED, true, 3), 0);
    a = dk_sched_next(&s);
    assert_int_equal(a.kind, DK_SCHED_SPLIT);
    assert_false(a.every);
    for (uint32_t k = 1; k <= 3; k++) {
        assert_int_equal(dk_sched_take_rank(&s, &r), 1);
        assert_int_equal(r, k);
    }
    assert_int_equal(s.made, 4);
    dk_sched_free(&s);
    dk_workgraph_free(g);
}

/* Brazilian 0m2k-0m2k and what it reads, units of at most 2000 positions, every pair but its
 * finished: its one unit (all kings, one subslice) is ready alone, split in *parts parts. */
static dk_workgraph *one_split_unit(uint32_t *u, uint64_t *parts)
{
    dk_material m;
    assert_int_equal(dk_material_parse("0m2k-0m2k", &m), 0);
    dk_workgraph *g = dk_workgraph_build(dk_variant_get(DK_BRAZILIAN), &m, 1, 2000);
    assert_non_null(g);
    int p = dk_workgraph_pair_of(g, m);
    assert_true(p >= 0);
    uint64_t *finished = pairs_where(g, not_pair, &p);
    assert_int_equal(g->pairs[p].nlayers, 1);
    *u = g->layers[g->pairs[p].first_layer].first_unit;
    assert_true(g->units[*u].oversize);
    g->units[*u].split = true;
    dk_workgraph_reset(g, NULL, finished);
    free(finished);
    assert_int_equal(dk_workgraph_nready(g), 1);
    *parts = dk_workgraph_split_parts(g, *u);
    return g;
}

/* Nothing else ready as a group starts: it takes every rank other than 0 that waits, as far as
 * the unit has parts; every rank waiting, a unit of at least as many parts as ranks takes them
 * all. */
static void test_group_idle_ranks(void **state)
{
    (void)state;
    uint32_t u;
    uint64_t parts;
    dk_workgraph *g = one_split_unit(&u, &parts);
    assert_true(parts > 40 && parts < 300);
    dk_sched s;
    /* 300 ranks, fewer than its group waiting besides rank 0: it is held */
    assert_int_equal(dk_sched_init(&s, g, 300, false, 0), 0);
    uint32_t k = dk_sched_group(&s, u);
    assert_true(k > 2 && k < 29);
    for (uint32_t r = 0; r < k; r++) /* k - 1 besides rank 0 */
        dk_sched_waits(&s, r);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT);
    assert_int_equal(s.held, u);
    /* 30 waiting, 29 of them besides rank 0: all of them, more than the group needs */
    for (uint32_t r = k; r < 30; r++)
        dk_sched_waits(&s, r);
    dk_sched_grant a = dk_sched_next(&s);
    assert_int_equal(a.kind, DK_SCHED_SPLIT);
    assert_false(a.every);
    assert_int_equal(a.ranks, 29);
    dk_sched_free(&s);

    /* 8 ranks all waiting, and more parts than ranks: every rank */
    dk_workgraph_free(g);
    g = one_split_unit(&u, &parts);
    assert_int_equal(dk_sched_init(&s, g, 8, false, 0), 0);
    for (uint32_t r = 0; r < 8; r++)
        dk_sched_waits(&s, r);
    a = dk_sched_next(&s);
    assert_int_equal(a.kind, DK_SCHED_SPLIT);
    assert_true(a.every);
    assert_int_equal(a.ranks, 8);
    dk_sched_free(&s);
    dk_workgraph_free(g);
}

/* A failure: ranks still busy are stopped when they report, waiting ones at once, and no task
 * is handed out any more, not even to a rank made on demand. */
static void test_stop_after_failure(void **state)
{
    (void)state;
    dk_workgraph *g = test_graph(DK_BRAZILIAN, 4, 20000);
    assert_non_null(g);
    /* the pairs of up to 3 pieces finished: the units of many pairs are ready */
    uint64_t *finished = pairs_where(g, below_4, NULL);
    dk_workgraph_reset(g, NULL, finished);
    free(finished);
    dk_sched s;
    assert_int_equal(dk_sched_init(&s, g, 3, false, 0), 0);
    dk_sched_waits(&s, 1);
    dk_sched_waits(&s, 0);
    dk_sched_grant a = dk_sched_next(&s), b = dk_sched_next(&s);
    assert_int_equal(a.kind, DK_SCHED_TASK);
    assert_int_equal(a.rank, 0);
    assert_int_equal(b.kind, DK_SCHED_TASK);
    assert_int_equal(b.rank, 1);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT); /* rank 2 has not asked yet */
    dk_wg_task t0 = a.task;
    dk_sched_fail(&s);                                       /* rank 1's task failed */
    dk_sched_waits(&s, 1);
    a = dk_sched_next(&s);
    assert_int_equal(a.kind, DK_SCHED_STOP);
    assert_int_equal(a.rank, 1);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT);
    dk_sched_waits(&s, 2);
    dk_sched_done(&s, t0); /* rank 0's task was done */
    dk_sched_waits(&s, 0);
    a = dk_sched_next(&s);
    b = dk_sched_next(&s);
    assert_int_equal(a.kind, DK_SCHED_STOP);
    assert_int_equal(a.rank, 0);
    assert_int_equal(b.kind, DK_SCHED_STOP);
    assert_int_equal(b.rank, 2);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT);
    dk_sched_free(&s);

    dk_workgraph_reset(g, NULL, NULL);
    assert_int_equal(dk_sched_init(&s, g, DK_SCHED_UNLIMITED, true, 0), 0);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_TASK);
    dk_sched_fail(&s);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT);
    assert_int_equal(s.made, 1);
    dk_sched_free(&s);
    dk_workgraph_free(g);
}

/* Every rank waiting, nothing ready, pairs unfinished (here: the ready tasks lost): an internal
 * error, once, then stops. */
static void test_stuck(void **state)
{
    (void)state;
    dk_workgraph *g = test_graph(DK_BRAZILIAN, 3, 20000);
    assert_non_null(g);
    dk_workgraph_reset(g, NULL, NULL);
    dk_wg_task t;
    while (dk_workgraph_take(g, &t))
        ;
    dk_sched s;
    assert_int_equal(dk_sched_init(&s, g, 2, false, 0), 0);
    dk_sched_waits(&s, 0);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT); /* rank 1 may still report work done */
    dk_sched_waits(&s, 1);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_STUCK);
    assert_true(s.failed);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_STOP);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_STOP);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT);
    dk_sched_free(&s);
    dk_workgraph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gen_and_plan_agree),
        cmocka_unit_test(test_group_size),
        cmocka_unit_test(test_split_gathers),
        cmocka_unit_test(test_groups_beside),
        cmocka_unit_test(test_group_idle_ranks),
        cmocka_unit_test(test_stop_after_failure),
        cmocka_unit_test(test_stuck),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
