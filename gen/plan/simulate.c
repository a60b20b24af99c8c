#include "simulate.h"

#include <stdlib.h>

#include "budget.h"
#include "costmodel.h"
#include "../store/clockcache.h"
#include "../sched/scheduler.h"
#include "../sched/subslice.h"

typedef struct event {
    double end;
    uint32_t rank;
    dk_wg_task task;
} event;

/* A finished table as the simulation reads it: in chunks (READ_CHUNKS, or fewer of a block
 * each), as gen/solve/finished.c decodes blocks. A unit of a pair reads, of each table its exits
 * reach, the chunks of a span as wide as `spread` times its share of the pair's positions,
 * placed where the unit lies in its pair: a unit's exits reach a few subslices of each table,
 * and the units of a pair together reach all of it. */
enum { READ_CHUNKS = 256, READ_BLOCK = 16384 };

/* A rank as the simulation sees it: the chunks of decoded tables it holds (clockcache.h, keyed
 * table * READ_CHUNKS + chunk), and the bytes it read. */
typedef struct sim_rank {
    dk_clock held;
    uint64_t read;
} sim_rank;

/* A table's chunks as a rank reads them. */
typedef struct table_chunks {
    uint32_t n;         /* chunks of the table */
    double positions;   /* of a chunk */
    uint64_t bytes;     /* a rank holds for one decoded */
    uint64_t read;      /* compressed bytes read to decode one */
    double seconds;     /* decoding one takes */
} table_chunks;

/* The tables a unit of each pair reads: its two materials' exits. A table is a material of the
 * graph, numbered 2 x pair + (0 for the pair's canonical material, 1 for its twin). */
typedef struct reads {
    uint32_t *first, *count; /* by pair, into ids */
    uint32_t *ids;
    uint64_t *positions;     /* by table */
    table_chunks *chunks;    /* by table */
} reads;

typedef struct sim {
    dk_workgraph *g;
    const dk_forecast_model *m;
    dk_sched core;         /* who gets what (scheduler.h), ranks made on demand */
    dk_heap events;        /* running tasks, by end, then rank */
    sim_rank *ranks;       /* ranks[0..nranks): up to the highest that read tables so far */
    uint32_t nranks, cap;
    reads rd;
    double *unit_at;       /* by unit: the share of its pair's positions in the units before it */
    uint32_t *pred;        /* by task (task_number): the task that ended as it began, or NO_TASK */
    double *cost, *decode; /* by task: its seconds, and a unit's decoding */
    uint32_t last;         /* the task that ended last so far, or NO_TASK */
    double work_bytes, disk_bytes, written;
    const dk_forecast_watch *watch; /* or NULL */
    dk_forecast *out;
} sim;

enum { NO_TASK = UINT32_MAX };

/* Task t's number: units, then pairs' finishes, then scans, then packings. */
static uint32_t task_number(const dk_workgraph *g, dk_wg_task t)
{
    switch (t.kind) {
    case DK_WG_UNIT: return t.id;
    case DK_WG_FINISH: return g->nunits + t.id;
    case DK_WG_SCAN: return g->nunits + g->npairs + t.id;
    default: return g->nunits + g->npairs + g->nparts + t.id;
    }
}

/* The task numbered n (task_number). */
static dk_wg_task task_of_number(const dk_workgraph *g, uint32_t n)
{
    if (n < g->nunits)
        return (dk_wg_task){DK_WG_UNIT, n};
    n -= g->nunits;
    if (n < g->npairs)
        return (dk_wg_task){DK_WG_FINISH, n};
    n -= g->npairs;
    return n < g->nparts ? (dk_wg_task){DK_WG_SCAN, n} : (dk_wg_task){DK_WG_PACK, n - g->nparts};
}

/* Task t starts: its link to the chain, its cost and decoding. */
static void record_start(sim *s, dk_wg_task t, double cost, double decode)
{
    uint32_t n = task_number(s->g, t);
    s->pred[n] = s->last;
    s->cost[n] = cost;
    s->decode[n] = decode;
}

const char *dk_forecast_link_name(dk_forecast_link k)
{
    static const char *const names[DK_LINK_KINDS] = {"units", "split units", "finishings", "scans", "packings", "joins"};
    return names[k];
}

