/* The dependency graph of generation work.
 *
 * Both sides to move of a material are solved together, since king moves connect them: a
 * material M (White to move) is paired with its twin M' (White to move, holding M's
 * Black-to-move positions); a self-twin material (M == M') is a pair on its own. The first of
 * the two in generation order is the pair's canonical material; a subslice S of it stands for
 * S with both sides to move, so the unit that holds S also holds flip(S) in the twin. In a
 * self-twin pair, S and flip(S) are both in M; the one with the smaller men_index is canonical.
 *
 * A layer is the subslices of one advancement level of a pair; they are independent of each
 * other. A unit of work is a chunk of a layer: the canonical subslices of that level whose
 * men_index lies in [men_lo, men_hi), bounded by a number of positions per unit:
 *   - a layer within the bound is one unit;
 *   - a larger layer of a material with few enough subslices to list (DK_WG_LIST_LIMIT) is cut
 *     into consecutive runs of its subslices, each within the bound and counted exactly;
 *   - otherwise into men_index ranges of equal width, each within the bound but counted only
 *     as an upper bound (exact = false; such a unit may even hold no subslice);
 *   - a single subslice larger than the bound (kings-only materials, say) is a unit anyway
 *     (oversize = true).
 * "Positions" of a unit are the White-to-move normal forms it produces: its table entries.
 *
 * Tasks: solving a unit, and finishing a pair (assembling its tables from its units' files,
 * writing them compressed), which the units of other pairs read. A pair above the finishing
 * bound (dk_workgraph_cut_finishes) is finished in parts, ranges of whole blocks of a member's
 * tables (gen/finish/parttasks.h): each part scanned (its values copied out of the units, counted),
 * then each packed (its blocks compressed), then the finish joins them. Edges:
 *   - a pair's finish waits for every unit of the pair, or, cut into parts, for every part
 *     packed; a part's packing waits for every part of its pair scanned, a scan for every unit
 *     of its pair;
 *   - a layer's units wait for the layer of their pair one level up (man moves lead there: its
 *     unit files are read) and for the finish of every pair reachable from either material by
 *     a capture or a promotion (dk_material_exits; its tables are read).
 * Unit ids are a topological order of the units (pairs in generation order, then levels
 * downwards, then chunks) and a pair depends only on pairs of lower ids, so units of pair 0,
 * its finish, units of pair 1, its finish, ... is a topological order of all tasks.
 *
 * The graph owns readiness: dk_workgraph_reset says what is already done, dk_workgraph_take
 * hands out ready tasks in the scheduler's priority, dk_workgraph_done records a task done and
 * releases what it unblocks. `damka gen`'s scheduler and `damka plan`'s simulation both drive
 * the graph this way, so they cannot disagree on what may run.
 *
 * A built graph is read-only except for that scheduling state, which one thread owns; the
 * functions that only read the graph are thread-safe. */
#ifndef DK_WORKGRAPH_H
#define DK_WORKGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "heap.h"
#include "../../index/perfect.h"

/* The positions a part of a finishing is a multiple of (its last part aside): whole blocks of
 * every metric (gen/finish/ctable_write.c: WLD 65536, DTW and DTC 16384) and of value files (4096). */
#define DK_FPART_ALIGN ((uint64_t)1 << 16)

/* Materials with at most this many subslices are listed to cut layers exactly. */
#define DK_WG_LIST_LIMIT ((uint64_t)1 << 22)

typedef struct dk_unit {
    uint32_t pair, layer;
    uint32_t chunk;          /* 0.. within the layer */
    int level;
    uint64_t men_lo, men_hi; /* men_index range of the canonical material */
    uint64_t positions;      /* table entries produced (an upper bound when !exact) */
    uint64_t counted;        /* its part of its layer's exact count: positions when exact, else
                              * what the exact units leave spread over the others in proportion
                              * to their bounds; a layer's units add up to its positions, so that
                              * progress and forecasts never count more than there is */
    bool exact;
    bool oversize;           /* one subslice above the bound */
    bool split;              /* oversize and solved by several ranks at once (set by the
                              * generator's setup from its memory, false when built) */
} dk_unit;

typedef struct dk_layer {
    uint32_t pair;
    int level;
    uint32_t first_unit, nunits;
    uint64_t subslices;      /* subslices of the canonical material at this level */
    uint64_t positions;      /* table entries of both materials at this level (exact) */
} dk_layer;

