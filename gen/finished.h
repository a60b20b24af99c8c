/* Finished tables as the generator reads them: the values of every position, both the DTW
 * value and (with a draw rule) the rule value, exact also where the side to move must capture.
 *
 * They come from the compressed files of the output directory, the same files engines read, so
 * a run needs no second copy on disk. A table is decoded whole into memory when first needed
 * and kept while the byte budget allows, the least recently used dropped first. Where the side
 * to move must capture the files hold no value: it is resolved from the captures when first
 * asked for and then remembered in the decoded table. A table larger than the whole budget is
 * read through the compressed tablebase and its block cache instead (slower, still bounded).
 *
 * One reader per thread: nothing in it is thread-safe. */
#ifndef DK_FINISHED_H
#define DK_FINISHED_H

#include "../index/perfect.h"
#include "../query/value.h"

typedef struct dk_finished dk_finished;

typedef struct dk_finished_counters {
    uint64_t loads;      /* tables decoded (again after an eviction) */
    uint64_t evictions;  /* tables dropped to stay within the budget */
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