dk_forecast_link dk_forecast_link_of(const dk_workgraph *g, dk_wg_task t)
{
    switch (t.kind) {
    case DK_WG_UNIT: return g->units[t.id].split ? DK_LINK_SPLIT : DK_LINK_UNIT;
    case DK_WG_FINISH: return g->pairs[t.id].nparts ? DK_LINK_JOIN : DK_LINK_FINISH;
    case DK_WG_SCAN: return DK_LINK_SCAN;
    default: return DK_LINK_PACK;
    }
}

/* The chain back from the task that ended last into s->out. */
static void walk_chain(sim *s)
{
    const dk_workgraph *g = s->g;
    for (uint32_t n = s->last; n != NO_TASK; n = s->pred[n]) {
        dk_forecast_link k = dk_forecast_link_of(g, task_of_number(g, n));
        s->out->chain[k].tasks++;
        s->out->chain[k].seconds += s->cost[n];
        s->out->chain_decode += s->decode[n];
    }
}

static bool event_less(const void *a, const void *b)
{
    const event *x = a, *y = b;
    return x->end < y->end || (x->end == y->end && x->rank < y->rank);
}

/* Rank r's state, made (with every rank below it) when it first reads tables. Returns it, or
 * NULL when out of memory. */
static sim_rank *sim_rank_at(sim *s, uint32_t r)
{
    if (r >= s->cap) {
        uint32_t cap = s->cap ? s->cap : 16;
        while (cap <= r)
            cap *= 2;
        sim_rank *more = realloc(s->ranks, cap * sizeof *more);
        if (!more)
            return NULL;
        s->ranks = more;
        s->cap = cap;
    }
    for (; s->nranks <= r; s->nranks++) {
        s->ranks[s->nranks].read = 0;
        if (dk_clock_init(&s->ranks[s->nranks].held, 2 * s->g->npairs * READ_CHUNKS) != 0)
            return NULL;
    }
    return &s->ranks[r];
}

/* Adds table `id` to the reads of the pair being listed (which starts at ids[first]) once. */
static bool add_read(reads *r, size_t first, size_t *n, size_t *cap, uint32_t id)
{
    for (size_t i = first; i < *n; i++)
        if (r->ids[i] == id)
            return true;
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        uint32_t *more = realloc(r->ids, c * sizeof *more);
        if (!more)
            return false;
        r->ids = more;
        *cap = c;
    }
    r->ids[(*n)++] = id;
    return true;
}

static void reads_free(reads *r)
{
    free(r->first);
    free(r->count);
    free(r->ids);
    free(r->positions);
    free(r->chunks);
    *r = (reads){NULL, NULL, NULL, NULL, NULL};
}

/* The chunks of table `id` under model m into r->chunks[id]. */
static void table_chunks_of(reads *r, const dk_forecast_model *m, uint32_t id)
{
    uint64_t blocks = (r->positions[id] + READ_BLOCK - 1) / READ_BLOCK;
    table_chunks *t = &r->chunks[id];
    t->n = blocks < READ_CHUNKS ? (uint32_t)(blocks ? blocks : 1) : READ_CHUNKS;
    t->positions = (double)r->positions[id] / t->n;
    /* held: its DTW values and, with a draw rule, its rule values, a byte each where they fit
     * one (every table made so far), and a bit a position (finished.c); measured: 2.13 bytes a
     * position with the rule (Russian up to 6 pieces, docs/measurements.md) */
    t->bytes = (uint64_t)(t->positions * ((m->limit ? 2 : 1) + 0.125));
    t->read = (uint64_t)(t->positions * (m->table_bits[1] + m->table_bits[2]) / 8);
    t->seconds = t->positions * m->decode_seconds;
}

