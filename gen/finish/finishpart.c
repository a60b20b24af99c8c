#include "finishpart.h"

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
#include "assemble.h"
#include "../store/atomicfile.h"
#include "ctable_write.h"
#include "tablecheck.h"
#include "../store/stats.h"
#include "../store/testhooks.h"
#include "../store/valuefile.h"

/* The tables a part codes: WLD, DTW and, with a draw rule, DTC (metric k + 1). */
static int ntables(unsigned limit) { return limit ? 3 : 2; }

static const dk_index *index_of(const dk_workgraph *g, const dk_fpart *f)
{
    return f->member ? &g->pairs[f->pair].ix_twin : &g->pairs[f->pair].ix;
}

/* The file of part q: DIR/work/<variant>-<material>.<what>.part<lo>-<hi>. Returns false, buf
 * empty, if it does not fit (never for a DIR that dk_generate accepts, DK_RUNDIR_MAX). */
static bool part_path(const dk_workgraph *g, const char *dir, uint32_t q, const char *what, char *buf, size_t len)
{
    const dk_fpart *f = &g->parts[q];
    char work[2048], base[2048];
    bool fits = (size_t)snprintf(work, sizeof work, "%s/work", dir) < sizeof work &&
                (size_t)dk_tb_path(work, g->v, index_of(g, f)->m, what, base, sizeof base) < sizeof base &&
                (size_t)snprintf(buf, len, "%s.part%llu-%llu", base, (unsigned long long)f->lo,
                                 (unsigned long long)f->hi) < len;
    if (!fits)
        buf[0] = 0;
    return fits;
}

/* The parts of q's material: [*first, *first + *n). */
static void member_parts(const dk_workgraph *g, uint32_t q, uint32_t *first, uint32_t *n)
{
    const dk_wpair *p = &g->pairs[g->parts[q].pair];
    *first = p->first_part;
    *n = 0;
    for (uint32_t k = p->first_part; k < p->first_part + p->nparts; k++) {
        if (g->parts[k].member != g->parts[q].member)
            continue;
        if (*n == 0)
            *first = k;
        (*n)++;
    }
}

/* --- a material's values read from its parts' .raw files, by position of the material --- */

typedef struct parts_source {
    const dk_workgraph *g;
    const char *dir;
    uint32_t first, n; /* the material's parts */
    uint32_t open;     /* the part whose file is open (f), or UINT32_MAX */
    dk_vfile *f;
} parts_source;

static int read_parts(const dk_value_source *src, uint64_t first, size_t n, dk_value *out, char *err,
                      size_t errlen)
{
    parts_source *ps = src->ctx;
    const dk_fpart *parts = ps->g->parts;
    uint64_t step = parts[ps->first].hi - parts[ps->first].lo;
    while (n > 0) {
        uint32_t q = ps->first + (uint32_t)(first / step);
        if (q >= ps->first + ps->n)
            return dk_errorf(err, errlen, "internal error: position %llu beyond a material's parts",
                             (unsigned long long)first);
        if (q != ps->open) {
            char path[4096];
            part_path(ps->g, ps->dir, q, "raw", path, sizeof path);
            dk_vfile_close(ps->f);
            ps->open = UINT32_MAX;
            if (!(ps->f = dk_vfile_open(path, false, NULL, err, errlen)))
                return -1;
            ps->open = q;
        }
        size_t k = parts[q].hi - first < n ? (size_t)(parts[q].hi - first) : n;
        if (dk_vfile_read(ps->f, (first - parts[q].lo) * src->stride, k * src->stride, out, err, errlen) != 0)
            return -1;
        out += k * src->stride;
        first += k;
        n -= k;
    }
    return 0;
}

static dk_value_source parts_open(parts_source *ps, const dk_worker *w, uint32_t q)
{
    *ps = (parts_source){.g = w->g, .dir = w->dir, .open = UINT32_MAX};
    member_parts(w->g, q, &ps->first, &ps->n);
    return (dk_value_source){.read = read_parts, .ctx = ps, .stride = w->limit ? 2 : 1};
}

static void parts_close(parts_source *ps) { dk_vfile_close(ps->f); }

/* --- the summary of a scanned part: its statistics and its tables' scans --- */

