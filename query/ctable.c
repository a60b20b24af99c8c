#include "ctable.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zdict.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "../rules/errors.h"
#include "checksum.h"
#include "drawrule.h"
#include "fileio.h"

enum { HEADER = 64, TRAILER = 8, VERSION = 1 };
enum { WLD_BLOCK = 262144, DTW_BLOCK = 16384, WLD_LEVEL = 15, DTW_LEVEL = 9 };
enum { DTC_BLOCK = 16384, DTC_LEVEL = 9 };
enum { DICT_CAP = 16384, DICT_SAMPLES = 64 };
static const char MAGIC[8] = {'D', 'A', 'M', 'K', 'A', 'T', 'B', '1'};
static const char END[4] = {'D', 'K', 'T', 'E'};





static size_t block_bytes(const dk_ctable_info *in, uint32_t b)
{
    uint64_t first = (uint64_t)b * in->block_size;
    uint64_t n = in->count - first < in->block_size ? in->count - first : in->block_size;
    return in->metric == DK_METRIC_WLD ? (size_t)(n + 3) / 4 : (size_t)n * in->width;
}

/* --- writing --- */

typedef struct encoder {
    const dk_ctable_info *in;
    const dk_value_source *src;
    const uint8_t *dont_care;
    dk_value *buf;  /* a block's values as the source gives them */
    char *err;      /* why the source failed */
    size_t errlen;
    bool failed;
    const char *why; /* why compressing failed */
} encoder;

static int array_read(const dk_value_source *a, uint64_t first, size_t n, dk_value *out,
                      char *err, size_t errlen)
{
    (void)err, (void)errlen;
    memcpy(out, (const dk_value *)a->ctx + first * a->stride, n * a->stride * sizeof *out);
    return 0;
}

dk_value_source dk_value_array(const dk_value *values, unsigned stride, unsigned offset)
{
    return (dk_value_source){array_read, (void *)values, stride ? stride : 1, offset};
}

/* Reads positions first..first+n-1 into e->buf. */
static int fetch(encoder *e, uint64_t first, size_t n)
{
    if (e->failed || e->src->read(e->src, first, n, e->buf, e->err, e->errlen) != 0) {
        e->failed = true;
        return -1;
    }
    return 0;
}

static bool is_dont_care(const encoder *e, uint64_t i)
{
    return e->dont_care && (e->dont_care[i / 8] >> (i % 8) & 1);
}

/* The bytes of block b before compression; don't-care positions repeat the stored value
 * before them (within the block, so that blocks stay independent). */
static size_t encode_block(encoder *e, uint32_t b, uint8_t *out)
{
    const dk_ctable_info *in = e->in;
    uint64_t first = (uint64_t)b * in->block_size;
    size_t bytes = block_bytes(in, b);
    uint64_t n = in->count - first < in->block_size ? in->count - first : in->block_size;
    memset(out, 0, bytes);
    if (fetch(e, first, (size_t)n) != 0)
        return bytes; /* the caller sees e->failed */
    const unsigned stride = e->src->stride, offset = e->src->offset;
    dk_value last = DK_DRAW;
    for (uint64_t k = 0; k < n; k++) {
        dk_value v = is_dont_care(e, first + k) ? last : e->buf[k * stride + offset];
        last = v;
        if (in->metric == DK_METRIC_WLD)
            out[k / 4] |= (uint8_t)(dk_code_of(v) << (2 * (k % 4)));
        else if (in->width == 1)
            out[k] = (uint8_t)v;
        else {
            out[2 * k] = (uint8_t)v;
            out[2 * k + 1] = (uint8_t)(v >> 8);
        }
    }
    return bytes;
}

typedef struct growbuf {
    uint8_t *data;
    size_t n, cap;
} growbuf;

static int reserve(growbuf *g, size_t more)
{
    if (g->n + more <= g->cap)
        return 0;
    size_t cap = g->cap ? g->cap : 1 << 16;
    while (cap < g->n + more)
        cap *= 2;
    uint8_t *d = realloc(g->data, cap);
    if (!d)
        return -1;
    g->data = d;
    g->cap = cap;
    return 0;
}

/* Compresses the blocks listed (all when list is NULL) into out (NULL: only counts bytes),
 * recording offsets when offs is given. Returns the compressed bytes, or 0 on failure. */
