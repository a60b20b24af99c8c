#include "workgraph.h"

#include <stdlib.h>
#include <string.h>

#include "subslice.h"

/* A growable array of fixed-size elements. */
typedef struct vec {
    void *data;
    size_t n, cap, size;
} vec;

static void *vec_push(vec *a)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 16;
        void *d = realloc(a->data, cap * a->size);
        if (!d)
            return NULL;
        a->data = d;
        a->cap = cap;
    }
    void *slot = (char *)a->data + a->n++ * a->size;
    memset(slot, 0, a->size);
    return slot;
}

static bool has_material(const vec *a, dk_material m)
{
    const dk_material *ms = a->data;
    for (size_t i = 0; i < a->n; i++)
        if (dk_material_equal(ms[i], m))
            return true;
    return false;
}

static bool add_material(vec *a, dk_material m)
{
    if (has_material(a, m))
        return true;
    dk_material *slot = vec_push(a);
    if (!slot)
        return false;
    *slot = m;
    return true;
}

enum { MAX_EXITS = 2 * 21 * 21 };

/* Every material the targets need: twins and the closure of capture and promotion exits. */
static bool closure(const dk_variant *v, const dk_material *targets, size_t n, vec *mats)
{
    for (size_t i = 0; i < n; i++)
        if (!dk_material_valid(v, targets[i]) || !add_material(mats, targets[i]))
            return false;
    for (size_t i = 0; i < mats->n; i++) {
        dk_material m = ((dk_material *)mats->data)[i], exits[MAX_EXITS];
        if (!add_material(mats, dk_material_twin(m)))
            return false;
        size_t ne = dk_material_exits(v, m, exits, MAX_EXITS);
        for (size_t e = 0; e < ne; e++)
            if (!add_material(mats, exits[e]))
                return false;
    }
    return true;
}

static dk_material canonical(dk_material m)
{
    dk_material t = dk_material_twin(m);
    return dk_material_cmp(m, t) <= 0 ? m : t;
}

static int cmp_material(const void *a, const void *b)
{
    return dk_material_cmp(*(const dk_material *)a, *(const dk_material *)b);
}