/* The tables each pair's units read, and their chunks under m. */
static int reads_build(const dk_workgraph *g, const dk_forecast_model *m, reads *r)
{
    size_t np = g->npairs, n = 0, cap = 0;
    *r = (reads){calloc(np + 1, sizeof(uint32_t)), calloc(np + 1, sizeof(uint32_t)), NULL,
                 calloc(2 * np + 1, sizeof(uint64_t)), calloc(2 * np + 1, sizeof(table_chunks))};
    bool ok = r->first && r->count && r->positions && r->chunks && 2 * np * READ_CHUNKS < UINT32_MAX;
    for (uint32_t p = 0; ok && p < np; p++) {
        const dk_wpair *pp = &g->pairs[p];
        r->positions[2 * p] = pp->ix.size;
        r->positions[2 * p + 1] = pp->self_twin ? 0 : pp->ix_twin.size;
        r->first[p] = (uint32_t)n;
        for (int side = 0; ok && side <= !pp->self_twin; side++) {
            dk_material m = side ? pp->twin : pp->m;
            size_t ne = dk_material_exits(g->v, m, NULL, 0);
            dk_material *exits = malloc((ne ? ne : 1) * sizeof *exits);
            ok = exits != NULL;
            ne = ok ? dk_material_exits(g->v, m, exits, ne) : 0;
            for (size_t e = 0; ok && e < ne; e++) {
                int d = dk_workgraph_pair_of(g, exits[e]);
                ok = d >= 0 && add_read(r, r->first[p], &n, &cap,
                                        2 * (uint32_t)d + !dk_material_equal(exits[e], g->pairs[d].m));
            }
            free(exits);
        }
        r->count[p] = (uint32_t)n - r->first[p];
        for (uint32_t side = 0; side < 2; side++)
            table_chunks_of(r, m, 2 * p + side);
    }
    if (!ok)
        reads_free(r);
    return ok ? 0 : -1;
}

/* Rank k reads chunk c of table `id`: decoded when not held, chunks the rank read least recently
 * dropped (a clock) to make room. Returns the seconds decoding takes, or -1 when out of memory. */
static double read_chunk(sim *s, sim_rank *k, uint32_t id, uint32_t c)
{
    uint32_t key = id * READ_CHUNKS + c;
    int held = dk_clock_read(&k->held, key);
    if (held != 0)
        return held > 0 ? 0 : -1;
    const table_chunks *t = &s->rd.chunks[id];
    k->read += t->read;
    if (dk_clock_add(&k->held, key, t->bytes, s->m->cache_bytes) != 0)
        return -1;
    if (k->held.held > s->out->held_peak_bytes)
        s->out->held_peak_bytes = k->held.held;
    s->out->decode_work += t->seconds;
    return t->seconds;
}

/* Rank r reads, for the share [lo, hi) of unit u's pair that it solves, the chunks of every
 * table the pair's exits reach (see READ_CHUNKS); returns the seconds decoding them takes, or
 * -1 when out of memory. */
static double read_tables(sim *s, uint32_t r, uint32_t u, double lo, double hi)
{
    sim_rank *k = sim_rank_at(s, r);
    if (!k)
        return -1;
    uint32_t p = s->g->units[u].pair, nt = s->rd.count[p];
    const uint32_t *ids = &s->rd.ids[s->rd.first[p]];
    double mid = (lo + hi) / 2, half = s->m->read_spread * (hi - lo) / 2, seconds = 0;
    double from = mid - half < 0 ? 0 : mid - half, to = mid + half > 1 ? 1 : mid + half;
    /* The states of the first chunk of each table asked for first: most are far in memory. */
    for (uint32_t j = 0; j < nt; j++)
        dk_clock_prefetch_page(&k->held, ids[j] * READ_CHUNKS);
    for (uint32_t j = 0; j < nt; j++) {
        uint32_t n = s->rd.chunks[ids[j]].n, c0 = (uint32_t)(from * n);
        dk_clock_prefetch(&k->held, ids[j] * READ_CHUNKS + (c0 < n ? c0 : n - 1));
    }
    for (uint32_t j = 0; j < nt; j++) {
        uint32_t id = ids[j], n = s->rd.chunks[id].n;
        uint32_t c0 = (uint32_t)(from * n), c1 = (uint32_t)(to * n);
        for (uint32_t c = c0 < n ? c0 : n - 1; c <= c1 && c < n; c++) {
            double d = read_chunk(s, k, id, c);
            if (d < 0)
                return -1;
            seconds += d;
        }
    }
    return seconds;
}

/* The share of its pair unit u covers: [unit_at, unit_at + its positions / the pair's). */
static double unit_share(const sim *s, uint32_t u)
{
    double pair = (double)s->g->pairs[s->g->units[u].pair].positions;
    return pair > 0 ? (double)s->g->units[u].counted / pair : 0;
}