static size_t compress_blocks(encoder *e, ZSTD_CCtx *cctx, const ZSTD_CDict *cdict,
                              const uint32_t *list, uint32_t nlist, growbuf *out, uint64_t *offs,
                              uint8_t *raw, uint8_t *tmp, size_t tmpcap)
{
    size_t total = 0;
    ZSTD_CCtx_refCDict(cctx, cdict); /* NULL: no dictionary */
    for (uint32_t k = 0; k < nlist; k++) {
        uint32_t b = list ? list[k] : k;
        size_t n = encode_block(e, b, raw);
        size_t z = ZSTD_compress2(cctx, tmp, tmpcap, raw, n);
        if (ZSTD_isError(z) || e->failed) {
            e->why = !ZSTD_isError(z) ? NULL
                     : ZSTD_getErrorCode(z) == ZSTD_error_memory_allocation ? "out of memory"
                                                                            : ZSTD_getErrorName(z);
            return 0;
        }
        if (out) {
            if (offs)
                offs[b] = out->n;
            if (reserve(out, z) != 0) {
                e->why = "out of memory";
                return 0;
            }
            memcpy(out->data + out->n, tmp, z);
            out->n += z;
        }
        total += z;
    }
    return total;
}

/* Trains a dictionary on sample blocks and keeps it if it saves more than it costs on them,
 * projected over the whole file. Returns its size (0: none) and fills dict. */
static size_t choose_dictionary(encoder *e, ZSTD_CCtx *cctx, int level, uint8_t *dict,
                                uint8_t *raw, uint8_t *tmp, size_t tmpcap)
{
    uint32_t nb = e->in->nblocks, ns = nb < DICT_SAMPLES ? nb : DICT_SAMPLES;
    if (nb < 8)
        return 0;
    uint32_t list[DICT_SAMPLES];
    size_t sizes[DICT_SAMPLES], total = 0, maxb = block_bytes(e->in, 0);
    uint8_t *samples = malloc((size_t)ns * maxb);
    if (!samples)
        return 0;
    for (uint32_t k = 0; k < ns; k++) {
        list[k] = (uint32_t)((uint64_t)k * nb / ns);
        sizes[k] = encode_block(e, list[k], samples + total);
        total += sizes[k];
    }
    size_t d = ZDICT_trainFromBuffer(dict, DICT_CAP, samples, sizes, ns);
    free(samples);
    if (ZDICT_isError(d))
        return 0;
    ZSTD_CDict *cdict = ZSTD_createCDict(dict, d, level);
    if (!cdict)
        return 0;
    size_t with = compress_blocks(e, cctx, cdict, list, ns, NULL, NULL, raw, tmp, tmpcap);
    size_t without = compress_blocks(e, cctx, NULL, list, ns, NULL, NULL, raw, tmp, tmpcap);
    ZSTD_freeCDict(cdict);
    double saved = ((double)without - (double)with) * nb / ns;
    return with && without && saved > (double)d ? d : 0;
}

static int write_file(const char *path, const uint8_t *parts[], const size_t lens[], int nparts,
                      char *err, size_t errlen)
{
    dk_atomic_file f;
    if (dk_atomic_begin(&f, path, err, errlen) != 0)
        return -1;
    for (int i = 0; i < nparts; i++) {
        if (dk_atomic_write(&f, parts[i], lens[i], -1) != 0) {
            dk_atomic_abort(&f);
            return dk_errorf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        }
    }
    return dk_atomic_commit(&f, path, err, errlen);
}

int dk_ctable_write(const char *path, const dk_ctable_params *p, const dk_value *values,
                    const uint8_t *dont_care, uint64_t count, dk_ctable_info *out, char *err,
                    size_t errlen)
{
    dk_value_source src = dk_value_array(values, p->stride, 0);
    return dk_ctable_write_from(path, p, &src, dont_care, count, out, err, errlen);
}

/* The largest value stored (don't-care positions left out). */
static int max_value(encoder *e, dk_value *max)
{
    const dk_ctable_info *in = e->in;
    *max = 0;
    for (uint32_t b = 0; b < in->nblocks; b++) {
        uint64_t first = (uint64_t)b * in->block_size;
        uint64_t n = in->count - first < in->block_size ? in->count - first : in->block_size;
        if (fetch(e, first, (size_t)n) != 0)
            return -1;
        for (uint64_t k = 0; k < n; k++) {
            dk_value v = e->buf[k * e->src->stride + e->src->offset];
            if (!is_dont_care(e, first + k) && v > *max)
                *max = v;
        }
    }
    return 0;
}

