/* Finished tables as the generator reads them: the values of every position, both the DTW
 * value and (with a draw rule) the rule value, exact also where the side to move must capture.
 *
 * They come from the compressed files of the output directory, the same files engines read, so
 * a run needs no second copy on disk. What is decoded is a block (16384 positions as written)
 * of a material's DTW file and, with a rule, the same block of its DTC file, when a position of
 * it is first read; blocks stay while the byte budget allows, the one least recently read
 * dropped first (a clock). A unit's exits reach a few subslices of each material, and a
 * subslice's positions are consecutive in the index: what is decoded follows what is read,
 * whatever the size of the tables. Where the side to move must capture the files hold no
 * value: it is resolved from the captures when first asked for and then remembered in the
 * decoded block.
 *
 * One reader per thread: nothing in it is thread-safe. */
#ifndef DK_FINISHED_H
#define DK_FINISHED_H

#include "../../index/perfect.h"
#include "../../query/value.h"

typedef struct dk_finished dk_finished;

typedef struct dk_finished_counters {
    uint64_t loads;      /* blocks decoded (again after an eviction) */
    uint64_t positions;  /* positions of the blocks decoded */
    uint64_t evictions;  /* blocks dropped to stay within the budget */
    uint64_t resolved;   /* capture positions resolved */
    uint64_t peak_bytes; /* the most decoded bytes held at once */
} dk_finished_counters;

/* A reader of the tables of variant v in directory dir, made with a draw rule of `limit` plies
 * (0: DTW only; the rule value then reads as a draw), holding at most budget_bytes of decoded
 * tables. Returns NULL when out of memory. */
dk_finished *dk_finished_new(const char *dir, const dk_variant *v, unsigned limit,
                             uint64_t budget_bytes);

void dk_finished_free(dk_finished *f);

/* The values of p (White to move, of material m, holding pieces of both sides): out[0] its DTW
 * value, out[1] its rule value (drawrule.h) with the counter at 0. Returns 0, or -1 with one
 * line in err when a table is missing, damaged, made with another draw rule, or memory runs
 * out. */
int dk_finished_value(dk_finished *f, dk_material m, const dk_pos *p, dk_value out[2], char *err,
                      size_t errlen);

/* What the reader did so far. */
dk_finished_counters dk_finished_get_counters(const dk_finished *f);

#endif
