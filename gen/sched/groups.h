/* The layout of one work unit: which subslices it solves and where their values go.
 *
 * A unit holds the canonical subslices X of one level of a pair with men_index in its range
 * (workgraph.h). Each X forms a group with its flip X' in the twin material (the
 * Black-to-move side of X): king moves connect the two and nothing else. A unit's values are
 * the groups in ascending X, each group the K values of X then the K values of X' (K =
 * positions per subslice), or X alone when X is its own flip. The pair's two materials are its
 * members, numbered 0 (the canonical material, X) and 1 (the twin, X'); "side" means only the
 * side to move. */
#ifndef DK_GROUPS_H
#define DK_GROUPS_H

#include "workgraph.h"

typedef struct dk_group {
    uint64_t men[2];   /* men_index of X in the canonical material, of X' in the twin */
    uint64_t offset;   /* first value of the group in the unit */
    bool self_flip;    /* X' is X: one subslice */
} dk_group;

typedef struct dk_groups {
    const dk_workgraph *g;
    uint32_t unit;
    const dk_wpair *pair;
    int level;
    uint64_t K;        /* positions per subslice */
    size_t ngroups;
    const dk_group *groups;  /* shared with the cache and other builds of the unit: read only */
    struct dk_groups_block *block; /* what holds them (NULL: none, a shape) */
    uint64_t npositions;
    /* A unit holding one subslice above the bound that the work graph marks split is: its positions
     * are cut into nparts parts of part_size positions (the last one shorter), which several
     * ranks solve together and which are stored one file each (unitfile.h). Otherwise nparts is
     * 1 and part_size npositions. */
    uint64_t nparts;
    uint64_t part_size;
} dk_groups;

/* The canonical subslices of every layer of one pair, listed once and reused by every unit of
 * that pair (listing costs an unrank per placement of men), and the groups of the units built
 * last, which builds of the same unit share instead of making them again (the solver reopens
 * the units above it many times). One per thread: the groups built from a cache are freed on
 * the thread that uses it. */
typedef struct dk_groups_cache dk_groups_cache;

dk_groups_cache *dk_groups_cache_new(const dk_workgraph *g);
void dk_groups_cache_free(dk_groups_cache *c);

/* A cache keeps the lists of pairs of at most this many subslices within this bound together,
 * and beside them those of the larger pair listed last if it has at most DK_GROUPS_KEPT_LARGE
 * subslices (32 MiB of lists). A pair above that is never listed: a unit of it walks its own
 * level within its range (levelwalk.h), at a cost in proportion to its subslices, so that what
 * a rank holds for its groups is bounded by its units, not by the pairs. */
#define DK_GROUPS_CACHED_SUBSLICES ((uint64_t)1 << 19)
#define DK_GROUPS_KEPT_LARGE ((uint64_t)1 << 21)

/* The canonical subslices of pair p as the cache's bounds count them (half the placements of a
 * self-twin pair). Pure. */
uint64_t dk_groups_pair_subslices(const dk_wpair *p);

/* How many times the cache has listed a pair's subslices (walking all its men placements). */
uint64_t dk_groups_cache_listed(const dk_groups_cache *c);

/* How many times the cache has made a unit's groups (from a pair's lists or by walking the unit),
 * not counting the builds that shared groups made before. */
uint64_t dk_groups_cache_made(const dk_groups_cache *c);

/* Unit u's groups into *ug, made (from its pair's lists or by walking its level) or shared with
 * the cache and other builds of u, and a split unit cut into parts. Free each build with
 * dk_groups_free. Returns 0, or -1 if out of memory. Not thread-safe (the cache is one thread's). */
int dk_groups_build(dk_groups *ug, dk_groups_cache *cache, uint32_t u);

/* Unit u without its groups, knowing it holds npositions (from its groups built): all
 * its files need (unitfile.h), at no cost, where building it again would list every group.
 * Pure. */
void dk_groups_shape(dk_groups *ug, const dk_workgraph *g, uint32_t u, uint64_t npositions);

void dk_groups_free(dk_groups *ug);

/* Where subslice men_index of material m (a member of the unit's pair, at its level)
 * is: returns the group and sets *member (0: X, 1: X'), or -1 if the unit does not hold it. */
int64_t dk_groups_find(const dk_groups *ug, dk_material m, uint64_t men_index, int *member);

/* The group whose X is canonical subslice x (dk_workgraph_unit_of_placement), or -1 if the unit
 * does not hold it. A binary search; pure. */
int64_t dk_groups_find_canonical(const dk_groups *ug, uint64_t x);

/* The file that holds a finished unit: "<dir>/work/<variant>-<material>.L<level>.<lo>-<hi>". */
int dk_groups_path(const dk_groups *ug, const char *dir, char *buf, size_t len);

#endif