int dk_ctable_write_from(const char *path, const dk_ctable_params *p, const dk_value_source *src,
                         const uint8_t *dont_care, uint64_t count, dk_ctable_info *out, char *err,
                         size_t errlen)
{
    bool wld = p->metric == DK_METRIC_WLD, dtc = p->metric == DK_METRIC_DTC;
    dk_ctable_info in = {p->variant, (uint8_t)p->metric, {0}, 0, p->block_size, count, 0, 0, 0, 0,
                         dtc ? p->limit : 0};
    memcpy(in.material, p->material, 4);
    if (!in.block_size)
        in.block_size = wld ? WLD_BLOCK : dtc ? DTC_BLOCK : DTW_BLOCK;
    if (in.block_size % 4 || in.block_size > DK_CTABLE_MAX_BLOCK || count == 0)
        return dk_errorf(err, errlen, "bad block size or empty table");
    if (dtc && (p->limit < 1 || p->limit > DK_RULE_MAX_LIMIT))
        return dk_errorf(err, errlen, "bad draw-rule limit %u", p->limit);
    int level = p->level ? p->level : wld ? WLD_LEVEL : dtc ? DTC_LEVEL : DTW_LEVEL;
    in.nblocks = (uint32_t)((count + in.block_size - 1) / in.block_size);
    in.width = wld ? 0 : 2; /* DTW, DTC: the buffers fit any width until the values are seen */
    encoder e = {&in, src, dont_care, malloc((size_t)in.block_size * src->stride * sizeof(dk_value)),
                 err, errlen, false, NULL};

    size_t maxraw = block_bytes(&in, 0), tmpcap = ZSTD_compressBound(maxraw);
    uint8_t *raw = malloc(maxraw), *tmp = malloc(tmpcap), *dict = malloc(DICT_CAP);
    uint64_t *offs = malloc(((size_t)in.nblocks + 1) * sizeof *offs);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    ZSTD_CDict *cdict = NULL;
    growbuf blocks = {0};
    int rc = -1;
    if (!e.buf || !raw || !tmp || !dict || !offs || !cctx) {
        dk_errorf(err, errlen, "cannot write %s: out of memory", path);
        goto out;
    }
    if (!wld) {
        dk_value max;
        if (max_value(&e, &max) != 0)
            goto out;
        in.width = max > 0xff ? 2 : 1;
    }
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
    in.dict_size = p->try_dictionary ? (uint32_t)choose_dictionary(&e, cctx, level, dict, raw, tmp, tmpcap) : 0;
    if (in.dict_size && !(cdict = ZSTD_createCDict(dict, in.dict_size, level))) {
        dk_errorf(err, errlen, "cannot write %s: out of memory", path);
        goto out;
    }
    if (!compress_blocks(&e, cctx, cdict, NULL, in.nblocks, &blocks, offs, raw, tmp, tmpcap)) {
        if (!e.failed)
            dk_errorf(err, errlen, "cannot write %s: compression failed: %s", path,
                      e.why ? e.why : "unknown error");
        goto out;
    }
    /* offsets become absolute */
    uint64_t base = HEADER + in.dict_size + ((uint64_t)in.nblocks + 1) * 8;
    size_t index_len = ((size_t)in.nblocks + 1) * 8;
    uint8_t *index = malloc(index_len);
    if (!index) {
        dk_errorf(err, errlen, "cannot write %s: out of memory", path);
        goto out;
    }
    for (uint32_t b = 0; b < in.nblocks; b++)
        dk_put64(index + 8 * (size_t)b, base + offs[b]);
    dk_put64(index + 8 * (size_t)in.nblocks, base + blocks.n);
    in.file_size = base + blocks.n + TRAILER;

    uint8_t h[HEADER] = {0}, trailer[TRAILER];
    memcpy(h, MAGIC, 8);
    dk_put32(h + 8, VERSION);
    h[12] = in.variant;
    h[13] = in.metric;
    memcpy(h + 14, in.material, 4);
    h[18] = in.width;
    dk_put32(h + 20, in.block_size);
    dk_put64(h + 24, in.count);
    dk_put32(h + 32, in.nblocks);
    dk_put32(h + 36, in.dict_size);
    dk_put64(h + 40, in.file_size);
    dk_put32(h + 48, dk_crc32c(dk_crc32c(0, dict, in.dict_size), index, index_len));
    dk_put32(h + 56, in.limit);
    dk_put32(h + 52, dk_crc32c(0, h, 52));
    uint32_t crc = dk_crc32c(0, h, HEADER);
    crc = dk_crc32c(crc, dict, in.dict_size);
    crc = dk_crc32c(crc, index, index_len);
    crc = dk_crc32c(crc, blocks.data, blocks.n);
    in.file_crc = crc;
    dk_put32(trailer, crc);
    memcpy(trailer + 4, END, 4);
    const uint8_t *parts[] = {h, dict, index, blocks.data, trailer};
    const size_t lens[] = {HEADER, in.dict_size, index_len, blocks.n, TRAILER};
    rc = write_file(path, parts, lens, 5, err, errlen);
    free(index);
    if (rc == 0 && out)
        *out = in;
out:
    ZSTD_freeCDict(cdict);
    ZSTD_freeCCtx(cctx);
    free(blocks.data);
    free(e.buf);
    free(raw);
    free(tmp);
    free(dict);
    free(offs);
    return rc;
}

