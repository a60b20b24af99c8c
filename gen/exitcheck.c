#include "exitcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../query/drawrule.h"
#include "../query/tablebase.h"
#include "../rules/errors.h"
#include "../rules/movegen.h"
#include "../rules/notation.h"
#include "bigmem.h"
#include "unitfile.h"
#include "verify.h"

/* Units of the level above kept open: man moves from one unit reach a few, and fewer open
 * than the solver keeps (16) would close and reopen files all the time. */
enum { OPEN_ABOVE = 16 };

/* Where the subslices man moves lead to are (direct-mapped): the positions of one subslice
 * lead to the same few again and again. */
enum { PLACE_BITS = 10, PLACES = 1 << PLACE_BITS };

typedef struct place {
    const dk_index *ix; /* NULL: empty */
    uint64_t men;
    struct open_unit *o;
    uint64_t base;      /* where the subslice's kings index 0 is in the unit */
} place;

/* The exits the solver read, queued and checked in batches in the order of their tables:
 * sorted by material and index, the exits of many positions that lead to one position are read
 * once, and the positions of one block of a table are read with one lookup of libdamka's
 * cache (dk_tb_stored_values). Read one by one, each exit cost a probe (unranked, tested for
 * a capture and ranked again, a lock, a hash chain) and a capture position's resolution again:
 * the check cost as much as the rest of the run. */
typedef struct queued {
    uint64_t key;     /* the exit's material (its number in the queue) << INDEX_BITS | its index; in
                       * sorting, the material's number moved down to just above the index's bits */
    uint32_t from;    /* in `from`: the position whose exit it is; with MUST_CAPTURE, the exit */
    dk_value got[2];  /* what the solver read */
} queued;

/* In queued.from: the exit is a position of a finished table where the side to move must
 * capture (tested when it is queued, from the position in hand): its stored value is free, it
 * is resolved through its captures, from the position kept in `from` (unranking it again cost
 * a sixth of the check at 7 pieces), and the position it is an exit of is the nearest before
 * it that is not an exit (`is_exit`). */
#define MUST_CAPTURE ((uint32_t)1 << 31)

/* In queued.from: an exit that must capture whose value was compared already
 * (check_captures): no place of `from` (the queue is shorter). */
#define CHECKED UINT32_MAX

/* The values of positions of the finished tables that must capture, resolved through their
 * captures (a capture's position that must capture again, too), remembered by material and
 * index (direct-mapped, neighbouring indices side by side), a quarter of the room: the exits of
 * a unit's positions reach the same ones queue after queue, and each resolution reads every
 * capture's position, recursively. The other exits are read from libdamka's cache and not
 * remembered here, so that fewer pages are touched (2^16 entries, tried, cost 5-piece runs
 * nothing but made the 7-piece pair 1m3k-0m3k resolve the same positions again and again).
 * Sets of MEMO_WAYS entries, a line of the processor's cache, eight neighbouring indices each:
 * an index is kept in its own place of the set while that is free or its own, else in any free
 * place of the set (direct-mapped, a 6-piece run resolved 1.4 times the positions the solver
 * resolved, each of which it resolves once: the places that two indices shared). An entry's tag
 * is the material's slot, the index's bits above the set's and its place; an index too large
 * for the tag is not remembered. */
typedef struct resolved {
    uint32_t tag; /* 0: empty (slot 0 is no material) */
    dk_value v[2];
} resolved;

/* MEMO_AHEAD: exits ahead whose entry of the memory of values is fetched while the ones
 * before them are compared (a few nanoseconds each when remembered: a miss takes as long as
 * dozens of them). */
enum { MEMO_WAYS = 8, MEMO_LEAST_BITS = 16, INDEX_BITS = 48, RADIX_BITS = 16, SHORT_QUEUE_BITS = 14, TAG_INDEX_BITS = 18, MEMO_AHEAD = 64 };
_Static_assert(DK_EXIT_CHECK_QUEUE < (CHECKED & ~MUST_CAPTURE), "CHECKED is no place of `from`");
/* Positions of one material read at once from the finished tables (dk_tb_stored_values). */
enum { STORED_BATCH = 1024 };
_Static_assert(DK_TB_MATERIAL_SLOTS < 1 << (64 - INDEX_BITS), "a material's number fits above the index");
/* The sort's counters: a row of 2^digit a pass, for a key of at most 64 bits (an index's and a
 * material's number, at most 16 bits) in digits of RADIX_BITS (4 rows), or of half as many bits
 * for a short queue (8 smaller rows). */
enum { SORT_PASSES_MOST = 4, FEW_KEYS = 32 };
_Static_assert(INDEX_BITS + 16 <= SORT_PASSES_MOST * RADIX_BITS, "a key's digits fit the counters");
_Static_assert(DK_TB_MATERIAL_SLOTS <= 1 << (32 - TAG_INDEX_BITS), "a material's slot fits in a tag");
_Static_assert(sizeof(resolved) * MEMO_WAYS == 64 && (1 << MEMO_LEAST_BITS) % MEMO_WAYS == 0,
               "a set of the memory of values is a line of the cache");

/* The capture exits of a batch not remembered are resolved in chunks: their captures'
 * positions gathered first, those that must capture again resolved (their remembered values
 * fetched ahead), the others read sorted, a block of a table with one lookup; each exit's best
 * value made move by move (query/best.h), as dk_expected_values makes it. Resolved one by one,
 * each capture's position cost a probe of its own and a miss on the memory of values. */
