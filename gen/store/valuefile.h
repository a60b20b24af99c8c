/* Value files: a checked header and one or two values per position: the DTW value, then, in
 * runs that follow a draw rule, the rule value (query/drawrule.h) of the same position. The
 * generator's own files: finished work units (read by the units below them and assembled into
 * tables, with a flag a position: unitfile.h), and a whole material's values, its exits copy
 * (work/<variant>-<material>.raw, tasks.h). Engines never read them.
 *
 * Written in blocks of DK_VFILE_BLOCK positions, each compressed on its own (zstd, fast), so
 * that the files of the units under way take little disk and a reader decompresses only the
 * blocks it reads. A file of another version (an older build's) is refused with a line that
 * says so. */
#ifndef DK_VALUEFILE_H
#define DK_VALUEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blockpool.h"
#include "valuesource.h"
#include "../../query/value.h"

/* Kind 2 was a unit file without the capture flags (unitfile.h): such a file is made again. */
typedef enum { DK_FILE_TABLE = 1, DK_FILE_UNIT = 3 } dk_file_kind;

/* Bytes before the values. */
enum { DK_VFILE_HEADER = 64 };

typedef struct dk_vfile_info {
    uint8_t kind;        /* dk_file_kind */
    uint8_t variant;     /* dk_variant_id */
    uint8_t material[4]; /* white men, white kings, black men, black kings */
    uint8_t width;       /* bytes per value (filled in by dk_vfile_save) */
    uint32_t level;      /* for units: the level of the unit's layer (0 otherwise) */
    uint64_t count;      /* positions */
    uint32_t crc;        /* CRC-32C of the values as stored (filled in by dk_vfile_save) */
    uint8_t stride;      /* values per position: 1 (DTW), or 2 (DTW, rule value); 0 means 1 */
    uint32_t limit;      /* the draw rule's limit L in plies of the rule values (0: none) */
    bool flagged;        /* each position's first value carries DK_VFILE_FLAG (stored apart) */
} dk_vfile_info;

/* In a flagged file, a bit of each position's first value that is stored apart from the
 * values (a bit a position after each block's values), so that it costs no width: the values
 * themselves stay below it. The unit files use it to say that a position must capture. */
#define DK_VFILE_FLAG ((dk_value)0x8000)

/* Positions per compressed block; the most bytes such a block takes decompressed (two 2-byte
 * values and a flag bit a position), a slot of a shared pool (blockpool.h); and the blocks a
 * file opened without a pool keeps. */
enum { DK_VFILE_BLOCK = 4096, DK_VFILE_SLOTS = 256 };
#define DK_VFILE_SLOT_BYTES ((size_t)DK_VFILE_BLOCK * 4 + DK_VFILE_BLOCK / 8)
#define DK_VFILE_CACHE_MAX ((uint64_t)DK_VFILE_SLOTS * DK_VFILE_SLOT_BYTES)

typedef struct dk_vfile dk_vfile;

/* Writes info->count * info->stride values (position by position) atomically to path: a
 * temporary file, fsync, rename, fsync of the directory; a reader never sees a half-written
 * file under `path`. With info->flagged, each position's first value may carry DK_VFILE_FLAG.
 * Fills info->width and info->crc. Returns 0, or -1 with one line in err. Thread-safe
 * (distinct paths). */
int dk_vfile_save(const char *path, dk_vfile_info *info, const dk_value *values, char *err,
                  size_t errlen);

/* The same with the values read from src (count * src->stride values, read twice); sets
 * info->stride to src->stride. */
int dk_vfile_save_from(const char *path, dk_vfile_info *info, const dk_value_source *src,
                       char *err, size_t errlen);

/* Opens and maps a value file, checking its header, size and block index; with check_all also
 * the CRC of every stored byte. Decompressed blocks are kept in `pool` (slots of
 * DK_VFILE_SLOT_BYTES; shared with the other files of the thread that opened them with it), or
 * with pool NULL in a pool of the file's own of up to DK_VFILE_SLOTS blocks. Returns NULL with
 * one line in err if the file is missing, truncated, damaged or of another version ("P is value
 * file version N; this build reads version 4 only"). One reader per thread, the pool's. */
dk_vfile *dk_vfile_open(const char *path, bool check_all, dk_block_pool *pool, char *err,
                        size_t errlen);

const dk_vfile_info *dk_vfile_get_info(const dk_vfile *t);

/* Values first..first+n-1 of the file into out (value k of position p is value p * stride + k;
 * first + n <= count * stride), in a flagged file each position's first value with its flag.
 * Returns 0, or -1 with one line in err if a block is damaged. */
int dk_vfile_read(dk_vfile *t, uint64_t first, size_t n, dk_value *out, char *err,
                  size_t errlen);

/* The file's values as a source (valuesource.h) of count positions, `stride` values each; best
 * read in order. Valid while t is open. */
dk_value_source dk_vfile_source(dk_vfile *t);

/* Unmaps and frees, giving its blocks back to a shared pool. */
void dk_vfile_close(dk_vfile *t);

#endif
