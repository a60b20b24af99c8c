/* Value files: a checked header and one or two values per position, uncompressed (1 byte per
 * value, or 2 when some value needs it): the DTW value, then, in tables that follow a draw rule,
 * the rule value (drawrule.h) of the same position. The one interface through which tables and finished work
 * units are written and read, so that the compressed format can replace it. */
#ifndef DK_TABLE_H
#define DK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "value.h"

typedef enum { DK_FILE_TABLE = 1, DK_FILE_UNIT = 2 } dk_file_kind;

/* Bytes before the values. */
enum { DK_TABLE_HEADER = 64 };

typedef struct dk_table_info {
    uint8_t kind;        /* dk_file_kind */
    uint8_t variant;     /* dk_variant_id */
    uint8_t material[4]; /* white men, white kings, black men, black kings */
    uint8_t width;       /* bytes per value (filled in by dk_table_save) */
    uint32_t part;       /* for units: which unit of the material (free otherwise) */
    uint64_t count;      /* positions */
    uint32_t crc;        /* CRC-32C of the values as stored (filled in by dk_table_save) */
    uint8_t stride;      /* values per position: 1 (DTW), or 2 (DTW, rule value); 0 means 1 */
    uint32_t limit;      /* the draw rule's limit L in plies of the rule values (0: none) */
} dk_table_info;

typedef struct dk_table dk_table;

/* Writes info->count * info->stride values (position by position) atomically to path: a temporary file, fsync, rename, fsync of the
 * directory; a reader never sees a half-written file under `path`. Fills info->width and
 * info->crc. Returns 0, or -1 with one line in err. Thread-safe (distinct paths). */
int dk_table_save(const char *path, dk_table_info *info, const dk_value *values, char *err,
                  size_t errlen);

/* Opens and maps a value file, checking its header and size; with check_all also the CRC of
 * every value. Returns NULL with one line in err if the file is missing, truncated or damaged.
 * The table is read-only afterwards: any number of threads may read it. */
dk_table *dk_table_open(const char *path, bool check_all, char *err, size_t errlen);

const dk_table_info *dk_table_get_info(const dk_table *t);

/* Value i of the file (i < count * stride: value k of position n is n * stride + k).
 * Thread-safe. */
static inline dk_value dk_table_value(const dk_table *t, uint64_t i);

/* Unmaps and frees. */
void dk_table_close(dk_table *t);

/* --- inline part --- */
struct dk_table {
    dk_table_info info;
    const uint8_t *values;
    const uint8_t *map;
    size_t map_len;
};

static inline dk_value dk_table_value(const dk_table *t, uint64_t i)
{
    if (t->info.width == 1)
        return t->values[i];
    return (dk_value)(t->values[2 * i] | t->values[2 * i + 1] << 8);
}

#endif
