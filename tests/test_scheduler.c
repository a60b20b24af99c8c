/* The scheduler core (gen/sched/scheduler.h), driven as gen's rank 0 drives it (every rank exists
 * and reports on its own, one report at a time; rank 0 solves a split unit of every rank
 * itself, before the other ranks of the unit report; a group's ranks wait again once all of
 * them have reported) and as damka plan's simulation does (ranks made on demand, the tasks
 * ending at one time all reported before anything is handed out), over the same work graph and
 * the same task times: both hand out the same tasks to the same ranks in the same order. Also:
 * a split unit's group is the fewest ranks whose shares fit the run's share, more when nothing
 * else is ready; a group of some ranks gathers ranks other than 0 while the others work, and
 * groups run side by side; a group of every rank waits for every rank and nothing else runs
 * meanwhile; after a failure only stops are handed out; every rank waiting while nothing is
 * ready is an internal error. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../gen/plan/costmodel.h"
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

/* A task's time: distinct for every task, so that no two tasks end at once by chance. */
static double task_time(dk_wg_task t)
{
    test_rng r = {(uint64_t)t.kind << 32 | t.id};
    return 1 + (double)(test_rand(&r) >> 11) * 0x1p-53;
}

/* A running task: rank `rank` is busy until `end`; kind 0 only frees the rank (a split unit's
 * other ranks: its highest rank's event carries the unit). */
typedef struct event {
    double end;
    uint32_t rank;
    dk_wg_task task;
    bool group; /* a rank of a group of some ranks */
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
    bool gen;             /* driven as gen's rank 0, else as the simulation */
    bool splitting;       /* a split unit of every rank runs: nothing else may be handed out */
    uint32_t *held, nheld; /* gen: the ranks of groups that reported, waiting for the others */
    trace tr;
} driver;

/* Room for the events of every task and of every rank a split unit may take (one a part). */
static size_t room_for(const dk_workgraph *g, uint32_t nranks)
{
    size_t room = (size_t)g->nunits + g->npairs + 2 * (size_t)g->nparts + 1;
    for (uint32_t u = 0; u < g->nunits; u++)
        room += g->units[u].split ? dk_workgraph_split_parts(g, u) : 0;
    return room + (nranks < 64 ? nranks : 64);
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

static void driver_init(driver *d, dk_workgraph *g, uint32_t nranks, bool gen, uint32_t fixed)
{
    dk_workgraph_reset(g, NULL, NULL);
    size_t room = room_for(g, nranks);
    *d = (driver){g, {0}, {malloc(room * sizeof(event)), sizeof(event), 0, event_less}, 0, gen, false,
                  malloc(room * sizeof(uint32_t)), 0, {malloc(room * sizeof(dk_sched_grant)), 0, 0}};
    assert_non_null(d->events.data);
    assert_non_null(d->held);
    assert_non_null(d->tr.a);
    assert_int_equal(dk_sched_init(&d->s, g, nranks, !gen, fixed), 0);
}

/* Frees the driver; the run must have finished every pair. Returns its trace. */
static trace driver_end(driver *d)
{
    assert_true(dk_workgraph_all_finished(d->g));
    assert_int_equal(d->events.n, 0);
    assert_int_equal(d->nheld, 0);
    free(d->events.data);
    free(d->held);
    dk_sched_free(&d->s);
    return d->tr;
}

static void start(driver *d, uint32_t rank, dk_wg_task t, double end, bool group)
{
    event e = {end, rank, t, group};
    dk_heap_push(&d->events, &e);
}

/* The ranks of the split unit a just handed out into ranks: every rank, from 0 (all waiting),
 * or a group's, lowest first and none of them 0. */
static void take_split_ranks(driver *d, dk_sched_grant a, uint32_t *ranks)
{
    if (a.every)
        assert_int_equal(d->events.n, 0); /* every rank waits */
    for (uint32_t k = 0; k < a.ranks; k++) {
        assert_int_equal(dk_sched_take_rank(&d->s, &ranks[k]), 1);
        if (a.every)
            assert_int_equal(ranks[k], k);
        else
            assert_true(ranks[k] > 0 && (k == 0 || ranks[k] > ranks[k - 1]));
    }
}

/* Starts what the core hands out; as gen, rank 0 solves a split unit of every rank at once, on
 * the scheduler's thread, and is handed its next task before the others report. */
static void hand_out(driver *d)
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
            start(d, a.rank, a.task, d->now + task_time(a.task), false);
            continue;
        }
        assert_true(d->g->units[a.task.id].split);
        assert_true(a.ranks >= 1);
        uint32_t *ranks = malloc(a.ranks * sizeof *ranks);
        assert_non_null(ranks);
        take_split_ranks(d, a, ranks);
        double end = d->now + task_time(a.task);
        for (uint32_t k = d->gen && a.every ? 1 : 0; k < a.ranks; k++)
            start(d, ranks[k], k == a.ranks - 1 && !(d->gen && a.every) ? a.task : (dk_wg_task){0, a.task.id}, end,
                  !a.every);
        free(ranks);
        if (d->gen && a.every) {
            d->now = end;
            dk_sched_done(&d->s, a.task);
            dk_sched_waits(&d->s, 0);
        } else {
            d->splitting = a.every;
        }
    }
}

