#include "ctable_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zdict.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "../../query/checksum.h"
#include "../../query/drawrule.h"
#include "../../query/fileio.h"
#include "../../rules/errors.h"
#include "../store/atomicfile.h"
#include "../store/valuefile.h"
#include "wldcode_write.h"

/* The writer's defaults: blocks of positions (WLD: and sub-blocks, what a probe decodes) and
 * zstd levels by metric, and the dictionary's size and samples. WLD sub-blocks of 8192: the
 * smallest whose warm probes stay within 5% of those of whole zstd blocks of 262144 positions
 * (a hit reads its read block's cache entry, less often in the processor's cache the more
 * read blocks there are), with 10 times its cold probes and 0.182 bits a position on 6 pieces
 * (docs/measurements.md, "Tables and probing"). */
enum { WLD_BLOCK = 65536, WLD_SUB = 8192, DTW_BLOCK = 16384, DTW_LEVEL = 9 };
enum { DTC_BLOCK = 16384, DTC_LEVEL = 9 };
enum { DICT_CAP = DK_CTABLE_DICT_MAX, DICT_SAMPLES = 64 };

typedef struct encoder {
    const dk_ctable_info *in;
    const dk_value_source *src;
    const uint8_t *dont_care;
    bool flagged;   /* don't-care positions carry DK_VFILE_FLAG in their first value */
    dk_value *buf;  /* a block's values as the source gives them */
    char *err;      /* why the source failed */
    size_t errlen;
    bool failed;
    bool source_failed; /* the source said why, in err */
    const char *why; /* why compressing failed */
} encoder;

/* Reads positions first..first+n-1 into e->buf. */
static int fetch(encoder *e, uint64_t first, size_t n)
{
    if (e->failed || e->src->read(e->src, first, n, e->buf, e->err, e->errlen) != 0) {
        e->source_failed |= !e->failed;
        e->failed = true;
        return -1;
    }
    return 0;
}

/* Whether position first + k, k of the block in e->buf, is don't-care. */
static bool is_dont_care(const encoder *e, uint64_t first, uint64_t k)
{
    if (e->flagged)
        return e->buf[k * e->src->stride] & DK_VFILE_FLAG;
    uint64_t i = first + k;
    return e->dont_care && (e->dont_care[i / 8] >> (i % 8) & 1);
}

/* The value stored for position k of the block in e->buf (its flag apart). */
static dk_value stored(const encoder *e, uint64_t k)
{
    dk_value v = e->buf[k * e->src->stride + e->src->offset];
    return e->flagged ? (dk_value)(v & ~DK_VFILE_FLAG) : v;
}

/* The first value stored in positions [k, end) of the block starting at `first` (its values
 * in e->buf), or `last` if they are all don't-care. */
