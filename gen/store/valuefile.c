#include "valuefile.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "../../rules/errors.h"
#include "../../query/checksum.h"
#include "../../query/fileio.h"
#include "atomicfile.h"

/* Layout, little-endian (query/FORMAT.md): magic[8] version u32 kind u8 variant u8 material[4]
 * width u8 stride u8 part u32 count u64 crc u32 block u32 limit u32 header_crc u32 index u64
 * flagged u8, zeros up to HEADER_SIZE; then the blocks, each a zstd frame of `block`
 * positions' values (in a flagged file followed by a bit a position: its flag), and at `index`
 * their nblocks + 1 offsets (u64, from the start of the file, the last one `index` itself); crc
 * covers every byte after the header, header_crc the header's bytes but its own. Only this
 * version is read: a file of another is refused by name. */
enum { HEADER_SIZE = DK_VFILE_HEADER, VERSION = 4, LEVEL = 1 };
static const char MAGIC[8] = {'D', 'A', 'M', 'K', 'A', 'V', 'A', 'L'};

struct dk_vfile {
    dk_vfile_info info;
    uint32_t block;           /* positions a block */
    size_t block_bytes;       /* a whole block decompressed: values, then flags if flagged */
    uint64_t nblocks;
    const uint8_t *map, *index;
    size_t map_len;
    dk_block_pool *pool;      /* the decompressed blocks (blockpool.h) */
    bool own_pool;
    int32_t *slot_of;         /* by block: its slot in the pool, -1 if not held */
    /* The block read last (last_hi 0: none), values last_lo up to last_hi, while the pool holds
     * it: the solver reads exits near each other, and this skips the block lookup. */
    uint64_t last_block, last_lo, last_hi;
    char path[1024];          /* for messages */
};

/* One decompression context a thread, shared by the files it reads (a reader is one thread's):
 * a context takes 96 KiB, and a pair's finishing keeps thousands of unit files open. Freed when
 * the thread ends. */
static pthread_key_t dctx_key;
static pthread_once_t dctx_once = PTHREAD_ONCE_INIT;
static bool dctx_key_made;

static void free_dctx(void *d) { ZSTD_freeDCtx(d); }

static void make_dctx_key(void) { dctx_key_made = pthread_key_create(&dctx_key, free_dctx) == 0; }

/* This thread's context, made at its first use; NULL when out of memory. */
static ZSTD_DCtx *thread_dctx(void)
{
    pthread_once(&dctx_once, make_dctx_key);
    if (!dctx_key_made)
        return NULL;
    ZSTD_DCtx *d = pthread_getspecific(dctx_key);
    if (!d && (d = ZSTD_createDCtx()) && pthread_setspecific(dctx_key, d) != 0) {
        ZSTD_freeDCtx(d);
        d = NULL;
    }
    return d;
}

static void encode_header(const dk_vfile_info *in, uint64_t index, uint8_t *h)
{
    memset(h, 0, HEADER_SIZE);
    memcpy(h, MAGIC, 8);
    dk_put32(h + 8, VERSION);
    h[12] = in->kind;
    h[13] = in->variant;
    memcpy(h + 14, in->material, 4);
    h[18] = in->width;
    h[19] = in->stride;
    dk_put32(h + 20, in->level);
    dk_put64(h + 24, in->count);
    dk_put32(h + 32, in->crc);
    dk_put32(h + 36, DK_VFILE_BLOCK);
    dk_put32(h + 40, in->limit);
    dk_put64(h + 48, index);
    h[56] = in->flagged;
    dk_put32(h + 44, dk_crc32c(dk_crc32c(0, h, 44), h + 48, HEADER_SIZE - 48));
}

/* Reads the header of the file at path into t. Returns DK_OK, or DK_DAMAGED with one line in
 * err if it is no value file, another version of one, or damaged. */
static int decode_header(const uint8_t *h, dk_vfile *t, const char *path, char *err, size_t errlen)
{
    dk_vfile_info *out = &t->info;
    uint32_t version = dk_get32(h + 8);
    if (memcmp(h, MAGIC, 8) == 0 && version != VERSION)
        return dk_statusf(DK_DAMAGED, err, errlen, "%s is value file version %u; this build reads version %d only",
                          path, version, VERSION);
    if (memcmp(h, MAGIC, 8) != 0 || dk_get32(h + 44) != dk_crc32c(dk_crc32c(0, h, 44), h + 48, HEADER_SIZE - 48))
        return dk_statusf(DK_DAMAGED, err, errlen, "%s is damaged or not a damka value file (bad header)", path);
    out->kind = h[12];
    out->variant = h[13];
    memcpy(out->material, h + 14, 4);
    out->width = h[18];
    out->stride = h[19];
    out->level = dk_get32(h + 20);
    out->count = dk_get64(h + 24);
    out->crc = dk_get32(h + 32);
    t->block = dk_get32(h + 36);
    out->limit = dk_get32(h + 40);
    out->flagged = h[56];
    bool ok = (out->width == 1 || out->width == 2) && (out->stride == 1 || out->stride == 2) &&
              out->count <= ((uint64_t)1 << 48) && h[56] <= 1;
    if (!ok || t->block == 0 || t->block > (1u << 20))
        return dk_statusf(DK_DAMAGED, err, errlen, "%s is damaged or not a damka value file (bad header)", path);
    return DK_OK;
}