/* Ends the task of the event heading the queue; as gen, a group's ranks wait again only once
 * the last of them has reported (its event carries the unit; a group's events end together,
 * and no other event with them). */
static void end_one(driver *d)
{
    event e;
    dk_heap_pop(&d->events, &e);
    d->now = e.end;
    if (d->gen && e.group && e.task.kind == 0) {
        d->held[d->nheld++] = e.rank;
        return;
    }
    if (e.task.kind != 0) {
        if (!e.group && e.task.kind == DK_WG_UNIT && d->g->units[e.task.id].split)
            d->splitting = false;
        dk_sched_done(&d->s, e.task);
    }
    dk_sched_waits(&d->s, e.rank);
    for (; d->gen && e.group && d->nheld; d->nheld--)
        dk_sched_waits(&d->s, d->held[d->nheld - 1]);
}

/* gen's rank 0 on n ranks: each rank's first request, then each report on its own, each
 * followed by what the core hands out. */
static trace gen_run(dk_workgraph *g, uint32_t n, uint32_t fixed)
{
    driver d;
    driver_init(&d, g, n, true, fixed);
    for (uint32_t r = 0; r < n; r++) {
        dk_sched_waits(&d.s, r);
        hand_out(&d);
    }
    while (d.events.n) {
        end_one(&d);
        hand_out(&d);
    }
    return driver_end(&d);
}

/* damka plan's simulation on n ranks (or DK_SCHED_UNLIMITED): everything ending at one time,
 * then what the core hands out. */
static trace plan_run(dk_workgraph *g, uint32_t n, uint32_t fixed, uint32_t *made)
{
    driver d;
    driver_init(&d, g, n, false, fixed);
    hand_out(&d);
    while (d.events.n) {
        double now = ((const event *)dk_heap_top(&d.events))->end;
        while (d.events.n && ((const event *)dk_heap_top(&d.events))->end == now)
            end_one(&d);
        hand_out(&d);
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
        if (a->a[i].kind == DK_SCHED_SPLIT) {
            assert_int_equal(a->a[i].ranks, b->a[i].ranks);
            assert_int_equal(a->a[i].every, b->a[i].every);
        }
    }
}

/* The same hand-outs from gen's transport and plan's simulation, on 1, 2, 3 and 7 ranks and on
 * as many ranks as tasks against unlimited ranks, with groups sized by the share and groups of
 * 3; every task handed out once; gen stops every rank, plan every rank it made. Groups of some
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
            assert_int_equal(gen.n, tasks);
            for (size_t k = 0; k < gen.n; k++)
                if (gen.a[k].kind == DK_SCHED_SPLIT) {
                    *(gen.a[k].every ? &every : &some) += 1;
                    assert_true(gen.a[k].every ? gen.a[k].ranks == n : gen.a[k].ranks < n);
                }
            free(gen.a);
            free(plan.a);
        }
    assert_true(some > 0);
    assert_true(every > 0);
    dk_workgraph_free(g);
}

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