enum { CHUNK_EXITS = 512, CHUNK_CHILDREN = 4096, DEEP_AHEAD = 8 };
_Static_assert((int)CHUNK_CHILDREN >= (int)DK_MAX_MOVES, "a position's captures fit a chunk");

typedef struct pending {
    uint32_t j;     /* the exit's first place in the queue */
    dk_best best;   /* through its captures read so far */
} pending;

/* A capture's position that must capture again: resolved through its own captures. */
typedef struct deep_child {
    dk_pos pos;
    uint64_t i;     /* its index */
    int slot;       /* its material's */
    uint32_t owner; /* the exit's place in the chunk */
} deep_child;

/* Values read from the finished tables at once: positions stored[0..] of one material. */
typedef struct stored_batch {
    uint64_t stored[STORED_BATCH];      /* ascending, distinct */
    dk_value values[2 * STORED_BATCH];  /* their values: DTW, and with a draw rule the rule's */
} stored_batch;

typedef struct open_unit {
    uint32_t unit;
    uint64_t used;     /* tick of the last read; 0: the slot is empty */
    dk_groups ug;
    dk_unitfile *file; /* keeps a pointer to ug: the slot stays in place while open */
} open_unit;

struct dk_exit_check {
    const dk_workgraph *g;
    dk_groups_cache *gcache;
    char *dir;
    unsigned limit;
    dk_tablebase *tb;
    size_t tb_bytes;   /* tb's cache */
    bool rule_checked; /* the tables' draw rule was found to be the run's */
    dk_block_pool *blocks; /* the open units' decompressed blocks (the caller's, the solver's too) */
    open_unit open[OPEN_ABOVE];
    uint64_t tick;
    place places[PLACES];
    dk_men_memo men;                    /* the placements of exits, which are few a subslice */
    dk_index *ix[DK_TB_MATERIAL_SLOTS]; /* of the materials of the tables read, made at the first read */
    const dk_wpair *pair;               /* of the exits queued */
    queued *queue, *sorted;             /* cap each */
    uint32_t *count;                    /* the sort's counters, one a digit's value */
    dk_pos *from;                       /* the positions of the exits queued, each once, and the
                                         * exits that must capture */
    uint64_t *is_exit;                  /* a bit a place of `from`: an exit */
    uint32_t parent;                    /* in `from`: the position of the last exit queued */
    uint16_t number[DK_TB_MATERIAL_SLOTS]; /* by slot: the material's number in the queue, 0: none */
    uint16_t slot_of[DK_TB_MATERIAL_SLOTS + 1]; /* by number: the slot */
    uint16_t nmaterials;                /* of the queue */
    uint64_t index_bits;                /* the queue's indices or-ed */
    stored_batch exits_read;            /* of the exits queued */
    stored_batch children_read;         /* of the captures' positions of a chunk */
    pending *pend;                      /* a chunk's exits, CHUNK_EXITS */
    queued *child, *child_sorted;       /* its captures' positions read stored: key as the queue's
                                         * (their material's number in c->number, which a flush
                                         * does not use), from: the exit's place in pend;
                                         * CHUNK_CHILDREN each */
    uint16_t child_slot_of[DK_TB_MATERIAL_SLOTS + 1]; /* by number: the slot, of the children */
    deep_child *deep;                   /* its captures' positions that must capture, CHUNK_CHILDREN */
    uint32_t npend, nchild, ndeep;      /* of the chunk */
    uint16_t nchild_materials;          /* numbered in c->number */
    uint64_t child_index_bits;          /* the children's indices or-ed */
    resolved *memo;                     /* memo_mask + 1 entries, made at the first read (bigmem.h:
                                         * the exits touch it all over) */
    uint64_t memo_mask;
    uint64_t memo_filled;               /* entries written into an empty place */
    int memo_bits, memo_most;           /* 2^memo_most entries at most (the room's) */
    uint32_t n, nfrom, cap;
};

dk_exit_check *dk_exit_check_new(const dk_workgraph *g, dk_groups_cache *gcache, const char *dir,
                                 unsigned limit, uint64_t cache_bytes, dk_block_pool *blocks)
{
    dk_exit_check *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->g = g;
    c->gcache = gcache;
    c->limit = limit;
    c->dir = strdup(dir);
    /* The queue is as long at every budget (its 16 MiB are among a rank's fixed bytes, budget.c):
     * a flush decodes each block its exits reach once, and a short queue whose exits are spread
     * over a table decodes a block for every few exits (a split unit of 0m4k-0m3k at 4G, queues
     * of 16384 exits: the run twice as long). */
    c->cap = DK_EXIT_CHECK_QUEUE;
    c->queue = dk_big_alloc(c->cap * sizeof *c->queue);
    c->sorted = dk_big_alloc(c->cap * sizeof *c->sorted);
    c->from = dk_big_alloc(c->cap * sizeof *c->from);
    c->is_exit = calloc(c->cap / 64, sizeof *c->is_exit);
    c->count = malloc((sizeof *c->count << RADIX_BITS) * SORT_PASSES_MOST);
    c->pend = malloc(CHUNK_EXITS * sizeof *c->pend);
    c->child = malloc(CHUNK_CHILDREN * sizeof *c->child);
    c->child_sorted = malloc(CHUNK_CHILDREN * sizeof *c->child_sorted);
    c->deep = malloc(CHUNK_CHILDREN * sizeof *c->deep);
    c->blocks = blocks;
    if (!c->dir || dk_exit_check_set_room(c, cache_bytes, NULL, 0) != 0 || !c->queue || !c->sorted || !c->from || !c->is_exit ||
        !c->count || !c->pend || !c->child || !c->child_sorted || !c->deep) {
        dk_exit_check_free(c);
        return NULL;
    }
    return c;
}