int dk_workgraph_pair_of(const dk_workgraph *g, dk_material m)
{
    dk_material c = canonical(m);
    uint32_t lo = 0, hi = g->npairs;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int r = dk_material_cmp(g->pairs[mid].m, c);
        if (r == 0)
            return (int)mid;
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The canonical men_index of the group holding the placement (w, b) of member `member` of pair p
 * (0: p->m, 1: p->twin; 0 in a self-twin pair), x its men_index there if known (else UINT64_MAX):
 * *flipped whether the placement is X' rather than X, *self_flip whether it is its own flip. */
static uint64_t canonical_placement(const dk_workgraph *g, const dk_wpair *p, int member, dk_bb w, dk_bb b,
                                    uint64_t x, int *flipped, bool *self_flip)
{
    *flipped = member;
    *self_flip = false;
    if (!member && !p->self_twin)
        return x != UINT64_MAX ? x : dk_index_men_rank(&p->ix, w, b);
    dk_bb fw, fb;
    dk_men_flip(g->v, w, b, &fw, &fb);
    *self_flip = fw == w && fb == b;
    uint64_t f = dk_index_men_rank(&p->ix, fw, fb);
    if (member)
        return f;
    if (x == UINT64_MAX) /* a self-twin pair: X is the smaller of the two */
        x = dk_index_men_rank(&p->ix, w, b);
    *flipped = f < x;
    return *flipped ? f : x;
}

/* The canonical men_index standing for subslice men_index of material m of pair p, its
 * placement's level, and whether the placement is its own flip (false when m's pair is not
 * self-twin and m is its canonical member: not looked at). */
static uint64_t canonical_men(const dk_workgraph *g, const dk_wpair *p, dk_material m, uint64_t men_index,
                              int *level, bool *self_flip)
{
    dk_bb w, b;
    int member = !p->self_twin && dk_material_equal(m, p->twin), flipped;
    dk_index_men_unrank(member ? &p->ix_twin : &p->ix, men_index, &w, &b);
    *level = dk_men_level(g->v, w, b);
    return canonical_placement(g, p, member, w, b, men_index, &flipped, self_flip);
}

/* The unit of pair p's layer at `level` whose range holds canonical men_index c, or -1 if the
 * level has no layer. */
static int64_t unit_in_layer(const dk_workgraph *g, const dk_wpair *p, int level, uint64_t c)
{
    if (level < p->min_level || level > p->max_level || p->layer_of_level[level - p->min_level] < 0)
        return -1;
    const dk_layer *l = &g->layers[p->layer_of_level[level - p->min_level]];
    uint32_t lo = l->first_unit, hi = l->first_unit + l->nunits;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->units[mid].men_lo <= c)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int64_t dk_workgraph_unit_of(const dk_workgraph *g, dk_material m, uint64_t men_index)
{
    int pi = dk_workgraph_pair_of(g, m);
    if (pi < 0)
        return -1;
    const dk_wpair *p = &g->pairs[pi];
    int level;
    bool self_flip;
    uint64_t c = canonical_men(g, p, m, men_index, &level, &self_flip);
    return unit_in_layer(g, p, level, c);
}

int64_t dk_workgraph_unit_of_placement(const dk_workgraph *g, const dk_wpair *p, int member, dk_bb wmen,
                                       dk_bb bmen, uint64_t *canonical, int *flipped)
{
    bool self_flip;
    *canonical = canonical_placement(g, p, member, wmen, bmen, UINT64_MAX, flipped, &self_flip);
    return unit_in_layer(g, p, dk_men_level(g->v, wmen, bmen), *canonical);
}

/* Positions (table entries) a canonical subslice produces: both sides to move, which is one
 * subslice of each material, or the subslice alone when it is its own flip. */
static uint64_t subslice_weight(const dk_workgraph *g, const dk_wpair *p, uint64_t men_index, bool *canon,
                                int *level)
{
    bool self_flip;
    uint64_t c = canonical_men(g, p, p->m, men_index, level, &self_flip);
    *canon = c == men_index;
    return (self_flip ? 1 : 2) * p->ix.kings_count;
}

typedef enum { CUT_NONE, CUT_LIST, CUT_RANGE } cut_mode;

typedef struct chunk {
    uint64_t lo, positions;
    bool oversize;
} chunk;

static bool push_unit(dk_workgraph *g, vec *units, uint32_t layer, uint64_t lo, uint64_t hi, uint64_t positions,
                      bool exact, bool oversize)
{
    dk_layer *l = &g->layers[layer];
    dk_unit *u = units->n < UINT32_MAX ? vec_push(units) : NULL; /* unit ids are 32 bits */
    if (!u)
        return false;
    *u = (dk_unit){.pair = l->pair, .layer = layer, .chunk = l->nunits++, .level = l->level,
                   .men_lo = lo, .men_hi = hi, .positions = positions,
                   .counted = positions, /* made exact by count_layer */
                   .exact = exact, .oversize = oversize};
    return true;
}

/* Lists the canonical subslices of pair p once, cutting every CUT_LIST layer into runs within
 * the bound; chunks[k] collects the runs of the pair's k-th layer. */
static bool list_chunks(const dk_workgraph *g, const dk_wpair *p, const cut_mode *mode, vec *chunks)
{
    for (uint64_t i = 0; i < p->ix.men_count; i++) {
        bool canon;
        int level;
        uint64_t w = subslice_weight(g, p, i, &canon, &level);
        uint32_t k = (uint32_t)p->layer_of_level[level - p->min_level] - p->first_layer;
        if (!canon || mode[k] != CUT_LIST)
            continue;
        chunk *c = chunks[k].n ? (chunk *)chunks[k].data + chunks[k].n - 1 : NULL;
        if (c && c->positions > 0 && c->positions + w > g->max_positions)
            c = NULL;
        if (!c) {
            if (!(c = vec_push(&chunks[k])))
                return false;
            c->lo = chunks[k].n == 1 ? 0 : i;
        }
        c->positions += w;
        c->oversize = c->positions > g->max_positions;
    }
    return true;
}

static bool build_units(dk_workgraph *g, uint32_t pi, vec *units)
{
    dk_wpair *p = &g->pairs[pi];
    uint64_t kc = p->ix.kings_count, men = p->ix.men_count;
    cut_mode mode[DK_MAX_SQ * 16];
    vec chunks[DK_MAX_SQ * 16];
    bool listing = false, ok = true;
    for (uint32_t k = 0; k < p->nlayers; k++) {
        const dk_layer *l = &g->layers[p->first_layer + k];
        mode[k] = l->positions <= g->max_positions || men == 1 ? CUT_NONE : men <= DK_WG_LIST_LIMIT ? CUT_LIST : CUT_RANGE;
        listing |= mode[k] == CUT_LIST;
        chunks[k] = (vec){NULL, 0, 0, sizeof(chunk)};
    }
    if (listing)
        ok = list_chunks(g, p, mode, chunks);
    for (uint32_t k = 0; ok && k < p->nlayers; k++) {
        uint32_t li = p->first_layer + k;
        const dk_layer *l = &g->layers[li];
        g->layers[li].first_unit = (uint32_t)units->n;
        if (mode[k] == CUT_NONE) {
            ok = push_unit(g, units, li, 0, men, l->positions, true, l->positions > g->max_positions);
        } else if (mode[k] == CUT_LIST) {
            const chunk *c = chunks[k].data;
            for (size_t j = 0; ok && j < chunks[k].n; j++)
                ok = push_unit(g, units, li, c[j].lo, j + 1 < chunks[k].n ? c[j + 1].lo : men, c[j].positions,
                               true, c[j].oversize);
        } else {
            uint64_t width = g->max_positions / (2 * kc);
            if (width == 0)
                width = 1;
            for (uint64_t lo = 0; ok && lo < men; lo += width) {
                uint64_t hi = men - lo > width ? lo + width : men, bound = (hi - lo) * 2 * kc;
                ok = push_unit(g, units, li, lo, hi, bound < l->positions ? bound : l->positions, false,
                               width == 1 && 2 * kc > g->max_positions);
            }
        }
    }
    for (uint32_t k = 0; k < p->nlayers; k++)
        free(chunks[k].data);
    return ok;
}

/* Spreads what the exact units of layer li leave of its count over its units counted by a bound
 * (dk_unit.counted), by cumulative shares rounded down, so that they add up exactly. */
static void count_layer(dk_workgraph *g, uint32_t li)
{
    __extension__ typedef unsigned __int128 u128;
    const dk_layer *l = &g->layers[li];
    dk_unit *u = g->units + l->first_unit;
    uint64_t exact = 0, bounds = 0;
    for (uint32_t k = 0; k < l->nunits; k++)
        *(u[k].exact ? &exact : &bounds) += u[k].positions;
    if (!bounds)
        return;
    uint64_t left = l->positions > exact ? l->positions - exact : 0, seen = 0, given = 0;
    for (uint32_t k = 0; k < l->nunits; k++) {
        if (u[k].exact)
            continue;
        seen += u[k].positions;
        uint64_t upto = (uint64_t)((u128)seen * left / bounds);
        u[k].counted = upto - given;
        given = upto;
    }
}

static bool build_layers(dk_workgraph *g, uint32_t pi, vec *layers)
{
    dk_wpair *p = &g->pairs[pi];
    int maxl = dk_max_level(g->v, p->m);
    uint64_t *counts = malloc(((size_t)maxl + 1) * sizeof *counts);
    if (!counts || dk_level_counts(g->v, p->m, counts) != 0) {
        free(counts);
        return false;
    }
    p->min_level = maxl;
    p->max_level = 0;
    for (int l = 0; l <= maxl; l++)
        if (counts[l]) {
            p->min_level = l < p->min_level ? l : p->min_level;
            p->max_level = l;
        }
    p->layer_of_level = malloc(((size_t)(p->max_level - p->min_level) + 1) * sizeof *p->layer_of_level);
    if (!p->layer_of_level) {
        free(counts);
        return false;
    }
    p->first_layer = (uint32_t)layers->n;
    for (int l = p->max_level; l >= p->min_level; l--) {
        p->layer_of_level[l - p->min_level] = -1;
        if (!counts[l])
            continue;
        dk_layer *layer = vec_push(layers);
        if (!layer) {
            free(counts);
            return false;
        }
        p->layer_of_level[l - p->min_level] = (int32_t)(layers->n - 1);
        uint64_t positions = counts[l] * p->ix.kings_count * (p->self_twin ? 1 : 2);
        *layer = (dk_layer){.pair = pi, .level = l, .subslices = counts[l], .positions = positions};
        p->positions += positions;
        p->nlayers++;
    }
    free(counts);
    return true;
}

static bool build_deps(dk_workgraph *g, vec *deps)
{
    for (uint32_t pi = 0; pi < g->npairs; pi++) {
        dk_wpair *p = &g->pairs[pi];
        p->first_dep = (uint32_t)deps->n;
        dk_material exits[2 * MAX_EXITS];
        size_t ne = dk_material_exits(g->v, p->m, exits, MAX_EXITS);
        ne += dk_material_exits(g->v, p->twin, exits + ne, MAX_EXITS);
        for (size_t e = 0; e < ne; e++) {
            uint32_t d = (uint32_t)dk_workgraph_pair_of(g, exits[e]);
            bool seen = false;
            for (uint32_t j = p->first_dep; j < deps->n; j++)
                seen |= ((uint32_t *)deps->data)[j] == d;
            uint32_t *slot;
            if (seen)
                continue;
            if (!(slot = vec_push(deps)))
                return false;
            *slot = d;
            p->ndeps++;
        }
    }
    g->deps = deps->data;
    /* The reverse edges, grouped by the pair depended on. */
    size_t nd = deps->n;
    g->rdeps = malloc((nd ? nd : 1) * sizeof *g->rdeps);
    if (!g->rdeps)
        return false;
    for (uint32_t pi = 0; pi < g->npairs; pi++)
        for (uint32_t j = 0; j < g->pairs[pi].ndeps; j++)
            g->pairs[g->deps[g->pairs[pi].first_dep + j]].nrdeps++;
    uint32_t at = 0;
    for (uint32_t pi = 0; pi < g->npairs; pi++) {
        g->pairs[pi].first_rdep = at;
        at += g->pairs[pi].nrdeps;
        g->pairs[pi].nrdeps = 0;
    }
    for (uint32_t pi = 0; pi < g->npairs; pi++)
        for (uint32_t j = 0; j < g->pairs[pi].ndeps; j++) {
            dk_wpair *d = &g->pairs[g->deps[g->pairs[pi].first_dep + j]];
            g->rdeps[d->first_rdep + d->nrdeps++] = pi;
        }
    return true;
}

dk_workgraph *dk_workgraph_build(const dk_variant *v, const dk_material *targets, size_t ntargets,
                                 uint64_t max_positions)
{
    vec mats = {NULL, 0, 0, sizeof(dk_material)}, layers = {NULL, 0, 0, sizeof(dk_layer)};
    vec units = {NULL, 0, 0, sizeof(dk_unit)}, deps = {NULL, 0, 0, sizeof(uint32_t)};
    dk_workgraph *g = calloc(1, sizeof *g);
    bool ok = g && max_positions >= 1 && closure(v, targets, ntargets, &mats);
    if (ok) {
        g->v = v;
        g->max_positions = max_positions;
        /* Canonical members, in generation order, one per pair. */
        dk_material *ms = mats.data;
        size_t np = 0;
        for (size_t i = 0; i < mats.n; i++)
            if (dk_material_equal(ms[i], canonical(ms[i])))
                ms[np++] = ms[i];
        qsort(ms, np, sizeof *ms, cmp_material);
        g->npairs = (uint32_t)np;
        ok = (g->pairs = calloc(np ? np : 1, sizeof *g->pairs)) != NULL;
        for (uint32_t pi = 0; ok && pi < np; pi++) {
            dk_wpair *p = &g->pairs[pi];
            p->m = ms[pi];
            p->twin = dk_material_twin(ms[pi]);
            p->self_twin = dk_material_equal(p->m, p->twin);
            ok = dk_index_init(&p->ix, v, p->m) == 0 && dk_index_init(&p->ix_twin, v, p->twin) == 0 &&
                 build_layers(g, pi, &layers);
        }
    }
    ok = ok && build_deps(g, &deps);
    if (ok) {
        g->layers = layers.data;
        g->nlayers = (uint32_t)layers.n;
        layers.data = NULL;
        for (uint32_t pi = 0; ok && pi < g->npairs; pi++)
            ok = build_units(g, pi, &units);
        g->units = units.data;
        g->nunits = (uint32_t)units.n;
        units.data = NULL;
        for (uint32_t li = 0; ok && li < g->nlayers; li++)
            count_layer(g, li);
    } else if (g) {
        g->deps = g->deps ? g->deps : deps.data;
    }
    size_t nu = g ? g->nunits : 0, nl = g ? g->nlayers : 0, npr = g ? g->npairs : 0;
    ok = ok && (g->unit_state = malloc(nu ? nu : 1)) && (g->finish_state = malloc(npr ? npr : 1)) &&
         (g->layer_waiting = malloc((nl ? nl : 1) * sizeof(uint32_t))) &&
         (g->layer_left = malloc((nl ? nl : 1) * sizeof(uint32_t))) &&
         (g->pair_left = malloc((npr ? npr : 1) * sizeof(uint32_t))) &&
         (g->unit_prio = calloc(nu ? nu : 1, sizeof(double))) &&
         (g->finish_prio = calloc(npr ? npr : 1, sizeof(double))) &&
         (g->scans_left = calloc(npr ? npr : 1, sizeof(uint32_t))) &&
         (g->packs_left = calloc(npr ? npr : 1, sizeof(uint32_t))) && (g->part_state = malloc(1)) &&
         (g->part_prio = calloc(1, sizeof(double))) &&
         (g->ready.data = malloc((nu + npr + 1) * sizeof(dk_wg_ready)));
    free(mats.data);
    free(layers.data);
    free(units.data);
    if (!ok) {
        if (g && !g->deps)
            free(deps.data);
        dk_workgraph_free(g);
        return NULL;
    }
    dk_workgraph_reset(g, NULL, NULL);
    return g;
}

void dk_workgraph_free(dk_workgraph *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; g->pairs && i < g->npairs; i++)
        free(g->pairs[i].layer_of_level);
    free(g->pairs);
    free(g->layers);
    free(g->units);
    free(g->deps);
    free(g->rdeps);
    free(g->unit_state);
    free(g->finish_state);
    free(g->layer_waiting);
    free(g->layer_left);
    free(g->pair_left);
    free(g->ready.data);
    free(g->unit_prio);
    free(g->finish_prio);
    free(g->parts);
    free(g->part_state);
    free(g->part_prio);
    free(g->scans_left);
    free(g->packs_left);
    free(g);
}

uint64_t dk_workgraph_split_parts(const dk_workgraph *g, uint32_t u)
{
    const dk_unit *un = &g->units[u];
    uint64_t S = g->max_positions;
    return un->split && un->positions > S ? (un->positions + S - 1) / S : 1;
}

uint64_t dk_workgraph_largest_held(const dk_workgraph *g, uint64_t nranks)
{
    uint64_t most = 0;
    for (uint32_t u = 0; u < g->nunits; u++) {
        uint64_t held = dk_workgraph_held(g, u, nranks);
        most = held > most ? held : most;
    }
    return most;
}

uint64_t dk_workgraph_held(const dk_workgraph *g, uint32_t u, uint64_t nranks)
{
    uint64_t parts = dk_workgraph_split_parts(g, u), positions = g->units[u].positions;
    if (parts == 1)
        return positions;
    uint64_t most = (parts + nranks - 1) / nranks * g->max_positions;
    return most < positions ? most : positions;
}