int dk_vfile_save(const char *path, dk_vfile_info *info, const dk_value *values, char *err,
                  size_t errlen)
{
    dk_value_source src = dk_value_array(values, info->stride ? info->stride : 1, 0);
    return dk_vfile_save_from(path, info, &src, err, errlen);
}

/* The bytes of a block of n positions as stored: their values, then their flags if any. */
static size_t stored_bytes(const dk_vfile_info *in, uint64_t n)
{
    return (size_t)(n * in->stride * in->width + (in->flagged ? (n + 7) / 8 : 0));
}

/* The largest of all values of the source, read a block at a time into buf (flags apart). */
static int max_value(const dk_value_source *src, uint64_t count, bool flagged, dk_value *buf,
                     dk_value *max, char *err, size_t errlen)
{
    const dk_value keep = flagged ? (dk_value)~DK_VFILE_FLAG : (dk_value)0xffff;
    *max = 0;
    for (uint64_t at = 0; at < count; at += DK_VFILE_BLOCK) {
        size_t n = count - at < DK_VFILE_BLOCK ? (size_t)(count - at) : DK_VFILE_BLOCK;
        if (src->read(src, at, n, buf, err, errlen) != 0)
            return -1;
        for (size_t i = 0; i < n * src->stride; i++)
            *max = (dk_value)(buf[i] & keep) > *max ? (dk_value)(buf[i] & keep) : *max;
    }
    return 0;
}

/* A block of n positions as stored: their values, then in a flagged file a bit a position
 * (byte p / 8, bit p % 8) taken off the first value. Returns its length. */
static size_t encode_block(const dk_value *v, size_t n, const dk_vfile_info *in, uint8_t *out)
{
    const unsigned stride = in->stride, width = in->width;
    const bool flagged = in->flagged;
    const size_t nv = n * stride;
    uint8_t *flags = out + nv * width;
    if (flagged)
        memset(flags, 0, (n + 7) / 8);
    for (size_t i = 0; i < nv; i++) {
        dk_value x = v[i];
        if (flagged && i % stride == 0 && (x & DK_VFILE_FLAG)) {
            x &= (dk_value)~DK_VFILE_FLAG;
            flags[i / stride / 8] |= (uint8_t)(1u << (i / stride % 8));
        }
        if (width == 1) {
            out[i] = (uint8_t)x;
        } else {
            out[2 * i] = (uint8_t)x;
            out[2 * i + 1] = (uint8_t)(x >> 8);
        }
    }
    return stored_bytes(in, n);
}