static dk_value first_stored(const encoder *e, uint64_t first, uint64_t k, uint64_t end, dk_value last)
{
    for (; k < end; k++)
        if (!is_dont_care(e, first, k))
            return stored(e, k);
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
    const uint32_t sub = in->sub_block;
    dk_value last = DK_DRAW;
    for (uint64_t k = 0; k < n; k++) {
        if (sub && k % sub == 0)
            last = first_stored(e, first, k, k + sub < n ? k + sub : n, last);
        dk_value v = is_dont_care(e, first, k) ? last : stored(e, k);
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

struct dk_ctable_coder {
    dk_ctable_info in;
    encoder e;
    int level;
    bool try_dictionary;
    uint8_t *raw, *tmp, *dict;
    size_t tmpcap;
    ZSTD_CCtx *cctx;
    ZSTD_CDict *cdict;
    dk_wld_encoder *wld;
    char *err;
    size_t errlen;
};

/* Compresses the blocks listed (all of [list0, list0 + nlist) when list is NULL) with cdict,
 * handing each to emit when given. Returns the compressed bytes, or 0 on failure (e->failed,
 * e->why, or emit failed). */
static size_t compress_blocks(dk_ctable_coder *c, const ZSTD_CDict *cdict, const uint32_t *list,
                              uint32_t list0, uint32_t nlist, dk_ctable_emit emit, void *ctx)
{
    encoder *e = &c->e;
    size_t total = 0;
    ZSTD_CCtx_refCDict(c->cctx, cdict); /* NULL: no dictionary */
    for (uint32_t k = 0; k < nlist; k++) {
        uint32_t b = list ? list[k] : list0 + k;
        size_t n = encode_block(e, b, c->raw);
        size_t z = ZSTD_compress2(c->cctx, c->tmp, c->tmpcap, c->raw, n);
        if (ZSTD_isError(z) || e->failed) {
            e->why = !ZSTD_isError(z) ? NULL
                     : ZSTD_getErrorCode(z) == ZSTD_error_memory_allocation ? "out of memory"
                                                                            : ZSTD_getErrorName(z);
            return 0;
        }
        if (emit && emit(ctx, b, c->tmp, z, c->err, c->errlen) != 0) {
            e->failed = true;
            return 0;
        }
        total += z;
    }
    return total;
}

/* Trains a dictionary on sample blocks and keeps it if it saves more than it costs on them,
 * projected over the whole file. Returns its size (0: none) and fills c->dict. */
static size_t choose_dictionary(dk_ctable_coder *c)
{
    encoder *e = &c->e;
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
    size_t d = ZDICT_trainFromBuffer(c->dict, DICT_CAP, samples, sizes, ns);
    free(samples);
    if (ZDICT_isError(d))
        return 0;
    ZSTD_CDict *cdict = ZSTD_createCDict(c->dict, d, c->level);
    if (!cdict)
        return 0;
    size_t with = compress_blocks(c, cdict, list, 0, ns, NULL, NULL);
    size_t without = compress_blocks(c, NULL, list, 0, ns, NULL, NULL);
    ZSTD_freeCDict(cdict);
    double saved = ((double)without - (double)with) * nb / ns;
    return with && without && saved > (double)d ? d : 0;
}

int dk_ctable_layout(const dk_ctable_params *p, uint64_t count, dk_ctable_info *out, char *err, size_t errlen)
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
    in.nblocks = (uint32_t)((count + in.block_size - 1) / in.block_size);
    in.read_block = wld ? in.sub_block : in.block_size;
    in.nread_blocks = (count + in.read_block - 1) / in.read_block;
    in.width = wld ? 0 : 2; /* DTW, DTC: the buffers fit any width until the values are seen */
    in.dict_size = wld ? DK_WLD_TABLE : 0;
    *out = in;
    return 0;
}

void dk_ctable_coder_free(dk_ctable_coder *c)
{
    if (!c)
        return;
    ZSTD_freeCDict(c->cdict);
    ZSTD_freeCCtx(c->cctx);
    free(c->e.buf);
    free(c->raw);
    free(c->tmp);
    free(c->dict);
    free(c->wld);
    free(c);
}

dk_ctable_coder *dk_ctable_coder_new(const dk_ctable_params *p, const dk_value_source *src,
                                     const uint8_t *dont_care, bool flagged, uint64_t count, char *err,
                                     size_t errlen)
{
    dk_ctable_coder *c = calloc(1, sizeof *c);
    if (!c)
        return dk_errorf(err, errlen, "out of memory"), NULL;
    if (dk_ctable_layout(p, count, &c->in, err, errlen) != 0) {
        free(c);
        return NULL;
    }
    bool dtc = p->metric == DK_METRIC_DTC;
    c->level = p->level ? p->level : dtc ? DTC_LEVEL : DTW_LEVEL;
    c->try_dictionary = p->try_dictionary;
    c->err = err;
    c->errlen = errlen;
    c->e = (encoder){&c->in, src, dont_care, flagged,
                     malloc((size_t)c->in.block_size * src->stride * sizeof(dk_value)), err, errlen, false, false,
                     NULL};
    size_t maxraw = dk_ctable_info_block_bytes(&c->in, 0);
    c->tmpcap = ZSTD_compressBound(maxraw);
    c->raw = malloc(maxraw);
    c->tmp = malloc(c->tmpcap);
    c->dict = malloc(DICT_CAP);
    c->cctx = ZSTD_createCCtx();
    c->wld = calloc(1, sizeof *c->wld);
    if (!c->e.buf || !c->raw || !c->tmp || !c->dict || !c->cctx || !c->wld) {
        dk_ctable_coder_free(c);
        return dk_errorf(err, errlen, "out of memory"), NULL;
    }
    ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, c->level);
    ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_contentSizeFlag, 1);
    return c;
}

