#include "groups.h"

#include <stdio.h>
#include <stdlib.h>

#include "levelwalk.h"
#include "subslice.h"

/* The men_index, in the other material of the pair (whose index is `to`), of the flip of the
 * placement w, b. Pure. */
static uint64_t flip_rank(const dk_variant *v, const dk_index *to, dk_bb w, dk_bb b)
{
    dk_bb fw, fb;
    dk_men_flip(v, w, b, &fw, &fb);
    return dk_index_men_rank(to, fw, fb);
}

/* The same for subslice men_index of the material whose index is `from`. Pure. */
static uint64_t flip_men(const dk_variant *v, const dk_index *from, const dk_index *to,
                         uint64_t men_index)
{
    dk_bb w, b;
    dk_index_men_unrank(from, men_index, &w, &b);
    return flip_rank(v, to, w, b);
}

typedef struct layer_list {
    uint64_t *men, *flip; /* canonical X ascending, and X' */
    size_t n, cap;
} layer_list;

/* The subslice lists of the pairs used last: a worker alternates between a few pairs (a unit,
 * the units above it that its exits read, a pair being finished), and listing a pair walks all
 * its men placements. */
enum { CACHED_PAIRS = 8 };

/* The lists of pairs of at most DK_GROUPS_CACHED_SUBSLICES subslices (16 bytes each: 8 MiB) are
 * kept within this bound together, and beside them those of one larger pair, the one listed
 * last, up to DK_GROUPS_KEPT_LARGE subslices: a large pair whose units alternate with smaller
 * pairs' tasks (finishing, units the scheduler puts first) is then listed once, not once per
 * switch (12 times each for 5-man pairs at 5 pieces). A pair above that is never listed: each
 * unit walks its own level and range (levelwalk.h), so that no list grows with a pair. */
static const uint64_t cached_subslices_max = DK_GROUPS_CACHED_SUBSLICES;

typedef struct pair_lists {
    int64_t pair; /* -1: none */
    layer_list *layers;
    size_t nlayers;
    uint64_t subslices; /* in all layers */
    uint64_t last_use;
} pair_lists;

/* A unit's groups, shared by the cache and the builds that use them. */
struct dk_groups_block {
    uint32_t unit;
    size_t refs;
    size_t n, cap;
    uint64_t npositions;
    dk_group g[];
};

/* The units whose groups are kept: the solver keeps 16 units above it open and reopens them as
 * its man moves go from one to another; a unit's own and a finishing's builds come beside. The
 * least recently used are let go beyond KEPT_UNIT_BYTES (a unit of men only, one position a
 * subslice, has 16 bytes of groups a position): a build holds its groups until it is freed. */
enum { CACHED_UNITS = 24 };
#define KEPT_UNIT_BYTES ((size_t)256 << 20)

typedef struct unit_slot {
    struct dk_groups_block *b; /* NULL: none */
    uint64_t last_use;
} unit_slot;

struct dk_groups_cache {
    const dk_workgraph *g;
    pair_lists e[CACHED_PAIRS];
    unit_slot units[CACHED_UNITS];
    uint64_t clock;
    uint64_t listed; /* pairs listed so far */
    uint64_t made;   /* units' groups made so far */
};

static void release(struct dk_groups_block *b)
{
    if (b && --b->refs == 0)
        free(b);
}

dk_groups_cache *dk_groups_cache_new(const dk_workgraph *g)
{
    dk_groups_cache *c = calloc(1, sizeof *c);
    if (c) {
        c->g = g;
        for (int i = 0; i < CACHED_PAIRS; i++)
            c->e[i].pair = -1;
    }
    return c;
}

static void drop_lists(pair_lists *e)
{
    for (size_t i = 0; i < e->nlayers; i++) {
        free(e->layers[i].men);
        free(e->layers[i].flip);
    }
    free(e->layers);
    *e = (pair_lists){-1, NULL, 0, 0, 0};
}

uint64_t dk_groups_cache_listed(const dk_groups_cache *c) { return c->listed; }

uint64_t dk_groups_cache_made(const dk_groups_cache *c) { return c->made; }

void dk_groups_cache_free(dk_groups_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < CACHED_PAIRS; i++)
        drop_lists(&c->e[i]);
    for (int i = 0; i < CACHED_UNITS; i++)
        release(c->units[i].b);
    free(c);
}

static int append(layer_list *l, uint64_t x, uint64_t fx)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        uint64_t *m = realloc(l->men, cap * sizeof *m);
        if (m)
            l->men = m;
        uint64_t *f = m ? realloc(l->flip, cap * sizeof *f) : NULL;
        if (!f)
            return -1;
        l->flip = f;
        l->cap = cap;
    }
    l->men[l->n] = x;
    l->flip[l->n++] = fx;
    return 0;
}