int dk_vfile_save_from(const char *path, dk_vfile_info *info, const dk_value_source *src,
                       char *err, size_t errlen)
{
    info->stride = (uint8_t)src->stride;
    const size_t per_block = (size_t)DK_VFILE_BLOCK * src->stride,
                 zcap = ZSTD_compressBound(per_block * 2 + DK_VFILE_BLOCK / 8);
    const uint64_t nblocks = (info->count + DK_VFILE_BLOCK - 1) / DK_VFILE_BLOCK;
    dk_value *vals = malloc(per_block * sizeof *vals);
    uint8_t *raw = malloc(per_block * 2 + DK_VFILE_BLOCK / 8), *z = malloc(zcap);
    uint64_t *offs = malloc((nblocks + 1) * sizeof *offs);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    dk_value max = 0;
    int rc = vals && raw && z && offs && cctx ? max_value(src, info->count, info->flagged, vals, &max, err, errlen)
                                              : dk_errorf(err, errlen, "cannot write %s: out of memory", path);
    dk_atomic_file f;
    if (rc == 0)
        rc = dk_atomic_begin(&f, path, err, errlen);
    if (rc != 0)
        goto out;
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, LEVEL);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    info->width = max > 0xff ? 2 : 1;
    uint8_t header[HEADER_SIZE];
    memset(header, 0, sizeof header);
    bool io_error = (rc = dk_atomic_write(&f, header, sizeof header, -1)) != 0; /* rewritten last */
    uint32_t crc = 0;
    uint64_t at_byte = HEADER_SIZE;
    for (uint64_t b = 0; rc == 0 && b < nblocks; b++) {
        uint64_t first = b * DK_VFILE_BLOCK;
        size_t n = info->count - first < DK_VFILE_BLOCK ? (size_t)(info->count - first) : DK_VFILE_BLOCK;
        if ((rc = src->read(src, first, n, vals, err, errlen)) != 0)
            break;
        size_t len = encode_block(vals, n, info, raw);
        size_t zn = ZSTD_compress2(cctx, z, zcap, raw, len);
        if (ZSTD_isError(zn)) {
            rc = dk_errorf(err, errlen, "cannot write %s: compression failed: %s", path,
                           ZSTD_getErrorCode(zn) == ZSTD_error_memory_allocation
                               ? "out of memory" : ZSTD_getErrorName(zn));
            break;
        }
        offs[b] = at_byte;
        at_byte += zn;
        crc = dk_crc32c(crc, z, zn);
        io_error = (rc = dk_atomic_write(&f, z, zn, -1)) != 0;
    }
    if (rc == 0) {
        offs[nblocks] = at_byte;
        uint8_t *index = (uint8_t *)vals; /* (nblocks + 1) * 8 bytes, written in pieces */
        for (uint64_t b = 0; rc == 0 && b <= nblocks; b++) {
            dk_put64(index, offs[b]);
            crc = dk_crc32c(crc, index, 8);
            io_error = (rc = dk_atomic_write(&f, index, 8, -1)) != 0;
        }
    }
    info->crc = crc;
    encode_header(info, at_byte, header);
    if (rc == 0)
        io_error = (rc = dk_atomic_write(&f, header, sizeof header, 0)) != 0;
    if (rc != 0) {
        int e = errno;
        dk_atomic_abort(&f);
        if (io_error)
            dk_errorf(err, errlen, "cannot write %s: %s", path, strerror(e));
    } else {
        rc = dk_atomic_commit(&f, path, err, errlen);
    }
out:
    ZSTD_freeCCtx(cctx);
    free(vals);
    free(raw);
    free(z);
    free(offs);
    return rc;
}

dk_vfile *dk_vfile_open(const char *path, bool check_all, dk_block_pool *pool, char *err,
                        size_t errlen)
{
    const uint8_t *map = NULL;
    size_t len = 0;
    dk_vfile *t = calloc(1, sizeof *t);
    if (!t) {
        dk_errorf(err, errlen, "cannot open %s: out of memory", path);
        return NULL;
    }
    if (dk_map_file(path, HEADER_SIZE, &map, &len, err, errlen) != 0)
        goto out;
    if (decode_header(map, t, path, err, errlen) != DK_OK)
        goto out;
    const dk_vfile_info *in = &t->info;
    t->nblocks = (in->count + t->block - 1) / t->block;
    uint64_t index = dk_get64(map + 48);
    bool ok = index >= HEADER_SIZE && index <= len && (len - index) / 8 == t->nblocks + 1 &&
              (len - index) % 8 == 0;
    for (uint64_t b = 0; ok && b <= t->nblocks; b++) {
        uint64_t o = dk_get64(map + index + 8 * b);
        ok = o >= HEADER_SIZE && o <= index && (b == 0 || o >= dk_get64(map + index + 8 * (b - 1))) &&
             (b < t->nblocks || o == index);
    }
    if (!ok) {
        dk_errorf(err, errlen, "%s is damaged: bad block index", path);
        goto out;
    }
    t->index = map + index;
    t->block_bytes = stored_bytes(in, t->block);
    t->own_pool = !pool;
    t->pool = pool ? pool : dk_block_pool_new((t->nblocks < DK_VFILE_SLOTS ? t->nblocks : DK_VFILE_SLOTS) *
                                              t->block_bytes, t->block_bytes);
    t->slot_of = malloc((t->nblocks ? t->nblocks : 1) * sizeof *t->slot_of);
    if (!t->pool || !t->slot_of) {
        dk_errorf(err, errlen, "cannot open %s: out of memory", path);
        goto out;
    }
    if (t->block_bytes > dk_block_pool_slot_bytes(t->pool)) {
        dk_errorf(err, errlen, "%s has blocks of %u positions, more than a reader holds", path, t->block);
        goto out;
    }
    for (uint64_t b = 0; b < t->nblocks; b++)
        t->slot_of[b] = -1;
    if (check_all && dk_crc32c(0, map + HEADER_SIZE, len - HEADER_SIZE) != in->crc) {
        dk_errorf(err, errlen, "%s is damaged: checksum mismatch", path);
        goto out;
    }
    t->map = map;
    t->map_len = len;
    snprintf(t->path, sizeof t->path, "%s", path);
    return t;
out:
    dk_unmap_file(map, len);
    if (t->own_pool)
        dk_block_pool_free(t->pool);
    free(t->slot_of);
    free(t);
    return NULL;
}

