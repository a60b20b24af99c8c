#include "ctable.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "../rules/errors.h"
#include "checksum.h"
#include "drawrule.h"
#include "fileio.h"
#include "wldcode.h"

enum { HEADER = DK_CTABLE_HEADER, TRAILER = DK_CTABLE_TRAILER };
static const char MAGIC[8] = {'D', 'A', 'M', 'K', 'A', 'T', 'B', '1'};
static const char END[4] = {'D', 'K', 'T', 'E'};

size_t dk_ctable_info_block_bytes(const dk_ctable_info *in, uint32_t b)
{
    uint64_t first = (uint64_t)b * in->block_size;
    uint64_t n = in->count - first < in->block_size ? in->count - first : in->block_size;
    return in->metric == DK_METRIC_WLD ? (size_t)(n + 3) / 4 : (size_t)n * in->width;
}

/* --- the layout of the header and trailer (FORMAT.md): written here, read by dk_ctable_open --- */

void dk_ctable_encode_header(const dk_ctable_info *in, uint32_t index_crc, uint8_t h[DK_CTABLE_HEADER])
{
    memset(h, 0, HEADER);
    memcpy(h, MAGIC, 8);
    dk_put32(h + 8, in->version);
    h[12] = in->variant;
    h[13] = in->metric;
    memcpy(h + 14, in->material, 4);
    h[18] = in->width;
    dk_put32(h + 20, in->block_size);
    dk_put64(h + 24, in->count);
    dk_put32(h + 32, in->nblocks);
    dk_put32(h + 36, in->dict_size);
    dk_put64(h + 40, in->file_size);
    dk_put32(h + 48, index_crc);
    dk_put32(h + 56, in->limit);
    dk_put32(h + 60, in->sub_block);
    dk_put32(h + 52, dk_crc32c(0, h, 52));
}

void dk_ctable_encode_trailer(uint32_t file_crc, uint8_t t[DK_CTABLE_TRAILER])
{
    dk_put32(t, file_crc);
    memcpy(t + 4, END, 4);
}

/* --- reading --- */

struct dk_ctable {
    dk_ctable_info info;
    const uint8_t *map;
    size_t map_len;
    const uint8_t *index; /* (nblocks + 1) absolute offsets */
    ZSTD_DDict *ddict;
    dk_wld_codes *codes;  /* WLD */
    char path[512];
};

dk_ctable *dk_ctable_open(const char *path, char *err, size_t errlen)
{
    dk_open_failure why;
    return dk_ctable_open_why(path, &why, err, errlen);
}

