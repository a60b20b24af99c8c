/* What the solver's three files share, and nothing else includes: the solver's state, how a
 * group's positions are laid out over the ranks of a split unit, and the walk over the
 * positions a rank holds. solve.c solves (classification, the backward passes), split.c is
 * the protocol of a unit split over ranks (its exchanges, its verification), verify_unit.c the
 * forward check of a unit's values. */
#ifndef DK_SOLVE_INTERNAL_H
#define DK_SOLVE_INTERNAL_H

#include "solve.h"
#include "../store/unitfile.h"
#include "../check/verify.h"

/* The units one level above the unit being solved, opened on demand: man moves land there. At
 * most DK_SOLVER_ABOVE_OPEN are open (their blocks in the worker's pool, gen/store/blockpool.h); beyond, the
 * least recently opened is closed. */
typedef struct above_unit {
    uint32_t unit;
    dk_groups ug;
    dk_unitfile *file;
    uint64_t opened;
} above_unit;

typedef struct bucket {
    uint32_t *a;
    size_t n, cap;
} bucket;

/* A predecessor update for a position another rank holds: its local index there, and the value
 * of the successor whose update it is (DTW, or the rule value in the rule pass). */
typedef struct update {
    uint32_t at;
    dk_value v;
    uint16_t unused;
} update;

/* Updates waiting for one rank, or verification requests (local indexes) to it. */
typedef struct outbox {
    void *a;
    size_t n, cap; /* items */
} outbox;

/* Updates buffered before an exchange: a bound on the buffers whatever the group's size. */
enum { FLUSH_UPDATES = 1 << 20 };
/* Positions verified between two exchanges of a split unit. */
enum { VERIFY_CHUNK = 8192 };

/* Per position while a group is solved: DTW settled, an exit that draws (DTW); the side to move
 * must capture; the rule value settled, an exit not lost under the rule. */
enum { DONE = 1, DRAW_EXIT = 2, MUST_CAPTURE = 4, RULE_DONE = 8, RULE_DRAW_EXIT = 16 };

/* Man moves from one group reach a few subslices of the level above, again and again. */
enum { EXIT_CACHE = 64 };

typedef struct exit_slot {
    dk_bb wmen, bmen; /* the men of the subslice, as the exit sees them */
    int member; /* -1: empty */
    dk_unitfile *file;
    uint64_t base; /* position of kings_index 0 in the unit */
} exit_slot;

/* What the passes know of one position, together, so that an update touches one cache line:
 * its DTW value (or best so far), its slowest losing move, its rule value; the king moves
 * still open for each; its flags. */
typedef struct cell {
    dk_value val, slowest_loss, rule;
    uint8_t cnt, rule_cnt, flag;
} cell;

struct dk_solver {
    const dk_workgraph *g;
    const dk_variant *v;
    dk_finished *finished;
    dk_exit_check *check; /* reads every exit again, along its own path */
    unsigned limit;       /* the draw rule in plies; 0: no rule values */
    unsigned stride;      /* values per position in units and outputs: 1, or 2 with a rule */
    const dk_wpair *pair; /* the pair of the unit being solved */
    dk_groups_cache *gcache; /* the caller's */
    dk_block_pool *blocks; /* the decompressed blocks of the open units above (the caller's) */
    const char *why; /* why push failed */
    exit_slot cache[EXIT_CACHE];
    char *dir;
    /* in place while open: a unit file keeps a pointer to its groups (an empty slot: file NULL) */
    above_unit above[DK_SOLVER_ABOVE_OPEN];
    uint64_t opened; /* above units opened so far */
    /* per-group scratch, grown to the largest group (the positions this rank holds) */
    size_t cap;
    struct cell *cells;
    /* per position of the unit (this rank's share of a split one), its conversions as
     * classify read them (dk_expected_pack), for verification */
    dk_value *conv;
    size_t conv_cap;
    bucket *buckets;
    size_t nbuckets;
    /* a split unit's buffers, one outbox per rank, and for verification the chunk slot of each
     * question in box */
    outbox *box, *slots;
    int nboxes;
    size_t *counts, *recv_counts;
    void *send, *recv, *answers;
    size_t send_cap, recv_cap, answers_cap;
    size_t queued; /* updates in the outboxes */
    /* The predecessors here of the position taken last, whose update waits until the next
     * position's predecessors are found and their cells fetched: time for the fetch to land.
     * (The order of a bucket's updates does not change the values: see run_pass.) */
    uint32_t pending[2][DK_MAX_MOVES];
    int npending, pending_at; /* how many, in which of the two */
    dk_value pending_v;
};