/* The bytes of a memory of values of 2^bits entries. */
static size_t memo_bytes_of(int bits) { return ((size_t)1 << bits) * sizeof(resolved); }

static size_t memo_bytes(const dk_exit_check *c) { return memo_bytes_of(c->memo_bits); }

static void memo_free(dk_exit_check *c)
{
    dk_big_free(c->memo, memo_bytes(c));
    c->memo = NULL;
}

static void memo_resize(dk_exit_check *c, int bits)
{
    memo_free(c);
    c->memo_bits = bits;
    c->memo_mask = ((uint64_t)1 << bits) - 1;
    c->memo_filled = 0;
}

int dk_exit_check_set_room(dk_exit_check *c, uint64_t bytes, char *err, size_t errlen)
{
    /* the values remembered: at most a quarter, from 2^16 entries (memo_grow), kept while they
     * fit (values of finished tables, true whatever the room), forgotten when the room shrinks
     * below them */
    c->memo_most = MEMO_LEAST_BITS;
    while (memo_bytes_of(c->memo_most + 1) <= bytes / 4)
        c->memo_most++;
    if (!c->memo_bits)
        memo_resize(c, MEMO_LEAST_BITS);
    else if (c->memo_bits > c->memo_most)
        memo_resize(c, c->memo_most);
    const uint64_t own = memo_bytes_of(c->memo_most);
    size_t want = (size_t)(bytes > 2 * own ? bytes - own : bytes / 2 + 1);
    /* libdamka's cache keeps its size: opened again (its blocks dropped) when it must shrink,
     * or may grow to twice its size or more */
    if (c->tb && want >= c->tb_bytes && want / 2 < c->tb_bytes)
        return 0;
    dk_tb_close(c->tb);
    c->rule_checked = false;
    c->tb_bytes = want;
    if (!(c->tb = dk_tb_open(c->dir, c->g->v, &(dk_tb_options){want})))
        return err ? dk_errorf(err, errlen, "out of memory") : -1;
    return 0;
}

static void close_unit(dk_exit_check *c, open_unit *o)
{
    if (!o->used)
        return;
    for (int i = 0; i < PLACES; i++)
        if (c->places[i].o == o)
            c->places[i].ix = NULL;
    dk_unitfile_close(o->file);
    dk_groups_free(&o->ug);
    o->file = NULL;
    o->used = 0;
}

void dk_exit_check_idle(dk_exit_check *c)
{
    for (int i = 0; i < OPEN_ABOVE; i++)
        close_unit(c, &c->open[i]);
}

void dk_exit_check_free(dk_exit_check *c)
{
    if (!c)
        return;
    for (int i = 0; i < OPEN_ABOVE; i++)
        close_unit(c, &c->open[i]);
    dk_big_free(c->queue, c->cap * sizeof *c->queue);
    dk_big_free(c->sorted, c->cap * sizeof *c->sorted);
    dk_big_free(c->from, c->cap * sizeof *c->from);
    free(c->is_exit);
    free(c->count);
    free(c->pend);
    free(c->child);
    free(c->child_sorted);
    free(c->deep);
    memo_free(c);
    for (int k = 0; k < DK_TB_MATERIAL_SLOTS; k++)
        free(c->ix[k]);
    dk_tb_close(c->tb);
    free(c->dir);
    free(c);
}

/* Unit u of the level above, opened if it is not (the least recently read closed). */
static open_unit *unit_above(dk_exit_check *c, uint32_t u, char *err, size_t errlen)
{
    open_unit *pick = &c->open[0];
    for (int i = 0; i < OPEN_ABOVE; i++) {
        open_unit *o = &c->open[i];
        if (o->used && o->unit == u) {
            o->used = ++c->tick;
            return o;
        }
        if (o->used < pick->used)
            pick = o;
    }
    close_unit(c, pick);
    if (dk_groups_build(&pick->ug, c->gcache, u) != 0)
        return dk_errorf(err, errlen, "out of memory"), NULL;
    if (!(pick->file = dk_unitfile_open(&pick->ug, c->dir, c->limit, false, c->blocks, err, errlen))) {
        dk_groups_free(&pick->ug);
        return NULL;
    }
    pick->unit = u;
    pick->used = ++c->tick;
    return pick;
}

static dk_index *index_of(dk_exit_check *c, dk_material m, char *err, size_t errlen)
{
    dk_index *ix = malloc(sizeof *ix);
    if (!ix)
        return dk_errorf(err, errlen, "out of memory"), NULL;
    if (dk_index_init(ix, c->g->v, m) == 0)
        return ix;
    free(ix);
    char name[DK_MATERIAL_NAME_MAX];
    dk_material_name(m, name, sizeof name);
    return dk_errorf(err, errlen, "an exit leads to material %s, which has no tables", name), NULL;
}

/* The values of position i of ix's material, one of the pair's (an exit by a man move): from
 * the finished unit of the level above that holds it, found from the full index. */
