#include "ctable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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

/* A table is read with pread into buffers of its own, never mapped: a file shortened or
 * rewritten under a reader then gives a short read or a failed check (DAMAGED), where a
 * mapping gave SIGBUS; and the file's pages stay out of the process's resident memory. */
struct dk_ctable {
    dk_ctable_info info;
    int fd;
    struct timespec mtime;  /* at open, with info.file_size: reads compare them */
    _Atomic int64_t checked_ms; /* when a read last compared them (coarse monotonic clock) */
    uint64_t *index;        /* (nblocks + 1) absolute offsets, read at open */
    ZSTD_DDict *ddict;
    dk_wld_codes *codes;    /* WLD */
    atomic_bool changed;    /* the file was seen changed since it was opened */
    char path[512];
};

/* What a reader keeps between reads (dk_ctable_dctx_new): zstd's context and the buffer a
 * compressed block is read into, grown to the largest block read. */
typedef struct reader {
    ZSTD_DCtx *zstd;
    uint8_t *buf;
    size_t cap;
} reader;

dk_ctable *dk_ctable_open(const char *path, char *err, size_t errlen)
{
    dk_status why;
    return dk_ctable_open_why(path, &why, err, errlen);
}

/* Reads len bytes at off of a file being opened; a short read is a truncated file. */
static int read_opening(int fd, const char *path, void *buf, size_t len, uint64_t off, dk_status *why,
                        char *err, size_t errlen)
{
    ssize_t n = dk_read_at(fd, buf, len, off);
    if (n < 0) {
        *why = dk_status_of_errno(errno);
        return dk_errorf(err, errlen, "cannot read %s: %s", path, strerror(errno));
    }
    if ((size_t)n != len) {
        *why = DK_DAMAGED;
        return dk_errorf(err, errlen, "%s is damaged: truncated", path);
    }
    return 0;
}

/* The most bytes block b may take in the file: a zstd frame's bound, or every WLD sub-block
 * stored as it is, so that a damaged index cannot make a reader allocate more. */
static uint64_t packed_bound(const dk_ctable_info *in, uint32_t b)
{
    if (in->metric == DK_METRIC_WLD)
        return dk_wld_block_bound(dk_ctable_positions(in->count, in->block_size, b), in->sub_block);
    return ZSTD_compressBound(dk_ctable_info_block_bytes(in, b));
}

