#include "tablebase.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../rules/errors.h"
#include "../rules/movegen.h"
#include "cache.h"

enum { RADIX = DK_TB_MAX_PIECES + 1, NSLOTS = RADIX * RADIX * RADIX * RADIX };

typedef struct slot {
    dk_index ix;
    _Atomic(dk_ctable *) ct[3]; /* by metric (compressed) */
    _Atomic(dk_table *) raw;
    /* compressed: a file that could not be opened stays so until dk_tb_close, so that probes
     * of a material outside the set cost no lock and no system call */
    _Atomic int failed[3];      /* dk_tb_status, 0 while not tried or open */
    char why[3][1024];          /* written before failed is published */
} slot;

struct dk_tablebase {
    const dk_variant *v;
    dk_tb_options o;
    char *dir, *raw_dir;
    pthread_mutex_t lock; /* taken only to open a table (recursive: rebuilding a raw table
                           * probes smaller ones) */
    _Atomic(slot *) slots[NSLOTS];
    dk_cache *cache;
};

static _Thread_local char last_error[1024];

const char *dk_tb_last_error(void) { return last_error; }

dk_tablebase *dk_tb_open(const char *dir, const dk_variant *v, const dk_tb_options *o)
{
    dk_tablebase *tb = calloc(1, sizeof *tb);
    if (!tb)
        return NULL;
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&tb->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    tb->v = v;
    tb->o = o ? *o : (dk_tb_options){DK_TB_COMPRESSED, 0, NULL, false};
    tb->dir = strdup(dir);
    size_t n = strlen(dir) + 8;
    tb->raw_dir = malloc(n);
    if (tb->raw_dir)
        snprintf(tb->raw_dir, n, "%s/work", dir);
    if (tb->raw_dir && tb->o.raw_dir) {
        free(tb->raw_dir);
        tb->raw_dir = strdup(tb->o.raw_dir);
    }
    tb->o.raw_dir = NULL;
    if (tb->o.kind == DK_TB_COMPRESSED)
        tb->cache = dk_cache_new(tb->o.cache_bytes ? tb->o.cache_bytes : (size_t)64 << 20);
    if (!tb->dir || !tb->raw_dir || (tb->o.kind == DK_TB_COMPRESSED && !tb->cache)) {
        dk_tb_close(tb);
        return NULL;
    }
    return tb;
}

void dk_tb_close(dk_tablebase *tb)
{
    if (!tb)
        return;
    for (int i = 0; i < NSLOTS; i++) {
        slot *s = atomic_load(&tb->slots[i]);
        if (!s)
            continue;
        for (int k = 0; k < 3; k++)
            dk_ctable_close(atomic_load(&s->ct[k]));
        dk_table_close(atomic_load(&s->raw));
        free(s);
    }
    pthread_mutex_destroy(&tb->lock);
    dk_cache_free(tb->cache);
    free(tb->dir);
    free(tb->raw_dir);
    free(tb);
}

int dk_tb_path(const char *dir, const dk_variant *v, dk_material m, const char *ext, char *buf,
               size_t len)
{
    char name[DK_MATERIAL_NAME_MAX];
    dk_material_name(m, name, sizeof name);
    return snprintf(buf, len, "%s/%s-%s.%s", dir, v->name, name, ext);
}

const dk_variant *dk_tb_variant(const dk_tablebase *tb) { return tb->v; }

static int slot_number(const dk_variant *v, dk_material m)
{
    if (dk_material_pieces(m) > DK_TB_MAX_PIECES || !dk_material_valid(v, m))
        return -1;
    return ((m.wm * RADIX + m.wk) * RADIX + m.bm) * RADIX + m.bk;
}

static slot *get_slot(dk_tablebase *tb, dk_material m, dk_tb_status *st)
{
    int k = slot_number(tb->v, m);
    if (k < 0) {
        *st = DK_TB_BAD_POSITION;
        return NULL;
    }
    slot *s = atomic_load_explicit(&tb->slots[k], memory_order_acquire);
    if (s)
        return s;
    pthread_mutex_lock(&tb->lock);
    s = atomic_load_explicit(&tb->slots[k], memory_order_relaxed);
    if (!s && (s = calloc(1, sizeof *s)) != NULL) {
        if (dk_index_init(&s->ix, tb->v, m) == 0) {
            atomic_store_explicit(&tb->slots[k], s, memory_order_release);
        } else {
            free(s);
            s = NULL;
        }
    }
    pthread_mutex_unlock(&tb->lock);
    *st = s ? DK_TB_OK : DK_TB_NO_MEMORY;
    return s;
}

static bool header_matches(const dk_tablebase *tb, const uint8_t mat[4], uint8_t variant,
                           uint64_t count, const slot *s)
{
    const dk_material m = s->ix.m;
    uint8_t want[4] = {m.wm, m.wk, m.bm, m.bk};
    return variant == tb->v->id && memcmp(mat, want, 4) == 0 && count == s->ix.size;
}