static int above_value(dk_exit_check *c, const dk_index *ix, uint64_t i, dk_value out[2], char *err,
                       size_t errlen)
{
    uint64_t men = i / ix->kings_count;
    place *pl = &c->places[((men ^ (uintptr_t)ix) * 0x9E3779B97F4A7C15ull) >> (64 - PLACE_BITS)];
    if (pl->ix != ix || pl->men != men) {
        int64_t u = dk_workgraph_unit_of(c->g, ix->m, men);
        open_unit *o = u < 0 ? NULL : unit_above(c, (uint32_t)u, err, errlen);
        if (!o)
            return u < 0 ? dk_errorf(err, errlen, "a man move leads to no unit") : -1;
        int member;
        int64_t gi = dk_groups_find(&o->ug, ix->m, men, &member);
        if (gi < 0)
            return dk_errorf(err, errlen, "a man move leads to a subslice its unit does not hold");
        *pl = (place){ix, men, o, o->ug.groups[gi].offset + (uint64_t)member * o->ug.K};
    }
    uint64_t at = pl->base + i % ix->kings_count;
    unsigned stride = c->limit ? 2 : 1;
    out[1] = DK_RULE_DRAW;
    if (dk_unitfile_read(pl->o->file, at * stride, stride, out, err, errlen) != 0)
        return -1;
    out[0] = dk_unit_dtw(out[0]);
    return 0;
}

static int child_value(void *ctx, dk_material m, const dk_pos *p, dk_value out[2], char *err, size_t errlen);

/* The index of n in material m's numbering, and m's slot in *k. Returns -1 with one line in
 * err when m has no tables. */
static int64_t index_in(dk_exit_check *c, dk_material m, const dk_pos *n, int *k, char *err, size_t errlen)
{
    *k = dk_tb_material_slot(m);
    if (*k < 0 || (!c->ix[*k] && !(c->ix[*k] = index_of(c, m, err, errlen))))
        return *k < 0 ? dk_errorf(err, errlen, "an exit leads to a material no table holds") : -1;
    return (int64_t)dk_index_rank_memo(&c->men, c->ix[*k], n);
}

/* Where index i of the material in slot k is remembered, before the mask: each material
 * has its own offset, so that the small indices of all do not meet. */
static uint64_t memo_offset(int k, uint64_t mask) { return ((uint64_t)k * 0x9E3779B97F4A7C15ull) & mask; }

static uint64_t memo_hash(const dk_exit_check *c, int k, uint64_t i) { return i + memo_offset(k, c->memo_mask); }

/* The set where index i of the material in slot k is remembered, and its tag in *tag (0: too
 * large to be remembered; its low bits are the index's own place in the set). NULL when out of
 * memory. */
static resolved *memo_set(dk_exit_check *c, int k, uint64_t i, uint32_t *tag)
{
    if (!c->memo && !(c->memo = dk_big_alloc(memo_bytes(c))))
        return NULL;
    uint64_t h = memo_hash(c, k, i);
    /* with the set, gives h and so i back */
    uint64_t rest = (h >> c->memo_bits) * MEMO_WAYS | (h % MEMO_WAYS);
    *tag = rest < (1u << TAG_INDEX_BITS) ? (uint32_t)k << TAG_INDEX_BITS | (uint32_t)rest : 0;
    return &c->memo[h & c->memo_mask & ~(uint64_t)(MEMO_WAYS - 1)];
}

/* The values remembered for index i of the material in slot k, or NULL (not remembered, or no
 * memory: memo_remember says which). */
static const dk_value *memo_recall(dk_exit_check *c, int k, uint64_t i)
{
    uint32_t tag = 0;
    const resolved *set = memo_set(c, k, i, &tag);
    for (int w = 0; set && tag && w < MEMO_WAYS; w++)
        if (set[w].tag == tag)
            return set[w].v;
    return NULL;
}

/* Where the entry of `tag` goes in set: its own place while that is free or its own, else its
 * entry elsewhere in the set, else a free place, else its own place (what was there forgotten). */
static resolved *memo_place(resolved *set, uint32_t tag)
{
    resolved *home = &set[tag % MEMO_WAYS], *free_place = NULL;
    if (!home->tag || home->tag == tag)
        return home;
    for (int w = 0; w < MEMO_WAYS; w++) {
        if (set[w].tag == tag)
            return &set[w];
        if (!free_place && !set[w].tag)
            free_place = &set[w];
    }
    return free_place ? free_place : home;
}

/* Remembers v for index i of the material in slot k (after its resolution, which may have used
 * the set), in memo_place's entry. Returns -1 when out of memory. */
static int memo_remember(dk_exit_check *c, int k, uint64_t i, const dk_value v[2])
{
    uint32_t tag;
    resolved *set = memo_set(c, k, i, &tag);
    if (!set)
        return -1;
    resolved *e = tag ? memo_place(set, tag) : set;
    /* a new entry, or an index too large for this size's tags: either asks for more entries */
    c->memo_filled += !tag || !e->tag;
    if (tag)
        *e = (resolved){tag, {v[0], v[1]}};
    return 0;
}

/* The memory of values grows to four times its entries once it is more than half full
 * (indices too large for its tags counted as new entries), up to its most: as large as the
 * run's exits need, not as the room allows (made at a quarter of each unit's room, 512 MiB for
 * a 5-piece run that needs a few MiB, it cost more in page faults than it saved). What it
 * remembered is remembered again in the larger one (forgotten, it was resolved again: the
 * check of a 6-piece pair forgot 11 million entries and resolved 29 million positions where the
 * solver resolved 21 million). Only between reads: a resolution holds entries. */
