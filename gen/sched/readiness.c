/* The scheduling state of the work graph: which tasks are done, taken, ready or waiting. The
 * one place that decides when a task may run (workgraph.h). */
#include "workgraph.h"

#include <stdlib.h>
#include <string.h>

#include "../../rules/check.h"

/* Heap keys: finishes sort before packings, scans and units, each kind by id. */
static const dk_wg_kind BY_KEY[] = {DK_WG_FINISH, DK_WG_PACK, DK_WG_SCAN, DK_WG_UNIT};

static uint64_t key_of(dk_wg_task t)
{
    uint64_t k = t.kind == DK_WG_FINISH ? 0 : t.kind == DK_WG_PACK ? 1 : t.kind == DK_WG_SCAN ? 2 : 3;
    return k << 32 | t.id;
}

static dk_wg_task task_of(uint64_t key) { return (dk_wg_task){BY_KEY[key >> 32], (uint32_t)key}; }

/* Where task t's state and priority are kept. */
static uint8_t *state_of(dk_workgraph *g, dk_wg_task t)
{
    switch (t.kind) {
    case DK_WG_UNIT: return &g->unit_state[t.id];
    case DK_WG_FINISH: return &g->finish_state[t.id];
    case DK_WG_SCAN: return &g->part_state[t.id];
    default: return &g->part_state[g->nparts + t.id];
    }
}

static double prio_of(const dk_workgraph *g, dk_wg_task t)
{
    switch (t.kind) {
    case DK_WG_UNIT: return g->unit_prio[t.id];
    case DK_WG_FINISH: return g->finish_prio[t.id];
    case DK_WG_SCAN: return g->part_prio[t.id];
    default: return g->part_prio[g->nparts + t.id];
    }
}

/* The heap's order: the highest priority first, then the lowest key. */
static bool ready_less(const void *a, const void *b)
{
    const dk_wg_ready *x = a, *y = b;
    return x->prio != y->prio ? x->prio > y->prio : x->key < y->key;
}

static void push(dk_workgraph *g, dk_wg_task t)
{
    DK_ASSERT(*state_of(g, t) == DK_WG_READY); /* made ready once, just now */
    dk_wg_ready r = {prio_of(g, t), key_of(t)};
    dk_heap_push(&g->ready, &r);
}

/* The layer one level up in the same pair, whose man moves lead into this one, or -1. */
static int64_t layer_above(const dk_workgraph *g, uint32_t li)
{
    const dk_layer *l = &g->layers[li];
    if (li == g->pairs[l->pair].first_layer || g->layers[li - 1].level != l->level + 1)
        return -1;
    return (int64_t)li - 1;
}

static bool is_set(const uint64_t *bits, uint32_t i) { return bits && (bits[i / 64] >> (i % 64) & 1); }

/* Layer li's units become ready: its conditions all hold. */
static uint32_t open_layer(dk_workgraph *g, uint32_t li)
{
    const dk_layer *l = &g->layers[li];
    uint32_t n = 0;
    for (uint32_t u = l->first_unit; u < l->first_unit + l->nunits; u++)
        if (g->unit_state[u] == DK_WG_WAITING) {
            g->unit_state[u] = DK_WG_READY;
            push(g, (dk_wg_task){DK_WG_UNIT, u});
            n++;
        }
    return n;
}

/* One condition of layer li now holds; if it was the last, the layer opens. */
static uint32_t release(dk_workgraph *g, uint32_t li)
{
    DK_ASSERT(g->layer_waiting[li] > 0); /* each condition holds once */
    return --g->layer_waiting[li] == 0 ? open_layer(g, li) : 0;
}

static uint32_t open_finish(dk_workgraph *g, uint32_t pair)
{
    DK_ASSERT(g->finish_state[pair] == DK_WG_WAITING);
    g->finish_state[pair] = DK_WG_READY;
    push(g, (dk_wg_task){DK_WG_FINISH, pair});
    return 1;
}

/* The pair's parts of kind k (scans or packings) not done become ready; if none is left, what
 * follows them does (the packings, the finish). */
static uint32_t open_parts(dk_workgraph *g, uint32_t pair, dk_wg_kind k)
{
    const dk_wpair *p = &g->pairs[pair];
    if ((k == DK_WG_SCAN ? g->scans_left : g->packs_left)[pair] == 0)
        return k == DK_WG_SCAN ? open_parts(g, pair, DK_WG_PACK) : open_finish(g, pair);
    uint32_t n = 0;
    for (uint32_t q = p->first_part; q < p->first_part + p->nparts; q++) {
        dk_wg_task t = {k, q};
        if (*state_of(g, t) == DK_WG_WAITING) {
            *state_of(g, t) = DK_WG_READY;
            push(g, t);
            n++;
        }
    }
    return n;
}

