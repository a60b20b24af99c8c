#include "ctable_write.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zdict.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "../query/checksum.h"
#include "../query/drawrule.h"
#include "../query/fileio.h"
#include "../rules/errors.h"
#include "atomicfile.h"
#include "wldcode_write.h"

/* The writer's defaults: blocks of positions (WLD: and sub-blocks, what a probe decodes) and
 * zstd levels by metric, and the dictionary's size and samples. WLD sub-blocks of 8192: the
 * smallest whose warm probes stay within 5% of those of whole zstd blocks of 262144 positions
 * (a hit reads its read block's cache entry, less often in the processor's cache the more
 * read blocks there are), with 10 times its cold probes and 0.182 bits a position on 6 pieces
 * (docs/measurements.md, "Tables and probing"). */
enum { WLD_BLOCK = 65536, WLD_SUB = 8192, DTW_BLOCK = 16384, DTW_LEVEL = 9 };
enum { DTC_BLOCK = 16384, DTC_LEVEL = 9 };
enum { DICT_CAP = 16384, DICT_SAMPLES = 64 };

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

/* The first value stored in positions [k, end) of the block starting at `first` (its values
 * in e->buf), or `last` if they are all don't-care. */
static dk_value first_stored(const encoder *e, uint64_t first, uint64_t k, uint64_t end, dk_value last)
{
    for (; k < end; k++)
        if (!is_dont_care(e, first + k))
            return e->buf[k * e->src->stride + e->src->offset];
    return last;
}

/* The bytes of block b before compression; don't-care positions repeat the stored value
 * before them (within the block, so that blocks stay independent; at a WLD sub-block's start,
 * which a reader decodes alone, the first value stored after them). */
