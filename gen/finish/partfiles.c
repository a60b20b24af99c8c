#include "partfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../query/checksum.h"
#include "../../query/fileio.h"
#include "../../query/tablebase.h"
#include "../../rules/errors.h"
#include "../store/atomicfile.h"
#include "../store/valuefile.h"

int dk_fpart_tables(unsigned limit) { return limit ? 3 : 2; }

const dk_index *dk_fpart_index(const dk_workgraph *g, const dk_fpart *f)
{
    return f->member ? &g->pairs[f->pair].ix_twin : &g->pairs[f->pair].ix;
}

bool dk_fpart_path(const dk_workgraph *g, const char *dir, uint32_t q, const char *what, char *buf, size_t len)
{
    const dk_fpart *f = &g->parts[q];
    char work[2048], base[2048];
    bool fits = (size_t)snprintf(work, sizeof work, "%s/work", dir) < sizeof work &&
                (size_t)dk_tb_path(work, g->v, dk_fpart_index(g, f)->m, what, base, sizeof base) < sizeof base &&
                (size_t)snprintf(buf, len, "%s.part%llu-%llu", base, (unsigned long long)f->lo,
                                 (unsigned long long)f->hi) < len;
    if (!fits)
        buf[0] = 0;
    return fits;
}

void dk_fpart_blocks(const dk_ctable_info *in, const dk_fpart *f, uint32_t *b0, uint32_t *b1)
{
    *b0 = (uint32_t)(f->lo / in->block_size);
    *b1 = (uint32_t)((f->hi + in->block_size - 1) / in->block_size);
}

/* --- the summary of a scanned part (DKSCAN01) --- */

#define SCAN_MAGIC 0x31304e4143534b44ULL /* "DKSCAN01" */

typedef struct words {
    uint8_t *b;
    size_t n, cap;
    bool failed;
} words;

static void put(words *w, uint64_t x)
{
    if (w->n + 8 > w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 1 << 14;
        uint8_t *b = realloc(w->b, cap);
        if (!b) {
            w->failed = true;
            return;
        }
        w->b = b;
        w->cap = cap;
    }
    dk_put64(w->b + w->n, x);
    w->n += 8;
}

/* The histogram entries a summary holds: up to the largest DTW counted. */
static unsigned hist_len(const dk_stats *st) { return (st->max_value ? dk_value_dtw(st->max_value) : 0) + 1; }

int dk_fpart_summary_write(const dk_fpart_summary *s, const dk_fpart *f, const char *path, char *err, size_t errlen)
{
    const dk_stats *st = &s->st;
    words w = {0};
    const uint64_t head[] = {SCAN_MAGIC, f->lo, f->hi, st->limit, st->positions, st->wins, st->losses, st->draws,
                             st->max_value, st->longest_value, st->longest_at, st->longest_dtc, st->longest_dtc_at};
    for (size_t k = 0; k < sizeof head / sizeof *head; k++)
        put(&w, head[k]);
    for (int k = 0; k < DK_RC_N; k++)
        put(&w, st->rule[k]);
    for (unsigned d = 0; d < hist_len(st); d++)
        put(&w, st->hist[d]);
    for (unsigned d = 0; st->limit && d <= st->limit; d++) {
        put(&w, st->dtc_win[d]);
        put(&w, st->dtc_loss[d]);
    }
    for (int k = 0; k < 3; k++)
        put(&w, s->t[k].max);
    for (int x = 0; x < DK_WLD_CONTEXTS; x++)
        for (int y = 0; y < DK_WLD_SYMBOLS; y++)
            put(&w, s->t[0].wld.n[x][y]);
    put(&w, w.failed ? 0 : dk_crc32c(0, w.b, w.n));
    int rc = w.failed ? dk_errorf(err, errlen, "cannot write %s: out of memory", path)
                      : dk_write_file_atomic(path, w.b, w.n, err, errlen);
    free(w.b);
    return rc;
}

/* Words read one after another from a summary, up to its CRC: past the end, 0, and `bad` set. */
typedef struct cursor {
    const uint8_t *b;
    size_t at, end;
    bool bad;
} cursor;

static uint64_t next_word(cursor *c)
{
    if (c->at + 8 > c->end) {
        c->bad = true;
        return 0;
    }
    c->at += 8;
    return dk_get64(c->b + c->at - 8);
}