typedef struct dk_wpair {
    dk_material m, twin;     /* canonical material and its twin (equal when self-twin) */
    dk_index ix, ix_twin;
    bool self_twin;
    int min_level, max_level;
    uint32_t first_layer, nlayers; /* layers from max_level down; levels without subslices skipped */
    int32_t *layer_of_level; /* [level - min_level] -> layer id or -1 */
    uint32_t first_dep, ndeps;     /* pairs this one depends on, in deps[] */
    uint32_t first_rdep, nrdeps;   /* pairs depending on this one, in rdeps[] */
    uint64_t positions;      /* table entries of both materials */
    uint32_t first_part, nparts; /* its finishing's parts in parts[] (0: finished whole) */
} dk_wpair;

/* A part of a pair's finishing: positions [lo, hi) of the tables of material `member` (0: the
 * canonical one, 1: the twin), whole blocks of every metric (gen/finish/parttasks.h). */
typedef struct dk_fpart {
    uint32_t pair;
    int member;
    uint64_t lo, hi;
} dk_fpart;

typedef struct dk_workgraph {
    const dk_variant *v;
    uint64_t max_positions;  /* the bound on positions per unit */
    uint32_t npairs, nlayers, nunits;
    dk_wpair *pairs;
    dk_layer *layers;
    dk_unit *units;
    uint32_t *deps, *rdeps;
    uint64_t finish_positions; /* the finishing bound (dk_workgraph_cut_finishes; 0: none) */
    uint32_t nparts;
    dk_fpart *parts;
    /* scheduling state (readiness.c); read it, change it only through the functions below */
    uint8_t *unit_state;     /* dk_wg_state of each unit */
    uint8_t *finish_state;   /* dk_wg_state of each pair's finish */
    uint32_t *layer_waiting; /* unmet conditions: the layer above done, dependency pairs finished */
    uint32_t *layer_left;    /* units not done */
    uint32_t *pair_left;     /* layers not done */
    dk_heap ready;           /* ready tasks (dk_wg_ready), the highest priority first */
    double *unit_prio;       /* each unit's priority: its bottom level (dk_workgraph_prioritize) */
    double *finish_prio;     /* each pair's finish's */
    uint8_t *part_state;     /* dk_wg_state of each part's scan (q), then of its packing (nparts + q) */
    uint32_t *scans_left, *packs_left; /* by pair: parts not scanned, not packed */
    double *part_prio;       /* as part_state */
    uint32_t pairs_open;     /* pairs not finished */
} dk_workgraph;

typedef enum { DK_WG_UNIT = 1, DK_WG_FINISH = 2, DK_WG_SCAN = 3, DK_WG_PACK = 4 } dk_wg_kind;

/* A task: solve unit `id`, finish pair `id`, scan or pack part `id` of a finishing. */
typedef struct dk_wg_task {
    dk_wg_kind kind;
    uint32_t id;
} dk_wg_task;

/* A ready task in the heap: its priority, then a key that breaks ties (a pair's finish is its
 * id, a packing 2^32 + its id, a scan 2 x 2^32 + its id, a unit 3 x 2^32 + its id: finishes
 * first, each kind by id). */
typedef struct dk_wg_ready {
    double prio;
    uint64_t key;
} dk_wg_ready;

/* Where a task stands. */
typedef enum { DK_WG_WAITING = 0, DK_WG_READY = 1, DK_WG_TAKEN = 2, DK_WG_DONE = 3 } dk_wg_state;

/* Builds the graph for the target materials and everything they depend on (their twins and the
 * closure of dk_material_exits), units of at most max_positions positions (>= 1). Returns the
 * graph with its scheduling state reset (nothing finished), or NULL if a material is invalid
 * for v, too large to index, or memory runs out. Thread-safe (no shared state). */
dk_workgraph *dk_workgraph_build(const dk_variant *v, const dk_material *targets, size_t ntargets,
                                 uint64_t max_positions);

/* Frees the graph. */
void dk_workgraph_free(dk_workgraph *g);

/* The pair holding material m (either member), or -1. Thread-safe. */
int dk_workgraph_pair_of(const dk_workgraph *g, dk_material m);

/* The unit holding subslice men_index of material m (either member of a pair), or -1 if m is
 * not in the graph. Costs an unrank and a rank for the non-canonical side. Thread-safe. */
int64_t dk_workgraph_unit_of(const dk_workgraph *g, dk_material m, uint64_t men_index);

/* The unit of pair p holding the placement of men wmen, bmen of its member `member` (0: p->m, 1:
 * p->twin; 0 in a self-twin pair), from the placement in hand (dk_workgraph_unit_of unranks it
 * again): *canonical is the men_index of its group's X (groups.h) and *flipped whether the
 * placement is X' rather than X. Returns the unit, or -1 if the placement's level has no layer.
 * Pure; thread-safe. */
int64_t dk_workgraph_unit_of_placement(const dk_workgraph *g, const dk_wpair *p, int member, dk_bb wmen,
                                       dk_bb bmen, uint64_t *canonical, int *flipped);

