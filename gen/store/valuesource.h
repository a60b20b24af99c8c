/* Values of positions in order, read a range at a time: how the generator streams a material's
 * values from its units or files into the compressed tables and statistics, so that no table
 * need be in memory whole. */
#ifndef DK_VALUESOURCE_H
#define DK_VALUESOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "../../query/value.h"

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

#endif
