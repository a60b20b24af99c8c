/* Writing compressed table files (query/ctable.h reads them; query/FORMAT.md has the layout):
 * the generator's, and its tests' and benchmarks', never an engine's. */
#ifndef DK_CTABLE_WRITE_H
#define DK_CTABLE_WRITE_H

#include "../query/ctable.h"
#include "valuesource.h"

/* How to write a table. */
typedef struct dk_ctable_params {
    uint8_t variant;
    uint8_t material[4];
    dk_metric metric;
    uint32_t block_size;   /* 0: the default of the metric */
    int level;             /* zstd level; 0: the default of the metric */
    bool try_dictionary;   /* train a dictionary and keep it if the file gets smaller */
    uint32_t limit;        /* DTC: the draw rule's limit in plies (1..DK_RULE_MAX_LIMIT) */
    unsigned stride;       /* the value of position i is values[i * stride] (0 means 1) */
    uint32_t sub_block;    /* WLD: positions per sub-block (dk_wld_layout_ok); 0: the default */
} dk_ctable_params;

/* Writes count values (every p->stride-th of `values`) to path atomically (temporary file,
 * fsync, rename), in format version DK_CTABLE_VERSION: WLD run-length coded (p->level and
 * p->try_dictionary unused), DTW and DTC zstd frames. Positions whose bit is set in dont_care
 * (bit i of byte i/8; NULL: none) are the ones where the side to move must capture: their
 * stored value is free, and the writer repeats the previous stored value there, which
 * lengthens runs (WLD: at a sub-block's start, the first value stored after them). Fills *out
 * (may be NULL). Returns 0, or -1 with one line in err. Thread-safe (distinct paths). */
int dk_ctable_write(const char *path, const dk_ctable_params *p, const dk_value *values,
                    const uint8_t *dont_care, uint64_t count, dk_ctable_info *out, char *err,
                    size_t errlen);

/* The same with the values read from src, a block at a time (p->stride is not used); src is
 * read more than once. */
int dk_ctable_write_from(const char *path, const dk_ctable_params *p, const dk_value_source *src,
                         const uint8_t *dont_care, uint64_t count, dk_ctable_info *out, char *err,
                         size_t errlen);

#endif