/* Rank r starts task t, holding `positions` of it (a unit, a rank's share of a split unit, a
 * pair or part finished): what it holds then, the run's memory peak if the most so far. */
static void note_memory(sim *s, uint32_t r, dk_wg_task t, uint64_t positions)
{
    const dk_budget *b = &s->m->budget;
    if (!b->memory)
        return;
    uint64_t tables = r < s->nranks ? s->ranks[r].held.held : 0;
    dk_budget_use u = t.kind == DK_WG_UNIT ? dk_budget_unit_use(b, positions, s->m->limit, tables)
                                           : dk_budget_finish_use(b, positions, s->m->limit, tables);
    if (dk_budget_use_total(&u) > dk_budget_use_total(&s->out->memory_peak)) {
        s->out->memory_peak = u;
        s->out->memory_task = t;
    }
}

/* The positions finishing task t holds (as dk_setup_largest counts them): a part, or a pair
 * finished whole, or for a join its largest part. */
static uint64_t finish_positions(const dk_workgraph *g, dk_wg_task t)
{
    if (t.kind == DK_WG_SCAN || t.kind == DK_WG_PACK)
        return g->parts[t.id].hi - g->parts[t.id].lo;
    const dk_wpair *wp = &g->pairs[t.id];
    uint64_t most = wp->nparts ? 0 : wp->positions;
    for (uint32_t q = wp->first_part; q < wp->first_part + wp->nparts; q++)
        most = g->parts[q].hi - g->parts[q].lo > most ? g->parts[q].hi - g->parts[q].lo : most;
    return most;
}

/* Bytes of a pair's files at `bits` a position. */
static double pair_bytes(const dk_workgraph *g, uint32_t p, double bits)
{
    return (double)g->pairs[p].positions * bits / 8;
}

/* Tells the watcher, if any, that grant a is carried out on `ranks`, taking *seconds. */
static void tell(const sim *s, const dk_sched_grant *a, const uint32_t *ranks, double *seconds)
{
    if (s->watch && s->watch->handed)
        s->watch->handed(s->watch->ctx, a, ranks, seconds);
}

/* Task a->task starts on rank a->rank: it ends after its cost and the decoding of the tables
 * it reads that its rank does not hold. Returns -1 when out of memory. */
static int start(sim *s, const dk_sched_grant *a, double now)
{
    const dk_workgraph *g = s->g;
    uint32_t r = a->rank;
    dk_wg_task t = a->task;
    double cost = dk_forecast_cost(g, s->m, t), decode = 0;
    if (t.kind == DK_WG_UNIT) {
        decode = read_tables(s, r, t.id, s->unit_at[t.id], s->unit_at[t.id] + unit_share(s, t.id));
        if (decode < 0)
            return -1;
        cost += decode;
        note_memory(s, r, t, g->units[t.id].positions);
    } else {
        note_memory(s, r, t, finish_positions(g, t));
    }
    tell(s, a, &r, &cost);
    record_start(s, t, cost, decode);
    s->out->work += cost;
    if (cost > s->out->longest) {
        s->out->longest = cost;
        s->out->longest_task = t;
    }
    event e = {now + cost, r, t};
    dk_heap_push(&s->events, &e);
    if (s->events.n > s->out->peak_parallel)
        s->out->peak_parallel = (uint32_t)s->events.n;
    return 0;
}

/* Files on disk when task t ends: a unit adds its file to DIR/work, a finish writes the pair's
 * tables and removes its unit files (and its parts' files: a part's values as a unit file
 * holds them, its packed blocks as the tables). */
