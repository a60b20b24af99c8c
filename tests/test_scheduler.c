/* The scheduler core (gen/scheduler.h), driven as gen's rank 0 drives it (every rank exists
 * and reports on its own, one report at a time; rank 0 solves a split unit itself, before the
 * other ranks of the unit report) and as damka plan's simulation does (ranks made on demand,
 * the tasks ending at one time all reported before anything is handed out), over the same work
 * graph and the same task times: both hand out the same tasks to the same ranks in the same
 * order. Also: a split unit is held until every rank waits, then takes them all, and nothing
 * else runs meanwhile; after a failure only stops are handed out; every rank waiting while
 * nothing is ready is an internal error. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../gen/forecast.h"
#include "../gen/scheduler.h"
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

/* A task's time: distinct for every task, so that no two tasks end at once by chance. */
static double task_time(dk_wg_task t)
{
    test_rng r = {(uint64_t)t.kind << 32 | t.id};
    return 1 + (double)(test_rand(&r) >> 11) * 0x1p-53;
}

/* A running task: rank `rank` is busy until `end`; kind 0 only frees the rank (a split unit's
 * other ranks). */
typedef struct event {
    double end;
    uint32_t rank;
    dk_wg_task task;
} event;

static bool event_less(const void *a, const void *b)
{
    const event *x = a, *y = b;
    return x->end < y->end || (x->end == y->end && x->rank < y->rank);
}

/* What a driver saw handed out: tasks and split units in order, and how many stops. */
typedef struct trace {
    dk_sched_grant *a;
    size_t n;
    uint32_t stops;
} trace;

typedef struct driver {
    dk_workgraph *g;
    dk_sched s;
    dk_heap events;
    double now;
    uint32_t split_ranks; /* ranks a split unit takes (every rank for gen) */
    bool splitting;       /* a split unit runs: nothing else may be handed out */
    trace tr;
} driver;

static void driver_init(driver *d, dk_workgraph *g, uint32_t nranks, bool on_demand, uint32_t split_ranks)
{
    dk_workgraph_reset(g, NULL, NULL);
    size_t room = (size_t)g->nunits + g->npairs + 2 * (size_t)g->nparts + split_ranks + 1;
    *d = (driver){g, {0}, {malloc(room * sizeof(event)), sizeof(event), 0, event_less}, 0, split_ranks, false,
                  {malloc(room * sizeof(dk_sched_grant)), 0, 0}};
    assert_non_null(d->events.data);
    assert_non_null(d->tr.a);
    assert_int_equal(dk_sched_init(&d->s, g, nranks, on_demand), 0);
}

/* Frees the driver; the run must have finished every pair. Returns its trace. */
static trace driver_end(driver *d)
{
    assert_true(dk_workgraph_all_finished(d->g));
    assert_int_equal(d->events.n, 0);
    free(d->events.data);
    dk_sched_free(&d->s);
    return d->tr;
}

static void start(driver *d, uint32_t rank, dk_wg_task t, double end)
{
    event e = {end, rank, t};
    dk_heap_push(&d->events, &e);
}

/* The ranks of the split unit just handed out: the lowest first, each rank waiting. */
static void take_split_ranks(driver *d)
{
    assert_int_equal(d->events.n, 0); /* every rank waits */
    for (uint32_t k = 0; k < d->split_ranks; k++) {
        uint32_t r;
        assert_int_equal(dk_sched_take_rank(&d->s, &r), 1);
        assert_int_equal(r, k);
    }
}

/* Starts what the core hands out; `gen`: rank 0 solves a split unit at once, as gen's rank 0
 * does on the scheduler's thread, and is handed its next task before the others report. */
static void hand_out(driver *d, bool gen)
{
    for (;;) {
        dk_sched_grant a = dk_sched_next(&d->s);
        if (a.kind == DK_SCHED_WAIT)
            return;
        assert_false(d->splitting);
        if (a.kind == DK_SCHED_STOP) {
            d->tr.stops++;
            continue;
        }
        assert_true(a.kind == DK_SCHED_TASK || a.kind == DK_SCHED_SPLIT);
        d->tr.a[d->tr.n++] = a;
        if (a.kind == DK_SCHED_TASK) {
            start(d, a.rank, a.task, d->now + task_time(a.task));
            continue;
        }
        assert_true(d->g->units[a.task.id].split);
        take_split_ranks(d);
        double end = d->now + task_time(a.task);
        for (uint32_t k = gen ? 1 : 0; k < d->split_ranks; k++)
            start(d, k, k == 0 ? a.task : (dk_wg_task){0, a.task.id}, end);
        if (gen) {
            d->now = end;
            dk_sched_done(&d->s, a.task);
            dk_sched_waits(&d->s, 0);
        } else {
            d->splitting = true;
        }
    }
}

/* Ends the task of the event heading the queue. */
static void end_one(driver *d)
{
    event e;
    dk_heap_pop(&d->events, &e);
    d->now = e.end;
    if (e.task.kind != 0) {
        if (e.task.kind == DK_WG_UNIT && d->g->units[e.task.id].split)
            d->splitting = false;
        dk_sched_done(&d->s, e.task);
    }
    dk_sched_waits(&d->s, e.rank);
}