/* Pair pi's lists, made in place of the least recently used ones if not cached; NULL when out
 * of memory. */
static const pair_lists *list_pair(dk_groups_cache *c, uint32_t pi)
{
    pair_lists *e = &c->e[0];
    for (int i = 0; i < CACHED_PAIRS; i++) {
        if (c->e[i].pair == (int64_t)pi) {
            c->e[i].last_use = ++c->clock;
            return &c->e[i];
        }
        if (c->e[i].last_use < e->last_use)
            e = &c->e[i];
    }
    drop_lists(e);
    c->listed++;
    const dk_wpair *p = &c->g->pairs[pi];
    e->layers = calloc(p->nlayers ? p->nlayers : 1, sizeof *e->layers);
    if (!e->layers)
        return NULL;
    e->nlayers = p->nlayers;
    for (uint64_t x = 0; x < p->ix.men_count; x++) {
        dk_bb w, b;
        dk_index_men_unrank(&p->ix, x, &w, &b);
        int level = dk_men_level(c->g->v, w, b);
        uint64_t fx = flip_rank(c->g->v, &p->ix_twin, w, b);
        if (p->self_twin && fx < x)
            continue; /* the group of fx holds x */
        int32_t layer = p->layer_of_level[level - p->min_level];
        if (append(&e->layers[(uint32_t)layer - p->first_layer], x, fx) != 0) {
            drop_lists(e);
            return NULL;
        }
        e->subslices++;
    }
    e->pair = pi;
    e->last_use = ++c->clock;
    /* one larger pair: this one if it is large */
    for (int i = 0; i < CACHED_PAIRS; i++)
        if (&c->e[i] != e && e->subslices > cached_subslices_max && c->e[i].subslices > cached_subslices_max)
            drop_lists(&c->e[i]);
    for (;;) { /* the smaller pairs within the bound, dropping the least recently used */
        uint64_t held = 0;
        pair_lists *lru = NULL;
        for (int i = 0; i < CACHED_PAIRS; i++) {
            if (c->e[i].pair < 0 || c->e[i].subslices > cached_subslices_max)
                continue;
            held += c->e[i].subslices;
            if (&c->e[i] != e && (!lru || c->e[i].last_use < lru->last_use))
                lru = &c->e[i];
        }
        if (held <= cached_subslices_max || !lru)
            return e;
        drop_lists(lru);
    }
}

static size_t lower_bound(const uint64_t *a, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Cuts a split unit of ug->npositions positions into parts. */
static void cut_parts(dk_groups *ug)
{
    const uint64_t bound = ug->g->max_positions;
    ug->nparts = 1;
    ug->part_size = ug->npositions;
    if (ug->g->units[ug->unit].split && ug->npositions > bound) {
        ug->part_size = bound;
        ug->nparts = (ug->npositions + bound - 1) / bound;
    }
}

void dk_groups_shape(dk_groups *ug, const dk_workgraph *g, uint32_t u, uint64_t npositions)
{
    const dk_unit *unit = &g->units[u];
    const dk_wpair *p = &g->pairs[unit->pair];
    *ug = (dk_groups){.g = g, .unit = u, .pair = p, .level = unit->level, .K = p->ix.kings_count,
                      .npositions = npositions};
    cut_parts(ug);
}

uint64_t dk_groups_pair_subslices(const dk_wpair *p)
{
    return p->self_twin ? p->ix.men_count / 2 : p->ix.men_count;
}

/* A unit's groups being made: appended in ascending X. */
typedef struct builder {
    struct dk_groups_block *b;
    const dk_workgraph *g;
    const dk_wpair *p;
} builder;

static int add_group(builder *bd, uint64_t x, uint64_t fx)
{
    struct dk_groups_block *b = bd->b;
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        if (!(b = realloc(b, sizeof *b + cap * sizeof *b->g)))
            return -1;
        b->cap = cap;
        bd->b = b;
    }
    bool self = bd->p->self_twin && fx == x;
    b->g[b->n++] = (dk_group){{x, fx}, b->npositions, self};
    b->npositions += (self ? 1 : 2) * bd->p->ix.kings_count;
    return 0;
}

static int walk_visit(void *ctx, uint64_t x, dk_bb w, dk_bb b)
{
    builder *bd = ctx;
    uint64_t fx = flip_rank(bd->g->v, &bd->p->ix_twin, w, b);
    if (bd->p->self_twin && fx < x)
        return 0; /* the group of fx holds x */
    return add_group(bd, x, fx);
}

/* Unit u's groups: from its pair's lists, or, for a pair too large to list, by walking the unit's
 * level and range. NULL if out of memory. */