const dk_ctable_info *dk_ctable_coder_info(const dk_ctable_coder *c) { return &c->in; }

const uint8_t *dk_ctable_coder_dict(const dk_ctable_coder *c) { return c->dict; }

int dk_ctable_coder_scan(dk_ctable_coder *c, uint32_t b0, uint32_t b1, dk_ctable_scan *s)
{
    encoder *e = &c->e;
    const dk_ctable_info *in = &c->in;
    for (uint32_t b = b0; b < b1 && !e->failed; b++) {
        uint64_t first = (uint64_t)b * in->block_size;
        uint32_t n = dk_ctable_positions(in->count, in->block_size, b);
        if (in->metric == DK_METRIC_WLD) {
            encode_block(e, b, c->raw);
            dk_wld_count(&s->wld, c->raw, n, in->sub_block);
            continue;
        }
        if (fetch(e, first, n) != 0)
            break;
        for (uint32_t k = 0; k < n; k++)
            if (!is_dont_care(e, first, k) && stored(e, k) > s->max)
                s->max = stored(e, k);
    }
    return e->failed ? -1 : 0;
}

void dk_ctable_scan_add(dk_ctable_scan *a, const dk_ctable_scan *b)
{
    a->max = b->max > a->max ? b->max : a->max;
    for (int x = 0; x < DK_WLD_CONTEXTS; x++)
        for (int y = 0; y < DK_WLD_SYMBOLS; y++)
            a->wld.n[x][y] += b->wld.n[x][y];
}

int dk_ctable_coder_decide(dk_ctable_coder *c, const dk_ctable_scan *all)
{
    dk_ctable_info *in = &c->in;
    if (in->metric == DK_METRIC_WLD) {
        dk_wld_encoder_init(c->wld, &all->wld);
        memcpy(c->dict, c->wld->table, DK_WLD_TABLE); /* the code table stands where a dictionary would */
        return 0;
    }
    in->width = all->max > 0xff ? 2 : 1;
    in->dict_size = c->try_dictionary ? (uint32_t)choose_dictionary(c) : 0;
    if (c->e.failed)
        return -1;
    if (in->dict_size && !(c->cdict = ZSTD_createCDict(c->dict, in->dict_size, c->level)))
        return dk_errorf(c->err, c->errlen, "out of memory");
    return 0;
}

int dk_ctable_coder_code(dk_ctable_coder *c, uint32_t b0, uint32_t b1, dk_ctable_emit emit, void *ctx)
{
    encoder *e = &c->e;
    const dk_ctable_info *in = &c->in;
    if (in->metric != DK_METRIC_WLD) {
        if (b1 > b0 && !compress_blocks(c, c->cdict, NULL, b0, b1 - b0, emit, ctx) && !e->failed)
            return dk_errorf(c->err, c->errlen, "compression failed: %s", e->why ? e->why : "unknown error");
        return e->failed ? -1 : 0;
    }
    size_t cap = dk_wld_block_bound(in->block_size, in->sub_block);
    uint8_t *out = cap <= c->tmpcap ? c->tmp : malloc(cap);
    if (!out)
        return dk_errorf(c->err, c->errlen, "out of memory");
    for (uint32_t b = b0; b < b1 && !e->failed; b++) {
        uint32_t n = dk_ctable_positions(in->count, in->block_size, b);
        encode_block(e, b, c->raw);
        size_t z = dk_wld_encode_block(c->wld, c->raw, n, in->sub_block, out);
        if (emit(ctx, b, out, z, c->err, c->errlen) != 0)
            e->failed = true;
    }
    if (out != c->tmp)
        free(out);
    return e->failed ? -1 : 0;
}