/* Every unit of the pair is done: its finish, or its finishing's parts, become ready. */
static uint32_t open_finishing(dk_workgraph *g, uint32_t pair)
{
    return g->pairs[pair].nparts ? open_parts(g, pair, DK_WG_SCAN) : open_finish(g, pair);
}

void dk_workgraph_reset(dk_workgraph *g, const uint64_t *units_done, const uint64_t *pairs_finished)
{
    dk_workgraph_reset_parts(g, units_done, pairs_finished, NULL);
}

void dk_workgraph_reset_parts(dk_workgraph *g, const uint64_t *units_done, const uint64_t *pairs_finished,
                              const uint64_t *parts_done)
{
    g->ready = (dk_heap){g->ready.data, sizeof(dk_wg_ready), 0, ready_less};
    g->pairs_open = 0;
    memset(g->pair_left, 0, g->npairs * sizeof *g->pair_left);
    for (uint32_t p = 0; p < g->npairs; p++) {
        g->finish_state[p] = is_set(pairs_finished, p) ? DK_WG_DONE : DK_WG_WAITING;
        g->pairs_open += g->finish_state[p] != DK_WG_DONE;
        g->scans_left[p] = g->packs_left[p] = 0;
    }
    for (uint32_t q = 0; q < g->nparts; q++) {
        uint32_t p = g->parts[q].pair;
        bool finished = g->finish_state[p] == DK_WG_DONE;
        bool scanned = finished || is_set(parts_done, q), packed = finished || is_set(parts_done, g->nparts + q);
        g->part_state[q] = scanned ? DK_WG_DONE : DK_WG_WAITING;
        g->part_state[g->nparts + q] = packed ? DK_WG_DONE : DK_WG_WAITING;
        g->scans_left[p] += !scanned;
        g->packs_left[p] += !packed;
    }
    for (uint32_t li = 0; li < g->nlayers; li++) {
        const dk_layer *l = &g->layers[li];
        bool finished = g->finish_state[l->pair] == DK_WG_DONE;
        g->layer_left[li] = 0;
        for (uint32_t u = l->first_unit; u < l->first_unit + l->nunits; u++) {
            bool done = finished || is_set(units_done, u);
            g->unit_state[u] = done ? DK_WG_DONE : DK_WG_WAITING;
            g->layer_left[li] += !done;
        }
        g->pair_left[l->pair] += g->layer_left[li] > 0;
    }
    for (uint32_t p = 0; p < g->npairs; p++)
        if (g->finish_state[p] == DK_WG_WAITING && g->pair_left[p] == 0)
            open_finishing(g, p);
    for (uint32_t li = 0; li < g->nlayers; li++) {
        const dk_wpair *p = &g->pairs[g->layers[li].pair];
        int64_t above = layer_above(g, li);
        g->layer_waiting[li] = above >= 0 && g->layer_left[above] > 0;
        for (uint32_t j = 0; j < p->ndeps; j++)
            g->layer_waiting[li] += g->finish_state[g->deps[p->first_dep + j]] != DK_WG_DONE;
        if (g->layer_waiting[li] == 0)
            open_layer(g, li);
    }
}

/* The highest priority of pair q's units. */
static double pair_top(const dk_workgraph *g, const dk_wpair *q)
{
    double top = 0;
    for (uint32_t li = q->first_layer; li < q->first_layer + q->nlayers; li++)
        for (uint32_t u = g->layers[li].first_unit; u < g->layers[li].first_unit + g->layers[li].nunits; u++)
            top = g->unit_prio[u] > top ? g->unit_prio[u] : top;
    return top;
}