static struct dk_groups_block *make_groups(dk_groups_cache *c, uint32_t u)
{
    const dk_unit *unit = &c->g->units[u];
    builder bd = {calloc(1, sizeof *bd.b), c->g, &c->g->pairs[unit->pair]};
    if (!bd.b)
        return NULL;
    bd.b->unit = u;
    int rc = 0;
    if (dk_groups_pair_subslices(bd.p) > DK_GROUPS_KEPT_LARGE) {
        rc = dk_level_walk(&bd.p->ix, unit->level, unit->men_lo, unit->men_hi, walk_visit, &bd);
    } else {
        const pair_lists *e = list_pair(c, unit->pair);
        if (!e) {
            free(bd.b);
            return NULL;
        }
        const layer_list *l = &e->layers[unit->layer - bd.p->first_layer];
        for (size_t i = lower_bound(l->men, l->n, unit->men_lo); i < l->n && l->men[i] < unit->men_hi && !rc; i++)
            rc = add_group(&bd, l->men[i], l->flip[i]);
    }
    struct dk_groups_block *fit = rc ? NULL : realloc(bd.b, sizeof *fit + bd.b->n * sizeof *fit->g);
    if (!fit) {
        free(bd.b);
        return NULL;
    }
    fit->cap = fit->n; /* without the doubling's spare room */
    c->made++;
    return fit;
}

/* Lets the least recently used units but `keep` go while those kept weigh more than
 * KEPT_UNIT_BYTES. */
static void let_go(dk_groups_cache *c, const unit_slot *keep)
{
    for (;;) {
        size_t held = 0;
        unit_slot *lru = NULL;
        for (int i = 0; i < CACHED_UNITS; i++) {
            unit_slot *s = &c->units[i];
            if (!s->b)
                continue;
            held += sizeof *s->b + s->b->cap * sizeof *s->b->g;
            if (s != keep && (!lru || s->last_use < lru->last_use))
                lru = s;
        }
        if (held <= KEPT_UNIT_BYTES || !lru)
            return;
        release(lru->b);
        lru->b = NULL;
    }
}

int dk_groups_build(dk_groups *ug, dk_groups_cache *cache, uint32_t u)
{
    dk_groups_shape(ug, cache->g, u, 0);
    unit_slot *slot = &cache->units[0];
    for (int i = 0; i < CACHED_UNITS; i++) {
        if (cache->units[i].b && cache->units[i].b->unit == u) {
            slot = &cache->units[i];
            break;
        }
        if (!cache->units[i].b || (slot->b && cache->units[i].last_use < slot->last_use))
            slot = &cache->units[i];
    }
    if (!slot->b || slot->b->unit != u) {
        struct dk_groups_block *b = make_groups(cache, u);
        if (!b)
            return -1;
        release(slot->b);
        b->refs = 1; /* the cache's */
        slot->b = b;
        let_go(cache, slot);
    }
    slot->last_use = ++cache->clock;
    slot->b->refs++;
    ug->block = slot->b;
    ug->groups = slot->b->g;
    ug->ngroups = slot->b->n;
    ug->npositions = slot->b->npositions;
    cut_parts(ug);
    return 0;
}

void dk_groups_free(dk_groups *ug)
{
    release(ug->block);
    ug->block = NULL;
    ug->groups = NULL;
    ug->ngroups = 0;
}

int64_t dk_groups_find_canonical(const dk_groups *ug, uint64_t x)
{
    size_t lo = 0, hi = ug->ngroups;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ug->groups[mid].men[0] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ug->ngroups && ug->groups[lo].men[0] == x ? (int64_t)lo : -1;
}

int64_t dk_groups_find(const dk_groups *ug, dk_material m, uint64_t men_index, int *member)
{
    const dk_wpair *p = ug->pair;
    if (!p->self_twin && dk_material_equal(m, p->twin)) {
        *member = 1;
        return dk_groups_find_canonical(ug, flip_men(ug->g->v, &p->ix_twin, &p->ix, men_index));
    }
    int64_t gi = dk_groups_find_canonical(ug, men_index);
    *member = 0;
    if (gi < 0 && p->self_twin) {
        *member = 1;
        gi = dk_groups_find_canonical(ug, flip_men(ug->g->v, &p->ix, &p->ix, men_index));
    }
    return gi;
}

int dk_groups_path(const dk_groups *ug, const char *dir, char *buf, size_t len)
{
    char name[DK_MATERIAL_NAME_MAX];
    const dk_unit *unit = &ug->g->units[ug->unit];
    dk_material_name(ug->pair->m, name, sizeof name);
    return snprintf(buf, len, "%s/work/%s-%s.L%d.%llu-%llu", dir, ug->g->v->name, name,
                    ug->level, (unsigned long long)unit->men_lo, (unsigned long long)unit->men_hi);
}