/* Which positions of the group this rank holds. Positions are numbered in the unit's order
 * inside the group (global: X's K positions, then X''s) and cut into parts of S positions; part
 * q is held by rank q % nranks, and a rank stores its parts one after the other (local index).
 * One rank holds everything: local is global. */
typedef struct layout {
    uint64_t n, S;
    int rank, nranks;
    uint64_t nlocal;
} layout;

static inline layout make_layout(uint64_t n, uint64_t S, int rank, int nranks)
{
    layout L = {n, S ? S : 1, rank, nranks, 0};
    for (uint64_t lo = (uint64_t)rank * L.S; lo < n; lo += (uint64_t)nranks * L.S)
        L.nlocal += n - lo < L.S ? n - lo : L.S;
    return L;
}

/* The rank holding global position i, and its local index there. */
static inline int owner_of(const layout *L, uint64_t i, uint32_t *l)
{
    if (L->nranks == 1) {
        *l = (uint32_t)i;
        return 0;
    }
    uint64_t q = i / L->S;
    *l = (uint32_t)((q / (uint64_t)L->nranks) * L->S + i % L->S);
    return (int)(q % (uint64_t)L->nranks);
}

static inline uint64_t global_of(const layout *L, uint32_t l)
{
    if (L->nranks == 1)
        return l;
    uint64_t q = ((uint64_t)l / L->S) * (uint64_t)L->nranks + (uint64_t)L->rank;
    return q * L->S + l % L->S;
}

/* What one group needs while it is solved. */
typedef struct group_ctx {
    const dk_index *ix[2];
    uint64_t men[2];
    dk_bb wmen[2], bmen[2]; /* the men of each member's subslice, unranked once */
    uint64_t K;
    int nmembers;
    layout L;
    const dk_split_comm *comm; /* NULL: one rank */
} group_ctx;

static inline group_ctx make_group(const dk_groups *ug, const dk_group *gr, const dk_split_comm *comm)
{
    const dk_wpair *pair = ug->pair;
    group_ctx c = {{&pair->ix, &pair->ix_twin}, {gr->men[0], gr->men[1]},
                   {0, 0}, {0, 0}, ug->K, gr->self_flip ? 1 : 2, {0}, comm};
    for (int member = 0; member < 2; member++)
        dk_index_men_unrank(c.ix[member], c.men[member], &c.wmen[member], &c.bmen[member]);
    uint64_t n = c.K * (uint64_t)c.nmembers;
    c.L = comm ? make_layout(n, ug->part_size, comm->rank, comm->nranks) : make_layout(n, n, 0, 1);
    return c;
}

static inline int other_member(const group_ctx *c, int member) { return c->nmembers == 1 ? 0 : 1 - member; }

static inline int member_of(const group_ctx *c, uint64_t i) { return i >= c->K ? 1 : 0; }

/* The position of kings index k on member `member` of the group: only its kings are unranked. */
static inline dk_pos group_pos(const group_ctx *c, int member, uint64_t k)
{
    dk_bb wk, bk;
    dk_index_kings_unrank(c->ix[member], k, c->wmen[member] | c->bmen[member], &wk, &bk);
    return (dk_pos){{c->wmen[member] | wk, c->bmen[member] | bk}, wk | bk, DK_WHITE};
}