dk_ctable *dk_ctable_open_why(const char *path, dk_open_failure *why, char *err, size_t errlen)
{
    const uint8_t *map = NULL;
    size_t len = 0;
    dk_ctable *t = calloc(1, sizeof *t);
    *why = DK_OPEN_NO_MEMORY;
    if (!t) {
        dk_errorf(err, errlen, "cannot open %s: out of memory", path);
        return NULL;
    }
    int mapped = dk_map_file(path, HEADER + TRAILER, &map, &len, err, errlen);
    if (mapped != 0) {
        *why = mapped == DK_MAP_TRUNCATED ? DK_OPEN_DAMAGED : errno == ENOMEM ? DK_OPEN_NO_MEMORY : DK_OPEN_IO;
        goto fail;
    }
    *why = DK_OPEN_DAMAGED; /* from here on, only the bytes can be wrong */
    const uint8_t *h = map;
    dk_ctable_info *in = &t->info;
    if (memcmp(h, MAGIC, 8) != 0 || dk_get32(h + 52) != dk_crc32c(0, h, 52)) {
        dk_errorf(err, errlen, "%s is damaged or not a damka table (bad header)", path);
        goto fail;
    }
    in->version = dk_get32(h + 8);
    if (in->version != DK_CTABLE_VERSION) {
        dk_errorf(err, errlen, "%s is table format version %u; this build reads version %d only",
                  path, in->version, DK_CTABLE_VERSION);
        goto fail;
    }
    in->variant = h[12];
    in->metric = h[13];
    memcpy(in->material, h + 14, 4);
    in->width = h[18];
    in->block_size = dk_get32(h + 20);
    in->count = dk_get64(h + 24);
    in->nblocks = dk_get32(h + 32);
    in->dict_size = dk_get32(h + 36);
    in->file_size = dk_get64(h + 40);
    in->limit = dk_get32(h + 56);
    in->sub_block = dk_get32(h + 60);
    bool wld = in->metric == DK_METRIC_WLD, dtc = in->metric == DK_METRIC_DTC;
    uint64_t index_end = HEADER + (uint64_t)in->dict_size + ((uint64_t)in->nblocks + 1) * 8;
    if ((!wld && !dtc && in->metric != DK_METRIC_DTW) || (wld ? in->width != 0 : in->width < 1 || in->width > 2) ||
        (dtc ? in->limit < 1 || in->limit > DK_RULE_MAX_LIMIT : in->limit != 0) ||
        !in->block_size || in->block_size % 4 || in->block_size > DK_CTABLE_MAX_BLOCK || !in->count ||
        in->nblocks != in->count / in->block_size + (in->count % in->block_size != 0) ||
        in->file_size != len || index_end + TRAILER > len ||
        (wld ? !dk_wld_layout_ok(in->block_size, in->sub_block) || in->dict_size != DK_WLD_TABLE
               : in->sub_block != 0)) {
        dk_errorf(err, errlen, "%s is damaged: inconsistent header or truncated", path);
        goto fail;
    }
    t->index = h + HEADER + in->dict_size;
    if (dk_get32(h + 48) != dk_crc32c(0, h + HEADER, index_end - HEADER) ||
        memcmp(h + len - 4, END, 4) != 0) {
        dk_errorf(err, errlen, "%s is damaged: block index or trailer", path);
        goto fail;
    }
    for (uint32_t b = 0; b <= in->nblocks; b++) {
        uint64_t o = dk_get64(t->index + 8 * (size_t)b);
        uint64_t prev = b ? dk_get64(t->index + 8 * (size_t)(b - 1)) : index_end;
        if (o < prev || (b == 0 && o != index_end) || (b == in->nblocks && o != len - TRAILER)) {
            dk_errorf(err, errlen, "%s is damaged: block index", path);
            goto fail;
        }
    }
    in->file_crc = dk_get32(h + len - TRAILER);
    in->read_block = wld ? in->sub_block : in->block_size; /* WLD: run-length coded sub-blocks */
    in->nread_blocks = in->count / in->read_block + (in->count % in->read_block != 0);
    if (wld) {
        t->codes = malloc(sizeof *t->codes);
        if (!t->codes) {
            *why = DK_OPEN_NO_MEMORY;
            dk_errorf(err, errlen, "cannot open %s: out of memory", path);
            goto fail;
        }
        if (dk_wld_codes_init(t->codes, h + HEADER) != 0) {
            dk_errorf(err, errlen, "%s is damaged: bad code table", path);
            goto fail;
        }
    } else if (in->dict_size && !(t->ddict = ZSTD_createDDict(h + HEADER, in->dict_size))) {
        dk_errorf(err, errlen, "%s is damaged: bad dictionary", path);
        goto fail;
    }
    t->map = map;
    t->map_len = len;
    snprintf(t->path, sizeof t->path, "%s", path);
    return t;
fail:
    dk_unmap_file(map, len);
    free(t->codes);
    free(t);
    return NULL;
}

void dk_ctable_close(dk_ctable *t)
{
    if (!t)
        return;
    ZSTD_freeDDict(t->ddict);
    free(t->codes);
    dk_unmap_file(t->map, t->map_len);
    free(t);
}

const dk_ctable_info *dk_ctable_get_info(const dk_ctable *t) { return &t->info; }

const char *dk_ctable_path(const dk_ctable *t) { return t->path; }

size_t dk_ctable_read_block_bytes(const dk_ctable *t, uint64_t u)
{
    uint32_t n = dk_ctable_positions(t->info.count, t->info.read_block, u);
    return t->info.metric == DK_METRIC_WLD ? ((size_t)n + 3) / 4 : (size_t)n * t->info.width;
}

size_t dk_ctable_max_read_block_bytes(const dk_ctable *t) { return dk_ctable_read_block_bytes(t, 0); }