dk_ctable *dk_ctable_open_why(const char *path, dk_status *why, char *err, size_t errlen)
{
    uint8_t h[HEADER], tail[TRAILER], *meta = NULL;
    dk_ctable *t = calloc(1, sizeof *t);
    *why = DK_NO_MEMORY;
    if (!t) {
        dk_errorf(err, errlen, "cannot open %s: out of memory", path);
        return NULL;
    }
    t->fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (t->fd < 0 || fstat(t->fd, &st) != 0) {
        *why = dk_status_of_errno(errno);
        dk_errorf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        goto fail;
    }
    uint64_t len = (uint64_t)st.st_size;
    *why = DK_DAMAGED; /* from here on, only the bytes can be wrong (or reading them) */
    if (len < HEADER + TRAILER) {
        dk_errorf(err, errlen, "%s is damaged: truncated", path);
        goto fail;
    }
    if (read_opening(t->fd, path, h, HEADER, 0, why, err, errlen) != 0)
        goto fail;
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
    /* the dictionary (or code table) and the block index, read whole: they are small */
    size_t meta_len = (size_t)(index_end - HEADER);
    meta = malloc(meta_len);
    t->index = malloc(((size_t)in->nblocks + 1) * sizeof *t->index);
    if (!meta || !t->index) {
        *why = DK_NO_MEMORY;
        dk_errorf(err, errlen, "cannot open %s: out of memory", path);
        goto fail;
    }
    if (read_opening(t->fd, path, meta, meta_len, HEADER, why, err, errlen) != 0 ||
        read_opening(t->fd, path, tail, TRAILER, len - TRAILER, why, err, errlen) != 0)
        goto fail;
    if (dk_get32(h + 48) != dk_crc32c(0, meta, meta_len) || memcmp(tail + 4, END, 4) != 0) {
        dk_errorf(err, errlen, "%s is damaged: block index or trailer", path);
        goto fail;
    }
    for (uint32_t b = 0; b <= in->nblocks; b++) {
        uint64_t o = dk_get64(meta + in->dict_size + 8 * (size_t)b);
        uint64_t prev = b ? t->index[b - 1] : index_end;
        if (o < prev || (b == 0 && o != index_end) || (b == in->nblocks && o != len - TRAILER) ||
            (b && o - prev > packed_bound(in, b - 1))) {
            dk_errorf(err, errlen, "%s is damaged: block index", path);
            goto fail;
        }
        t->index[b] = o;
    }
    in->file_crc = dk_get32(tail);
    in->read_block = wld ? in->sub_block : in->block_size; /* WLD: run-length coded sub-blocks */
    in->nread_blocks = in->count / in->read_block + (in->count % in->read_block != 0);
    if (wld) {
        t->codes = malloc(sizeof *t->codes);
        if (!t->codes) {
            *why = DK_NO_MEMORY;
            dk_errorf(err, errlen, "cannot open %s: out of memory", path);
            goto fail;
        }
        if (dk_wld_codes_init(t->codes, meta) != 0) {
            dk_errorf(err, errlen, "%s is damaged: bad code table", path);
            goto fail;
        }
    } else if (in->dict_size && !(t->ddict = ZSTD_createDDict(meta, in->dict_size))) {
        dk_errorf(err, errlen, "%s is damaged: bad dictionary", path);
        goto fail;
    }
    free(meta);
    t->mtime = st.st_mtim;
    atomic_init(&t->changed, false);
    atomic_init(&t->checked_ms, 0);
    snprintf(t->path, sizeof t->path, "%s", path);
    return t;
fail:
    free(meta);
    dk_ctable_close(t);
    return NULL;
}

void dk_ctable_close(dk_ctable *t)
{
    if (!t)
        return;
    ZSTD_freeDDict(t->ddict);
    free(t->codes);
    free(t->index);
    if (t->fd >= 0)
        close(t->fd);
    free(t);
}

const dk_ctable_info *dk_ctable_get_info(const dk_ctable *t) { return &t->info; }

const char *dk_ctable_path(const dk_ctable *t) { return t->path; }

bool dk_ctable_changed(const dk_ctable *t) { return atomic_load_explicit(&t->changed, memory_order_relaxed); }

/* Says that t's file changed under it, from now on for every read of t. */
static int changed(const dk_ctable *t, char *err, size_t errlen)
{
    atomic_store_explicit(&((dk_ctable *)t)->changed, true, memory_order_relaxed); /* its one mutable field */
    return dk_statusf(DK_DAMAGED, err, errlen, "%s is damaged: the file changed since it was opened (truncated or "
                     "rewritten in place; a new handle reads it as it is now)", t->path);
}

/* The longest a table's reads go without comparing its file's size and modification time
 * with those at open (fstat): a system call a block read doubled the cost of a cold WLD probe's
 * read; in this window a changed file is caught by short reads and the blocks' checksums only. */
enum { CHECK_MS = 10 };

/* Whether the file's size or modification time differ from those it was opened with, looked at
 * when the last look is CHECK_MS old (always when `now`). */
static bool file_changed(const dk_ctable *t, bool now)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    int64_t ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    dk_ctable *w = (dk_ctable *)t; /* the clock of the last look is mutable, as `changed` is */
    if (!now && ms - atomic_load_explicit(&w->checked_ms, memory_order_relaxed) < CHECK_MS)
        return false;
    atomic_store_explicit(&w->checked_ms, ms, memory_order_relaxed);
    struct stat st;
    return fstat(t->fd, &st) != 0 || (uint64_t)st.st_size != t->info.file_size ||
           st.st_mtim.tv_sec != t->mtime.tv_sec || st.st_mtim.tv_nsec != t->mtime.tv_nsec;
}