int dk_fpart_summary_read(dk_fpart_summary *s, const dk_index *ix, const dk_fpart *f, unsigned limit, const char *path,
                        char *err, size_t errlen)
{
    size_t len;
    const uint8_t *b;
    if (dk_map_file(path, 0, &b, &len, err, errlen) != 0)
        return -1;
    memset(s, 0, sizeof *s);
    cursor c = {.b = b, .end = len >= 8 ? len - 8 : 0}; /* the last word is the CRC */
    c.bad = len < 8 || len % 8 || dk_get64(b + len - 8) != dk_crc32c(0, b, len - 8);
    if (!c.bad && (next_word(&c) != SCAN_MAGIC || next_word(&c) != f->lo || next_word(&c) != f->hi ||
                   next_word(&c) != limit))
        c.bad = true;
    if (!c.bad && dk_stats_begin(&s->st, ix, limit) != 0) {
        dk_unmap_file(b, len);
        return dk_errorf(err, errlen, "out of memory");
    }
    if (!c.bad) {
        dk_stats *st = &s->st;
        st->positions = next_word(&c);
        st->wins = next_word(&c);
        st->losses = next_word(&c);
        st->draws = next_word(&c);
        st->max_value = (dk_value)next_word(&c);
        st->longest_value = (dk_value)next_word(&c);
        st->longest_at = next_word(&c);
        st->longest_dtc = (unsigned)next_word(&c);
        st->longest_dtc_at = next_word(&c);
        for (int k = 0; k < DK_RC_N; k++)
            st->rule[k] = next_word(&c);
        for (unsigned d = 0; d < hist_len(st); d++)
            st->hist[d] = next_word(&c);
        for (unsigned d = 0; limit && d <= limit; d++) {
            st->dtc_win[d] = next_word(&c);
            st->dtc_loss[d] = next_word(&c);
        }
        for (int k = 0; k < 3; k++)
            s->t[k].max = (dk_value)next_word(&c);
        for (int x = 0; x < DK_WLD_CONTEXTS; x++)
            for (int y = 0; y < DK_WLD_SYMBOLS; y++)
                s->t[0].wld.n[x][y] = next_word(&c);
        c.bad = c.bad || c.at != c.end;
    }
    dk_unmap_file(b, len);
    if (c.bad) {
        dk_stats_free(&s->st);
        return dk_errorf(err, errlen, "%s is damaged", path);
    }
    return 0;
}

/* --- a part's coded blocks of one table (DKPACK01) --- */

#define PACK_MAGIC "DKPACK01"
enum { PACK_HEAD = 24, PACK_TAIL = 8 };

/* A pack file being written: the part's coded blocks, their sizes kept for the end. */
typedef struct pack_out {
    dk_atomic_file f;
    const char *path;
    uint32_t b0, crc;
    uint64_t *sizes;
} pack_out;

static int pack_write(pack_out *o, const void *bytes, size_t n, char *err, size_t errlen)
{
    o->crc = dk_crc32c(o->crc, bytes, n);
    if (dk_atomic_write(&o->f, bytes, n, -1) != 0)
        return dk_errorf(err, errlen, "cannot write %s: %s", o->path, strerror(errno));
    return 0;
}

static int emit_block(void *ctx, uint32_t b, const uint8_t *bytes, size_t n, char *err, size_t errlen)
{
    pack_out *o = ctx;
    o->sizes[b - o->b0] = n;
    return pack_write(o, bytes, n, err, errlen);
}

/* The layout: header (magic, width, dictionary size, first block, blocks), the dictionary, the
 * blocks, their sizes, the CRC-32C of all that and "DKPE". */
