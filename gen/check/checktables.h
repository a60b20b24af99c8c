/* Verification's own reader of the finished tables: the values of positions of the compressed
 * tables, read along a path that shares nothing with the solver's reader (gen/solve/finished.h) but
 * the file formats and the index. libdamka opens and checks the files (query/tablebase.h:
 * dk_tb_table) and decodes their blocks (query/ctable.h); this reader keeps the decoded blocks
 * in a pool of its own (blockpool.h) sized by the check's room, found by block number in an
 * array a table (a unit's exits reach the same few blocks again and again: no lookup, no lock).
 * A position whose side to move must capture has no value in the files: it is resolved
 * through its captures (verify.h: dk_expected_values, not the solver's loop) when first read,
 * and its values are written into its decoded block, kept as long as the block is.
 *
 * One reader per thread: nothing in it is thread-safe. */
#ifndef DK_CHECKTABLES_H
#define DK_CHECKTABLES_H

#include "../../query/value.h"
#include "../../index/perfect.h"

typedef struct dk_check_tables dk_check_tables;

typedef struct dk_check_tables_counters {
    uint64_t loads;    /* blocks decoded (again after they were dropped) */
    uint64_t resolved; /* positions resolved through their captures */
} dk_check_tables_counters;

/* A reader of the tables of variant v in directory dir, made with a draw rule of `limit`
 * plies (0: DTW only; the rule value then reads as a draw), holding at most `room` bytes of
 * decoded blocks, and ready to be given up to most_room (dk_check_tables_set_room: the pool's
 * address space is reserved for it, its memory touched only as blocks are held). Returns NULL
 * when out of memory. */
dk_check_tables *dk_check_tables_new(const char *dir, const dk_variant *v, unsigned limit, uint64_t room,
                                     uint64_t most_room);

void dk_check_tables_free(dk_check_tables *t);

/* Sets the bytes of decoded blocks the reader may hold to `room`: the blocks held within it
 * stay, the others are dropped and their memory given back. A room beyond most_room drops them
 * all (the pool is made again, larger, at the next read). */
void dk_check_tables_set_room(dk_check_tables *t, uint64_t room);

/* The values of p (White to move, of material m, with pieces on both sides): out[0] its DTW
 * value, out[1] its rule value with the counter at 0 (a draw without a rule). Returns 0, or -1
 * with one line in err when a table is missing, damaged or made with another draw rule, or
 * memory runs out. */
int dk_check_tables_value(dk_check_tables *t, dk_material m, const dk_pos *p, dk_value out[2], char *err,
                          size_t errlen);

/* Makes the position a caller reads by its index (dk_check_tables_value_at) into *out. */
typedef void (*dk_check_pos_fn)(void *ctx, dk_pos *out);

/* dk_check_tables_value for the position of index i of material m (White to move, pieces on both
 * sides), which pos(pos_ctx, ...) makes only when the reader needs it: the first time the
 * position is read, to see whether it must capture. Returns what dk_check_tables_value does. */
int dk_check_tables_value_at(dk_check_tables *t, dk_material m, uint64_t i, dk_check_pos_fn pos, void *pos_ctx,
                             dk_value out[2], char *err, size_t errlen);

/* What the reader did so far. */
dk_check_tables_counters dk_check_tables_get_counters(const dk_check_tables *t);

#endif
