#include "parttasks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../query/tablebase.h"
#include "../../rules/errors.h"
#include "pairreader.h"
#include "ctable_write.h"
#include "partfiles.h"
#include "intact.h"
#include "../store/stats.h"
#include "../store/testhooks.h"
#include "../store/valuefile.h"


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
            dk_fpart_path(ps->g, ps->dir, q, "raw", path, sizeof path);
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

/* The scans of part q's blocks of each table, from src (the material's values by position). */
static int scan_tables(dk_worker *w, uint32_t q, const dk_value_source *src, dk_fpart_summary *s, char *err, size_t errlen)
{
    const dk_fpart *f = &w->g->parts[q];
    const dk_index *ix = dk_fpart_index(w->g, f);
    for (int k = 0; k < dk_fpart_tables(w->limit); k++) {
        dk_ctable_params cp = dk_worker_table_params(w, ix->m, (dk_metric)(k + 1));
        dk_value_source one = *src;
        one.offset = k == 2; /* the rule value follows the DTW value */
        dk_ctable_coder *c = dk_ctable_coder_new(&cp, &one, NULL, true, ix->size, err, errlen);
        if (!c)
            return -1;
        uint32_t b0, b1;
        dk_fpart_blocks(dk_ctable_coder_info(c), f, &b0, &b1);
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
    const dk_index *ix = dk_fpart_index(w->g, &w->g->parts[q]);
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
    dk_fpart_path(g, w->dir, q, "raw", raw, sizeof raw);
    dk_fpart_path(g, w->dir, q, "scan", path, sizeof path);
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
    dk_fpart_summary *s = calloc(1, sizeof *s);
    if (!s || dk_stats_begin(&s->st, ix, w->limit) != 0) {
        free(s);
        return dk_errorf(err, errlen, "out of memory");
    }
    parts_source ps;
    dk_value_source src = parts_open(&ps, w, q);
    rc = dk_stats_count(&s->st, &src, f->lo, f->hi - f->lo, err, errlen) == 0 &&
                 scan_tables(w, q, &src, s, err, errlen) == 0
             ? dk_fpart_summary_write(s, f, path, err, errlen)
             : -1;
    parts_close(&ps);
    dk_stats_free(&s->st);
    free(s);
    if (rc == 0)
        dk_hook_part_written();
    return rc;
}

/* --- pack --- */

/* Adds up the summaries of the parts [first, first + n) of one material: their tables' scans
 * into scans[3] (NULL: not wanted), their statistics into *st (begun; NULL: not wanted). */
static int add_summaries(const dk_worker *w, uint32_t first, uint32_t n, dk_ctable_scan *scans, dk_stats *st,
                         char *err, size_t errlen)
{
    dk_fpart_summary *s = malloc(sizeof *s);
    if (!s)
        return dk_errorf(err, errlen, "out of memory");
    if (scans)
        memset(scans, 0, 3 * sizeof *scans);
    int rc = 0;
    for (uint32_t k = first; rc == 0 && k < first + n; k++) {
        char path[4096];
        dk_fpart_path(w->g, w->dir, k, "scan", path, sizeof path);
        rc = dk_fpart_summary_read(s, dk_fpart_index(w->g, &w->g->parts[k]), &w->g->parts[k], w->limit, path, err, errlen);
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
    for (int k = 0; rc == 0 && k < dk_fpart_tables(w->limit); k++) {
        dk_metric metric = (dk_metric)(k + 1);
        dk_ctable_params cp = dk_worker_table_params(w, ix->m, metric);
        dk_value_source one = src;
        one.offset = metric == DK_METRIC_DTC;
        char path[4096];
        dk_fpart_path(g, w->dir, q, dk_tb_metric_ext(metric), path, sizeof path);
        dk_ctable_coder *c = dk_ctable_coder_new(&cp, &one, NULL, true, ix->size, err, errlen);
        rc = c && dk_ctable_coder_decide(c, &all[k]) == 0 ? dk_fpart_pack_write(c, f, path, err, errlen) : -1;
        dk_ctable_coder_free(c);
    }
    parts_close(&ps);
    free(all);
    if (rc == 0)
        dk_hook_part_written();
    return rc;
}

/* --- join --- */

/* The parts of one material's table: their block sizes where asked (dk_ctable_sizes), their
 * blocks given in order (dk_ctable_fill). */
typedef struct join_in {
    dk_fpart_pack *packs;
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
        const dk_fpart_pack *p = &j->packs[j->at];
        uint32_t in_part = p->b0 + p->nb - b, want = b0 + n - b;
        uint32_t k = want < in_part ? want : in_part;
        k = k < DK_FPART_SIZES_CHUNK ? k : DK_FPART_SIZES_CHUNK;
        if (dk_fpart_pack_sizes(p, b - p->b0, k, j->raw, out + (b - b0), err, errlen) != 0)
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
    *bytes = j->buf;
    return dk_fpart_pack_next(&j->packs[j->cur], j->buf, COPY_CHUNK, n, j->raw, j->sizes, err, errlen);
}

/* Writes the table of metric k of q's material (first of its parts) from its parts' pack files,
 * holding a chunk of their blocks and of their sizes at a time. Fills *ci. */
static int join_table(dk_worker *w, uint32_t first, uint32_t n, dk_metric metric, dk_ctable_info *ci, char *err,
                      size_t errlen)
{
    const dk_workgraph *g = w->g;
    const dk_index *ix = dk_fpart_index(g, &g->parts[first]);
    dk_ctable_params cp = dk_worker_table_params(w, ix->m, metric);
    if (dk_ctable_layout(&cp, ix->size, ci, err, errlen) != 0)
        return -1;
    join_in j = {.n = n};
    j.packs = calloc(n, sizeof *j.packs);
    j.buf = malloc(COPY_CHUNK);
    j.raw = malloc(8 * DK_FPART_SIZES_CHUNK);
    j.sizes = malloc(DK_FPART_SIZES_CHUNK * sizeof *j.sizes);
    int rc = j.packs && j.buf && j.raw && j.sizes ? 0 : dk_errorf(err, errlen, "out of memory");
    for (uint32_t k = 0; j.packs && k < n; k++)
        j.packs[k].fd = -1;
    for (uint32_t k = 0; rc == 0 && k < n; k++) {
        char path[4096];
        uint32_t b0, b1;
        dk_fpart_blocks(ci, &g->parts[first + k], &b0, &b1);
        dk_fpart_path(g, w->dir, first + k, dk_tb_metric_ext(metric), path, sizeof path);
        rc = dk_fpart_pack_open(&j.packs[k], path, b0, b1 - b0, err, errlen);
        if (rc == 0 && j.packs[k].blocks_len == 0) /* no block to copy: checked now */
            rc = dk_fpart_pack_finish(&j.packs[k], j.raw, j.sizes, err, errlen);
        /* every part decided the same coding; the first says what it is */
        const dk_fpart_pack *p = &j.packs[k], *p0 = &j.packs[0];
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
        dk_fpart_pack_close(&j.packs[k]);
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
    const dk_index *ix = dk_fpart_index(g, &g->parts[first]);
    dk_stats st;
    if (dk_stats_begin(&st, ix, w->limit) != 0)
        return dk_errorf(err, errlen, "out of memory");
    int rc = add_summaries(w, first, n, NULL, &st, err, errlen);
    for (int k = 0; rc == 0 && k < dk_fpart_tables(w->limit); k++) {
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
        if (!dk_material_finished(g, w->dir, dk_fpart_index(g, &g->parts[q]), w->limit))
            rc = join_material(w, first, n, err, errlen);
        q = first + n;
    }
    if (rc == 0 && !w->keep_work)
        for (uint32_t q = p->first_part; q < p->first_part + p->nparts; q++)
            dk_fpart_remove(g, w->dir, q);
    return rc;
}

