/* Writing compressed table files (query/ctable.h reads them; query/FORMAT.md has the layout):
 * the generator's, and its tests' and benchmarks', never an engine's. */
#ifndef DK_CTABLE_WRITE_H
#define DK_CTABLE_WRITE_H

#include "../../query/ctable.h"
#include "../store/valuesource.h"
#include "wldcode_write.h"

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

/* The most bytes of a dictionary (or WLD code table) a writer makes. */
enum { DK_CTABLE_DICT_MAX = 16384 };

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

/* A table written in parts (a pair's finishing split over ranks, gen/finish/parttasks.h), with the
 * same bytes as dk_ctable_write_from: every block's coding depends only on its own values and on
 * what a scan of the whole table decides (DTW and DTC: the width from the largest stored value,
 * and the dictionary, trained on sample blocks; WLD: the code table from every block's runs).
 * So a writer scans ranges of blocks (dk_ctable_coder_scan, the scans added up in any order),
 * decides once from the sum (dk_ctable_coder_decide), codes ranges of blocks
 * (dk_ctable_coder_code) and joins them (dk_ctable_write_blocks). */

/* What a scan of a range of blocks found: the largest value stored (DTW, DTC; don't-care
 * positions left out) and the runs of the WLD code (WLD). Zero is the scan of no block. */
typedef struct dk_ctable_scan {
    dk_value max;
    dk_wld_counts wld;
} dk_ctable_scan;

/* a += b. Pure. */
void dk_ctable_scan_add(dk_ctable_scan *a, const dk_ctable_scan *b);

/* The layout of a table of count positions written with p: every field of *out but file_size
 * and file_crc, with width 2 and dict_size 0 for DTW and DTC until decided. Returns 0, or -1
 * with one line in err (a bad block size or limit, count 0). Pure. */
int dk_ctable_layout(const dk_ctable_params *p, uint64_t count, dk_ctable_info *out, char *err, size_t errlen);

typedef struct dk_ctable_coder dk_ctable_coder;

/* A coder of the table of count positions written with p, its values (all of them: the
 * dictionary's samples are spread over the whole table) read from src, don't-care positions
 * as dont_care says (dk_ctable_write) or, with flagged, those whose first value carries
 * DK_VFILE_FLAG (valuefile.h: a flagged value file's values); failures are written into err
 * (kept by the coder, errlen bytes). Returns NULL with one line in err. One thread. */
dk_ctable_coder *dk_ctable_coder_new(const dk_ctable_params *p, const dk_value_source *src,
                                     const uint8_t *dont_care, bool flagged, uint64_t count, char *err,
                                     size_t errlen);

void dk_ctable_coder_free(dk_ctable_coder *c);

/* The table's layout; width and dict_size are final after dk_ctable_coder_decide. */
const dk_ctable_info *dk_ctable_coder_info(const dk_ctable_coder *c);

/* The dictionary (DTW, DTC; dict_size bytes) or WLD code table, after dk_ctable_coder_decide. */
const uint8_t *dk_ctable_coder_dict(const dk_ctable_coder *c);

/* Adds the scan of blocks [b0, b1) to *s. Returns 0, or -1 with one line in the coder's err. */
int dk_ctable_coder_scan(dk_ctable_coder *c, uint32_t b0, uint32_t b1, dk_ctable_scan *s);

/* Decides the coding from the scan of every block: the width, the dictionary (p->try_dictionary:
 * trained on sample blocks read from src, kept if it pays) or the WLD codes. Returns 0, or -1
 * with one line in the coder's err. */
int dk_ctable_coder_decide(dk_ctable_coder *c, const dk_ctable_scan *all);

/* Receives block b's n coded bytes; returns 0, or -1 with one line in err. */
typedef int (*dk_ctable_emit)(void *ctx, uint32_t b, const uint8_t *bytes, size_t n, char *err, size_t errlen);

/* Codes blocks [b0, b1) in order (after dk_ctable_coder_decide), handing each to emit. Returns
 * 0, or -1 with one line in the coder's err. */
int dk_ctable_coder_code(dk_ctable_coder *c, uint32_t b0, uint32_t b1, dk_ctable_emit emit, void *ctx);

/* Gives the next bytes of the coded blocks, in order, in *bytes and *n (n > 0); returns 0, or
 * -1 with one line in err. */
typedef int (*dk_ctable_fill)(void *ctx, const uint8_t **bytes, size_t *n, char *err, size_t errlen);

/* Puts the coded sizes of blocks [b0, b0 + n) in out[0 .. n - 1]; returns 0, or -1 with one line
 * in err. Asked for the blocks in order, twice (the index's CRC goes in the header, before it). */
typedef int (*dk_ctable_sizes)(void *ctx, uint32_t b0, uint32_t n, uint64_t *out, char *err, size_t errlen);

/* The coded blocks of a table: their sizes, then their bytes, both from one ctx. */
typedef struct dk_ctable_blocks {
    dk_ctable_sizes sizes;
    dk_ctable_fill fill;
    void *ctx;
} dk_ctable_blocks;

/* Writes the table described by `in` (decided: width, dict_size) atomically to path: header,
 * dict, the index of the blocks (their sizes as blocks->sizes gives them, a chunk at a time:
 * the writer holds no more of the index than that), the blocks as blocks->fill gives them,
 * the trailer. Sets in->file_size and in->file_crc. Returns 0, or -1 with one line in err.
 * Thread-safe (distinct paths). */
int dk_ctable_write_blocks(const char *path, dk_ctable_info *in, const uint8_t *dict, const dk_ctable_blocks *blocks,
                           char *err, size_t errlen);

#endif
