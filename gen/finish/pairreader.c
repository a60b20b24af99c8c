#include "pairreader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/errors.h"
#include "../store/testhooks.h"
#include "../store/unitfile.h"

/* Unit files kept open at once: a table's subslices come from units in ascending order on the
 * canonical material, scattered over all of them in the twin (a subslice of one king is 24
 * positions). With 64 kept, the twin of the 7-piece pair 3m0k-3m1k (1997 units) opened and
 * closed a unit for nearly every subslice: 2600 mappings a second, most of the time unmapping,
 * an hour a pass. An open unit is its mapping and a map of its blocks (4 bytes a block; the
 * decompression context is the thread's), so the pair's units stay open together, up to
 * OPEN_MAX (a bound on mappings). Their decompressed blocks share DK_PAIR_READER_POOL_BYTES of the
 * worker's pool. budget.c's finishing bytes count them and the block maps. */
enum { OPEN_MAX = 4096 };
static const uint32_t NOWHERE = UINT32_MAX;

typedef struct member_reader {
    dk_value_source src;       /* its ctx is the member_reader (copies of src read the same) */
    struct dk_pair_reader *r;
    uint64_t men_lo, men_n;    /* the subslices it reads: men_index men_lo .. men_lo + men_n - 1 */
    uint32_t *unit;            /* by men_index - men_lo: the unit holding the subslice (index into units) */
    uint64_t *offset;          /* by men_index - men_lo: its first position in that unit's file */
    uint8_t *captures;         /* the must-capture map, filled as positions are read (NULL: the
                                * flags stay on the values) */
} member_reader;

typedef struct open_unit {
    uint32_t unit; /* NOWHERE: free */
    dk_groups ug;
    dk_unitfile *file;
    uint64_t last_use;
} open_unit;

struct dk_pair_reader {
    const dk_workgraph *g;
    const dk_wpair *pair;
    const char *dir;
    unsigned limit, stride;
    uint64_t K;
    uint32_t first_unit, nunits;
    uint8_t *checked;      /* by unit of the pair: its CRC was checked */
    uint64_t *npositions;  /* by unit of the pair: its positions, to open it again cheaply */
    dk_block_pool *blocks; /* borrowed */
    member_reader member[2];
    open_unit *open;       /* open_max slots (OPEN_MAX but in tests), nopen used */
    uint32_t nopen, open_max;
    uint32_t *slot_of;     /* by unit of the pair: its slot in open, NOWHERE when closed */
    uint64_t clock;
};

static int read_member(const dk_value_source *src, uint64_t first, size_t n, dk_value *out,
                       char *err, size_t errlen);

static void close_slot(open_unit *slot)
{
    dk_unitfile_close(slot->file);
    dk_groups_free(&slot->ug);
    *slot = (open_unit){.unit = NOWHERE};
}

void dk_pair_reader_free(dk_pair_reader *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; r->open && i < r->nopen; i++)
        close_slot(&r->open[i]);
    free(r->open);
    free(r->slot_of);
    dk_block_pool_bound(r->blocks, 0); /* its blocks released with the files */
    for (int s = 0; s < 2; s++) {
        free(r->member[s].unit);
        free(r->member[s].offset);
        free(r->member[s].captures);
    }
    free(r->checked);
    free(r->npositions);
    free(r);
}

/* Records where the groups of unit u (the i-th of the pair) put their subslices. */
static int list_unit(dk_pair_reader *r, dk_groups_cache *gcache, uint32_t i)
{
    dk_groups ug;
    if (dk_groups_build(&ug, gcache, r->first_unit + i) != 0)
        return -1;
    r->npositions[i] = ug.npositions;
    for (size_t gi = 0; gi < ug.ngroups; gi++) {
        const dk_group *gr = &ug.groups[gi];
        for (int s = 0; s < (gr->self_flip ? 1 : 2); s++) {
            /* a self-twin pair has one material: both subslices of a group are in it */
            member_reader *sr = &r->member[r->pair->self_twin ? 0 : s];
            uint64_t men = gr->men[s] - sr->men_lo;
            if (gr->men[s] < sr->men_lo || men >= sr->men_n)
                continue;
            sr->unit[men] = i;
            sr->offset[men] = gr->offset + (uint64_t)s * ug.K;
        }
    }
    dk_groups_free(&ug);
    return 0;
}

/* A reader of the pair's members, or with window of positions [lo, hi) of member `only` only
 * (flags kept on the values). */