const dk_vfile_info *dk_vfile_get_info(const dk_vfile *t) { return &t->info; }

/* The decompressed bytes of block b (held by the pool). */
static const uint8_t *block_bytes(dk_vfile *t, uint64_t b, char *err, size_t errlen)
{
    if (t->slot_of[b] >= 0)
        return dk_block_pool_get(t->pool, t->slot_of, b);
    const dk_vfile_info *in = &t->info;
    uint8_t *dst = dk_block_pool_take(t->pool, t->slot_of, b);
    uint64_t first = b * t->block;
    uint64_t n = in->count - first < t->block ? in->count - first : t->block;
    uint64_t from = dk_get64(t->index + 8 * b), to = dk_get64(t->index + 8 * (b + 1));
    ZSTD_DCtx *dctx = thread_dctx();
    if (!dctx) {
        dk_block_pool_release(t->pool, t->slot_of, b);
        return dk_errorf(err, errlen, "cannot read %s: out of memory", t->path), NULL;
    }
    size_t got = ZSTD_decompressDCtx(dctx, dst, dk_block_pool_slot_bytes(t->pool), t->map + from, to - from);
    if (ZSTD_isError(got) || got != stored_bytes(in, n)) {
        dk_block_pool_release(t->pool, t->slot_of, b);
        return dk_errorf(err, errlen, "%s is damaged: block %llu does not decompress", t->path,
                         (unsigned long long)b), NULL;
    }
    return dst;
}

static void copy_values(dk_value *out, const uint8_t *src, size_t n, unsigned w)
{
    for (size_t k = 0; k < n; k++)
        out[k] = w == 1 ? src[k] : (dk_value)(src[2 * k] | src[2 * k + 1] << 8);
}

/* n values of a block from value v0 of it on, with their flags where the file has them. */
static void copy_block_values(const dk_vfile *t, dk_value *out, const uint8_t *block,
                              const uint8_t *flags, uint64_t v0, size_t n)
{
    const unsigned w = t->info.width, shift = t->info.stride == 2; /* stride 1 or 2 (decode_header) */
    copy_values(out, block + v0 * w, n, w);
    if (!flags)
        return;
    /* the solver reads one position at a time: no division on its way */
    for (uint64_t v = (v0 + shift) & ~(uint64_t)shift; v < v0 + n; v += 1u + shift) {
        uint64_t p = v >> shift;
        if (flags[p / 8] >> (p % 8) & 1)
            out[v - v0] |= DK_VFILE_FLAG;
    }
}

/* Where a block's flags start, in a flagged file: after its values. */
static const uint8_t *block_flags(const dk_vfile *t, const uint8_t *src, uint64_t in_block)
{
    return t->info.flagged ? src + in_block * t->info.width : NULL;
}

int dk_vfile_read(dk_vfile *t, uint64_t first, size_t n, dk_value *out, char *err, size_t errlen)
{
    const unsigned per_block = t->block * t->info.stride;
    if (t->last_hi && first >= t->last_lo && first + n <= t->last_hi && t->slot_of[t->last_block] >= 0) {
        const uint8_t *src = dk_block_pool_get(t->pool, t->slot_of, t->last_block);
        copy_block_values(t, out, src, block_flags(t, src, t->last_hi - t->last_lo), first - t->last_lo, n);
        return 0;
    }
    for (size_t done = 0; done < n;) {
        uint64_t i = first + done, b = i / per_block;
        const uint8_t *src = block_bytes(t, b, err, errlen);
        if (!src)
            return -1;
        uint64_t left = t->info.count * t->info.stride - b * per_block; /* values from the block on */
        uint64_t in_block = left < per_block ? left : per_block;
        t->last_block = b;
        t->last_lo = b * per_block;
        t->last_hi = t->last_lo + in_block;
        size_t run = in_block - i % per_block < n - done ? in_block - i % per_block : n - done;
        copy_block_values(t, out + done, src, block_flags(t, src, in_block), i % per_block, run);
        done += run;
    }
    return 0;
}

static int source_read(const dk_value_source *src, uint64_t first, size_t n, dk_value *out,
                       char *err, size_t errlen)
{
    return dk_vfile_read(src->ctx, first * src->stride, n * src->stride, out, err, errlen);
}

dk_value_source dk_vfile_source(dk_vfile *t)
{
    return (dk_value_source){source_read, t, t->info.stride, 0};
}

void dk_vfile_close(dk_vfile *t)
{
    if (!t)
        return;
    dk_unmap_file(t->map, t->map_len);
    if (t->own_pool)
        dk_block_pool_free(t->pool);
    else
        for (uint64_t b = 0; b < t->nblocks; b++)
            dk_block_pool_release(t->pool, t->slot_of, b);
    free(t->slot_of);
    free(t);
}