enum { INDEX_CHUNK = 8192 }; /* blocks of the index held at once */

/* Goes over the index of in's blocks a chunk at a time: adds each chunk's bytes to *crc, and
 * writes them to f when f is given; *end is where the blocks end. Returns 0, or -1 with one line
 * in err. */
static int index_pass(const dk_ctable_info *in, uint64_t base, const dk_ctable_blocks *blocks, uint8_t *buf,
                      uint64_t *sizes, dk_atomic_file *f, uint32_t *crc, uint64_t *end, const char *path, char *err,
                      size_t errlen)
{
    uint64_t at = base;
    for (uint64_t b0 = 0; b0 <= in->nblocks; b0 += INDEX_CHUNK) {
        uint32_t n = in->nblocks - b0 < INDEX_CHUNK ? (uint32_t)(in->nblocks - b0) : INDEX_CHUNK;
        if (n && blocks->sizes(blocks->ctx, (uint32_t)b0, n, sizes, err, errlen) != 0)
            return -1;
        for (uint32_t k = 0; k < n; k++) {
            dk_put64(buf + 8 * (size_t)k, at);
            at += sizes[k];
        }
        size_t len = 8 * (size_t)n;
        if (n < INDEX_CHUNK) { /* the last chunk: the end of the blocks */
            dk_put64(buf + len, at);
            len += 8;
        }
        *crc = dk_crc32c(*crc, buf, len);
        if (f && dk_atomic_write(f, buf, len, -1) != 0)
            return dk_errorf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        if (n < INDEX_CHUNK)
            break;
    }
    *end = at;
    return 0;
}

int dk_ctable_write_blocks(const char *path, dk_ctable_info *in, const uint8_t *dict, const dk_ctable_blocks *blocks,
                           char *err, size_t errlen)
{
    uint64_t base = DK_CTABLE_HEADER + in->dict_size + ((uint64_t)in->nblocks + 1) * 8, at;
    uint8_t *buf = malloc(8 * (INDEX_CHUNK + 1));
    uint64_t *sizes = malloc(INDEX_CHUNK * sizeof *sizes);
    if (!buf || !sizes) {
        free(buf);
        free(sizes);
        return dk_errorf(err, errlen, "cannot write %s: out of memory", path);
    }
    /* the header holds the CRC of the dictionary and the index: a first pass for it */
    uint32_t index_crc = dk_crc32c(0, dict, in->dict_size);
    int rc = index_pass(in, base, blocks, buf, sizes, NULL, &index_crc, &at, path, err, errlen);
    in->file_size = at + DK_CTABLE_TRAILER;
    uint8_t h[DK_CTABLE_HEADER], trailer[DK_CTABLE_TRAILER];
    dk_ctable_encode_header(in, index_crc, h);
    uint32_t crc = dk_crc32c(dk_crc32c(0, h, DK_CTABLE_HEADER), dict, in->dict_size);
    dk_atomic_file f;
    if (rc != 0 || dk_atomic_begin(&f, path, err, errlen) != 0) {
        free(buf);
        free(sizes);
        return -1;
    }
    /* rc: -1 once err says why; a failed write says so at the end */
    bool ok = dk_atomic_write(&f, h, DK_CTABLE_HEADER, -1) == 0 && dk_atomic_write(&f, dict, in->dict_size, -1) == 0;
    uint64_t again = 0;
    if (ok)
        rc = index_pass(in, base, blocks, buf, sizes, &f, &crc, &again, path, err, errlen);
    free(buf);
    free(sizes);
    if (ok && rc == 0 && again != at)
        rc = dk_errorf(err, errlen, "cannot write %s: the blocks' sizes changed between two readings", path);
    for (uint64_t left = at - base; ok && rc == 0 && left > 0;) {
        const uint8_t *bytes = NULL;
        size_t n = 0;
        if (blocks->fill(blocks->ctx, &bytes, &n, err, errlen) != 0)
            rc = -1;
        else if (n == 0 || n > left)
            rc = dk_errorf(err, errlen, "cannot write %s: the blocks do not add up to their sizes", path);
        else {
            crc = dk_crc32c(crc, bytes, n);
            ok = dk_atomic_write(&f, bytes, n, -1) == 0;
            left -= n;
        }
    }
    in->file_crc = crc;
    dk_ctable_encode_trailer(crc, trailer);
    ok = ok && rc == 0 && dk_atomic_write(&f, trailer, DK_CTABLE_TRAILER, -1) == 0;
    if (!ok) {
        if (rc == 0)
            dk_errorf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        dk_atomic_abort(&f);
        return -1;
    }
    return dk_atomic_commit(&f, path, err, errlen);
}