/* gen's rank 0 on n ranks: each rank's first request, then each report on its own, each
 * followed by what the core hands out. */
static trace gen_run(dk_workgraph *g, uint32_t n)
{
    driver d;
    driver_init(&d, g, n, false, n);
    for (uint32_t r = 0; r < n; r++) {
        dk_sched_waits(&d.s, r);
        hand_out(&d, true);
    }
    while (d.events.n) {
        end_one(&d);
        hand_out(&d, true);
    }
    return driver_end(&d);
}

/* damka plan's simulation on n ranks (or DK_SCHED_UNLIMITED), a split unit on split_ranks of
 * them: everything ending at one time, then what the core hands out. */
static trace plan_run(dk_workgraph *g, uint32_t n, uint32_t split_ranks, uint32_t *made)
{
    driver d;
    driver_init(&d, g, n, true, split_ranks);
    hand_out(&d, false);
    while (d.events.n) {
        double now = ((const event *)dk_heap_top(&d.events))->end;
        while (d.events.n && ((const event *)dk_heap_top(&d.events))->end == now)
            end_one(&d);
        hand_out(&d, false);
    }
    *made = d.s.made;
    return driver_end(&d);
}

static void assert_same(const trace *a, const trace *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_int_equal(a->a[i].kind, b->a[i].kind);
        assert_int_equal(a->a[i].task.kind, b->a[i].task.kind);
        assert_int_equal(a->a[i].task.id, b->a[i].task.id);
        if (a->a[i].kind == DK_SCHED_TASK)
            assert_int_equal(a->a[i].rank, b->a[i].rank);
    }
}

/* The same hand-outs from gen's transport and plan's simulation, on 1, 2, 3 and 7 ranks and on
 * as many ranks as tasks against unlimited ranks; every task handed out once; gen stops every
 * rank, plan every rank it made. */
static void test_gen_and_plan_agree(void **state)
{
    (void)state;
    dk_workgraph *g = split_graph();
    uint32_t tasks = g->nunits + g->npairs + 2 * g->nparts, all = tasks + 1, ranks[] = {1, 2, 3, 7, all};
    for (size_t i = 0; i < sizeof ranks / sizeof *ranks; i++) {
        uint32_t n = ranks[i], made;
        trace gen = gen_run(g, n);
        trace plan = n == all ? plan_run(g, DK_SCHED_UNLIMITED, 2, &made) : plan_run(g, n, n, &made);
        assert_same(&gen, &plan);
        assert_int_equal(gen.stops, n);
        assert_int_equal(plan.stops, made);
        assert_true(made <= n);
        assert_int_equal(gen.n, tasks);
        free(gen.a);
        free(plan.a);
    }
    dk_workgraph_free(g);
}

/* Every unit split, three ranks reporting one by one: the unit taken waits until the third
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
    assert_int_equal(dk_sched_init(&s, g, 3, false), 0);
    dk_sched_waits(&s, 0);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT);
    dk_sched_waits(&s, 2);
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT);
    dk_sched_waits(&s, 1);
    dk_sched_grant a = dk_sched_next(&s);
    assert_int_equal(a.kind, DK_SCHED_SPLIT);
    assert_int_equal(a.task.kind, DK_WG_UNIT);
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

    /* with ranks made on demand, the first split unit starts at once on rank 0 alone made, and
     * takes as many ranks as its caller asks */
    dk_workgraph_reset(g, NULL, NULL);
    assert_int_equal(dk_sched_init(&s, g, DK_SCHED_UNLIMITED, true), 0);
    a = dk_sched_next(&s);
    assert_int_equal(a.kind, DK_SCHED_SPLIT);
    assert_int_equal(s.made, 1);
    for (uint32_t k = 0; k < 40; k++) {
        assert_int_equal(dk_sched_take_rank(&s, &r), 1);
        assert_int_equal(r, k);
    }
    assert_int_equal(dk_sched_next(&s).kind, DK_SCHED_WAIT);
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
    uint64_t *finished = calloc(g->npairs / 64 + 1, sizeof *finished);
    assert_non_null(finished);
    for (uint32_t p = 0; p < g->npairs; p++) {
        dk_material m = g->pairs[p].m;
        if (m.wm + m.wk + m.bm + m.bk < 4)
            finished[p / 64] |= (uint64_t)1 << (p % 64);
    }
    dk_workgraph_reset(g, NULL, finished);
    free(finished);
    dk_sched s;
    assert_int_equal(dk_sched_init(&s, g, 3, false), 0);
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
    assert_int_equal(dk_sched_init(&s, g, DK_SCHED_UNLIMITED, true), 0);
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
    assert_int_equal(dk_sched_init(&s, g, 2, false), 0);
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
        cmocka_unit_test(test_split_gathers),
        cmocka_unit_test(test_stop_after_failure),
        cmocka_unit_test(test_stuck),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