int dk_fpart_pack_write(dk_ctable_coder *c, const dk_fpart *f, const char *path, char *err, size_t errlen)
{
    const dk_ctable_info *in = dk_ctable_coder_info(c);
    uint32_t b0, b1;
    dk_fpart_blocks(in, f, &b0, &b1);
    pack_out o = {.path = path, .b0 = b0, .sizes = malloc(((size_t)(b1 - b0) + 1) * sizeof *o.sizes)};
    if (!o.sizes)
        return dk_errorf(err, errlen, "cannot write %s: out of memory", path);
    if (dk_atomic_begin(&o.f, path, err, errlen) != 0) {
        free(o.sizes);
        return -1;
    }
    uint8_t head[PACK_HEAD];
    memcpy(head, PACK_MAGIC, 8);
    dk_put32(head + 8, in->width);
    dk_put32(head + 12, in->dict_size);
    dk_put32(head + 16, b0);
    dk_put32(head + 20, b1 - b0);
    int rc = pack_write(&o, head, PACK_HEAD, err, errlen) == 0 &&
                     pack_write(&o, dk_ctable_coder_dict(c), in->dict_size, err, errlen) == 0 &&
                     dk_ctable_coder_code(c, b0, b1, emit_block, &o) == 0
                 ? 0
                 : -1;
    for (uint32_t k = 0; rc == 0 && k < b1 - b0; k++) {
        uint8_t s[8];
        dk_put64(s, o.sizes[k]);
        rc = pack_write(&o, s, 8, err, errlen);
    }
    uint8_t tail[PACK_TAIL];
    dk_put32(tail, o.crc);
    memcpy(tail + 4, "DKPE", 4);
    if (rc == 0 && dk_atomic_write(&o.f, tail, PACK_TAIL, -1) != 0)
        rc = dk_errorf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    free(o.sizes);
    if (rc != 0) {
        dk_atomic_abort(&o.f);
        return -1;
    }
    return dk_atomic_commit(&o.f, path, err, errlen);
}

void dk_fpart_pack_close(dk_fpart_pack *p)
{
    if (p->fd >= 0)
        close(p->fd);
    free(p->dict);
    p->fd = -1;
    p->dict = NULL;
}

/* A read of p that returned `got` (dk_read_at: -1 with errno, or fewer bytes where the file ends). */
static int read_failed(const dk_fpart_pack *p, ssize_t got, char *err, size_t errlen)
{
    return dk_errorf(err, errlen, "cannot read %s: %s", p->path, got < 0 ? strerror(errno) : "truncated");
}

int dk_fpart_pack_open(dk_fpart_pack *p, const char *path, uint32_t b0, uint32_t nb, char *err, size_t errlen)
{
    *p = (dk_fpart_pack){.fd = open(path, O_RDONLY | O_CLOEXEC)};
    snprintf(p->path, sizeof p->path, "%s", path);
    uint8_t head[PACK_HEAD], tail[PACK_TAIL];
    struct stat sb;
    if (p->fd < 0 || fstat(p->fd, &sb) != 0)
        return dk_errorf(err, errlen, "cannot open %s: %s", path, strerror(errno));
    uint64_t size = (uint64_t)sb.st_size;
    bool bad = size < PACK_HEAD + PACK_TAIL || dk_read_at(p->fd, head, PACK_HEAD, 0) != PACK_HEAD ||
               memcmp(head, PACK_MAGIC, 8) != 0;
    if (!bad) {
        p->width = dk_get32(head + 8);
        p->dict_size = dk_get32(head + 12);
        p->b0 = dk_get32(head + 16);
        p->nb = dk_get32(head + 20);
        bad = p->b0 != b0 || p->nb != nb || p->dict_size > DK_CTABLE_DICT_MAX ||
              size < PACK_HEAD + p->dict_size + 8 * (uint64_t)nb + PACK_TAIL;
    }
    if (!bad) {
        p->dict = malloc(p->dict_size + 1);
        if (!p->dict) {
            dk_fpart_pack_close(p);
            return dk_errorf(err, errlen, "out of memory");
        }
        p->sizes_at = size - PACK_TAIL - 8 * (uint64_t)nb;
        p->blocks_len = p->sizes_at - PACK_HEAD - p->dict_size;
        bad = dk_read_at(p->fd, p->dict, p->dict_size, PACK_HEAD) != (ssize_t)p->dict_size ||
              dk_read_at(p->fd, tail, PACK_TAIL, size - PACK_TAIL) != PACK_TAIL || memcmp(tail + 4, "DKPE", 4) != 0;
        p->crc = dk_crc32c(dk_crc32c(0, head, PACK_HEAD), p->dict, p->dict_size);
        p->want = dk_get32(tail);
        /* the sizes come after the blocks in the file: their CRC is added when the blocks are read */
    }
    if (bad) {
        dk_fpart_pack_close(p);
        return dk_errorf(err, errlen, "%s is damaged", path);
    }
    return 0;
}

int dk_fpart_pack_sizes(const dk_fpart_pack *p, uint32_t b, uint32_t n, uint8_t *raw, uint64_t *out, char *err, size_t errlen)
{
    ssize_t got = dk_read_at(p->fd, raw, 8 * (size_t)n, p->sizes_at + 8 * (uint64_t)b);
    if (got != (ssize_t)(8 * (size_t)n))
        return read_failed(p, got, err, errlen);
    for (uint32_t k = 0; out && k < n; k++)
        out[k] = dk_get64(raw + 8 * (size_t)k);
    return 0;
}

