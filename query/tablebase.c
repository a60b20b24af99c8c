#include "tablebase.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../rules/errors.h"
#include "../rules/movegen.h"
#include "best.h"
#include "cache.h"
#include "drawrule.h"

enum { NSLOTS = DK_TB_MATERIAL_SLOTS, NMETRICS = 4 };

typedef struct slot {
    dk_index ix;
    _Atomic(dk_ctable *) ct[NMETRICS]; /* by metric */
    /* a file that is missing or damaged stays so until dk_tb_close, so that probes of a
     * material outside the set cost no lock and no system call (a failed read or allocation
     * is tried again) */
    _Atomic int failed[NMETRICS]; /* DK_MISSING or DK_DAMAGED (kept), 0 while not tried or open */
    char why[NMETRICS][1024];     /* written before failed is published */
} slot;

struct dk_tablebase {
    const dk_variant *v;
    dk_tb_options o;
    char *dir;
    pthread_mutex_t lock; /* taken only to open a table */
    _Atomic(slot *) slots[NSLOTS];
    dk_cache *cache;
    /* the draw rule of the DTC tables: of the first one opened; 0 while none */
    _Atomic unsigned limit;
    _Atomic bool limit_searched; /* the directory was searched for a DTC table */
    _Atomic int max_pieces;      /* dk_tb_max_pieces; -1 until looked up */
};

static _Thread_local char last_error[1024];

const char *dk_tb_last_error(void) { return last_error; }

void dk_tb_set_verror(const char *fmt, va_list ap)
{
    char line[sizeof last_error]; /* formatted apart: the arguments may be last_error itself */
    vsnprintf(line, sizeof line, fmt, ap);
    memcpy(last_error, line, sizeof line);
}

void dk_tb_clear_error(void) { last_error[0] = 0; }

dk_tablebase *dk_tb_open(const char *dir, const dk_variant *v, const dk_tb_options *o)
{
    dk_tablebase *tb = calloc(1, sizeof *tb);
    if (!tb)
        return NULL;
    pthread_mutex_init(&tb->lock, NULL);
    tb->v = v;
    tb->o = o ? *o : (dk_tb_options){0};
    tb->dir = strdup(dir);
    atomic_init(&tb->max_pieces, -1);
    tb->cache = dk_cache_new(tb->o.cache_bytes ? tb->o.cache_bytes : (size_t)64 << 20);
    if (!tb->dir || !tb->cache) {
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
        for (int k = 0; k < NMETRICS; k++)
            dk_ctable_close(atomic_load(&s->ct[k]));
        free(s);
    }
    pthread_mutex_destroy(&tb->lock);
    dk_cache_free(tb->cache);
    free(tb->dir);
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
    if (dk_material_pieces(m) > dk_material_max_pieces(v) || !dk_material_valid(v, m))
        return -1;
    return dk_tb_material_slot(m);
}

