/* A finished pair's values in table order, read from its unit files as a value source, so that
 * writing its tables needs memory for neither material whole.
 *
 * Units hold groups (a subslice X of the canonical material and its flip X' in the twin), in
 * ascending X; a table holds subslices in ascending men_index. The reader knows where every
 * subslice of the pair lies (a unit and an offset, listed once per pair) and keeps a few unit
 * files mapped, the least recently used closed first. One per thread. */
#ifndef DK_PAIRREADER_H
#define DK_PAIRREADER_H

#include "../store/blockpool.h"
#include "../sched/groups.h"
#include "../store/valuesource.h"
#include "../store/valuefile.h"

typedef struct dk_pair_reader dk_pair_reader;

/* The part of the worker's pool of decompressed blocks a reader takes: what 16 files held with
 * a cache each (no more than the least exit cache, gen/plan/budget.c). */
#define DK_PAIR_READER_POOL_BYTES ((uint64_t)16 * DK_VFILE_CACHE_MAX)

/* Lists where the subslices of pair p lie in the unit files under dir (stride values a
 * position, a draw rule of `limit` plies). The unit files' blocks go to the first
 * DK_PAIR_READER_POOL_BYTES of `pool` (dk_block_pool_bound), which no other reader may hold
 * blocks of until the reader is freed (then it hands out all of its slots again). Returns NULL
 * with one line in err when out of memory. */
dk_pair_reader *dk_pair_reader_new(const dk_workgraph *g, dk_groups_cache *gcache, dk_block_pool *pool,
                                   const char *dir, uint32_t p, unsigned limit, char *err, size_t errlen);

/* A reader of positions [lo, hi) of the pair's material `member` only (a part of a finishing,
 * workgraph.h): it lists where the subslices of that range lie, and its source (read only
 * within the range) gives the values with the units' capture flags (DK_UNIT_CAPTURE) on them;
 * dk_pair_reader_captures gives NULL. Returns NULL with one line in err when out of memory. */
dk_pair_reader *dk_pair_reader_window(const dk_workgraph *g, dk_groups_cache *gcache, dk_block_pool *pool,
                                      const char *dir, uint32_t p, unsigned limit, int member, uint64_t lo,
                                      uint64_t hi, char *err, size_t errlen);

void dk_pair_reader_free(dk_pair_reader *r);

/* The values of the pair's material `member` (0: canonical, 1: twin; a self-twin pair has one) in
 * table order, without the units' capture flags. A unit file is checked whole (CRC) the first
 * time it is read; a missing or damaged one makes the source fail with one line. Valid until
 * the reader is freed. */
const dk_value_source *dk_pair_reader_member(dk_pair_reader *r, int member);

/* The must-capture map of material `member`: bit i (byte i / 8, bit i % 8) set when position i's
 * side to move must capture, as the units' flags say (unitfile.h). Complete once every
 * position of the member has been read through its source; NULL when out of memory. */
const uint8_t *dk_pair_reader_captures(const dk_pair_reader *r, int member);

#endif
