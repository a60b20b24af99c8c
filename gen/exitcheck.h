/* Verification's own reading of a unit's exits: the values of the positions a capture, a
 * promotion or a man move leads to, read along a path that shares nothing with the solver's
 * (gen/finished.c, the unit lookup of gen/solve.c) but the file formats: the finished tables
 * through a libdamka handle of its own (query/tablebase.h: its block cache, the positions of a
 * block read at once; capture positions, tested when queued, resolved here through their
 * captures), the units of the level above through unit files it opens
 * itself, found from the position's full index. Their blocks take room in the pool of the
 * solver's unit files (the exit cache: a sweep of the check over a subslice of the level above
 * needs its span held as the solver's does), but each file decompresses and holds its own:
 * what the solver decoded is never what the check reads. Every exit the solver
 * reads is queued here and read again before its unit is verified and written (a split unit:
 * before its group's values are final, on every rank); the run stops at the
 * first disagreement: a wrong table, a wrong child index or a stale cache entry on either side
 * (design.md, section 4). */
#ifndef DK_EXITCHECK_H
#define DK_EXITCHECK_H

#include "../query/value.h"
#include "blockpool.h"
#include "groups.h"

typedef struct dk_exit_check dk_exit_check;

/* The exits a reader queues before it reads them (16 MiB with the positions they come from and
 * the exits that must capture, and under half a MiB more to resolve those in chunks, counted
 * among a rank's fixed bytes, gen/budget.c). */
#define DK_EXIT_CHECK_QUEUE ((uint32_t)1 << 18)

/* A reader of the exits of units of graph g, over the finished tables and unit files of dir
 * (its work/ folder), with a draw rule of `limit` plies (0: DTW only), cache_bytes for the
 * tables (libdamka's block cache; up to a quarter of it the values of positions that must
 * capture, remembered for the reader's life as long as they fit). The units' blocks go to `blocks`, the caller's pool, which the solver's unit
 * files share: the two open files of their own (each decompresses its blocks itself), the pool
 * shares out only the room. gcache is the caller's groups cache; the caller's pool and cache outlive the reader.
 * One per thread. Returns NULL when out of memory. */
dk_exit_check *dk_exit_check_new(const dk_workgraph *g, dk_groups_cache *gcache, const char *dir,
                                 unsigned limit, uint64_t cache_bytes, dk_block_pool *blocks);

void dk_exit_check_free(dk_exit_check *c);

/* Closes the units above (their blocks go back to the pool): before a pair is finished. The
 * values it remembers stay (values of finished tables; dk_exit_check_set_room bounds them). */
void dk_exit_check_idle(dk_exit_check *c);

/* Sets the bytes the reader of tables may take (cache_bytes of dk_exit_check_new) to `bytes`:
 * the values remembered may grow to a quarter of it (forgotten when they hold more), and
 * libdamka's cache is opened again at its new size (its blocks dropped) when it must shrink or
 * may double. The queue must be empty (flushed). Returns 0, or -1 with one line in err (NULL:
 * none) when out of memory; the reader then fails its reads until a call succeeds. */
int dk_exit_check_set_room(dk_exit_check *c, uint64_t bytes, char *err, size_t errlen);

/* Queues the exit n (White to move, of material m) of p (White to move), a position of
 * `pair`, with got[0] its DTW value and got[1] its rule value (with a draw rule) as the solver
 * read them. n is read again when the queue is flushed: from the unit of the level above that
 * holds it when m is one of the pair's materials (a man move), else from the finished tables.
 * Flushes a full queue, and one of another pair. Returns 0, or -1 with one line in err: a
 * value read otherwise ("verification failed: material M, position FEN: ...", naming p and n)
 * or one that cannot be read. */
int dk_exit_check_add(dk_exit_check *c, const dk_wpair *pair, const dk_pos *p, dk_material m,
                      const dk_pos *n, const dk_value got[2], char *err, size_t errlen);

/* Reads every queued exit again, in the order of the tables (each position once), and compares;
 * the queue is empty afterwards. Returns as dk_exit_check_add. */
int dk_exit_check_flush(dk_exit_check *c, char *err, size_t errlen);

#endif