/* Block b as a zstd frame. */
static int read_frame(const dk_ctable *t, void *dctx, uint32_t b, uint8_t *out, char *err,
                      size_t errlen)
{
    uint64_t from = dk_get64(t->index + 8 * (size_t)b), to = dk_get64(t->index + 8 * (size_t)b + 8);
    size_t want = dk_ctable_info_block_bytes(&t->info, b);
    const uint8_t *src = t->map + from;
    /* every frame must carry its content checksum (bit 2 of the frame header descriptor), or a
     * damaged flag could turn the check off */
    if (to - from < 5 || dk_get32(src) != 0xFD2FB528u || !(src[4] & 0x04) ||
        ZSTD_getFrameContentSize(src, to - from) != want)
        return dk_errorf(err, errlen, "%s is damaged: block %u", t->path, b);
    size_t n = t->ddict ? ZSTD_decompress_usingDDict(dctx, out, want, src, to - from, t->ddict)
                        : ZSTD_decompressDCtx(dctx, out, want, src, to - from);
    if (ZSTD_isError(n) || n != want)
        return dk_errorf(err, errlen, "%s is damaged: block %u (%s)", t->path, b,
                         ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong size");
    return 0;
}

/* Sub-block u of a run-length coded WLD file: its block's CRC, where the offsets put it, then
 * its code (or its bytes as they are, when it has exactly the decoded size). */
static int read_sub_block(const dk_ctable *t, uint64_t u, uint8_t *out, char *err, size_t errlen)
{
    const dk_ctable_info *in = &t->info;
    uint32_t per = in->block_size / in->sub_block, b = (uint32_t)(u / per), s = (uint32_t)(u % per);
    uint64_t from = dk_get64(t->index + 8 * (size_t)b), to = dk_get64(t->index + 8 * (size_t)b + 8);
    uint32_t subs = (dk_ctable_positions(in->count, in->block_size, b) + in->sub_block - 1) / in->sub_block;
    const uint8_t *src = t->map + from;
    size_t len = to - from, table = 4 + 2 * (size_t)(subs - 1);
    if (len < table || dk_get32(src) != dk_crc32c(0, src + 4, len - 4))
        return dk_errorf(err, errlen, "%s is damaged: block %u", t->path, b);
    size_t a = s ? dk_get16(src + 4 + 2 * (s - 1)) : table, z = s + 1 < subs ? dk_get16(src + 4 + 2 * s) : len;
    uint32_t n = dk_ctable_positions(in->count, in->sub_block, u);
    bool stored = z - a == (n + 3) / 4; /* a code is always shorter */
    if (a < table || z < a || z > len || (!stored && dk_wld_decode(t->codes, src + a, z - a, n, out) != 0))
        return dk_errorf(err, errlen, "%s is damaged: block %u, sub-block %u", t->path, b, s);
    if (stored)
        memcpy(out, src + a, z - a);
    return 0;
}

int dk_ctable_read_block(const dk_ctable *t, void *dctx, uint64_t u, uint8_t *out, char *err,
                        size_t errlen)
{
    return t->codes ? read_sub_block(t, u, out, err, errlen)
                    : read_frame(t, dctx, (uint32_t)u, out, err, errlen);
}

dk_value dk_ctable_decode(const dk_ctable *t, const uint8_t *block, uint32_t at)
{
    if (t->info.metric == DK_METRIC_WLD)
        return dk_value_of_code((block[at / 4] >> (2 * (at % 4))) & 3);
    if (t->info.width == 1)
        return block[at];
    return (dk_value)(block[2 * at] | block[2 * at + 1] << 8);
}

int dk_ctable_check_crc(const dk_ctable *t, char *err, size_t errlen)
{
    if (dk_crc32c(0, t->map, t->map_len - TRAILER) != t->info.file_crc)
        return dk_errorf(err, errlen, "%s is damaged: checksum mismatch", t->path);
    return 0;
}

int dk_ctable_check(const dk_ctable *t, char *err, size_t errlen)
{
    if (dk_ctable_check_crc(t, err, errlen) != 0)
        return -1;
    void *dctx = dk_ctable_dctx_new();
    uint8_t *buf = malloc(dk_ctable_max_read_block_bytes(t));
    int rc = dctx && buf ? 0 : dk_errorf(err, errlen, "cannot check %s: out of memory", t->path);
    for (uint64_t u = 0; rc == 0 && u < t->info.nread_blocks; u++)
        rc = dk_ctable_read_block(t, dctx, u, buf, err, errlen);
    free(buf);
    dk_ctable_dctx_free(dctx);
    return rc;
}

void *dk_ctable_dctx_new(void) { return ZSTD_createDCtx(); }

void dk_ctable_dctx_free(void *dctx) { ZSTD_freeDCtx(dctx); }
