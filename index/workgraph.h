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
 * Edges: a layer depends on the layer of its pair one level up (man moves), and on every pair
 * reachable from either material by a capture or a promotion (dk_material_exits), all of whose
 * units must be finished. Unit ids are a topological order: pairs in generation order, then
 * levels downwards, then chunks.
 *
 * A built graph is read-only except for the scheduling state (dk_workgraph_reset,
 * dk_workgraph_mark_done), which one thread owns. */
#ifndef DK_WORKGRAPH_H
#define DK_WORKGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "perfect.h"

/* Materials with at most this many subslices are listed to cut layers exactly. */
#define DK_WG_LIST_LIMIT ((uint64_t)1 << 22)

typedef struct dk_unit {
    uint32_t pair, layer;
    uint32_t chunk;          /* 0.. within the layer */
    int level;
    uint64_t men_lo, men_hi; /* men_index range of the canonical material */
    uint64_t positions;      /* table entries produced (an upper bound when !exact) */
    bool exact;
    bool oversize;           /* one subslice above the bound */
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
} dk_wpair;

typedef struct dk_workgraph {
    const dk_variant *v;
    uint64_t max_positions;  /* the bound on positions per unit */
    uint32_t npairs, nlayers, nunits;
    dk_wpair *pairs;
    dk_layer *layers;
    dk_unit *units;
    uint32_t *deps, *rdeps;
    /* scheduling state */
    uint8_t *unit_done;
    uint32_t *layer_waiting; /* unfinished dependencies: layer above + pairs */
    uint32_t *layer_left;    /* unfinished units */
    uint32_t *pair_left;     /* unfinished layers */
} dk_workgraph;

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

/* Whether subslice men_index of the pair's canonical material is canonical (always, unless the
 * pair is self-twin and flip(S) has a smaller men_index). Thread-safe. */
bool dk_workgraph_canonical(const dk_workgraph *g, uint32_t pair, uint64_t men_index);

/* Writes to out (room for g->nunits) the units not in `finished` (a bitset by unit id, bit
 * u % 64 of word u / 64; NULL = none) all of whose dependencies are in it, ascending.
 * Returns how many. Does not touch the scheduling state. Thread-safe. */
uint32_t dk_workgraph_ready(const dk_workgraph *g, const uint64_t *finished, uint32_t *out);

/* Sets the scheduling state to `finished` (NULL = nothing finished), e.g. on restart. Not
 * thread-safe. */
void dk_workgraph_reset(dk_workgraph *g, const uint64_t *finished);

/* Marks a ready, unfinished unit finished; writes to out (room for g->nunits) the units that
 * this made ready, ascending within each layer. Returns how many (0 if the unit was already
 * finished). Amortised cost: the dependents it releases. Not thread-safe. */
uint32_t dk_workgraph_mark_done(dk_workgraph *g, uint32_t unit, uint32_t *out);

#endif
