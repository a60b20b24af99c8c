#include "table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../rules/errors.h"
#include "checksum.h"
#include "fileio.h"

/* Layout, little-endian: magic[8] version u32 kind u8 variant u8 material[4] width u8 stride u8
 * part u32 count u64 crc u32 zero u32 limit u32 header_crc u32, zeros up to HEADER_SIZE, then
 * the values. Version 1 (before draw rules) had the header CRC at 36, stride 1 and no limit. */
enum { HEADER_SIZE = DK_TABLE_HEADER, VERSION = 2 };
static const char MAGIC[8] = {'D', 'A', 'M', 'K', 'A', 'V', 'A', 'L'};





static void encode_header(const dk_table_info *in, uint8_t *h)
{
    memset(h, 0, HEADER_SIZE);
    memcpy(h, MAGIC, 8);
    dk_put32(h + 8, VERSION);
    h[12] = in->kind;
    h[13] = in->variant;
    memcpy(h + 14, in->material, 4);
    h[18] = in->width;
    h[19] = in->stride;
    dk_put32(h + 20, in->part);
    dk_put64(h + 24, in->count);
    dk_put32(h + 32, in->crc);
    dk_put32(h + 40, in->limit);
    dk_put32(h + 44, dk_crc32c(0, h, 44));
}

static int decode_header(const uint8_t *h, dk_table_info *out)
{
    if (memcmp(h, MAGIC, 8) != 0)
        return -1;
    uint32_t version = dk_get32(h + 8);
    if (version == 1 ? dk_get32(h + 36) != dk_crc32c(0, h, 36)
                     : version != VERSION || dk_get32(h + 44) != dk_crc32c(0, h, 44))
        return -1;
    out->kind = h[12];
    out->variant = h[13];
    memcpy(out->material, h + 14, 4);
    out->width = h[18];
    out->part = dk_get32(h + 20);
    out->count = dk_get64(h + 24);
    out->crc = dk_get32(h + 32);
    out->stride = version == 1 ? 1 : h[19];
    out->limit = version == 1 ? 0 : dk_get32(h + 40);
    return (out->width == 1 || out->width == 2) && (out->stride == 1 || out->stride == 2) ? 0 : -1;
}



int dk_table_save(const char *path, dk_table_info *info, const dk_value *values, char *err,
                  size_t errlen)
{
    info->stride = info->stride ? info->stride : 1;
    uint64_t nvalues = info->count * info->stride;
    dk_value max = 0;
    for (uint64_t i = 0; i < nvalues; i++)
        max = values[i] > max ? values[i] : max;
    info->width = max > 0xff ? 2 : 1;

    enum { CHUNK = 1 << 16 };
    uint8_t *buf = malloc(CHUNK * 2);
    dk_atomic_file f;
    if (!buf)
        return dk_errorf(err, errlen, "out of memory");
    if (dk_atomic_begin(&f, path, err, errlen) != 0) {
        free(buf);
        return -1;
    }
    uint8_t header[HEADER_SIZE];
    memset(header, 0, sizeof header);
    int rc = dk_atomic_write(&f, header, sizeof header, -1); /* rewritten once the CRC is known */
    uint32_t crc = 0;
    for (uint64_t at = 0; rc == 0 && at < nvalues; at += CHUNK) {
        size_t n = nvalues - at < CHUNK ? (size_t)(nvalues - at) : CHUNK;
        for (size_t i = 0; i < n; i++) {
            if (info->width == 1) {
                buf[i] = (uint8_t)values[at + i];
            } else {
                buf[2 * i] = (uint8_t)values[at + i];
                buf[2 * i + 1] = (uint8_t)(values[at + i] >> 8);
            }
        }
        crc = dk_crc32c(crc, buf, n * info->width);
        rc = dk_atomic_write(&f, buf, n * info->width, -1);
    }
    free(buf);
    info->crc = crc;
    encode_header(info, header);
    if (rc == 0)
        rc = dk_atomic_write(&f, header, sizeof header, 0);
    if (rc != 0) {
        dk_atomic_abort(&f);
        return dk_errorf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    }
    return dk_atomic_commit(&f, path, err, errlen);
}

dk_table *dk_table_open(const char *path, bool check_all, char *err, size_t errlen)
{
    const uint8_t *map = NULL;
    size_t len = 0;
    dk_table *t = calloc(1, sizeof *t);
    if (!t) {
        dk_errorf(err, errlen, "out of memory");
        return NULL;
    }
    if (dk_map_file(path, HEADER_SIZE, &map, &len, err, errlen) != 0)
        goto out;
    if (decode_header(map, &t->info) != 0) {
        dk_errorf(err, errlen, "%s is damaged or not a damka value file (bad header)", path);
        goto out;
    }
    uint64_t bytes = t->info.count * t->info.stride * t->info.width;
    if (t->info.count > ((uint64_t)1 << 48) || (uint64_t)len != HEADER_SIZE + bytes) {
        dk_errorf(err, errlen, "%s is damaged: %zu bytes, the header needs %llu", path, len,
                  (unsigned long long)(HEADER_SIZE + bytes));
        goto out;
    }
    t->values = map + HEADER_SIZE;
    if (check_all && dk_crc32c(0, t->values, bytes) != t->info.crc) {
        dk_errorf(err, errlen, "%s is damaged: checksum mismatch", path);
        goto out;
    }
    t->map = map;
    t->map_len = len;
    return t;
out:
    dk_unmap_file(map, len);
    free(t);
    return NULL;
}

const dk_table_info *dk_table_get_info(const dk_table *t) { return &t->info; }

void dk_table_close(dk_table *t)
{
    if (!t)
        return;
    dk_unmap_file(t->map, t->map_len);
    free(t);
}