static void memo_grow(dk_exit_check *c)
{
    if (c->memo_filled <= c->memo_mask / 2 || c->memo_bits >= c->memo_most)
        return;
    resolved *old = c->memo;
    const int old_bits = c->memo_bits;
    const uint64_t old_mask = c->memo_mask;
    c->memo = NULL; /* made by the first memo_remember below, or by the next read */
    memo_resize(c, old_bits + 2 < c->memo_most ? old_bits + 2 : c->memo_most);
    for (uint64_t e = 0; old && e <= old_mask; e++) {
        const uint32_t tag = old[e].tag, rest = tag & ((1u << TAG_INDEX_BITS) - 1);
        if (!tag)
            continue;
        const int k = (int)(tag >> TAG_INDEX_BITS);
        /* memo_set's h from the set and the tag */
        const uint64_t h = (uint64_t)(rest / MEMO_WAYS) << old_bits | (e & ~(uint64_t)(MEMO_WAYS - 1)) | rest % MEMO_WAYS;
        if (memo_remember(c, k, h - memo_offset(k, old_mask), old[e].v) != 0)
            break; /* out of memory: forgotten */
    }
    dk_big_free(old, memo_bytes_of(old_bits));
}

/* Fetches the entry of index i of the material in slot k ahead of its lookup (the entries are
 * far apart: a miss each). */
static void memo_prefetch(const dk_exit_check *c, int k, uint64_t i)
{
    if (c->memo)
        __builtin_prefetch(&c->memo[memo_hash(c, k, i) & c->memo_mask]);
}

/* The tables' draw rule, checked once against the run's: libdamka refuses DTC tables of
 * another rule than its first. */
static int rule_check(dk_exit_check *c, char *err, size_t errlen)
{
    if (c->limit && !c->rule_checked && dk_tb_rule_limit(c->tb) != c->limit)
        return dk_errorf(err, errlen, "the finished tables follow a draw rule of %u plies, this run %u",
                         dk_tb_rule_limit(c->tb), c->limit);
    c->rule_checked = true;
    return 0;
}

/* The values stored for positions idx[0..n) (ascending) of the material in slot k, none of which
 * must capture, with one call of libdamka: the j-th's from out + j * (1 + (limit != 0)). */
static int stored_values(dk_exit_check *c, int k, const uint64_t *idx, uint32_t n, dk_value *out, char *err,
                         size_t errlen)
{
    if (!c->tb) /* a failed dk_exit_check_set_room */
        return dk_errorf(err, errlen, "out of memory");
    static const dk_metric metrics[2] = {DK_METRIC_DTW, DK_METRIC_DTC};
    if (dk_tb_stored_values(c->tb, c->ix[k]->m, metrics, c->limit ? 2 : 1, idx, n, out) != DK_TB_OK)
        return dk_errorf(err, errlen, "%s", dk_tb_last_error());
    return rule_check(c, err, errlen);
}

/* The values of n, position i of the material in slot k, which must capture: through its
 * captures (dk_expected_values), remembered. For a capture's position of a chunk that must
 * capture again, and recursively below it (few: the exits themselves go through chunks). */
static int capture_value(dk_exit_check *c, int k, uint64_t i, const dk_pos *n, dk_value out[2], char *err,
                         size_t errlen)
{
    const dk_value *known = memo_recall(c, k, i);
    if (known) {
        out[0] = known[0];
        out[1] = known[1];
        return 0;
    }
    if (dk_expected_values(c->g->v, n, c->limit, child_value, c, out, err, errlen) != 0)
        return -1;
    if (!c->limit)
        out[1] = DK_RULE_DRAW;
    return memo_remember(c, k, i, out) != 0 ? dk_errorf(err, errlen, "out of memory") : 0;
}

/* verify.h's dk_value_fn for capture_value: the values of p (White to move, of material m), a
 * position a capture leads to, from the finished tables. */
static int child_value(void *ctx, dk_material m, const dk_pos *p, dk_value out[2], char *err, size_t errlen)
{
    dk_exit_check *c = ctx;
    int k;
    int64_t i = index_in(c, m, p, &k, err, errlen);
    if (i < 0)
        return -1;
    if (dk_can_capture(c->g->v, p, DK_WHITE))
        return capture_value(c, k, (uint64_t)i, p, out, err, errlen);
    uint64_t at = (uint64_t)i;
    out[1] = DK_RULE_DRAW; /* kept without a draw rule: only the DTW value is read */
    return stored_values(c, k, &at, 1, out, err, errlen);
}

/* Sorts q[0..n) by material and index, least significant digits first, with tmp (n entries)
 * to write to: *sorted is the one of the two that holds them sorted. index_bits: their indices
 * or-ed; nmaterials: the largest of their materials' numbers (the key's bits above
 * INDEX_BITS). The keys are made as short as the entries allow first (the material's number
 * just above the largest index's bits), and cut into as few digits as fit the counters (16
 * bits, 8 for a short queue, whose counters would cost more than its passes): each pass writes
 * every entry to one of up to 65536 places, a cache miss each. The counters of every pass are
 * made in one read of the entries; FEW_KEYS entries or fewer are sorted by insertion, their keys
 * as they are. Returns the index's bits in the sorted keys. */