/* Reads bytes [from, to) of t's file into r's buffer (grown as needed); NULL with one line in
 * err, *rc saying why: DK_NO_MEMORY, DK_IO when the read failed, DK_DAMAGED when it ended early
 * or the file changed. */
static const uint8_t *read_packed(const dk_ctable *t, reader *r, uint64_t from, uint64_t to, int *rc, char *err,
                                  size_t errlen)
{
    *rc = DK_DAMAGED;
    if (dk_ctable_changed(t)) {
        changed(t, err, errlen);
        return NULL;
    }
    size_t len = (size_t)(to - from);
    if (r->cap < len || !r->buf) { /* never NULL on success, even for an empty range */
        uint8_t *buf = realloc(r->buf, len ? len : 1);
        if (!buf) {
            *rc = DK_NO_MEMORY;
            dk_errorf(err, errlen, "out of memory reading a block of %s", t->path);
            return NULL;
        }
        r->buf = buf;
        r->cap = len;
    }
    ssize_t n = dk_read_at(t->fd, r->buf, len, from);
    if (n < 0) {
        *rc = dk_statusf(dk_status_of_errno(errno), err, errlen, "cannot read %s: %s", t->path, strerror(errno));
        return NULL;
    }
    /* a short read, or a change seen after the read: the bytes may be another file's (a block
     * that fails its check below makes the look at once) */
    if ((size_t)n != len || file_changed(t, false)) {
        changed(t, err, errlen);
        return NULL;
    }
    *rc = DK_OK;
    return r->buf;
}

size_t dk_ctable_read_block_bytes(const dk_ctable *t, uint64_t u)
{
    uint32_t n = dk_ctable_positions(t->info.count, t->info.read_block, u);
    return t->info.metric == DK_METRIC_WLD ? ((size_t)n + 3) / 4 : (size_t)n * t->info.width;
}

size_t dk_ctable_max_read_block_bytes(const dk_ctable *t) { return dk_ctable_read_block_bytes(t, 0); }

/* A block that fails its check: the file changed under the reader (looked at now), or it is
 * damaged (sub: the WLD sub-block, or -1; detail: zstd's word, or NULL). */
static int bad_block(const dk_ctable *t, uint32_t b, long sub, const char *detail, char *err, size_t errlen)
{
    if (file_changed(t, true))
        return changed(t, err, errlen);
    if (sub >= 0)
        return dk_statusf(DK_DAMAGED, err, errlen, "%s is damaged: block %u, sub-block %ld", t->path, b, sub);
    if (detail)
        return dk_statusf(DK_DAMAGED, err, errlen, "%s is damaged: block %u (%s)", t->path, b, detail);
    return dk_statusf(DK_DAMAGED, err, errlen, "%s is damaged: block %u", t->path, b);
}

