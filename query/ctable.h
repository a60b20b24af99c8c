/* Compressed table files: one material, one metric (WLD, DTW or DTC), blocks of consecutive
 * positions compressed independently, so that a probe decodes little: DTW and DTC blocks are
 * zstd frames, WLD blocks sub-blocks of a run-length code a reader decodes
 * alone (query/wldcode.h). What a reader decodes at once is a read block: a WLD sub-block,
 * or a whole block. The layout is described in query/FORMAT.md. */
#ifndef DK_CTABLE_H
#define DK_CTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../rules/errors.h"
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
    uint32_t version;      /* DK_CTABLE_VERSION, the one a reader accepts */
    uint32_t sub_block;    /* WLD: positions per sub-block; else 0 */
    uint32_t read_block;   /* positions a reader decodes at once: sub_block, or block_size */
    uint64_t nread_blocks; /* ceil(count / read_block) */
} dk_ctable_info;

/* The WLD code of a value. */
static inline uint8_t dk_code_of(dk_value v)
{
    return dk_value_is_draw(v) ? DK_CODE_DRAW : dk_value_is_win(v) ? DK_CODE_WIN : DK_CODE_LOSS;
}

/* Bytes of a file's header and trailer (FORMAT.md), and the format version, the one written
 * and read. */
enum { DK_CTABLE_HEADER = 64, DK_CTABLE_TRAILER = 8, DK_CTABLE_VERSION = 2 };

/* The uncompressed bytes of block b of a table described by `in`. Pure. */
size_t dk_ctable_info_block_bytes(const dk_ctable_info *in, uint32_t b);

/* The positions of read block b (or of block b, with in->block_size as size) of a table of
 * count positions cut into blocks of `size`. Pure. */
static inline uint32_t dk_ctable_positions(uint64_t count, uint32_t size, uint64_t b)
{
    uint64_t first = b * size;
    return (uint32_t)(count - first < size ? count - first : size);
}

/* The header of a table described by `in` (every field set, file_crc aside), whose dictionary
 * and block index have the CRC-32C index_crc; and the trailer of a file whose bytes before it
 * have the CRC-32C file_crc. The layout lives here, beside the reader that checks it; the
 * generator's writer (gen/finish/ctable_write.h) uses them. Pure. */
void dk_ctable_encode_header(const dk_ctable_info *in, uint32_t index_crc, uint8_t h[DK_CTABLE_HEADER]);
void dk_ctable_encode_trailer(uint32_t file_crc, uint8_t t[DK_CTABLE_TRAILER]);

typedef struct dk_ctable dk_ctable;

/* Opens a table file, reads its header, dictionary (or WLD code table) and block index into
 * memory and checks them (not the blocks). The blocks are read from the file when decoded (with
 * pread, never mapped): the table holds the file open (one descriptor) until dk_ctable_close.
 * Returns NULL with one line in err if it is missing, truncated or damaged. The table is
 * read-only afterwards (but for the flag dk_ctable_changed reads): any number of threads may
 * use it. */
dk_ctable *dk_ctable_open(const char *path, char *err, size_t errlen);

/* dk_ctable_open, saying why it failed in *why: DK_DAMAGED (its bytes are wrong, or it is
 * truncated), DK_MISSING, DK_IO (open, fstat or pread failed) or DK_NO_MEMORY. Only DK_DAMAGED
 * says anything about the file: the others may pass. */
dk_ctable *dk_ctable_open_why(const char *path, dk_status *why, char *err, size_t errlen);

void dk_ctable_close(dk_ctable *t);

/* The path it was opened with (for messages). */
const char *dk_ctable_path(const dk_ctable *t);

const dk_ctable_info *dk_ctable_get_info(const dk_ctable *t);

/* Bytes of read block b once decoded (WLD: 2-bit codes, 4 positions a byte; else `width` bytes a
 * position). Pure. */
size_t dk_ctable_read_block_bytes(const dk_ctable *t, uint64_t b);

/* Bytes of the largest decoded read block. Pure. */
size_t dk_ctable_max_read_block_bytes(const dk_ctable *t);

/* Reads read block b (positions b * read_block ..) from the file into dctx's buffer and decodes
 * it into out (room for dk_ctable_read_block_bytes) with dctx (one per thread), checking it: a
 * zstd frame's checksum and size, or the CRC of the WLD block holding the sub-block and the
 * sub-block's code. A read that ends early, or a file whose size or modification time is no
 * longer what it was at open (truncated, or rewritten in place; looked at after a read when the
 * last look is 10 ms old, and after any block that fails its check), fails, and so does every
 * read of t after it (dk_ctable_changed). Returns DK_OK; with one line in err, DK_DAMAGED when the
 * block is damaged, the read ended early or the file changed, DK_IO when the read failed,
 * DK_NO_MEMORY when a buffer could not be grown. Never a
 * signal, whatever happens to the file. Thread-safe with distinct dctx. */
int dk_ctable_read_block(const dk_ctable *t, void *dctx, uint64_t b, uint8_t *out, char *err,
                         size_t errlen);

/* The value stored for position `at` of a decoded read block: a DTW or rule value, or for WLD a
 * value of the right kind without distance (dk_value_of_code). Pure. */
dk_value dk_ctable_decode(const dk_ctable *t, const uint8_t *block, uint32_t at);

/* A WLD code as a value: DK_DRAW, a win (2) or a loss (1): the distance is unknown. */
static inline dk_value dk_value_of_code(uint8_t code)
{
    return code == DK_CODE_DRAW ? DK_DRAW : code == DK_CODE_WIN ? 2 : 1;
}

/* Whether a read of t found its file changed since it was opened (dk_ctable_read_block): from
 * then on every read of t fails. Thread-safe. */
bool dk_ctable_changed(const dk_ctable *t);

/* Checks the whole-file CRC alone (reads every byte, decodes nothing). Returns DK_OK, or as
 * dk_ctable_read_block with one line in err (a wrong CRC is DK_DAMAGED). Thread-safe. */
int dk_ctable_check_crc(const dk_ctable *t, char *err, size_t errlen);

/* Checks every byte: the whole-file CRC, then every read block (dk_ctable_read_block). Returns
 * DK_OK, or the first failure's status with one line in err. Thread-safe. */
int dk_ctable_check(const dk_ctable *t, char *err, size_t errlen);

/* A reader's context for dk_ctable_read_block, for any table: a zstd decompression context
 * and the buffer a compressed block is read into (grown to the largest block read). One per
 * thread, or used under the caller's lock. NULL if out of memory. */
void *dk_ctable_dctx_new(void);
void dk_ctable_dctx_free(void *dctx);

#endif