static void account_files(sim *s, dk_wg_task t)
{
    const dk_workgraph *g = s->g;
    const dk_forecast_model *m = s->m;
    if (t.kind == DK_WG_SCAN || t.kind == DK_WG_PACK) {
        double bits = t.kind == DK_WG_SCAN ? m->unit_bits : m->table_bits[0] + m->table_bits[1] + m->table_bits[2];
        double b = (double)(g->parts[t.id].hi - g->parts[t.id].lo) * bits / 8;
        s->work_bytes += b;
        s->disk_bytes += b;
        s->written += b;
    } else if (t.kind == DK_WG_UNIT) {
        double b = (double)g->units[t.id].counted * m->unit_bits / 8;
        s->work_bytes += b;
        s->disk_bytes += b;
        s->written += b;
    } else {
        double tables = pair_bytes(g, t.id, m->table_bits[0] + m->table_bits[1] + m->table_bits[2]);
        double units = pair_bytes(g, t.id, m->unit_bits) * (g->pairs[t.id].nparts ? 2 : 1) +
                       (g->pairs[t.id].nparts ? tables : 0);
        s->work_bytes -= units;
        s->disk_bytes += tables - units;
        s->out->table_bytes += (uint64_t)tables;
        s->written += tables;
    }
    if (s->work_bytes > (double)s->out->work_peak_bytes)
        s->out->work_peak_bytes = (uint64_t)s->work_bytes;
    if (s->disk_bytes > (double)s->out->disk_peak_bytes)
        s->out->disk_peak_bytes = (uint64_t)s->disk_bytes;
}

/* Split unit a->task.id starts on the a->ranks ranks of its group (scheduler.h), taken here:
 * its cost on them (dk_forecast_split_cost) and the decoding of the rank that decodes most.
 * Returns -1 when out of memory. */
static int start_split(sim *s, const dk_sched_grant *a, double now)
{
    const dk_workgraph *g = s->g;
    uint32_t u = a->task.id, ranks = a->ranks;
    double cost = dk_forecast_split_cost(g, s->m, u, ranks);
    uint32_t *taking = malloc((size_t)ranks * sizeof *taking);
    if (!taking)
        return -1;
    /* Its rounds wait for every rank: the one decoding the most tables delays them all. Each
     * reads for its share of the unit's positions. */
    double decode = 0, at = s->unit_at[u], share = unit_share(s, u) / (double)ranks;
    for (uint32_t k = 0; k < ranks; k++) {
        double d = dk_sched_take_rank(&s->core, &taking[k]) > 0 ? read_tables(s, taking[k], u, at + share * (double)k,
                                                          at + share * (double)(k + 1)) : -1;
        if (d < 0) {
            free(taking);
            return -1;
        }
        decode = d > decode ? d : decode;
        note_memory(s, taking[k], (dk_wg_task){DK_WG_UNIT, u}, dk_workgraph_held(g, u, ranks));
    }
    cost += decode;
    tell(s, a, taking, &cost);
    record_start(s, (dk_wg_task){DK_WG_UNIT, u}, cost, decode);
    for (uint32_t k = 0; k < ranks; k++) {
        /* one event carries the task, the others only free their rank */
        event e = {now + cost, taking[k], {k == 0 ? DK_WG_UNIT : 0, u}};
        dk_heap_push(&s->events, &e);
    }
    free(taking);
    s->out->work += cost * (double)ranks;
    if (cost > s->out->longest) {
        s->out->longest = cost;
        s->out->longest_task = (dk_wg_task){DK_WG_UNIT, u};
    }
    if (s->events.n > s->out->peak_parallel)
        s->out->peak_parallel = (uint32_t)s->events.n;
    return 0;
}

/* Starts what the scheduler's core hands out now, as gen's rank 0 sends it. Returns -1 when out
 * of memory, or when the core finds no work ready though pairs are unfinished. */
static int assign(sim *s, double now)
{
    for (;;) {
        dk_sched_grant a = dk_sched_next(&s->core);
        int rc = 0;
        if (a.kind == DK_SCHED_TASK)
            rc = start(s, &a, now);
        else if (a.kind == DK_SCHED_SPLIT)
            rc = start_split(s, &a, now);
        else if (a.kind == DK_SCHED_STOP) /* a stopped rank's run is over */
            tell(s, &a, &a.rank, NULL);
        else
            return a.kind == DK_SCHED_WAIT ? 0 : -1;
        if (rc != 0)
            return -1;
    }
}

/* Where each unit lies in its pair: the share of the pair's positions in its units before it. */
static void all_unit_at(const sim *s)
{
    double before = 0;
    for (uint32_t u = 0; u < s->g->nunits; u++) {
        if (u == 0 || s->g->units[u].pair != s->g->units[u - 1].pair)
            before = 0;
        s->unit_at[u] = before;
        before += unit_share(s, u);
    }
}