int dk_fpart_pack_finish(dk_fpart_pack *p, uint8_t *raw, uint64_t *sizes, char *err, size_t errlen)
{
    uint64_t sum = 0;
    for (uint32_t b = 0; b < p->nb; b += DK_FPART_SIZES_CHUNK) {
        uint32_t n = p->nb - b < DK_FPART_SIZES_CHUNK ? p->nb - b : DK_FPART_SIZES_CHUNK;
        if (dk_fpart_pack_sizes(p, b, n, raw, sizes, err, errlen) != 0)
            return -1;
        p->crc = dk_crc32c(p->crc, raw, 8 * (size_t)n);
        for (uint32_t k = 0; k < n; k++)
            sum += sizes[k];
    }
    if (p->crc != p->want)
        return dk_errorf(err, errlen, "%s is damaged (its CRC)", p->path);
    if (sum != p->blocks_len)
        return dk_errorf(err, errlen, "%s is damaged (its block sizes)", p->path);
    return 0;
}

int dk_fpart_pack_next(dk_fpart_pack *p, uint8_t *buf, size_t cap, size_t *n, uint8_t *raw, uint64_t *sizes,
                       char *err, size_t errlen)
{
    size_t k = p->blocks_len - p->at < cap ? (size_t)(p->blocks_len - p->at) : cap;
    ssize_t got = dk_read_at(p->fd, buf, k, PACK_HEAD + p->dict_size + p->at);
    if (got != (ssize_t)k)
        return read_failed(p, got, err, errlen);
    p->crc = dk_crc32c(p->crc, buf, k);
    p->at += k;
    *n = k;
    return p->at == p->blocks_len ? dk_fpart_pack_finish(p, raw, sizes, err, errlen) : 0;
}

void dk_fpart_remove(const dk_workgraph *g, const char *dir, uint32_t q)
{
    static const char *const what[] = {"raw", "scan", "wld", "dtw", "dtc"};
    for (size_t k = 0; k < sizeof what / sizeof *what; k++) {
        char path[4096];
        if (dk_fpart_path(g, dir, q, what[k], path, sizeof path)) /* never a truncated name's file */
            unlink(path);
    }
}

/* --- what a restart finds --- */

/* Whether the pack file at path is whole: its CRC over every byte. */
static bool pack_whole(const char *path)
{
    size_t len;
    const uint8_t *b;
    char err[256];
    if (dk_map_file(path, PACK_HEAD + PACK_TAIL, &b, &len, err, sizeof err) != 0)
        return false;
    bool ok = memcmp(b, PACK_MAGIC, 8) == 0 && memcmp(b + len - 4, "DKPE", 4) == 0 &&
              dk_get32(b + len - PACK_TAIL) == dk_crc32c(0, b, len - PACK_TAIL);
    dk_unmap_file(b, len);
    return ok;
}

int dk_fpart_found(const dk_workgraph *g, const char *dir, uint32_t q, unsigned limit)
{
    const dk_fpart *f = &g->parts[q];
    char path[4096], err[256];
    int found = 0;
    dk_fpart_path(g, dir, q, "raw", path, sizeof path);
    dk_vfile *v = dk_vfile_open(path, true, NULL, err, sizeof err);
    const dk_vfile_info *vi = v ? dk_vfile_get_info(v) : NULL;
    bool raw = vi && vi->count == f->hi - f->lo && vi->stride == (limit ? 2 : 1) && vi->limit == limit && vi->flagged;
    dk_vfile_close(v);
    dk_fpart_summary *s = malloc(sizeof *s);
    dk_fpart_path(g, dir, q, "scan", path, sizeof path);
    if (raw && s && dk_fpart_summary_read(s, dk_fpart_index(g, f), f, limit, path, err, sizeof err) == 0) {
        found |= 1;
        dk_stats_free(&s->st);
    }
    free(s);
    bool packed = true;
    for (int k = 0; packed && k < dk_fpart_tables(limit); k++) {
        dk_fpart_path(g, dir, q, dk_tb_metric_ext((dk_metric)(k + 1)), path, sizeof path);
        packed = pack_whole(path);
    }
    return found | (packed ? 2 : 0);
}
