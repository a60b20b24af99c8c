/* The files of a finished unit (groups.h): one value file (valuefile.h) holding the unit's values
 * in the order of its groups, or, for a unit split into parts, one file a part, part q holding the
 * values of positions q * part_size .. of the unit. One place knows the names, the checks a
 * reader makes (count, draw rule) and how a read crosses parts, for every reader: the solver
 * (man moves into the level above), finishing a pair, the scan of a restarted run. */
#ifndef DK_UNITFILE_H
#define DK_UNITFILE_H

#include "../sched/groups.h"
#include "valuefile.h"

typedef struct dk_unitfile dk_unitfile;

/* Set in the DTW value of a position in a unit file (never in a table) when its side to move
 * must capture: the solver finds it, the verification checks it, and finishing a pair takes
 * its must-capture map from it (the positions tables store as don't-cares) instead of
 * searching every position for captures a third time. Stored apart from the values
 * (valuefile.h: a flagged file), it costs a unit file a bit a position, not a second byte. */
#define DK_UNIT_CAPTURE DK_VFILE_FLAG

/* A DTW value of a unit file without its capture flag. */
static inline dk_value dk_unit_dtw(dk_value v) { return (dk_value)(v & ~DK_UNIT_CAPTURE); }

/* The file of part `part` of ug's unit: dk_groups_path, with ".p<part>" for a split unit. */
int dk_unitfile_path(const dk_groups *ug, const char *dir, uint64_t part, char *buf, size_t len);

/* The positions of part q of ug's unit (the last part may be shorter). Pure. */
uint64_t dk_unitfile_part_positions(const dk_groups *ug, uint64_t q);

/* Writes part `part` of ug's unit atomically (dk_vfile_save): its values, `stride` a
 * position (1, or 2 with a draw rule of `limit` plies). Returns 0, or -1 with one line in err.
 * Thread-safe (distinct parts). */
int dk_unitfile_save(const dk_groups *ug, const char *dir, uint64_t part, unsigned limit,
                     const dk_value *values, char *err, size_t errlen);

/* Opens the unit's files for reading; a part's file is opened (and checked: header, size,
 * block index, the number of values and the draw rule; with check_all the CRC of every byte)
 * when first read, its decompressed blocks kept in `pool` (or, NULL, a small cache of its
 * own: dk_vfile_open). ug must outlive the reader. Returns NULL only when out of memory.
 * One reader per thread. */
dk_unitfile *dk_unitfile_open(const dk_groups *ug, const char *dir, unsigned limit, bool check_all,
                              dk_block_pool *pool, char *err, size_t errlen);

/* Values first..first+n-1 of the unit (value k of position p is p * stride + k), DTW values
 * with their DK_UNIT_CAPTURE flag. Returns 0, or -1 with one line in err (a part missing or
 * damaged). */
int dk_unitfile_read(dk_unitfile *f, uint64_t first, size_t n, dk_value *out, char *err,
                     size_t errlen);

void dk_unitfile_close(dk_unitfile *f);

/* Whether every file of the unit is present and intact (CRC checked) with the draw rule of
 * `limit` plies. */
bool dk_unitfile_intact(const dk_groups *ug, const char *dir, unsigned limit);

/* Removes every file of unit u (which may have been written by a run with another unit
 * bound only if the graph is the same; leftovers are removed with the work directory). */
void dk_unitfile_remove(dk_groups_cache *gcache, const char *dir, uint32_t u);

#endif
