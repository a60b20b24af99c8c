#include "scheduler.h"

#include <stdlib.h>

static bool rank_less(const void *a, const void *b) { return *(const uint32_t *)a < *(const uint32_t *)b; }

int dk_sched_init(dk_sched *s, dk_workgraph *g, uint32_t nranks, bool on_demand)
{
    size_t cap = on_demand ? 16 : nranks;
    *s = (dk_sched){g, nranks, on_demand ? 0 : nranks, {malloc(cap * sizeof(uint32_t)), sizeof(uint32_t), 0, rank_less},
                    cap, -1, -1, false};
    return s->idle.data ? 0 : -1;
}

void dk_sched_free(dk_sched *s)
{
    free(s->idle.data);
    s->idle.data = NULL;
}

void dk_sched_waits(dk_sched *s, uint32_t rank) { dk_heap_push(&s->idle, &rank); }

void dk_sched_done(dk_sched *s, dk_wg_task t)
{
    if (t.kind == DK_WG_UNIT && (int64_t)t.id == s->splitting)
        s->splitting = -1;
    dk_workgraph_done(s->g, t);
}

void dk_sched_fail(dk_sched *s) { s->failed = true; }

int dk_sched_take_rank(dk_sched *s, uint32_t *rank)
{
    if (s->idle.n) {
        dk_heap_pop(&s->idle, rank);
        return 1;
    }
    if (s->made == s->nranks)
        return 0;
    if (s->made == s->cap) { /* room for every rank made to wait again */
        size_t cap = 2 * s->cap;
        uint32_t *more = realloc(s->idle.data, cap * sizeof *more);
        if (!more)
            return -1;
        s->idle.data = more;
        s->cap = cap;
    }
    *rank = s->made++;
    return 1;
}

/* Every rank made waits (ranks not made yet wait too). */
static bool all_wait(const dk_sched *s) { return s->idle.n == s->made; }

dk_sched_grant dk_sched_next(dk_sched *s)
{
    dk_sched_grant a = {DK_SCHED_WAIT, 0, {DK_WG_UNIT, 0}};
    if (s->failed || dk_workgraph_all_finished(s->g)) {
        /* only ranks made are told: the others never started */
        if (s->idle.n) {
            dk_heap_pop(&s->idle, &a.rank);
            a.kind = DK_SCHED_STOP;
        }
        return a;
    }
    if (s->splitting >= 0)
        return a;
    if (s->held < 0) {
        if (dk_workgraph_nready(s->g) == 0) {
            if (all_wait(s)) {
                s->failed = true;
                a.kind = DK_SCHED_STUCK;
            }
            return a;
        }
        int got = dk_sched_take_rank(s, &a.rank);
        if (got <= 0) {
            a.kind = got < 0 ? DK_SCHED_NOMEM : DK_SCHED_WAIT;
            return a;
        }
        dk_workgraph_take(s->g, &a.task);
        if (a.task.kind != DK_WG_UNIT || !s->g->units[a.task.id].split) {
            a.kind = DK_SCHED_TASK;
            return a;
        }
        s->held = a.task.id; /* it waits until every rank is free, and so does the rank */
        dk_heap_push(&s->idle, &a.rank);
    }
    if (!all_wait(s))
        return a;
    s->splitting = s->held;
    s->held = -1;
    a.kind = DK_SCHED_SPLIT;
    a.task = (dk_wg_task){DK_WG_UNIT, (uint32_t)s->splitting};
    return a;
}