static int sort_keys(dk_exit_check *c, queued *q, queued *tmp, uint32_t n, uint64_t index_bits,
                     uint16_t nmaterials, queued **sorted)
{
    *sorted = q;
    if (n <= FEW_KEYS) { /* by insertion, the keys as they are: the counters would cost more */
        for (uint32_t k = 1; k < n; k++) {
            const queued x = q[k];
            uint32_t j = k;
            for (; j > 0 && q[j - 1].key > x.key; j--)
                q[j] = q[j - 1];
            q[j] = x;
        }
        return INDEX_BITS;
    }
    const int ibits = index_bits ? 64 - __builtin_clzll(index_bits) : 1;
    const int bits = ibits + (32 - __builtin_clz(nmaterials));
    queued *from = q, *to = tmp;
    const int most = n >> SHORT_QUEUE_BITS ? RADIX_BITS : RADIX_BITS / 2;
    const int passes = (bits + most - 1) / most, digit = (bits + passes - 1) / passes;
    const uint64_t mask = (1u << digit) - 1;
    uint32_t *count = c->count; /* a row of 2^digit a pass */
    memset(count, 0, (sizeof *count << digit) * (size_t)passes);
    for (uint32_t k = 0; k < n; k++) { /* each key shortened, and counted for every pass */
        const uint64_t key = (from[k].key >> INDEX_BITS) << ibits | (from[k].key & ((1ull << INDEX_BITS) - 1));
        from[k].key = key;
        for (int p = 0; p < passes; p++)
            count[((size_t)p << digit) + ((key >> (p * digit)) & mask)]++;
    }
    for (int p = 0; p < passes; p++) {
        uint32_t *row = count + ((size_t)p << digit);
        for (uint32_t d = 0, sum = 0; d <= mask; d++) {
            uint32_t here = row[d];
            row[d] = sum;
            sum += here;
        }
        for (uint32_t k = 0; k < n; k++)
            to[row[(from[k].key >> (p * digit)) & mask]++] = from[k];
        queued *t = from;
        from = to;
        to = t;
    }
    *sorted = from;
    return ibits;
}

/* Sorts the queue into c->queue (sort_keys). */
static int sort_queue(dk_exit_check *c)
{
    queued *sorted;
    const int ibits = sort_keys(c, c->queue, c->sorted, c->n, c->index_bits, c->nmaterials, &sorted);
    if (sorted != c->queue) {
        c->sorted = c->queue;
        c->queue = sorted;
    }
    return ibits;
}

/* The message of an exit n of p the solver read otherwise. */
static int differs(const dk_exit_check *c, const dk_pos *p, const dk_pos *n, const dk_value got[2],
                   const dk_value want[2], char *err, size_t errlen)
{
    char name[DK_MATERIAL_NAME_MAX], fen[DK_FEN_MAX], nfen[DK_FEN_MAX];
    dk_material_name(dk_material_of(p), name, sizeof name);
    dk_fen_format(c->g->v, p, false, fen, sizeof fen);
    dk_fen_format(c->g->v, n, false, nfen, sizeof nfen);
    char rule[2][32] = {"", ""};
    for (int k = 0; c->limit && k < 2; k++)
        snprintf(rule[k], sizeof rule[k], ", rule value %u", (unsigned)(k ? want : got)[1]);
    return dk_errorf(err, errlen, "verification failed: material %s, position %s: the solver read "
                     "DTW value %u%s for its exit to %s, verification's own reader %u%s", name, fen,
                     (unsigned)got[0], rule[0], nfen, (unsigned)want[0], rule[1]);
}

static bool same(const dk_exit_check *c, const dk_value a[2], const dk_value b[2])
{
    return a[0] == b[0] && (!c->limit || a[1] == b[1]);
}

/* Reads the stored values of entries q[k..end) that need no capture, all of positions of one
 * material (slot_of[the number of q[k]'s]), with one call of libdamka: the values of the b-th
 * distinct index go to r (batch_values). *end: past the last entry of the batch (the
 * material's last, or where STORED_BATCH distinct indices are full). */
static int read_stored(dk_exit_check *c, const queued *q, uint32_t k, uint32_t n, int ibits,
                       const uint16_t *slot_of, stored_batch *r, uint32_t *end, char *err, size_t errlen)
{
    const uint64_t top = q[k].key >> ibits, imask = (1ull << ibits) - 1;
    uint32_t e = k, nb = 0;
    for (; e < n && q[e].key >> ibits == top; e++) {
        uint64_t i = q[e].key & imask;
        if (q[e].from & MUST_CAPTURE || (nb && r->stored[nb - 1] == i))
            continue;
        if (nb == STORED_BATCH)
            break;
        r->stored[nb++] = i;
    }
    *end = e;
    return nb ? stored_values(c, slot_of[top], r->stored, nb, r->values, err, errlen) : 0;
}

/* The values of the b-th position read into r. */
static void batch_values(const dk_exit_check *c, const stored_batch *r, uint32_t b, dk_value out[2])
{
    const unsigned stride = c->limit ? 2 : 1;
    out[0] = r->values[b * stride];
    out[1] = c->limit ? r->values[b * stride + 1] : DK_RULE_DRAW;
}

/* Compares the value the solver read for exit q (position i of ix's material) with `want`. */
static int compare(const dk_exit_check *c, const queued *q, const dk_index *ix, uint64_t i,
                   const dk_value want[2], char *err, size_t errlen)
{
    if (same(c, q->got, want))
        return 0;
    dk_pos exit = dk_index_unrank(ix, i);
    uint32_t f = q->from & ~MUST_CAPTURE;
    while (c->is_exit[f / 64] >> f % 64 & 1) /* the exit's own position: the one before is its */
        f--;
    return differs(c, &c->from[f], &exit, q->got, want, err, errlen);
}

/* Compares the exits queue[j..end) of queue[j]'s key (position i of the material in slot k)
 * with `want`, and marks them CHECKED. */