/* Sets the scheduling state from what is already done, e.g. by an earlier run: units_done and
 * pairs_finished are bitsets by id (bit i % 64 of word i / 64; NULL = none). Every unit of a
 * finished pair counts as done. Whatever this leaves ready (dk_workgraph_take) is ready; nothing
 * is taken. O(size of the graph). Not thread-safe. */
void dk_workgraph_reset(dk_workgraph *g, const uint64_t *units_done, const uint64_t *pairs_finished);

/* dk_workgraph_reset, with the parts of finishings done too: bit q of parts_done (NULL = none)
 * says part q is scanned, bit nparts + q that it is packed. */
void dk_workgraph_reset_parts(dk_workgraph *g, const uint64_t *units_done, const uint64_t *pairs_finished,
                              const uint64_t *parts_done);

/* Cuts the finishing of every pair of more than finish_positions table entries (0: none) into
 * parts (dk_fpart) of at most that many positions of one member, rounded down to whole blocks
 * of every metric (DK_FPART_ALIGN, at least one); resets the scheduling state and every
 * priority. Returns 0, or -1 when out of memory (the graph unchanged). Not thread-safe. */
int dk_workgraph_cut_finishes(dk_workgraph *g, uint64_t finish_positions);

/* The most positions of a part under finish_positions: rounded down to DK_FPART_ALIGN, at least
 * that. Pure. */
uint64_t dk_workgraph_part_step(uint64_t finish_positions);

/* Sets the scheduling priorities from each task's cost (seconds, or any unit common to the
 * arrays: unit_cost[u] for unit u, finish_cost[p] for pair p's finish, part_cost[q] for part q's
 * scan and part_cost[nparts + q] for its packing, NULL: none): a task's priority is its
 * bottom level, its cost plus the longest chain of costs of the tasks that wait for it, so that
 * the longest chains start first and the ranks do not end up waiting on one of them at the end
 * of a run. A built graph has every priority 0. Call before dk_workgraph_reset. O(size of the
 * graph). Not thread-safe. */
void dk_workgraph_prioritize(dk_workgraph *g, const double *unit_cost, const double *finish_cost,
                             const double *part_cost);

/* Takes the next ready task into *t and marks it taken: the highest priority first; among equal
 * priorities (a graph not prioritized) finishing a pair before any unit (its tables unblock the
 * units of other pairs), the lowest pair first, then the lowest ready unit. Returns false,
 * leaving *t alone, when nothing is ready (tasks may still be taken and not done). O(log ready).
 * Not thread-safe. */
bool dk_workgraph_take(dk_workgraph *g, dk_wg_task *t);

/* Records a taken task done: a unit solved and its file written, a part scanned or packed, or a
 * pair's tables written. Releases what this unblocks: the units of the layer below when the
 * unit's layer is done, the pair's finish (or its parts' scans) when all its units are, its
 * parts' packing when all are scanned, its finish when all are packed, and after a finish the
 * layers of the pairs that read it
 * whose conditions all hold. Returns how many tasks became ready; 0 too if t was not taken (a
 * no-op). Cost: O(log ready) a task released, and after a finish the layers of the pairs that
 * read it. Not thread-safe. */
uint32_t dk_workgraph_done(dk_workgraph *g, dk_wg_task t);

/* Takes nothing: the task dk_workgraph_take would hand out next into *t. Returns false when
 * nothing is ready. O(1). Not thread-safe. */
bool dk_workgraph_peek(const dk_workgraph *g, dk_wg_task *t);

/* The parts split unit u is cut into (parts of max_positions, the last one shorter:
 * gen/sched/groups.h), 1 for a unit not split. Pure. */
uint64_t dk_workgraph_split_parts(const dk_workgraph *g, uint32_t u);

/* The most positions one of `nranks` ranks holds of unit u: all of them, or for a split unit
 * whose parts are dealt out over the ranks (part q to the q % nranks th), the parts of the rank
 * holding the most. Pure. */
uint64_t dk_workgraph_held(const dk_workgraph *g, uint32_t u, uint64_t nranks);

/* The most positions one of `nranks` ranks holds of any unit (dk_workgraph_held): what a rank's
 * memory must hold to solve, and a split unit's share. O(units). Pure. */
uint64_t dk_workgraph_largest_held(const dk_workgraph *g, uint64_t nranks);

/* How many tasks are ready. Reads the scheduling state: its owner's thread only. */
static inline uint32_t dk_workgraph_nready(const dk_workgraph *g) { return (uint32_t)g->ready.n; }

/* Whether every pair is finished. Reads the scheduling state: its owner's thread only. */
static inline bool dk_workgraph_all_finished(const dk_workgraph *g) { return g->pairs_open == 0; }

#endif