static dk_pair_reader *reader_new(const dk_workgraph *g, dk_groups_cache *gcache, dk_block_pool *pool,
                                  const char *dir, uint32_t p, unsigned limit, bool window, int only, uint64_t lo,
                                  uint64_t hi, char *err, size_t errlen)
{
    const dk_wpair *pair = &g->pairs[p];
    dk_pair_reader *r = calloc(1, sizeof *r);
    if (!r)
        return dk_errorf(err, errlen, "out of memory"), NULL;
    uint32_t first = g->layers[pair->first_layer].first_unit, last = first;
    while (last < g->nunits && g->units[last].pair == p)
        last++;
    *r = (dk_pair_reader){.g = g, .pair = pair, .dir = dir, .limit = limit,
                          .stride = limit ? 2 : 1, .K = pair->ix.kings_count, .first_unit = first,
                          .nunits = last - first};
    r->checked = calloc(r->nunits, 1);
    r->npositions = malloc((r->nunits ? r->nunits : 1) * sizeof *r->npositions);
    r->blocks = pool;
    dk_block_pool_bound(pool, DK_PAIR_READER_POOL_BYTES);
    if (!dk_hook_open_units(&r->open_max) || r->open_max > OPEN_MAX)
        r->open_max = OPEN_MAX;
    r->open = calloc(r->open_max, sizeof *r->open);
    r->slot_of = malloc((r->nunits ? r->nunits : 1) * sizeof *r->slot_of);
    bool ok = r->checked && r->npositions && r->open && r->slot_of;
    for (uint32_t i = 0; ok && i < r->nunits; i++)
        r->slot_of[i] = NOWHERE;
    for (int s = 0; s < (pair->self_twin ? 1 : 2); s++) {
        const dk_index *ix = s ? &pair->ix_twin : &pair->ix;
        uint64_t men_lo = 0, men = ix->men_count;
        if (window) { /* the subslices of [lo, hi) only, none of the other member */
            men_lo = s == only ? lo / r->K : 0;
            men = s == only ? (hi + r->K - 1) / r->K - men_lo : 0;
        }
        member_reader *sr = &r->member[s];
        *sr = (member_reader){{read_member, sr, r->stride, 0}, r, men_lo, men, malloc((men ? men : 1) * sizeof *sr->unit),
                              malloc((men ? men : 1) * sizeof *sr->offset),
                              window ? NULL : calloc(ix->size / 8 + 1, 1)};
        ok = ok && sr->unit && sr->offset && (window || sr->captures);
        for (uint64_t m = 0; ok && m < men; m++)
            sr->unit[m] = NOWHERE;
    }
    for (uint32_t i = 0; ok && i < r->nunits; i++)
        ok = list_unit(r, gcache, i) == 0;
    if (!ok) {
        dk_pair_reader_free(r);
        return dk_errorf(err, errlen, "out of memory"), NULL;
    }
    return r;
}

dk_pair_reader *dk_pair_reader_new(const dk_workgraph *g, dk_groups_cache *gcache, dk_block_pool *pool,
                                   const char *dir, uint32_t p, unsigned limit, char *err, size_t errlen)
{
    return reader_new(g, gcache, pool, dir, p, limit, false, 0, 0, 0, err, errlen);
}

dk_pair_reader *dk_pair_reader_window(const dk_workgraph *g, dk_groups_cache *gcache, dk_block_pool *pool,
                                      const char *dir, uint32_t p, unsigned limit, int member, uint64_t lo,
                                      uint64_t hi, char *err, size_t errlen)
{
    return reader_new(g, gcache, pool, dir, p, limit, true, g->pairs[p].self_twin ? 0 : member, lo, hi, err,
                      errlen);
}

const dk_value_source *dk_pair_reader_member(dk_pair_reader *r, int member)
{
    return &r->member[r->pair->self_twin ? 0 : member].src;
}

const uint8_t *dk_pair_reader_captures(const dk_pair_reader *r, int member)
{
    return r->member[r->pair->self_twin ? 0 : member].captures;
}

/* Moves the capture flags of positions first..first+n-1 (their values in out) to the map. */
static void take_flags(const member_reader *sr, uint64_t first, size_t n, dk_value *out, unsigned stride)
{
    if (!sr->captures)
        return;
    for (size_t j = 0; j < n; j++) {
        dk_value *v = &out[j * stride];
        if (*v & DK_UNIT_CAPTURE) {
            uint64_t i = first + j;
            sr->captures[i / 8] |= (uint8_t)(1u << (i % 8));
            *v = dk_unit_dtw(*v);
        }
    }
}

/* The files of unit i of the pair, opening them (in a free slot, else the least recently
 * used one's). */
static dk_unitfile *unit_file(dk_pair_reader *r, uint32_t i, char *err, size_t errlen)
{
    if (r->slot_of[i] != NOWHERE) {
        open_unit *o = &r->open[r->slot_of[i]];
        o->last_use = ++r->clock;
        return o->file;
    }
    uint32_t k = r->nopen;
    if (k < r->open_max) {
        r->nopen++;
    } else {
        k = 0;
        for (uint32_t j = 1; j < r->open_max; j++)
            if (r->open[j].last_use < r->open[k].last_use)
                k = j;
        if (r->open[k].unit != NOWHERE)
            r->slot_of[r->open[k].unit] = NOWHERE;
        close_slot(&r->open[k]);
    }
    open_unit *slot = &r->open[k]; /* empty: never used, or closed */
    dk_groups_shape(&slot->ug, r->g, r->first_unit + i, r->npositions[i]);
    slot->file = dk_unitfile_open(&slot->ug, r->dir, r->limit, !r->checked[i], r->blocks, err, errlen);
    if (!slot->file) {
        close_slot(slot);
        return NULL;
    }
    r->checked[i] = 1;
    slot->unit = i;
    slot->last_use = ++r->clock;
    r->slot_of[i] = k;
    return slot->file;
}

static int read_member(const dk_value_source *src, uint64_t first, size_t n, dk_value *out,
                       char *err, size_t errlen)
{
    const member_reader *sr = src->ctx;
    dk_pair_reader *r = sr->r;
    const unsigned stride = r->stride;
    for (uint64_t at = first; at < first + n;) {
        uint64_t men = at / r->K - sr->men_lo, k = at % r->K;
        uint64_t run = r->K - k < first + n - at ? r->K - k : first + n - at;
        if (at / r->K < sr->men_lo || men >= sr->men_n || sr->unit[men] == NOWHERE)
            return dk_errorf(err, errlen, "internal error: subslice %llu of a pair is in no unit",
                             (unsigned long long)(at / r->K));
        dk_unitfile *f = unit_file(r, sr->unit[men], err, errlen);
        dk_value *to = out + (at - first) * stride;
        if (!f || dk_unitfile_read(f, (sr->offset[men] + k) * stride, run * stride, to, err, errlen) != 0)
            return -1;
        take_flags(sr, at, run, to, stride);
        at += run;
    }
    return 0;
}