void dk_workgraph_prioritize(dk_workgraph *g, const double *unit_cost, const double *finish_cost,
                             const double *part_cost)
{
    /* A pair's finish opens the layers of the pairs that read it, which have higher ids: pairs
     * are done from the last, the layers of a pair from the lowest level up. */
    for (uint32_t pi = g->npairs; pi-- > 0;) {
        const dk_wpair *p = &g->pairs[pi];
        double after = 0;
        for (uint32_t j = 0; j < p->nrdeps; j++) {
            double top = pair_top(g, &g->pairs[g->rdeps[p->first_rdep + j]]);
            after = top > after ? top : after;
        }
        g->finish_prio[pi] = finish_cost[pi] + after;
        /* a finishing in parts: every packing waits for every scan; the finish for every packing */
        double packs = g->finish_prio[pi], scans = 0;
        for (uint32_t q = p->first_part; q < p->first_part + p->nparts; q++) {
            g->part_prio[g->nparts + q] = (part_cost ? part_cost[g->nparts + q] : 0) + g->finish_prio[pi];
            packs = g->part_prio[g->nparts + q] > packs ? g->part_prio[g->nparts + q] : packs;
        }
        for (uint32_t q = p->first_part; q < p->first_part + p->nparts; q++) {
            g->part_prio[q] = (part_cost ? part_cost[q] : 0) + packs;
            scans = g->part_prio[q] > scans ? g->part_prio[q] : scans;
        }
        double first = p->nparts ? scans : g->finish_prio[pi]; /* what the last unit releases */
        double below = 0; /* the highest priority of the layer below */
        for (uint32_t li = p->first_layer + p->nlayers; li-- > p->first_layer;) {
            const dk_layer *l = &g->layers[li];
            bool waits = li + 1 < p->first_layer + p->nlayers && layer_above(g, li + 1) == (int64_t)li;
            double next = waits && below > first ? below : first;
            below = 0;
            for (uint32_t u = l->first_unit; u < l->first_unit + l->nunits; u++) {
                g->unit_prio[u] = unit_cost[u] + next;
                below = g->unit_prio[u] > below ? g->unit_prio[u] : below;
            }
        }
    }
}

bool dk_workgraph_take(dk_workgraph *g, dk_wg_task *t)
{
    dk_wg_ready r;
    if (g->ready.n == 0)
        return false;
    dk_heap_pop(&g->ready, &r);
    *t = task_of(r.key);
    DK_ASSERT(*state_of(g, *t) == DK_WG_READY); /* in the heap once, and only while ready */
    *state_of(g, *t) = DK_WG_TAKEN;
    return true;
}

bool dk_workgraph_peek(const dk_workgraph *g, dk_wg_task *t)
{
    if (g->ready.n == 0)
        return false;
    *t = task_of(((const dk_wg_ready *)dk_heap_top(&g->ready))->key);
    return true;
}

static uint32_t unit_done(dk_workgraph *g, uint32_t u)
{
    uint32_t li = g->units[u].layer, pair = g->units[u].pair, n = 0;
    g->unit_state[u] = DK_WG_DONE;
    DK_ASSERT(g->layer_left[li] > 0 && g->pair_left[pair] > 0);
    if (--g->layer_left[li] > 0)
        return 0;
    uint32_t below = li + 1;
    if (below < g->nlayers && layer_above(g, below) == (int64_t)li)
        n += release(g, below);
    if (--g->pair_left[pair] == 0)
        n += open_finishing(g, pair);
    return n;
}

static uint32_t part_done(dk_workgraph *g, dk_wg_task t)
{
    uint32_t pair = g->parts[t.id].pair;
    *state_of(g, t) = DK_WG_DONE;
    DK_ASSERT((t.kind == DK_WG_SCAN ? g->scans_left : g->packs_left)[pair] > 0);
    if (t.kind == DK_WG_SCAN)
        return --g->scans_left[pair] == 0 ? open_parts(g, pair, DK_WG_PACK) : 0;
    return --g->packs_left[pair] == 0 ? open_finish(g, pair) : 0;
}

static uint32_t finish_done(dk_workgraph *g, uint32_t pair)
{
    const dk_wpair *p = &g->pairs[pair];
    uint32_t n = 0;
    g->finish_state[pair] = DK_WG_DONE;
    DK_ASSERT(g->pairs_open > 0);
    g->pairs_open--;
    for (uint32_t j = 0; j < p->nrdeps; j++) {
        const dk_wpair *d = &g->pairs[g->rdeps[p->first_rdep + j]];
        for (uint32_t k = 0; k < d->nlayers; k++)
            n += release(g, d->first_layer + k);
    }
    return n;
}

uint32_t dk_workgraph_done(dk_workgraph *g, dk_wg_task t)
{
    if (t.kind == DK_WG_UNIT)
        return t.id < g->nunits && g->unit_state[t.id] == DK_WG_TAKEN ? unit_done(g, t.id) : 0;
    if (t.kind == DK_WG_FINISH)
        return t.id < g->npairs && g->finish_state[t.id] == DK_WG_TAKEN ? finish_done(g, t.id) : 0;
    if (t.kind == DK_WG_SCAN || t.kind == DK_WG_PACK)
        return t.id < g->nparts && *state_of(g, t) == DK_WG_TAKEN ? part_done(g, t) : 0;
    return 0;
}