/* Walks the positions this rank holds, in local order. */
typedef struct held_iter {
    const group_ctx *c;
    uint64_t i, end; /* global index, end of its run (a part or a member, whichever ends first) */
    uint32_t l;
    int member;
    dk_subslice_iter it;
} held_iter;

static inline void held_seek(held_iter *h)
{
    const layout *L = &h->c->L;
    uint64_t part_end = (h->i / L->S + 1) * L->S;
    h->member = member_of(h->c, h->i);
    uint64_t member_end = (uint64_t)(h->member + 1) * h->c->K;
    h->end = part_end < member_end ? part_end : member_end;
    if (h->end > L->n)
        h->end = L->n;
    dk_subslice_seek(&h->it, h->c->ix[h->member], h->c->men[h->member], h->i - (uint64_t)h->member * h->c->K);
}

/* Starts at local index 0; returns false if the rank holds nothing. */
static inline bool held_begin(held_iter *h, const group_ctx *c)
{
    h->c = c;
    h->l = 0;
    h->i = (uint64_t)c->L.rank * c->L.S;
    if (h->i >= c->L.n)
        return false;
    held_seek(h);
    return true;
}

static inline bool held_next(held_iter *h)
{
    h->l++;
    if (++h->i < h->end) {
        dk_subslice_next(&h->it);
        return true;
    }
    if (h->i % h->c->L.S == 0) /* the next part this rank holds */
        h->i += (uint64_t)(h->c->L.nranks - 1) * h->c->L.S;
    if (h->i >= h->c->L.n)
        return false;
    held_seek(h);
    return true;
}

/* solve.c: the solver's passes over a group, used by the split unit's protocol (split.c). */

/* Starts a unit of ug's pair (keeps the units above open when the pair is the same). */
void dk_solver_begin_unit(dk_solver *s, const dk_groups *ug);

/* Makes room for the conversions of n positions. Returns 0, or -1 with one line in err. */
int dk_solver_grow_conv(dk_solver *s, uint64_t n, char *err, size_t errlen);

/* Solves the positions of group c this rank holds into out and their conversions into conv.
 * Returns DK_OK, or a failure with one line in err (DK_PEER_FAILED: another rank's). */
int dk_solver_solve_group(dk_solver *s, const group_ctx *c, dk_value *out, dk_value *conv, char *err,
                          size_t errlen);

/* verify_unit.c: the forward check of one position, used by the split unit's verification. */

/* Adds to x the values of p's successors by quiet king moves (or records that p must capture);
 * those another rank holds are queued as questions. Returns 0, or -1 with one line in err. */
int dk_solver_verify_quiet(dk_solver *s, const group_ctx *c, const dk_pos *p, int member,
                           const dk_value *values, uint32_t slot, dk_expected *x, char *err,
                           size_t errlen);

/* Whether position l's stored values are the expected ones x, its capture flag included. */
bool dk_solver_passes(const dk_solver *s, const dk_value *values, uint32_t l, const dk_expected *x);

/* split.c: the split unit's protocol, used by the solver's passes. */

/* Appends an item of `size` bytes to an outbox. Returns 0, or -1 when out of memory. */
int dk_split_box_add(outbox *b, const void *item, size_t size);

/* Sends every outbox to its rank and receives the others' (collective); flags become their
 * minimum over the ranks. Returns 0, or -1 when out of memory (then on every rank). */
int dk_split_exchange(dk_solver *s, const group_ctx *c, size_t size, int64_t *flags, int nflags);

/* Each rank's status, combined: the least over the ranks of each word (nothing on one rank). */
void dk_split_agree(const group_ctx *c, int64_t *v, int n);

/* Tells a split's progress hook where this rank stands (nothing on one rank). */
void dk_split_report(const group_ctx *c, const char *stage, uint64_t done, uint64_t total, uint64_t rounds);

/* Frees the buffers of a split. */
void dk_split_free_boxes(dk_solver *s);

#endif
