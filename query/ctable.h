/* Compressed table files: one material, one metric (WLD or DTW), blocks of consecutive
 * positions compressed independently with zstd, so that a probe decompresses one block.
 * The layout is described in query/FORMAT.md. */
#ifndef DK_CTABLE_H
#define DK_CTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "value.h"

/* WLD: game-theoretic win/draw/loss; DTW: with the distance to win; DTC: the value under the
 * draw rule with the distance to conversion (drawrule.h). */
typedef enum { DK_METRIC_WLD = 1, DK_METRIC_DTW = 2, DK_METRIC_DTC = 3 } dk_metric;

/* The most positions a block may hold (64 times the largest the writer uses by default): a
 * reader refuses larger blocks, so that a small file cannot make it allocate gigabytes. */
enum { DK_CTABLE_MAX_BLOCK = 1 << 24 };

/* WLD codes as stored: the result for the side to move. */
enum { DK_CODE_DRAW = 0, DK_CODE_WIN = 1, DK_CODE_LOSS = 2 };

typedef struct dk_ctable_info {
    uint8_t variant;       /* dk_variant_id */
    uint8_t metric;        /* dk_metric */
    uint8_t material[4];   /* white men, white kings, black men, black kings */
    uint8_t width;         /* DTW, DTC: bytes per value (1 or 2); WLD: 0 (2 bits per position) */
    uint32_t block_size;   /* positions per block (a multiple of 4) */
    uint64_t count;        /* positions */
    uint32_t nblocks;
    uint32_t dict_size;    /* bytes of zstd dictionary, 0 if none */
    uint64_t file_size;
    uint32_t file_crc;     /* CRC-32C of every byte before the trailer */
    uint32_t limit;        /* DTC: the draw rule's limit L in plies; 0 for WLD and DTW */
} dk_ctable_info;

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
} dk_ctable_params;

/* The WLD code of a value. */
static inline uint8_t dk_code_of(dk_value v)
{
    return dk_value_is_draw(v) ? DK_CODE_DRAW : dk_value_is_win(v) ? DK_CODE_WIN : DK_CODE_LOSS;
}

/* Where a writer reads the values of positions in order, a range at a time, so that a table
 * need not be in memory whole: read(src, first, n, out, ...) fills out with the `stride` values
 * of each of positions first..first+n-1 (position by position) and returns 0, or -1 with one
 * line in err. A file stores value `offset` of each position. */
typedef struct dk_value_source {
    int (*read)(const struct dk_value_source *src, uint64_t first, size_t n, dk_value *out,
                char *err, size_t errlen);
    void *ctx;
    unsigned stride;
    unsigned offset;
} dk_value_source;

/* A source over an array in memory: value k of position i is values[i * stride + k]. */
dk_value_source dk_value_array(const dk_value *values, unsigned stride, unsigned offset);

/* Writes count values (every p->stride-th of `values`) to path atomically (temporary file, fsync, rename). Positions whose bit
 * is set in dont_care (bit i of byte i/8; NULL: none) are the ones where the side to move must
 * capture: their stored value is free, and the writer repeats the previous stored value there,
 * which lengthens runs. Fills *out (may be NULL). Returns 0, or -1 with one line in err.
 * Thread-safe (distinct paths). */
int dk_ctable_write(const char *path, const dk_ctable_params *p, const dk_value *values,
                    const uint8_t *dont_care, uint64_t count, dk_ctable_info *out, char *err,
                    size_t errlen);

/* The same with the values read from src, a block at a time (p->stride is not used); src is
 * read more than once. */
int dk_ctable_write_from(const char *path, const dk_ctable_params *p, const dk_value_source *src,
                         const uint8_t *dont_care, uint64_t count, dk_ctable_info *out, char *err,
                         size_t errlen);

typedef struct dk_ctable dk_ctable;

/* Maps a table file and checks its header, dictionary and block index (not the blocks).
 * Returns NULL with one line in err if it is missing, truncated or damaged. The table is
 * read-only afterwards: any number of threads may use it. */
dk_ctable *dk_ctable_open(const char *path, char *err, size_t errlen);

/* Why a table could not be opened: its bytes are wrong (or it is truncated), or reading it
 * failed (open, fstat or mmap said why; a missing file too), or memory ran out. Only the first
 * says anything about the file: the others may pass. */
typedef enum { DK_OPEN_DAMAGED = 1, DK_OPEN_IO, DK_OPEN_NO_MEMORY } dk_open_failure;

/* dk_ctable_open, saying why it failed in *why. */
dk_ctable *dk_ctable_open_why(const char *path, dk_open_failure *why, char *err, size_t errlen);

void dk_ctable_close(dk_ctable *t);

/* The path it was opened with (for messages). */
const char *dk_ctable_path(const dk_ctable *t);

const dk_ctable_info *dk_ctable_get_info(const dk_ctable *t);

/* Bytes of block b once decompressed. */
size_t dk_ctable_block_bytes(const dk_ctable *t, uint32_t b);

/* Bytes of the largest decompressed block. */
size_t dk_ctable_max_block_bytes(const dk_ctable *t);

/* Decompresses block b into out (room for dk_ctable_block_bytes) with dctx (one per thread),
 * checking the frame's checksum and size. Returns 0, or -1 with one line in err. */
int dk_ctable_read_block(const dk_ctable *t, void *dctx, uint32_t b, uint8_t *out, char *err,
                         size_t errlen);

/* The value stored for position `at` of a decompressed block: a DTW or rule value, or for WLD
 * a value of the right kind without distance (dk_value_of_code). Pure. */
dk_value dk_ctable_decode(const dk_ctable *t, const uint8_t *block, uint32_t at);

/* A WLD code as a value: DK_DRAW, a win (2) or a loss (1): the distance is unknown. */
static inline dk_value dk_value_of_code(uint8_t code)
{
    return code == DK_CODE_DRAW ? DK_DRAW : code == DK_CODE_WIN ? 2 : 1;
}

/* Checks every byte: the whole-file CRC, then every block (frame checksum). Returns 0, or -1
 * with one line in err. */
int dk_ctable_check(const dk_ctable *t, char *err, size_t errlen);

/* A zstd decompression context for dk_ctable_read_block (ZSTD_DCtx). NULL if out of memory. */
void *dk_ctable_dctx_new(void);
void dk_ctable_dctx_free(void *dctx);

#endif