/* Block b as a zstd frame. */
static int read_frame(const dk_ctable *t, reader *r, uint32_t b, uint8_t *out, char *err, size_t errlen)
{
    uint64_t from = t->index[b], to = t->index[b + 1];
    size_t want = dk_ctable_info_block_bytes(&t->info, b);
    int rc;
    const uint8_t *src = read_packed(t, r, from, to, &rc, err, errlen);
    if (!src)
        return rc;
    /* every frame must carry its content checksum (bit 2 of the frame header descriptor), or a
     * damaged flag could turn the check off */
    if (to - from < 5 || dk_get32(src) != 0xFD2FB528u || !(src[4] & 0x04) ||
        ZSTD_getFrameContentSize(src, to - from) != want)
        return bad_block(t, b, -1, NULL, err, errlen);
    size_t n = t->ddict ? ZSTD_decompress_usingDDict(r->zstd, out, want, src, to - from, t->ddict)
                        : ZSTD_decompressDCtx(r->zstd, out, want, src, to - from);
    if (ZSTD_isError(n) || n != want)
        return bad_block(t, b, -1, ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong size", err, errlen);
    return 0;
}

/* Sub-block u of a run-length coded WLD file: its block's CRC (the whole block is read for it),
 * where the offsets put it, then its code (or its bytes as they are, when it has exactly the
 * decoded size). */
static int read_sub_block(const dk_ctable *t, reader *r, uint64_t u, uint8_t *out, char *err, size_t errlen)
{
    const dk_ctable_info *in = &t->info;
    uint32_t per = in->block_size / in->sub_block, b = (uint32_t)(u / per), s = (uint32_t)(u % per);
    uint64_t from = t->index[b], to = t->index[b + 1];
    uint32_t subs = (dk_ctable_positions(in->count, in->block_size, b) + in->sub_block - 1) / in->sub_block;
    size_t len = to - from, table = 4 + 2 * (size_t)(subs - 1);
    int rc;
    const uint8_t *src = read_packed(t, r, from, to, &rc, err, errlen);
    if (!src)
        return rc;
    if (len < table || dk_get32(src) != dk_crc32c(0, src + 4, len - 4))
        return bad_block(t, b, -1, NULL, err, errlen);
    size_t a = s ? dk_get16(src + 4 + 2 * (s - 1)) : table, z = s + 1 < subs ? dk_get16(src + 4 + 2 * s) : len;
    uint32_t n = dk_ctable_positions(in->count, in->sub_block, u);
    bool stored = z - a == (n + 3) / 4; /* a code is always shorter */
    if (a < table || z < a || z > len || (!stored && dk_wld_decode(t->codes, src + a, z - a, n, out) != 0))
        return bad_block(t, b, s, NULL, err, errlen);
    if (stored)
        memcpy(out, src + a, z - a);
    return 0;
}

int dk_ctable_read_block(const dk_ctable *t, void *dctx, uint64_t u, uint8_t *out, char *err,
                        size_t errlen)
{
    return t->codes ? read_sub_block(t, dctx, u, out, err, errlen)
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
    enum { CHUNK = 1 << 20 };
    reader r = {0};
    uint64_t end = t->info.file_size - TRAILER;
    uint32_t crc = 0;
    int rc = 0;
    for (uint64_t at = 0; rc == 0 && at < end; at += CHUNK) {
        const uint8_t *p = read_packed(t, &r, at, end - at < CHUNK ? end : at + CHUNK, &rc, err, errlen);
        if (p)
            crc = dk_crc32c(crc, p, (size_t)(end - at < CHUNK ? end - at : CHUNK));
    }
    free(r.buf);
    if (rc == 0 && crc != t->info.file_crc)
        rc = dk_statusf(DK_DAMAGED, err, errlen, "%s is damaged: checksum mismatch", t->path);
    return rc;
}

int dk_ctable_check(const dk_ctable *t, char *err, size_t errlen)
{
    int rc = dk_ctable_check_crc(t, err, errlen);
    if (rc != 0)
        return rc;
    void *dctx = dk_ctable_dctx_new();
    uint8_t *buf = malloc(dk_ctable_max_read_block_bytes(t));
    rc = dctx && buf ? 0 : dk_statusf(DK_NO_MEMORY, err, errlen, "cannot check %s: out of memory", t->path);
    for (uint64_t u = 0; rc == 0 && u < t->info.nread_blocks; u++)
        rc = dk_ctable_read_block(t, dctx, u, buf, err, errlen);
    free(buf);
    dk_ctable_dctx_free(dctx);
    return rc;
}

void *dk_ctable_dctx_new(void)
{
    reader *r = calloc(1, sizeof *r);
    if (r && !(r->zstd = ZSTD_createDCtx())) {
        free(r);
        r = NULL;
    }
    return r;
}

void dk_ctable_dctx_free(void *dctx)
{
    reader *r = dctx;
    if (!r)
        return;
    ZSTD_freeDCtx(r->zstd);
    free(r->buf);
    free(r);
}