int dk_forecast_watched(dk_workgraph *g, const dk_forecast_model *m, uint32_t ranks, const dk_forecast_watch *w,
                        dk_forecast *out)
{
    sim s = {.g = g, .m = m, .watch = w, .out = out};
    *out = (dk_forecast){.ranks = ranks};
    s.unit_at = malloc((g->nunits + 1) * sizeof *s.unit_at);
    size_t tasks = (size_t)g->nunits + g->npairs + 2 * (size_t)g->nparts;
    s.pred = malloc(tasks * sizeof *s.pred);
    s.cost = malloc(tasks * sizeof *s.cost);
    s.decode = malloc(tasks * sizeof *s.decode);
    s.last = NO_TASK;
    /* Room for every task running at once, and for the ranks split units take besides: at most
     * one a part, groups side by side. */
    double parts = 0;
    for (uint32_t u = 0; u < g->nunits; u++)
        if (g->units[u].split)
            parts += (double)g->units[u].counted / (double)g->max_positions + 1;
    size_t room = (size_t)g->nunits + g->npairs + 2 * (size_t)g->nparts + 2 + (size_t)parts;
    s.events = (dk_heap){malloc(room * sizeof(event)), sizeof(event), 0, event_less};
    int rc = dk_sched_init(&s.core, g, ranks ? ranks : 1, true, w ? w->group : 0);
    rc = rc == 0 && s.events.data && s.unit_at && s.pred && s.cost && s.decode ? reads_build(g, m, &s.rd)
                                                                                                 : -1;
    if (rc == 0)
        all_unit_at(&s);
    dk_workgraph_reset(g, NULL, NULL);
    double now = 0;
    if (rc == 0)
        rc = assign(&s, now);
    while (rc == 0 && s.events.n > 0) {
        /* Every task ending now reports before anything is handed out. */
        now = ((const event *)dk_heap_top(&s.events))->end;
        while (s.events.n > 0 && ((const event *)dk_heap_top(&s.events))->end == now) {
            event e;
            dk_heap_pop(&s.events, &e);
            if (e.task.kind != 0) {
                s.last = task_number(g, e.task);
                dk_sched_done(&s.core, e.task);
                account_files(&s, e.task);
            }
            dk_sched_waits(&s.core, e.rank);
        }
        rc = assign(&s, now);
    }
    out->wall = now;
    out->written_bytes = (uint64_t)s.written;
    out->ranks_used = s.core.made;
    if (rc == 0)
        walk_chain(&s);
    for (uint32_t r = 0; r < s.nranks; r++) {
        out->read_bytes += s.ranks[r].read;
        if (s.ranks[r].read > out->read_max_bytes)
            out->read_max_bytes = s.ranks[r].read;
        dk_clock_free(&s.ranks[r].held);
    }
    free(s.ranks);
    free(s.events.data);
    dk_sched_free(&s.core);
    free(s.unit_at);
    free(s.pred);
    free(s.cost);
    free(s.decode);
    reads_free(&s.rd);
    return rc == 0 && dk_workgraph_all_finished(g) ? 0 : -1;
}

int dk_forecast_run(dk_workgraph *g, const dk_forecast_model *m, uint32_t ranks, dk_forecast *out)
{
    return dk_forecast_watched(g, m, ranks, NULL, out);
}

uint32_t dk_forecast_saturation(dk_workgraph *g, const dk_forecast_model *m, double tolerance,
                                dk_forecast *at, dk_forecast *unlimited)
{
    if (dk_forecast_run(g, m, DK_FORECAST_UNLIMITED, unlimited) != 0)
        return 0;
    double target = unlimited->wall * (1 + tolerance);
    uint32_t lo = 1, hi = unlimited->peak_parallel ? unlimited->peak_parallel : 1;
    /* The forecast at hi once a run moved it there: the answer when the bisection ends, not run
     * again (a run is the same every time). */
    dk_forecast mid_run, at_hi;
    bool have_hi = false;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (dk_forecast_run(g, m, mid, &mid_run) != 0)
            return 0;
        if (mid_run.wall <= target) {
            hi = mid;
            at_hi = mid_run;
            have_hi = true;
        } else {
            lo = mid + 1;
        }
    }
    if (have_hi) {
        *at = at_hi;
        return lo;
    }
    return dk_forecast_run(g, m, lo, at) == 0 ? lo : 0;
}