static int compare_captures(dk_exit_check *c, uint32_t j, uint32_t end, int k, uint64_t i, const dk_value want[2],
                            char *err, size_t errlen)
{
    const uint64_t key = c->queue[j].key;
    uint32_t d = j;
    for (; d < end && c->queue[d].key == key; d++)
        if (compare(c, &c->queue[d], c->ix[k], i, want, err, errlen) != 0)
            return -1;
    while (d > j)
        c->queue[--d].from = CHECKED;
    return 0;
}

/* Empties the chunk (after a failed read too: its materials' numbers are the queue's next). */
static void chunk_clear(dk_exit_check *c)
{
    for (uint16_t m = 1; m <= c->nchild_materials; m++)
        c->number[c->child_slot_of[m]] = 0;
    c->npend = c->nchild = c->ndeep = 0;
    c->nchild_materials = 0;
    c->child_index_bits = 0;
}

/* Resolves the chunk's exits (of the material in slot k, before queue[end]): the captures'
 * positions that must capture again through their captures, the others read sorted; their
 * values remembered and compared. The chunk is empty afterwards. */
static int resolve_chunk(dk_exit_check *c, int k, uint32_t end, uint64_t imask, char *err, size_t errlen)
{
    for (uint32_t d = 0; d < c->ndeep; d++) {
        if (d + DEEP_AHEAD < c->ndeep)
            memo_prefetch(c, c->deep[d + DEEP_AHEAD].slot, c->deep[d + DEEP_AHEAD].i);
        dk_value v[2];
        if (capture_value(c, c->deep[d].slot, c->deep[d].i, &c->deep[d].pos, v, err, errlen) != 0)
            return -1;
        dk_best_add(&c->pend[c->deep[d].owner].best, v, true, 0, c->limit);
    }
    if (c->nchild) {
        queued *sorted;
        const int ibits = sort_keys(c, c->child, c->child_sorted, c->nchild, c->child_index_bits,
                                    c->nchild_materials, &sorted);
        for (uint32_t j0 = 0, stop; j0 < c->nchild; j0 = stop) {
            if (read_stored(c, sorted, j0, c->nchild, ibits, c->child_slot_of, &c->children_read, &stop, err,
                            errlen) != 0)
                return -1;
            for (uint32_t j = j0, b = 0; j < stop; j++) {
                b += j > j0 && sorted[j].key != sorted[j - 1].key;
                dk_value v[2];
                batch_values(c, &c->children_read, b, v);
                dk_best_add(&c->pend[sorted[j].from].best, v, true, 0, c->limit);
            }
        }
    }
    for (uint32_t x = 0; x < c->npend; x++) {
        const dk_best *best = &c->pend[x].best;
        const dk_value want[2] = {best->value[0], c->limit ? best->value[1] : DK_RULE_DRAW};
        const uint32_t j = c->pend[x].j;
        const uint64_t i = c->queue[j].key & imask;
        if (memo_remember(c, k, i, want) != 0)
            return dk_errorf(err, errlen, "out of memory");
        if (compare_captures(c, j, end, k, i, want, err, errlen) != 0)
            return -1;
    }
    chunk_clear(c);
    return 0;
}

/* Adds exit queue[j] (of the material in slot k, which must capture, its value not remembered)
 * to the chunk: its captures' positions, each a capture (a conversion). The chunk is resolved
 * first when it is full. */
static int gather_captures(dk_exit_check *c, int k, uint32_t j, uint32_t end, uint64_t imask, char *err,
                           size_t errlen)
{
    const dk_pos *p = &c->from[c->queue[j].from & ~MUST_CAPTURE];
    dk_movelist list;
    dk_gen_moves(c->g->v, p, &list);
    if ((c->npend == CHUNK_EXITS || c->nchild + c->ndeep + (uint32_t)list.n > CHUNK_CHILDREN) &&
        resolve_chunk(c, k, end, imask, err, errlen) != 0)
        return -1;
    const uint32_t owner = c->npend++;
    c->pend[owner].j = j;
    dk_best_start(&c->pend[owner].best);
    for (int m = 0; m < list.n; m++) {
        dk_pos after = dk_apply(p, &list.m[m]);
        if (!after.pieces[after.side]) {
            const dk_value lost[2] = {dk_value_of_dtw(0), dk_rule_loss(0)};
            dk_best_add(&c->pend[owner].best, lost, true, 0, c->limit);
            continue;
        }
        dk_pos n = dk_pos_flip(c->g->v, &after);
        int slot;
        int64_t i = index_in(c, dk_material_of(&n), &n, &slot, err, errlen);
        if (i < 0)
            return -1;
        if (dk_can_capture(c->g->v, &n, DK_WHITE)) {
            c->deep[c->ndeep++] = (deep_child){n, (uint64_t)i, slot, owner};
            continue;
        }
        if (!c->number[slot]) {
            c->number[slot] = ++c->nchild_materials;
            c->child_slot_of[c->nchild_materials] = (uint16_t)slot;
        }
        c->child_index_bits |= (uint64_t)i;
        c->child[c->nchild++] = (queued){(uint64_t)c->number[slot] << INDEX_BITS | (uint64_t)i, owner, {0, 0}};
    }
    return 0;
}

/* Checks the exits of queue[k..end) (of the material in slot k) that must capture, and marks
 * them CHECKED: those whose values are remembered (three in four at 7 pieces) compared in one
 * pass, their entries fetched far ahead (a few nanoseconds each rather than a miss each), the
 * others resolved in chunks. */