/* --- reading --- */

struct dk_ctable {
    dk_ctable_info info;
    const uint8_t *map;
    size_t map_len;
    const uint8_t *index; /* (nblocks + 1) absolute offsets */
    ZSTD_DDict *ddict;
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
        *why = mapped == -2 ? DK_OPEN_DAMAGED : errno == ENOMEM ? DK_OPEN_NO_MEMORY : DK_OPEN_IO;
        goto fail;
    }
    *why = DK_OPEN_DAMAGED; /* from here on, only the bytes can be wrong */
    const uint8_t *h = map;
    dk_ctable_info *in = &t->info;
    if (memcmp(h, MAGIC, 8) != 0 || dk_get32(h + 52) != dk_crc32c(0, h, 52) || dk_get32(h + 8) != VERSION ||
        dk_get32(h + 60) != 0) {
        dk_errorf(err, errlen, "%s is damaged or not a damka table (bad header)", path);
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
    bool wld = in->metric == DK_METRIC_WLD, dtc = in->metric == DK_METRIC_DTC;
    uint64_t index_end = HEADER + (uint64_t)in->dict_size + ((uint64_t)in->nblocks + 1) * 8;
    if ((!wld && !dtc && in->metric != DK_METRIC_DTW) || (wld ? in->width != 0 : in->width < 1 || in->width > 2) ||
        (dtc ? in->limit < 1 || in->limit > DK_RULE_MAX_LIMIT : in->limit != 0) ||
        !in->block_size || in->block_size % 4 || in->block_size > DK_CTABLE_MAX_BLOCK || !in->count ||
        in->nblocks != in->count / in->block_size + (in->count % in->block_size != 0) ||
        in->file_size != len ||
        index_end + TRAILER > len) {
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
    if (in->dict_size && !(t->ddict = ZSTD_createDDict(h + HEADER, in->dict_size))) {
        dk_errorf(err, errlen, "%s is damaged: bad dictionary", path);
        goto fail;
    }
    t->map = map;
    t->map_len = len;
    snprintf(t->path, sizeof t->path, "%s", path);
    return t;
fail:
    dk_unmap_file(map, len);
    free(t);
    return NULL;
}

void dk_ctable_close(dk_ctable *t)
{
    if (!t)
        return;
    ZSTD_freeDDict(t->ddict);
    dk_unmap_file(t->map, t->map_len);
    free(t);
}

const dk_ctable_info *dk_ctable_get_info(const dk_ctable *t) { return &t->info; }

const char *dk_ctable_path(const dk_ctable *t) { return t->path; }

size_t dk_ctable_block_bytes(const dk_ctable *t, uint32_t b) { return block_bytes(&t->info, b); }

size_t dk_ctable_max_block_bytes(const dk_ctable *t) { return block_bytes(&t->info, 0); }

int dk_ctable_read_block(const dk_ctable *t, void *dctx, uint32_t b, uint8_t *out, char *err,
                         size_t errlen)
{
    uint64_t from = dk_get64(t->index + 8 * (size_t)b), to = dk_get64(t->index + 8 * (size_t)b + 8);
    size_t want = block_bytes(&t->info, b);
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

dk_value dk_ctable_decode(const dk_ctable *t, const uint8_t *block, uint32_t at)
{
    if (t->info.metric == DK_METRIC_WLD)
        return dk_value_of_code((block[at / 4] >> (2 * (at % 4))) & 3);
    if (t->info.width == 1)
        return block[at];
    return (dk_value)(block[2 * at] | block[2 * at + 1] << 8);
}

int dk_ctable_check(const dk_ctable *t, char *err, size_t errlen)
{
    if (dk_crc32c(0, t->map, t->map_len - TRAILER) != t->info.file_crc)
        return dk_errorf(err, errlen, "%s is damaged: checksum mismatch", t->path);
    void *dctx = dk_ctable_dctx_new();
    uint8_t *buf = malloc(dk_ctable_max_block_bytes(t));
    int rc = dctx && buf ? 0 : dk_errorf(err, errlen, "cannot check %s: out of memory", t->path);
    for (uint32_t b = 0; rc == 0 && b < t->info.nblocks; b++)
        rc = dk_ctable_read_block(t, dctx, b, buf, err, errlen);
    free(buf);
    dk_ctable_dctx_free(dctx);
    return rc;
}

void *dk_ctable_dctx_new(void) { return ZSTD_createDCtx(); }

void dk_ctable_dctx_free(void *dctx) { ZSTD_freeDCtx(dctx); }
