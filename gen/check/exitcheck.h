/* Verification's own reading of a unit's exits: the values of the positions a capture, a
 * promotion or a man move leads to, read again as the solver reads each one, along a path that
 * shares nothing with the solver's (gen/solve/finished.c, the unit lookup of gen/solve/solve.c) but the
 * file formats: the finished tables through a reader of its own (checktables.h: libdamka's
 * files and decoding, its own decoded blocks, capture positions resolved by verification's
 * code), the units of the level above through unit files it opens itself, found from the
 * position's full index. Their blocks take room in the pool of the solver's unit files (the
 * exit cache: a sweep over a subslice of the level above needs its span held as the solver's
 * does), but each file decompresses and holds its own: what the solver decoded is never what
 * the check reads. The run stops at the first disagreement: a wrong table, a wrong child index
 * or a stale cache entry on either side (design.md, section 4). */
#ifndef DK_EXITCHECK_H
#define DK_EXITCHECK_H

#include "../../query/value.h"
#include "../store/blockpool.h"
#include "checktables.h"
#include "../sched/groups.h"

typedef struct dk_exit_check dk_exit_check;

/* A reader of the exits of units of graph g, over the finished tables and unit files of dir
 * (its work/ folder), with a draw rule of `limit` plies (0: DTW only), cache_bytes for the
 * decoded blocks of the tables, and ready to be given up to most_bytes of them
 * (dk_exit_check_set_room). The units' blocks go to `blocks`, the caller's pool, which the
 * solver's unit files share: the two open files of their own (each decompresses its blocks
 * itself), the pool shares out only the room. gcache is the caller's groups cache; the caller's
 * pool and cache outlive the reader. One per thread. Returns NULL when out of memory. */
dk_exit_check *dk_exit_check_new(const dk_workgraph *g, dk_groups_cache *gcache, const char *dir,
                                 unsigned limit, uint64_t cache_bytes, uint64_t most_bytes, dk_block_pool *blocks);

void dk_exit_check_free(dk_exit_check *c);

/* Closes the units above (their blocks go back to the pool): before a pair is finished. The
 * decoded blocks of the tables stay. */
void dk_exit_check_idle(dk_exit_check *c);

/* Sets the bytes of decoded table blocks the reader may hold (cache_bytes of
 * dk_exit_check_new) to `bytes`: the blocks held within them stay, the others are dropped. */
void dk_exit_check_set_room(dk_exit_check *c, uint64_t bytes);

/* What the reader of the finished tables did so far: its blocks decoded, its capture
 * positions resolved. */
dk_check_tables_counters dk_exit_check_table_counters(const dk_exit_check *c);

/* Reads exit n (White to move, of material m) of p (White to move), a position of `pair`,
 * again and compares it with got[0], its DTW value, and got[1], its rule value (with a draw
 * rule), as the solver read them: from the unit of the level above that holds n when m is one
 * of the pair's materials (a man move), else from the finished tables. Returns 0, or -1 with
 * one line in err: a value read otherwise ("verification failed: material M, position FEN:
 * ...", naming p and n) or one that cannot be read. */
int dk_exit_check_compare(dk_exit_check *c, const dk_wpair *pair, const dk_pos *p, dk_material m,
                          const dk_pos *n, const dk_value got[2], char *err, size_t errlen);

#endif