static int check_captures(dk_exit_check *c, int k, uint32_t first, uint32_t end, uint64_t imask, char *err,
                          size_t errlen)
{
    chunk_clear(c); /* empty unless a read failed */
    for (uint32_t j = first; j < end; j++) {
        if (j + MEMO_AHEAD < end && c->queue[j + MEMO_AHEAD].from & MUST_CAPTURE)
            memo_prefetch(c, k, c->queue[j + MEMO_AHEAD].key & imask);
        const queued *q = &c->queue[j];
        if (!(q->from & MUST_CAPTURE) || (j > first && q->key == q[-1].key))
            continue;
        const uint64_t i = q->key & imask;
        const dk_value *known = memo_recall(c, k, i);
        if (known ? compare_captures(c, j, end, k, i, known, err, errlen) != 0
                  : gather_captures(c, k, j, end, imask, err, errlen) != 0)
            return -1;
    }
    return c->npend ? resolve_chunk(c, k, end, imask, err, errlen) : 0;
}

int dk_exit_check_flush(dk_exit_check *c, char *err, size_t errlen)
{
    uint32_t n = c->n;
    if (!n)
        return 0;
    memo_grow(c);
    const int ibits = sort_queue(c);
    const uint64_t imask = (1ull << ibits) - 1;
    c->n = c->nfrom = 0;
    c->index_bits = 0;
    for (uint16_t j = 1; j <= c->nmaterials; j++) /* slot_of stays for the reads below */
        c->number[c->slot_of[j]] = 0;
    c->nmaterials = 0;
    const int above[2] = {dk_tb_material_slot(c->pair->m), dk_tb_material_slot(c->pair->twin)};
    for (uint32_t k = 0, end; k < n; k = end) {
        const int slot = c->slot_of[c->queue[k].key >> ibits];
        const dk_index *ix = slot == above[0] ? &c->pair->ix : slot == above[1] ? &c->pair->ix_twin : NULL;
        dk_value want[2];
        if (ix) { /* man moves: one position and the exits that reach it */
            uint64_t i = c->queue[k].key & imask;
            if (above_value(c, ix, i, want, err, errlen) != 0)
                return -1;
            for (end = k; end < n && c->queue[end].key == c->queue[k].key; end++)
                if (compare(c, &c->queue[end], ix, i, want, err, errlen) != 0)
                    return -1;
            continue;
        }
        if (read_stored(c, c->queue, k, n, ibits, c->slot_of, &c->exits_read, &end, err, errlen) != 0 ||
            check_captures(c, slot, k, end, imask, err, errlen) != 0)
            return -1;
        for (uint32_t j = k, b = 0; j < end; j++) { /* the rest: stored values */
            const queued *q = &c->queue[j];
            if (q->from == CHECKED)
                continue;
            if (j == k || q->key != q[-1].key) /* else the position of the exit before: want holds its values */
                batch_values(c, &c->exits_read, b++, want);
            if (compare(c, q, c->ix[slot], q->key & imask, want, err, errlen) != 0)
                return -1;
        }
    }
    return 0;
}

/* Keeps p in `from` (an exit, or the position of the exits queued next): returns its place. */
static uint32_t keep(dk_exit_check *c, const dk_pos *p, bool exit)
{
    uint32_t f = c->nfrom++;
    c->from[f] = *p;
    uint64_t bit = (uint64_t)1 << f % 64;
    c->is_exit[f / 64] = exit ? c->is_exit[f / 64] | bit : c->is_exit[f / 64] & ~bit;
    if (!exit)
        c->parent = f;
    return f;
}

int dk_exit_check_add(dk_exit_check *c, const dk_wpair *pair, const dk_pos *p, dk_material m,
                      const dk_pos *n, const dk_value got[2], char *err, size_t errlen)
{
    if (!n->pieces[DK_WHITE]) { /* no piece left: lost, nothing to read */
        const dk_value want[2] = {dk_value_of_dtw(0), dk_rule_loss(0)};
        return same(c, got, want) ? 0 : differs(c, p, n, got, want, err, errlen);
    }
    if (c->n && c->pair != pair && dk_exit_check_flush(c, err, errlen) != 0)
        return -1;
    c->pair = pair;
    const dk_index *ix = dk_material_equal(m, pair->m)      ? &pair->ix
                         : dk_material_equal(m, pair->twin) ? &pair->ix_twin
                                                            : NULL;
    int k = dk_tb_material_slot(m);
    int64_t i = ix ? (int64_t)dk_index_rank_memo(&c->men, ix, n) : index_in(c, m, n, &k, err, errlen);
    if (i < 0)
        return -1;
    const dk_pos *last = c->nfrom ? &c->from[c->parent] : NULL;
    if (!last || last->pieces[0] != p->pieces[0] || last->pieces[1] != p->pieces[1] || last->kings != p->kings)
        keep(c, p, false);
    if (!c->number[k]) {
        c->number[k] = ++c->nmaterials;
        c->slot_of[c->nmaterials] = (uint16_t)k;
    }
    c->index_bits |= (uint64_t)i;
    uint32_t from = c->parent;
    if (!ix && dk_can_capture(c->g->v, n, DK_WHITE))
        from = keep(c, n, true) | MUST_CAPTURE;
    c->queue[c->n] = (queued){(uint64_t)c->number[k] << INDEX_BITS | (uint64_t)i, from, {got[0], got[1]}};
    /* full: the queue, or `from`, which the next exit may add two positions to */
    if (++c->n == c->cap || c->nfrom + 2 > c->cap)
        return dk_exit_check_flush(c, err, errlen);
    return 0;
}