static slot *get_slot(dk_tablebase *tb, dk_material m, dk_status *st)
{
    int k = slot_number(tb->v, m);
    if (k < 0) {
        snprintf(last_error, sizeof last_error, "no material of %s tables", tb->v->name);
        *st = DK_REFUSED;
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
    *st = s ? DK_OK : DK_NO_MEMORY;
    if (!s)
        snprintf(last_error, sizeof last_error, "out of memory");
    return s;
}

static bool header_matches(const dk_tablebase *tb, const uint8_t mat[4], uint8_t variant,
                           uint64_t count, const slot *s)
{
    const dk_material m = s->ix.m;
    uint8_t want[4] = {m.wm, m.wk, m.bm, m.bk};
    return variant == tb->v->id && memcmp(mat, want, 4) == 0 && count == s->ix.size;
}

const char *dk_tb_metric_ext(dk_metric metric)
{
    return metric == DK_METRIC_WLD ? "wld" : metric == DK_METRIC_DTW ? "dtw" : "dtc";
}

/* The value of a side to move without pieces: it has lost, in 0 plies. */
static dk_value no_piece_value(dk_metric metric)
{
    return metric == DK_METRIC_DTC ? dk_rule_loss(0) : dk_value_of_dtw(0);
}

/* Records the draw rule of a DTC table, or says why it does not fit the others. */
static bool limit_fits(dk_tablebase *tb, uint32_t limit, const char *path, char *err, size_t errlen)
{
    unsigned expect = 0;
    if (atomic_compare_exchange_strong(&tb->limit, &expect, limit) || expect == limit)
        return true;
    snprintf(err, errlen, "%.900s follows a draw rule of %u plies, the other tables of %u", path,
             limit, expect);
    return false;
}

static dk_ctable *get_ctable(dk_tablebase *tb, slot *s, dk_metric metric, dk_status *st)
{
    dk_ctable *t = atomic_load_explicit(&s->ct[metric], memory_order_acquire);
    if (t)
        return t;
    int failed = atomic_load_explicit(&s->failed[metric], memory_order_acquire);
    if (failed) {
        snprintf(last_error, sizeof last_error, "%s", s->why[metric]);
        *st = (dk_status)failed;
        return NULL;
    }
    pthread_mutex_lock(&tb->lock);
    t = atomic_load_explicit(&s->ct[metric], memory_order_relaxed);
    failed = atomic_load_explicit(&s->failed[metric], memory_order_relaxed);
    if (failed) {
        snprintf(last_error, sizeof last_error, "%s", s->why[metric]);
        *st = (dk_status)failed;
    } else if (!t) {
        char path[1024], err[1024];
        dk_tb_path(tb->dir, tb->v, s->ix.m, dk_tb_metric_ext(metric), path, sizeof path);
        dk_status why = DK_DAMAGED;
        t = dk_ctable_open_why(path, &why, err, sizeof err);
        const dk_ctable_info *in = t ? dk_ctable_get_info(t) : NULL;
        if (t && (in->metric != metric || !header_matches(tb, in->material, in->variant, in->count, s))) {
            snprintf(err, sizeof err, "%.900s is damaged: its header does not match its name", path);
            dk_ctable_close(t);
            t = NULL;
        } else if (t && metric == DK_METRIC_DTC && !limit_fits(tb, in->limit, path, err, sizeof err)) {
            dk_ctable_close(t);
            t = NULL;
        }
        if (t) {
            atomic_store_explicit(&s->ct[metric], t, memory_order_release);
        } else if (why == DK_IO || why == DK_NO_MEMORY) {
            /* a read that failed, or memory that ran out, says nothing of the file: the next
             * probe tries again */
            snprintf(last_error, sizeof last_error, "%s", err);
            *st = why;
        } else { /* missing or damaged: so it stays for this handle */
            *st = why == DK_MISSING ? DK_MISSING : DK_DAMAGED;
            snprintf(last_error, sizeof last_error, "%s", *st == DK_MISSING ? path : err);
            snprintf(s->why[metric], sizeof s->why[metric], "%s", last_error);
            atomic_store_explicit(&s->failed[metric], (int)*st, memory_order_release);
        }
    }
    pthread_mutex_unlock(&tb->lock);
    return t;
}

const dk_index *dk_tb_index(dk_tablebase *tb, dk_material m, dk_metric metric, dk_status *st)
{
    slot *s = get_slot(tb, m, st);
    if (!s)
        return NULL;
    return get_ctable(tb, s, metric, st) ? &s->ix : NULL;
}

const dk_ctable *dk_tb_table(dk_tablebase *tb, dk_material m, dk_metric metric, dk_status *status)
{
    slot *s = get_slot(tb, m, status);
    return s ? get_ctable(tb, s, metric, status) : NULL;
}

static dk_status probe_normal(dk_tablebase *tb, dk_material m, const dk_pos *p,
                                 dk_metric metric, unsigned flags, dk_value *out);

/* The value through the best capture of p (White to move, who must capture). */
static dk_status resolve_captures(dk_tablebase *tb, const dk_pos *p, dk_metric metric,
                                     unsigned flags, dk_value *out)
{
    dk_movelist list;
    dk_gen_moves(tb->v, p, &list);
    dk_best best;
    dk_best_start(&best);
    for (int i = 0; i < list.n; i++) {
        dk_pos after = dk_apply(p, &list.m[i]);
        dk_value e = no_piece_value(metric);
        if (after.pieces[after.side]) {
            dk_pos n = dk_pos_flip(tb->v, &after);
            dk_status st = probe_normal(tb, dk_material_of(&n), &n, metric, flags, &e);
            if (st != DK_OK)
                return st;
        }
        if (metric == DK_METRIC_DTC) /* a capture is a conversion: no limit applies to it */
            dk_best_add_rule(&best, e, true, 0, 0);
        else
            dk_best_add_dtw(&best, e);
    }
    *out = best.value[metric == DK_METRIC_DTC];
    if (metric == DK_METRIC_WLD) /* a win or loss without its distance */
        *out = dk_value_of_code(dk_code_of(*out));
    return DK_OK;
}

/* The stored value of position i of table t (material m's of `metric`), through the cache. */
static dk_status stored_value(dk_tablebase *tb, const dk_ctable *t, dk_material m, dk_metric metric,
                                 uint64_t i, unsigned flags, dk_value *out)
{
    const uint32_t block = dk_ctable_get_info(t)->read_block, at = (uint32_t)(i % block);
    const uint32_t id = (uint32_t)(slot_number(tb->v, m) * 4 + (int)metric);
    if (dk_ctable_changed(t)) { /* its cached blocks too: the table answers one way from then on */
        snprintf(last_error, sizeof last_error, "%.900s is damaged: the file changed since it was opened",
                 dk_ctable_path(t));
        return DK_DAMAGED;
    }
    return dk_cache_values(tb->cache, t, id, i / block, &at, 1, 1, flags & DK_TB_CACHE_ONLY, out, last_error,
                           sizeof last_error);
}

/* The value of p, White to move, of material m (its table opened first, so that a missing table
 * says so before a capture is tried). */
static dk_status probe_normal(dk_tablebase *tb, dk_material m, const dk_pos *p,
                                 dk_metric metric, unsigned flags, dk_value *out)
{
    dk_status st = DK_OK;
    slot *s = get_slot(tb, m, &st);
    if (!s)
        return st;
    dk_ctable *t = get_ctable(tb, s, metric, &st);
    if (!t)
        return st;
    if (dk_can_capture(tb->v, p, DK_WHITE))
        return flags & DK_TB_NO_CAPTURES ? DK_MUST_CAPTURE : resolve_captures(tb, p, metric, flags, out);
    return stored_value(tb, t, m, metric, dk_index_rank(&s->ix, p), flags, out);
}

dk_status dk_tb_probe_normal(dk_tablebase *tb, dk_material m, const dk_pos *p,
                                dk_metric metric, dk_value *out)
{
    return probe_normal(tb, m, p, metric, 0, out);
}

dk_status dk_tb_holds(const dk_tablebase *tb, const dk_pos *p)
{
    int pieces = dk_popcount(dk_occupied(p)), most = dk_material_max_pieces(tb->v);
    if (!p->pieces[p->side ^ 1]) { /* an empty board too */
        snprintf(last_error, sizeof last_error, "the side not to move has no piece");
        return DK_REFUSED;
    }
    if (p->pieces[p->side] && pieces > most) { /* a side to move without pieces has lost: no table needed */
        snprintf(last_error, sizeof last_error, "%d pieces: no table holds more than %d", pieces, most);
        return DK_MISSING;
    }
    return DK_OK;
}

dk_status dk_tb_probe(dk_tablebase *tb, const dk_pos *p, dk_metric metric, dk_value *out)
{
    return dk_tb_probe_flags(tb, p, metric, 0, out);
}

dk_status dk_tb_probe_flags(dk_tablebase *tb, const dk_pos *p, dk_metric metric, unsigned flags,
                               dk_value *out)
{
    dk_status st = dk_tb_holds(tb, p);
    if (st != DK_OK)
        return st;
    if (!p->pieces[p->side]) {
        *out = no_piece_value(metric);
        return DK_OK;
    }
    dk_pos n = dk_normal_form(tb->v, p);
    return probe_normal(tb, dk_material_of(&n), &n, metric, flags, out);
}

int dk_tb_max_pieces(dk_tablebase *tb)
{
    int known = atomic_load(&tb->max_pieces);
    if (known >= 0)
        return known;
    int top = dk_material_max_pieces(tb->v);
    size_t n = dk_material_list(tb->v, top, 0, NULL, 0);
    dk_material *ms = malloc(n * sizeof *ms);
    if (!ms)
        return 0; /* not remembered: the next call tries again */
    dk_material_list(tb->v, top, 0, ms, n);
    bool missing[DK_TB_MAX_PIECES + 1] = {false}, any[DK_TB_MAX_PIECES + 1] = {false};
    for (size_t i = 0; i < n; i++) {
        int p = dk_material_pieces(ms[i]);
        any[p] = true;
        for (int e = 0; e < 2 && !missing[p]; e++) {
            char path[4096];
            dk_tb_path(tb->dir, tb->v, ms[i], dk_tb_metric_ext(e ? DK_METRIC_DTW : DK_METRIC_WLD), path, sizeof path);
            missing[p] = access(path, R_OK) != 0;
        }
    }
    free(ms);
    int most = 0;
    for (int p = 2; p <= top && any[p] && !missing[p]; p++)
        most = p;
    atomic_store(&tb->max_pieces, most); /* files added later need a new handle */
    return most;
}

unsigned dk_tb_rule_limit(dk_tablebase *tb)
{
    unsigned limit = atomic_load(&tb->limit);
    if (limit || atomic_load(&tb->limit_searched))
        return limit;
    /* no DTC table opened yet: open the first one the directory has */
    int top = dk_material_max_pieces(tb->v);
    size_t n = dk_material_list(tb->v, top, 0, NULL, 0);
    dk_material *ms = malloc(n * sizeof *ms);
    if (!ms)
        return 0;
    dk_material_list(tb->v, top, 0, ms, n);
    for (size_t i = 0; i < n && !atomic_load(&tb->limit); i++) {
        char path[1024];
        dk_tb_path(tb->dir, tb->v, ms[i], dk_tb_metric_ext(DK_METRIC_DTC), path, sizeof path);
        dk_status st;
        slot *s = access(path, F_OK) == 0 ? get_slot(tb, ms[i], &st) : NULL;
        if (s && get_ctable(tb, s, DK_METRIC_DTC, &st))
            break;
    }
    free(ms);
    atomic_store(&tb->limit_searched, true); /* files added later need a new handle */
    return atomic_load(&tb->limit);
}

int dk_tb_check_files(dk_tablebase *tb, dk_material m, char *err, size_t errlen)
{
    dk_status st;
    slot *s = get_slot(tb, m, &st);
    if (!s)
        return dk_statusf(st, err, errlen, "%s", last_error);
    for (int metric = DK_METRIC_WLD; metric <= DK_METRIC_DTC; metric++) {
        char path[1024];
        dk_tb_path(tb->dir, tb->v, m, dk_tb_metric_ext((dk_metric)metric), path, sizeof path);
        if (metric == DK_METRIC_DTC && access(path, F_OK) != 0)
            continue;
        dk_ctable *t = get_ctable(tb, s, (dk_metric)metric, &st);
        if (!t)
            return dk_statusf(st, err, errlen, "%s", last_error);
        int rc = dk_ctable_check(t, err, errlen);
        if (rc != DK_OK)
            return rc;
    }
    return DK_OK;
}

void dk_tb_cache_counters(dk_tablebase *tb, uint64_t *lookups, uint64_t *misses)
{
    dk_cache_counters(tb->cache, lookups, misses);
}