static dk_tb_status open_failure(const char *path, const char *err)
{
    bool missing = access(path, F_OK) != 0;
    snprintf(last_error, sizeof last_error, "%s", missing ? path : err);
    return missing ? DK_TB_MISSING : DK_TB_DAMAGED;
}

static dk_ctable *get_ctable(dk_tablebase *tb, slot *s, dk_metric metric, dk_tb_status *st)
{
    dk_ctable *t = atomic_load_explicit(&s->ct[metric], memory_order_acquire);
    if (t)
        return t;
    int failed = atomic_load_explicit(&s->failed[metric], memory_order_acquire);
    if (failed) {
        snprintf(last_error, sizeof last_error, "%s", s->why[metric]);
        *st = (dk_tb_status)failed;
        return NULL;
    }
    pthread_mutex_lock(&tb->lock);
    t = atomic_load_explicit(&s->ct[metric], memory_order_relaxed);
    failed = atomic_load_explicit(&s->failed[metric], memory_order_relaxed);
    if (failed) {
        snprintf(last_error, sizeof last_error, "%s", s->why[metric]);
        *st = (dk_tb_status)failed;
    } else if (!t) {
        char path[1024], err[1024];
        dk_tb_path(tb->dir, tb->v, s->ix.m, metric == DK_METRIC_WLD ? "wld" : "dtw", path, sizeof path);
        t = dk_ctable_open(path, err, sizeof err);
        const dk_ctable_info *in = t ? dk_ctable_get_info(t) : NULL;
        if (t && (in->metric != metric || !header_matches(tb, in->material, in->variant, in->count, s))) {
            snprintf(err, sizeof err, "%.900s is damaged: its header does not match its name", path);
            dk_ctable_close(t);
            t = NULL;
        }
        if (t) {
            atomic_store_explicit(&s->ct[metric], t, memory_order_release);
        } else {
            *st = open_failure(path, err);
            snprintf(s->why[metric], sizeof s->why[metric], "%s", last_error);
            atomic_store_explicit(&s->failed[metric], (int)*st, memory_order_release);
        }
    }
    pthread_mutex_unlock(&tb->lock);
    return t;
}

static dk_table *rebuild_raw(dk_tablebase *tb, slot *s, const char *path, char *err, size_t errlen);

static dk_table *get_raw(dk_tablebase *tb, slot *s, dk_tb_status *st)
{
    dk_table *t = atomic_load_explicit(&s->raw, memory_order_acquire);
    if (t)
        return t;
    pthread_mutex_lock(&tb->lock);
    t = atomic_load_explicit(&s->raw, memory_order_relaxed);
    if (!t) {
        char path[1024], err[1024];
        dk_tb_path(tb->raw_dir, tb->v, s->ix.m, "raw", path, sizeof path);
        if (access(path, F_OK) == 0)
            t = dk_table_open(path, tb->o.check_all, err, sizeof err);
        else
            t = rebuild_raw(tb, s, path, err, sizeof err);
        const dk_table_info *in = t ? dk_table_get_info(t) : NULL;
        if (t && (in->kind != DK_FILE_TABLE || !header_matches(tb, in->material, in->variant, in->count, s))) {
            snprintf(err, sizeof err, "%.900s is damaged: its header does not match its name", path);
            dk_table_close(t);
            t = NULL;
        }
        if (t)
            atomic_store_explicit(&s->raw, t, memory_order_release);
        else
            *st = open_failure(path, err);
    }
    pthread_mutex_unlock(&tb->lock);
    return t;
}

const dk_index *dk_tb_index(dk_tablebase *tb, dk_material m, dk_metric metric, dk_tb_status *st)
{
    slot *s = get_slot(tb, m, st);
    if (!s)
        return NULL;
    bool ok = tb->o.kind == DK_TB_RAW ? get_raw(tb, s, st) != NULL : get_ctable(tb, s, metric, st) != NULL;
    return ok ? &s->ix : NULL;
}

/* The value through the best capture of p (White to move, who must capture). */
static dk_tb_status resolve_captures(dk_tablebase *tb, const dk_pos *p, dk_metric metric,
                                     dk_value *out)
{
    dk_movelist list;
    dk_gen_moves(tb->v, p, &list);
    int32_t best = INT32_MIN;
    for (int i = 0; i < list.n; i++) {
        dk_pos after = dk_apply(p, &list.m[i]);
        dk_value e = dk_value_of_dtw(0);
        if (after.pieces[after.side]) {
            dk_pos n = dk_pos_flip(tb->v, &after);
            dk_tb_status st = dk_tb_probe_normal(tb, dk_material_of(&n), &n, metric, &e);
            if (st != DK_TB_OK)
                return st;
        }
        dk_value t = dk_value_through(e);
        if (metric == DK_METRIC_WLD)
            t = dk_value_of_code(dk_code_of(t));
        if (dk_value_rank(t) > best) {
            best = dk_value_rank(t);
            *out = t;
        }
    }
    return DK_TB_OK;
}