static size_t encode_block(encoder *e, uint32_t b, uint8_t *out)
{
    const dk_ctable_info *in = e->in;
    uint64_t first = (uint64_t)b * in->block_size;
    size_t bytes = dk_ctable_info_block_bytes(in, b);
    uint64_t n = dk_ctable_positions(in->count, in->block_size, b);
    memset(out, 0, bytes);
    if (fetch(e, first, (size_t)n) != 0)
        return bytes; /* the caller sees e->failed */
    const unsigned stride = e->src->stride, offset = e->src->offset, sub = in->sub_block;
    dk_value last = DK_DRAW;
    for (uint64_t k = 0; k < n; k++) {
        if (sub && k % sub == 0)
            last = first_stored(e, first, k, k + sub < n ? k + sub : n, last);
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
    size_t sizes[DICT_SAMPLES], total = 0, maxb = dk_ctable_info_block_bytes(e->in, 0);
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

/* WLD: counts the runs of every block, chooses the codes (into enc), then codes every block
 * into out, recording offsets. Returns 0, or -1 (e->failed, or e->why). */
static int code_wld_blocks(encoder *e, dk_wld_encoder *enc, growbuf *out, uint64_t *offs, uint8_t *raw)
{
    const dk_ctable_info *in = e->in;
    dk_wld_counts *k = calloc(1, sizeof *k);
    if (!k) {
        e->why = "out of memory";
        return -1;
    }
    for (uint32_t b = 0; b < in->nblocks && !e->failed; b++) {
        encode_block(e, b, raw);
        dk_wld_count(k, raw, dk_ctable_positions(in->count, in->block_size, b), in->sub_block);
    }
    dk_wld_encoder_init(enc, k);
    free(k);
    for (uint32_t b = 0; b < in->nblocks && !e->failed; b++) {
        uint32_t n = dk_ctable_positions(in->count, in->block_size, b);
        encode_block(e, b, raw);
        if (reserve(out, dk_wld_block_bound(n, in->sub_block)) != 0) {
            e->why = "out of memory";
            return -1;
        }
        offs[b] = out->n;
        out->n += dk_wld_encode_block(enc, raw, n, in->sub_block, out->data + out->n);
    }
    return e->failed ? -1 : 0;
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
                         dtc ? p->limit : 0, DK_CTABLE_VERSION, 0, 0, 0};
    memcpy(in.material, p->material, 4);
    if (!in.block_size)
        in.block_size = wld ? WLD_BLOCK : dtc ? DTC_BLOCK : DTW_BLOCK;
    if (wld)
        in.sub_block = p->sub_block ? p->sub_block : in.block_size % WLD_SUB ? in.block_size : WLD_SUB;
    if (!in.block_size || in.block_size % 4 || in.block_size > DK_CTABLE_MAX_BLOCK || count == 0 ||
        (wld && !dk_wld_layout_ok(in.block_size, in.sub_block)))
        return dk_errorf(err, errlen, "bad block size or empty table");
    if (dtc && (p->limit < 1 || p->limit > DK_RULE_MAX_LIMIT))
        return dk_errorf(err, errlen, "bad draw-rule limit %u", p->limit);
    int level = p->level ? p->level : dtc ? DTC_LEVEL : DTW_LEVEL;
    in.nblocks = (uint32_t)((count + in.block_size - 1) / in.block_size);
    in.read_block = wld ? in.sub_block : in.block_size;
    in.nread_blocks = (count + in.read_block - 1) / in.read_block;
    in.width = wld ? 0 : 2; /* DTW, DTC: the buffers fit any width until the values are seen */
    encoder e = {&in, src, dont_care, malloc((size_t)in.block_size * src->stride * sizeof(dk_value)),
                 err, errlen, false, NULL};

    size_t maxraw = dk_ctable_info_block_bytes(&in, 0), tmpcap = ZSTD_compressBound(maxraw);
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
    if (wld) {
        dk_wld_encoder enc;
        if (code_wld_blocks(&e, &enc, &blocks, offs, raw) != 0) {
            if (!e.failed)
                dk_errorf(err, errlen, "cannot write %s: %s", path, e.why);
            goto out;
        }
        memcpy(dict, enc.table, DK_WLD_TABLE); /* the code table stands where a dictionary would */
        in.dict_size = DK_WLD_TABLE;
    } else {
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
        in.dict_size = p->try_dictionary ? (uint32_t)choose_dictionary(&e, cctx, level, dict, raw, tmp, tmpcap) : 0;
        if (in.dict_size && !(cdict = ZSTD_createCDict(dict, in.dict_size, level))) {
            dk_errorf(err, errlen, "cannot write %s: out of memory", path);
            goto out;
        }
    }
    if (!wld && !compress_blocks(&e, cctx, cdict, NULL, in.nblocks, &blocks, offs, raw, tmp, tmpcap)) {
        if (!e.failed)
            dk_errorf(err, errlen, "cannot write %s: compression failed: %s", path,
                      e.why ? e.why : "unknown error");
        goto out;
    }
    /* offsets become absolute */
    uint64_t base = DK_CTABLE_HEADER + in.dict_size + ((uint64_t)in.nblocks + 1) * 8;
    size_t index_len = ((size_t)in.nblocks + 1) * 8;
    uint8_t *index = malloc(index_len);
    if (!index) {
        dk_errorf(err, errlen, "cannot write %s: out of memory", path);
        goto out;
    }
    for (uint32_t b = 0; b < in.nblocks; b++)
        dk_put64(index + 8 * (size_t)b, base + offs[b]);
    dk_put64(index + 8 * (size_t)in.nblocks, base + blocks.n);
    in.file_size = base + blocks.n + DK_CTABLE_TRAILER;

    uint8_t h[DK_CTABLE_HEADER], trailer[DK_CTABLE_TRAILER];
    dk_ctable_encode_header(&in, dk_crc32c(dk_crc32c(0, dict, in.dict_size), index, index_len), h);
    uint32_t crc = dk_crc32c(0, h, DK_CTABLE_HEADER);
    crc = dk_crc32c(crc, dict, in.dict_size);
    crc = dk_crc32c(crc, index, index_len);
    crc = dk_crc32c(crc, blocks.data, blocks.n);
    in.file_crc = crc;
    dk_ctable_encode_trailer(crc, trailer);
    const uint8_t *parts[] = {h, dict, index, blocks.data, trailer};
    const size_t lens[] = {DK_CTABLE_HEADER, in.dict_size, index_len, blocks.n, DK_CTABLE_TRAILER};
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