/* The whole file's blocks gathered in memory, as one writer does. */
typedef struct gathered {
    growbuf g;
    uint64_t *sizes;
    bool given;
} gathered;

static int gather(void *ctx, uint32_t b, const uint8_t *bytes, size_t n, char *err, size_t errlen)
{
    gathered *a = ctx;
    if (reserve(&a->g, n) != 0)
        return dk_errorf(err, errlen, "out of memory");
    memcpy(a->g.data + a->g.n, bytes, n);
    a->g.n += n;
    a->sizes[b] = n;
    return 0;
}

static int gathered_sizes(void *ctx, uint32_t b0, uint32_t n, uint64_t *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    memcpy(out, ((const gathered *)ctx)->sizes + b0, n * sizeof *out);
    return 0;
}

static int give_all(void *ctx, const uint8_t **bytes, size_t *n, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    gathered *a = ctx;
    *bytes = a->given ? NULL : a->g.data;
    *n = a->given ? 0 : a->g.n;
    a->given = true;
    return 0;
}

int dk_ctable_write(const char *path, const dk_ctable_params *p, const dk_value *values,
                    const uint8_t *dont_care, uint64_t count, dk_ctable_info *out, char *err,
                    size_t errlen)
{
    dk_value_source src = dk_value_array(values, p->stride, 0);
    return dk_ctable_write_from(path, p, &src, dont_care, count, out, err, errlen);
}

int dk_ctable_write_from(const char *path, const dk_ctable_params *p, const dk_value_source *src,
                         const uint8_t *dont_care, uint64_t count, dk_ctable_info *out, char *err,
                         size_t errlen)
{
    dk_ctable_coder *c = dk_ctable_coder_new(p, src, dont_care, false, count, err, errlen);
    if (!c)
        return -1;
    dk_ctable_info in = c->in;
    gathered a = {{0}, malloc(((size_t)in.nblocks + 1) * sizeof *a.sizes), false};
    dk_ctable_scan *s = calloc(1, sizeof *s);
    int rc = -1;
    if (!a.sizes || !s) {
        dk_errorf(err, errlen, "cannot write %s: out of memory", path);
    } else if (dk_ctable_coder_scan(c, 0, in.nblocks, s) == 0 && dk_ctable_coder_decide(c, s) == 0 &&
               dk_ctable_coder_code(c, 0, in.nblocks, gather, &a) == 0) {
        in = c->in;
        dk_ctable_blocks blocks = {gathered_sizes, give_all, &a};
        rc = dk_ctable_write_blocks(path, &in, c->dict, &blocks, err, errlen);
        if (rc == 0 && out)
            *out = in;
    } else if (!c->e.source_failed) { /* a failed source has said why */
        char why[512];
        snprintf(why, sizeof why, "%s", err);
        dk_errorf(err, errlen, "cannot write %s: %s", path, why);
    }
    dk_ctable_coder_free(c);
    free(s);
    free(a.sizes);
    free(a.g.data);
    return rc;
}