dk_tb_status dk_tb_probe_normal(dk_tablebase *tb, dk_material m, const dk_pos *p,
                                dk_metric metric, dk_value *out)
{
    dk_tb_status st = DK_TB_OK;
    slot *s = get_slot(tb, m, &st);
    if (!s)
        return st;
    if (tb->o.kind == DK_TB_RAW) {
        dk_table *t = get_raw(tb, s, &st);
        if (!t)
            return st;
        *out = dk_table_value(t, dk_index_rank(&s->ix, p));
        if (metric == DK_METRIC_WLD)
            *out = dk_value_of_code(dk_code_of(*out));
        return DK_TB_OK;
    }
    dk_ctable *t = get_ctable(tb, s, metric, &st);
    if (!t)
        return st;
    if (dk_can_capture(tb->v, p, DK_WHITE))
        return resolve_captures(tb, p, metric, out);
    uint64_t i = dk_index_rank(&s->ix, p);
    uint32_t bs = dk_ctable_get_info(t)->block_size;
    uint32_t id = (uint32_t)(slot_number(tb->v, m) * 4 + (int)metric);
    if (dk_cache_value(tb->cache, t, id, (uint32_t)(i / bs), (uint32_t)(i % bs), out, last_error,
                       sizeof last_error) != 0)
        return DK_TB_DAMAGED;
    return DK_TB_OK;
}

dk_tb_status dk_tb_probe(dk_tablebase *tb, const dk_pos *p, dk_metric metric, dk_value *out)
{
    if (!p->pieces[p->side]) {
        *out = dk_value_of_dtw(0);
        return DK_TB_OK;
    }
    if (!p->pieces[p->side ^ 1])
        return DK_TB_BAD_POSITION;
    dk_pos n = dk_normal_form(tb->v, p);
    return dk_tb_probe_normal(tb, dk_material_of(&n), &n, metric, out);
}

/* Rebuilds a missing working copy from the compressed DTW table (a later run that extends a
 * finished directory): stored values where no capture is due, resolved captures elsewhere. */
static dk_table *rebuild_raw(dk_tablebase *tb, slot *s, const char *path, char *err, size_t errlen)
{
    char cpath[1024];
    dk_tb_path(tb->dir, tb->v, s->ix.m, "dtw", cpath, sizeof cpath);
    dk_ctable *ct = dk_ctable_open(cpath, err, errlen);
    if (!ct)
        return NULL;
    dk_tablebase *shadow = dk_tb_open(tb->dir, tb->v, NULL); /* compressed, for the captures */
    const dk_ctable_info *in = dk_ctable_get_info(ct);
    dk_value *values = malloc(s->ix.size * sizeof *values);
    uint8_t *block = malloc(dk_ctable_max_block_bytes(ct));
    void *dctx = dk_ctable_dctx_new();
    dk_table *t = NULL;
    int rc = shadow && values && block && dctx ? 0 : dk_errorf(err, errlen, "out of memory");
    for (uint64_t i = 0; rc == 0 && i < s->ix.size; i++) {
        if (i % in->block_size == 0)
            rc = dk_ctable_read_block(ct, dctx, (uint32_t)(i / in->block_size), block, err, errlen);
        dk_pos p = dk_index_unrank(&s->ix, i);
        if (rc == 0 && dk_can_capture(tb->v, &p, DK_WHITE)) {
            if (resolve_captures(shadow, &p, DK_METRIC_DTW, &values[i]) != DK_TB_OK)
                rc = dk_errorf(err, errlen, "%s", last_error);
        } else {
            values[i] = dk_ctable_decode(ct, block, (uint32_t)(i % in->block_size));
        }
    }
    if (rc == 0) {
        dk_table_info info = {DK_FILE_TABLE, (uint8_t)tb->v->id,
                              {s->ix.m.wm, s->ix.m.wk, s->ix.m.bm, s->ix.m.bk}, 0, 0, s->ix.size, 0};
        if (dk_table_save(path, &info, values, err, errlen) == 0)
            t = dk_table_open(path, false, err, errlen);
    }
    dk_ctable_dctx_free(dctx);
    free(block);
    free(values);
    dk_tb_close(shadow);
    dk_ctable_close(ct);
    return t;
}

int dk_tb_check_files(dk_tablebase *tb, dk_material m, char *err, size_t errlen)
{
    dk_tb_status st;
    slot *s = get_slot(tb, m, &st);
    if (!s)
        return dk_errorf(err, errlen, "out of memory");
    for (int metric = DK_METRIC_WLD; metric <= DK_METRIC_DTW; metric++) {
        dk_ctable *t = get_ctable(tb, s, (dk_metric)metric, &st);
        if (!t)
            return dk_errorf(err, errlen, "%s", last_error);
        if (dk_ctable_check(t, err, errlen) != 0)
            return -1;
    }
    return 0;
}

void dk_tb_cache_counters(dk_tablebase *tb, uint64_t *lookups, uint64_t *misses)
{
    *lookups = *misses = 0;
    if (tb->cache)
        dk_cache_counters(tb->cache, lookups, misses);
}
