#include "scheduler.h"

#include <stdlib.h>

#include "../../rules/check.h"

static bool rank_less(const void *a, const void *b) { return *(const uint32_t *)a < *(const uint32_t *)b; }

int dk_sched_init(dk_sched *s, dk_workgraph *g, uint32_t nranks, bool on_demand, uint32_t fixed)
{
    size_t cap = on_demand ? 16 : nranks;
    uint64_t held = dk_workgraph_largest_held(g, nranks), share = held > g->max_positions ? held : g->max_positions;
    *s = (dk_sched){.g = g,
                    .nranks = nranks,
                    .made = on_demand ? 0 : nranks,
                    .idle = {.size = sizeof(uint32_t), .less = rank_less},
                    .cap = cap,
                    .share = share,
                    .fixed = fixed < nranks ? fixed : nranks,
                    .held = -1,
                    .splitting = -1};
    s->idle.data = malloc(cap * sizeof(uint32_t));
    return s->idle.data ? 0 : -1;
}

void dk_sched_free(dk_sched *s)
{
    free(s->idle.data);
    s->idle.data = NULL;
}

uint32_t dk_sched_group(const dk_sched *s, uint32_t u)
{
    if (s->fixed)
        return s->fixed;
    uint64_t parts = dk_workgraph_split_parts(s->g, u);
    if (parts == 1 || s->g->units[u].positions <= s->share)
        return 1;
    uint64_t per = s->share / s->g->max_positions, k = (parts + per - 1) / per; /* per >= 1 */
    return k < s->nranks ? (uint32_t)k : s->nranks;
}

void dk_sched_waits(dk_sched *s, uint32_t rank)
{
    DK_ASSERT(rank < s->made && s->idle.n < s->made); /* a rank that was made, and not waiting yet */
    dk_heap_push(&s->idle, &rank);
}

void dk_sched_done(dk_sched *s, dk_wg_task t)
{
    DK_ASSERT(s->held < 0 || t.kind != DK_WG_UNIT || (int64_t)t.id != s->held); /* held: not started */
    if (t.kind == DK_WG_UNIT && (int64_t)t.id == s->splitting)
        s->splitting = -1;
    dk_workgraph_done(s->g, t);
}

void dk_sched_fail(dk_sched *s) { s->failed = true; }

/* Makes the next rank (on demand) into *rank. */
static int make_rank(dk_sched *s, uint32_t *rank)
{
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

int dk_sched_take_rank(dk_sched *s, uint32_t *rank)
{
    if (!s->idle.n)
        return make_rank(s, rank);
    dk_heap_pop(&s->idle, rank);
    if (!s->taking || *rank != 0)
        return 1;
    /* rank 0 is not for a group of some ranks: the next one, and rank 0 waits on (it was made
     * first, so a rank made now is not 0) */
    int got = 1;
    if (s->idle.n)
        dk_heap_pop(&s->idle, rank);
    else
        got = make_rank(s, rank);
    uint32_t zero = 0;
    dk_heap_push(&s->idle, &zero);
    return got;
}

/* Every rank made waits (ranks not made yet wait too). */
static bool all_wait(const dk_sched *s) { return s->idle.n == s->made; }

/* Whether rank 0 waits. */
static bool zero_waits(const dk_sched *s) { return s->idle.n && *(const uint32_t *)dk_heap_top(&s->idle) == 0; }

/* The held split unit: started on a group once its ranks wait, or rank 0 given a task that is
 * not a split unit meanwhile, or nothing yet (a). */
static dk_sched_grant start_held(dk_sched *s, dk_sched_grant a)
{
    uint32_t u = (uint32_t)s->held, k = dk_sched_group(s, u);
    uint64_t parts = dk_workgraph_split_parts(s->g, u);
    DK_ASSERT(k >= 1 && k <= s->nranks && s->g->units[u].split && s->idle.n <= s->made);
    bool idle_run = !s->fixed && dk_workgraph_nready(s->g) == 0 && all_wait(s);
    if (k < s->nranks && !(idle_run && parts >= s->nranks)) {
        /* a group without rank 0: the ranks waiting besides it, and those not made yet */
        uint64_t spare = s->idle.n - (zero_waits(s) ? 1 : 0) + (uint64_t)(s->nranks - s->made);
        if (spare < k) {
            dk_wg_task t;
            if (zero_waits(s) && dk_workgraph_peek(s->g, &t) && !(t.kind == DK_WG_UNIT && s->g->units[t.id].split)) {
                dk_heap_pop(&s->idle, &a.rank);
                dk_workgraph_take(s->g, &a.task);
                a.kind = DK_SCHED_TASK;
            }
            return a;
        }
        /* the ranks that would wait anyway, every ready task given one: in the group too, as far
         * as it has parts, for speed */
        uint64_t ready = dk_workgraph_nready(s->g), left = spare + (zero_waits(s) ? 1 : 0);
        left = left > ready ? left - ready : 0;
        left = left < spare ? left : spare;
        if (!s->fixed && left > k)
            k = (uint32_t)(left < parts ? left : parts);
        s->held = -1;
        s->taking = true;
        return (dk_sched_grant){DK_SCHED_SPLIT, 0, {DK_WG_UNIT, u}, k, false};
    }
    if (!all_wait(s))
        return a;
    s->splitting = s->held;
    s->held = -1;
    return (dk_sched_grant){DK_SCHED_SPLIT, 0, {DK_WG_UNIT, u}, s->nranks, true};
}

dk_sched_grant dk_sched_next(dk_sched *s)
{
    dk_sched_grant a = {DK_SCHED_WAIT, 0, {DK_WG_UNIT, 0}, 0, false};
    s->taking = false;
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
    if (s->held >= 0)
        return start_held(s, a);
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
    bool took = dk_workgraph_take(s->g, &a.task);
    DK_ASSERT(took && a.rank < s->made); /* a task was ready; the rank was made */
    if (a.task.kind != DK_WG_UNIT || !s->g->units[a.task.id].split) {
        a.kind = DK_SCHED_TASK;
        return a;
    }
    s->held = a.task.id; /* it waits for the ranks of its group, and so does the rank */
    dk_heap_push(&s->idle, &a.rank);
    return start_held(s, a);
}