typedef struct summary {
    dk_stats st;
    dk_ctable_scan t[3];
} summary;

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

static int summary_write(const summary *s, const dk_fpart *f, const char *path, char *err, size_t errlen)
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

/* Reads part f's summary into *s (statistics of material ix, a draw rule of `limit` plies).
 * Returns 0, or -1 with one line in err (missing, damaged, or of another part or rule). */
static int summary_read(summary *s, const dk_index *ix, const dk_fpart *f, unsigned limit, const char *path,
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

/* --- scan --- */

/* A source shifted by `by` positions: position i of it is position i + by of base. */
typedef struct shifted {
    const dk_value_source *base;
    uint64_t by;
} shifted;

static int read_shifted(const dk_value_source *src, uint64_t first, size_t n, dk_value *out, char *err,
                        size_t errlen)
{
    const shifted *s = src->ctx;
    return s->base->read(s->base, first + s->by, n, out, err, errlen);
}

/* The blocks of a table laid out as `in` that part f covers. */
static void blocks_of(const dk_ctable_info *in, const dk_fpart *f, uint32_t *b0, uint32_t *b1)
{
    *b0 = (uint32_t)(f->lo / in->block_size);
    *b1 = (uint32_t)((f->hi + in->block_size - 1) / in->block_size);
}

/* The scans of part q's blocks of each table, from src (the material's values by position). */
static int scan_tables(dk_worker *w, uint32_t q, const dk_value_source *src, summary *s, char *err, size_t errlen)
{
    const dk_fpart *f = &w->g->parts[q];
    const dk_index *ix = index_of(w->g, f);
    for (int k = 0; k < ntables(w->limit); k++) {
        dk_ctable_params cp = dk_worker_table_params(w, ix->m, (dk_metric)(k + 1));
        dk_value_source one = *src;
        one.offset = k == 2; /* the rule value follows the DTW value */
        dk_ctable_coder *c = dk_ctable_coder_new(&cp, &one, NULL, true, ix->size, err, errlen);
        if (!c)
            return -1;
        uint32_t b0, b1;
        blocks_of(dk_ctable_coder_info(c), f, &b0, &b1);
        int rc = dk_ctable_coder_scan(c, b0, b1, &s->t[k]);
        dk_ctable_coder_free(c);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Part q's material, or NULL when its tables are finished (an earlier run's join wrote them):
 * the part has nothing to do. What solving holds is given back first. */
static const dk_index *part_begin(dk_worker *w, uint32_t q)
{
    const dk_index *ix = index_of(w->g, &w->g->parts[q]);
    if (dk_material_finished(w->g, w->dir, ix, w->limit))
        return NULL;
    dk_worker_idle(w);
    return ix;
}

int dk_task_scan_part(dk_worker *w, uint32_t q, char *err, size_t errlen)
{
    const dk_workgraph *g = w->g;
    const dk_fpart *f = &g->parts[q];
    const dk_index *ix = part_begin(w, q);
    if (!ix)
        return 0;
    char raw[4096], path[4096];
    part_path(g, w->dir, q, "raw", raw, sizeof raw);
    part_path(g, w->dir, q, "scan", path, sizeof path);
    dk_pair_reader *r = dk_pair_reader_window(g, w->gcache, w->above, w->dir, f->pair, w->limit, f->member, f->lo,
                                              f->hi, err, errlen);
    if (!r)
        return -1;
    const dk_material m = ix->m;
    shifted sh = {.base = dk_pair_reader_member(r, f->member), .by = f->lo};
    dk_value_source from_units = {.read = read_shifted, .ctx = &sh, .stride = w->limit ? 2 : 1};
    dk_vfile_info info = {.kind = DK_FILE_TABLE,
                          .variant = (uint8_t)g->v->id,
                          .material = {m.wm, m.wk, m.bm, m.bk},
                          .count = f->hi - f->lo,
                          .stride = (uint8_t)(w->limit ? 2 : 1),
                          .limit = w->limit,
                          .flagged = true};
    int rc = dk_vfile_save_from(raw, &info, &from_units, err, errlen);
    dk_pair_reader_free(r);
    if (rc != 0)
        return -1;
    summary *s = calloc(1, sizeof *s);
    if (!s || dk_stats_begin(&s->st, ix, w->limit) != 0) {
        free(s);
        return dk_errorf(err, errlen, "out of memory");
    }
    parts_source ps;
    dk_value_source src = parts_open(&ps, w, q);
    rc = dk_stats_count(&s->st, &src, f->lo, f->hi - f->lo, err, errlen) == 0 &&
                 scan_tables(w, q, &src, s, err, errlen) == 0
             ? summary_write(s, f, path, err, errlen)
             : -1;
    parts_close(&ps);
    dk_stats_free(&s->st);
    free(s);
    if (rc == 0)
        dk_hook_part_written();
    return rc;
}

/* --- pack --- */

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

/* Codes part f's blocks of the table coder c decided into path: header (magic, width,
 * dictionary size, first block, blocks), the dictionary, the blocks, their sizes, the CRC-32C
 * of all that and "DKPE". */
static int pack_table(dk_ctable_coder *c, const dk_fpart *f, const char *path, char *err, size_t errlen)
{
    const dk_ctable_info *in = dk_ctable_coder_info(c);
    uint32_t b0, b1;
    blocks_of(in, f, &b0, &b1);
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

/* Adds up the summaries of the parts [first, first + n) of one material: their tables' scans
 * into scans[3] (NULL: not wanted), their statistics into *st (begun; NULL: not wanted). */
static int add_summaries(const dk_worker *w, uint32_t first, uint32_t n, dk_ctable_scan *scans, dk_stats *st,
                         char *err, size_t errlen)
{
    summary *s = malloc(sizeof *s);
    if (!s)
        return dk_errorf(err, errlen, "out of memory");
    if (scans)
        memset(scans, 0, 3 * sizeof *scans);
    int rc = 0;
    for (uint32_t k = first; rc == 0 && k < first + n; k++) {
        char path[4096];
        part_path(w->g, w->dir, k, "scan", path, sizeof path);
        rc = summary_read(s, index_of(w->g, &w->g->parts[k]), &w->g->parts[k], w->limit, path, err, errlen);
        if (rc != 0)
            break;
        for (int t = 0; scans && t < 3; t++)
            dk_ctable_scan_add(&scans[t], &s->t[t]);
        if (st)
            dk_stats_add(st, &s->st);
        dk_stats_free(&s->st);
    }
    free(s);
    return rc;
}

int dk_task_pack_part(dk_worker *w, uint32_t q, char *err, size_t errlen)
{
    const dk_workgraph *g = w->g;
    const dk_fpart *f = &g->parts[q];
    const dk_index *ix = part_begin(w, q);
    if (!ix)
        return 0;
    dk_ctable_scan *all = malloc(3 * sizeof *all);
    if (!all)
        return dk_errorf(err, errlen, "out of memory");
    uint32_t first, n;
    member_parts(g, q, &first, &n);
    int rc = add_summaries(w, first, n, all, NULL, err, errlen);
    parts_source ps;
    dk_value_source src = parts_open(&ps, w, q);
    for (int k = 0; rc == 0 && k < ntables(w->limit); k++) {
        dk_metric metric = (dk_metric)(k + 1);
        dk_ctable_params cp = dk_worker_table_params(w, ix->m, metric);
        dk_value_source one = src;
        one.offset = metric == DK_METRIC_DTC;
        char path[4096];
        part_path(g, w->dir, q, dk_tb_metric_ext(metric), path, sizeof path);
        dk_ctable_coder *c = dk_ctable_coder_new(&cp, &one, NULL, true, ix->size, err, errlen);
        rc = c && dk_ctable_coder_decide(c, &all[k]) == 0 ? pack_table(c, f, path, err, errlen) : -1;
        dk_ctable_coder_free(c);
    }
    parts_close(&ps);
    free(all);
    if (rc == 0)
        dk_hook_part_written();
    return rc;
}

/* --- join --- */

/* A pack file read back: its header and dictionary; its blocks are copied, and its sizes read
 * a chunk at a time where the table's index needs them. */
typedef struct pack_in {
    int fd;
    uint32_t width, dict_size, b0, nb;
    uint8_t *dict;
    uint64_t sizes_at;       /* where the blocks' sizes begin in the file */
    uint64_t blocks_len, at; /* bytes of blocks, and given so far */
    uint32_t crc, want;      /* CRC of what was read, and the one stored */
    char path[4096];
} pack_in;

enum { SIZES_CHUNK = 4096 }; /* block sizes read at once */

static void pack_close(pack_in *p)
{
    if (p->fd >= 0)
        close(p->fd);
    free(p->dict);
    p->fd = -1;
    p->dict = NULL;
}

/* Opens a pack file for the blocks [b0, b0 + nb) of a table. */
static int pack_open(pack_in *p, const char *path, uint32_t b0, uint32_t nb, char *err, size_t errlen)
{
    *p = (pack_in){.fd = open(path, O_RDONLY | O_CLOEXEC)};
    snprintf(p->path, sizeof p->path, "%s", path);
    uint8_t head[PACK_HEAD], tail[PACK_TAIL];
    struct stat sb;
    if (p->fd < 0 || fstat(p->fd, &sb) != 0)
        return dk_errorf(err, errlen, "cannot open %s: %s", path, strerror(errno));
    uint64_t size = (uint64_t)sb.st_size;
    bool bad = size < PACK_HEAD + PACK_TAIL || pread(p->fd, head, PACK_HEAD, 0) != PACK_HEAD ||
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
            pack_close(p);
            return dk_errorf(err, errlen, "out of memory");
        }
        p->sizes_at = size - PACK_TAIL - 8 * (uint64_t)nb;
        p->blocks_len = p->sizes_at - PACK_HEAD - p->dict_size;
        bad = pread(p->fd, p->dict, p->dict_size, PACK_HEAD) != (ssize_t)p->dict_size ||
              pread(p->fd, tail, PACK_TAIL, (off_t)(size - PACK_TAIL)) != PACK_TAIL || memcmp(tail + 4, "DKPE", 4) != 0;
        p->crc = dk_crc32c(dk_crc32c(0, head, PACK_HEAD), p->dict, p->dict_size);
        p->want = dk_get32(tail);
        /* the sizes come after the blocks in the file: their CRC is added when the blocks are read */
    }
    if (bad) {
        pack_close(p);
        return dk_errorf(err, errlen, "%s is damaged", path);
    }
    return 0;
}

/* Reads the sizes of p's blocks [b, b + n) (n <= SIZES_CHUNK, raw: 8 bytes each) into raw and,
 * decoded, into out (NULL: not wanted). */
static int pack_sizes(const pack_in *p, uint32_t b, uint32_t n, uint8_t *raw, uint64_t *out, char *err, size_t errlen)
{
    if (pread(p->fd, raw, 8 * (size_t)n, (off_t)(p->sizes_at + 8 * (uint64_t)b)) != (ssize_t)(8 * (size_t)n))
        return dk_errorf(err, errlen, "cannot read %s: %s", p->path, errno ? strerror(errno) : "truncated");
    for (uint32_t k = 0; out && k < n; k++)
        out[k] = dk_get64(raw + 8 * (size_t)k);
    return 0;
}

/* The part's blocks are read: adds its sizes to its CRC, which must be the stored one, and
 * checks that they add up to its blocks. */
static int pack_finish(pack_in *p, uint8_t *raw, uint64_t *sizes, char *err, size_t errlen)
{
    uint64_t sum = 0;
    for (uint32_t b = 0; b < p->nb; b += SIZES_CHUNK) {
        uint32_t n = p->nb - b < SIZES_CHUNK ? p->nb - b : SIZES_CHUNK;
        if (pack_sizes(p, b, n, raw, sizes, err, errlen) != 0)
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

/* The parts of one material's table: their block sizes where asked (dk_ctable_sizes), their
 * blocks given in order (dk_ctable_fill). */
typedef struct join_in {
    pack_in *packs;
    uint32_t n, cur, at; /* the part being copied; the part whose sizes were read last */
    uint8_t *buf, *raw;
    uint64_t *sizes;
} join_in;

enum { COPY_CHUNK = 1 << 20 };

static int join_sizes(void *ctx, uint32_t b0, uint32_t n, uint64_t *out, char *err, size_t errlen)
{
    join_in *j = ctx;
    for (uint32_t b = b0; b < b0 + n;) {
        if (j->at >= j->n || b < j->packs[j->at].b0)
            j->at = 0; /* asked again from the start */
        while (j->at < j->n && b >= j->packs[j->at].b0 + j->packs[j->at].nb)
            j->at++;
        if (j->at == j->n)
            return dk_errorf(err, errlen, "internal error: the parts hold fewer blocks than the table");
        const pack_in *p = &j->packs[j->at];
        uint32_t in_part = p->b0 + p->nb - b, want = b0 + n - b;
        uint32_t k = want < in_part ? want : in_part;
        k = k < SIZES_CHUNK ? k : SIZES_CHUNK;
        if (pack_sizes(p, b - p->b0, k, j->raw, out + (b - b0), err, errlen) != 0)
            return -1;
        b += k;
    }
    return 0;
}

static int give_blocks(void *ctx, const uint8_t **bytes, size_t *n, char *err, size_t errlen)
{
    join_in *j = ctx;
    while (j->cur < j->n && j->packs[j->cur].at == j->packs[j->cur].blocks_len)
        j->cur++;
    if (j->cur == j->n)
        return dk_errorf(err, errlen, "internal error: the parts hold fewer blocks than the table");
    pack_in *p = &j->packs[j->cur];
    size_t k = p->blocks_len - p->at < COPY_CHUNK ? (size_t)(p->blocks_len - p->at) : COPY_CHUNK;
    if (pread(p->fd, j->buf, k, (off_t)(PACK_HEAD + p->dict_size + p->at)) != (ssize_t)k)
        return dk_errorf(err, errlen, "cannot read %s: %s", p->path, errno ? strerror(errno) : "truncated");
    p->crc = dk_crc32c(p->crc, j->buf, k);
    p->at += k;
    if (p->at == p->blocks_len && pack_finish(p, j->raw, j->sizes, err, errlen) != 0)
        return -1;
    *bytes = j->buf;
    *n = k;
    return 0;
}

/* Writes the table of metric k of q's material (first of its parts) from its parts' pack files,
 * holding a chunk of their blocks and of their sizes at a time. Fills *ci. */
static int join_table(dk_worker *w, uint32_t first, uint32_t n, dk_metric metric, dk_ctable_info *ci, char *err,
                      size_t errlen)
{
    const dk_workgraph *g = w->g;
    const dk_index *ix = index_of(g, &g->parts[first]);
    dk_ctable_params cp = dk_worker_table_params(w, ix->m, metric);
    if (dk_ctable_layout(&cp, ix->size, ci, err, errlen) != 0)
        return -1;
    join_in j = {.n = n};
    j.packs = calloc(n, sizeof *j.packs);
    j.buf = malloc(COPY_CHUNK);
    j.raw = malloc(8 * SIZES_CHUNK);
    j.sizes = malloc(SIZES_CHUNK * sizeof *j.sizes);
    int rc = j.packs && j.buf && j.raw && j.sizes ? 0 : dk_errorf(err, errlen, "out of memory");
    for (uint32_t k = 0; j.packs && k < n; k++)
        j.packs[k].fd = -1;
    for (uint32_t k = 0; rc == 0 && k < n; k++) {
        char path[4096];
        uint32_t b0, b1;
        blocks_of(ci, &g->parts[first + k], &b0, &b1);
        part_path(g, w->dir, first + k, dk_tb_metric_ext(metric), path, sizeof path);
        rc = pack_open(&j.packs[k], path, b0, b1 - b0, err, errlen);
        if (rc == 0 && j.packs[k].blocks_len == 0) /* no block to copy: checked now */
            rc = pack_finish(&j.packs[k], j.raw, j.sizes, err, errlen);
        /* every part decided the same coding; the first says what it is */
        const pack_in *p = &j.packs[k], *p0 = &j.packs[0];
        if (rc == 0 && (p->width != p0->width || p->dict_size != p0->dict_size ||
                        memcmp(p->dict, p0->dict, p->dict_size) != 0))
            rc = dk_errorf(err, errlen, "internal error: the parts of %s decided different codings", path);
    }
    if (rc == 0) {
        char path[2048];
        ci->width = (uint8_t)j.packs[0].width;
        ci->dict_size = j.packs[0].dict_size;
        dk_tb_path(w->dir, g->v, ix->m, dk_tb_metric_ext(metric), path, sizeof path);
        dk_ctable_blocks blocks = {join_sizes, give_blocks, &j};
        rc = dk_ctable_write_blocks(path, ci, j.packs[0].dict, &blocks, err, errlen);
    }
    for (uint32_t k = 0; j.packs && k < n; k++)
        pack_close(&j.packs[k]);
    free(j.packs);
    free(j.buf);
    free(j.raw);
    free(j.sizes);
    return rc;
}

/* Joins the material of part `first` (and the n that follow it): its tables, then its
 * statistics, the sum of its parts'. */
static int join_material(dk_worker *w, uint32_t first, uint32_t n, char *err, size_t errlen)
{
    const dk_workgraph *g = w->g;
    const dk_index *ix = index_of(g, &g->parts[first]);
    dk_stats st;
    if (dk_stats_begin(&st, ix, w->limit) != 0)
        return dk_errorf(err, errlen, "out of memory");
    int rc = add_summaries(w, first, n, NULL, &st, err, errlen);
    for (int k = 0; rc == 0 && k < ntables(w->limit); k++) {
        dk_ctable_info ci;
        rc = join_table(w, first, n, (dk_metric)(k + 1), &ci, err, errlen);
        st.file_size[k] = ci.file_size;
        st.file_crc[k] = ci.file_crc;
    }
    if (rc == 0) {
        char path[2048];
        dk_stats_end(&st, ix);
        dk_stats_path(w->dir, g->v, ix->m, path, sizeof path);
        rc = dk_stats_write(&st, path, err, errlen);
    }
    dk_stats_free(&st);
    return rc;
}

/* Removes every file of part q. */
static void remove_part(const dk_workgraph *g, const char *dir, uint32_t q)
{
    static const char *const what[] = {"raw", "scan", "wld", "dtw", "dtc"};
    for (size_t k = 0; k < sizeof what / sizeof *what; k++) {
        char path[4096];
        if (part_path(g, dir, q, what[k], path, sizeof path)) /* never a truncated name's file */
            unlink(path);
    }
}

int dk_task_join_parts(dk_worker *w, uint32_t pi, char *err, size_t errlen)
{
    const dk_workgraph *g = w->g;
    const dk_wpair *p = &g->pairs[pi];
    dk_worker_idle(w);
    int rc = 0;
    for (uint32_t q = p->first_part; rc == 0 && q < p->first_part + p->nparts;) {
        uint32_t first, n;
        member_parts(g, q, &first, &n);
        /* a material finished before the run that finishes the pair was killed stays as it is */
        if (!dk_material_finished(g, w->dir, index_of(g, &g->parts[q]), w->limit))
            rc = join_material(w, first, n, err, errlen);
        q = first + n;
    }
    if (rc == 0 && !w->keep_work)
        for (uint32_t q = p->first_part; q < p->first_part + p->nparts; q++)
            remove_part(g, w->dir, q);
    return rc;
}

/* --- restart --- */

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
    part_path(g, dir, q, "raw", path, sizeof path);
    dk_vfile *v = dk_vfile_open(path, true, NULL, err, sizeof err);
    const dk_vfile_info *vi = v ? dk_vfile_get_info(v) : NULL;
    bool raw = vi && vi->count == f->hi - f->lo && vi->stride == (limit ? 2 : 1) && vi->limit == limit && vi->flagged;
    dk_vfile_close(v);
    summary *s = malloc(sizeof *s);
    part_path(g, dir, q, "scan", path, sizeof path);
    if (raw && s && summary_read(s, index_of(g, f), f, limit, path, err, sizeof err) == 0) {
        found |= 1;
        dk_stats_free(&s->st);
    }
    free(s);
    bool packed = true;
    for (int k = 0; packed && k < ntables(limit); k++) {
        part_path(g, dir, q, dk_tb_metric_ext((dk_metric)(k + 1)), path, sizeof path);
        packed = pack_whole(path);
    }
    return found | (packed ? 2 : 0);
}
