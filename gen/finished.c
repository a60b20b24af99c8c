#include "finished.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../query/ctable.h"
#include "../query/drawrule.h"
#include "../query/tablebase.h"
#include "../rules/errors.h"
#include "../rules/movegen.h"

enum { RADIX = DK_TB_MAX_PIECES + 1, NSLOTS = RADIX * RADIX * RADIX * RADIX };

/* The compressed tablebase that serves tables above the budget: its block cache. */
static const size_t fallback_cache = (size_t)32 << 20;

typedef struct ftable {
    dk_index ix;
    uint8_t *values[2];   /* DTW, rule value: `width` bytes each, little-endian; NULL: not held */
    uint8_t width[2];
    uint8_t *known;       /* bit i: values[.][i] are position i's: it has no capture, or its
                           * captures were resolved and their values stored (see remember) */
    uint64_t bytes;
    uint64_t last_use;
    int pins;             /* resolutions under way: the table must stay */
    bool above_budget;    /* read through the compressed tablebase */
} ftable;

struct dk_finished {
    const dk_variant *v;
    char *dir;
    unsigned limit;
    int nmetrics;         /* DTW, and DTC with a rule */
    uint64_t budget, held, clock;
    ftable *slots[NSLOTS];
    dk_tablebase *fallback;
    void *dctx;
    uint8_t *block;
    size_t block_cap;
    dk_finished_counters counters;
};

dk_finished *dk_finished_new(const char *dir, const dk_variant *v, unsigned limit,
                             uint64_t budget_bytes)
{
    dk_finished *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    *f = (dk_finished){.v = v, .dir = strdup(dir), .limit = limit, .nmetrics = limit ? 2 : 1,
                       .budget = budget_bytes, .dctx = dk_ctable_dctx_new()};
    if (!f->dir || !f->dctx) {
        dk_finished_free(f);
        return NULL;
    }
    return f;
}

static void drop(dk_finished *f, ftable *t)
{
    for (int k = 0; k < 2; k++) {
        free(t->values[k]);
        t->values[k] = NULL;
    }
    free(t->known);
    t->known = NULL;
    f->held -= t->bytes;
    t->bytes = 0;
}

void dk_finished_free(dk_finished *f)
{
    if (!f)
        return;
    for (int i = 0; i < NSLOTS; i++)
        if (f->slots[i]) {
            drop(f, f->slots[i]);
            free(f->slots[i]);
        }
    dk_tb_close(f->fallback);
    dk_ctable_dctx_free(f->dctx);
    free(f->block);
    free(f->dir);
    free(f);
}

dk_finished_counters dk_finished_get_counters(const dk_finished *f) { return f->counters; }

static int material_error(dk_material m, char *err, size_t errlen, const char *why)
{
    char name[DK_MATERIAL_NAME_MAX];
    dk_material_name(m, name, sizeof name);
    return dk_errorf(err, errlen, "no value for material %s: %s", name, why);
}

/* Drops the least recently used tables until `need` more bytes fit the budget. */
static void make_room(dk_finished *f, uint64_t need)
{
    while (f->held + need > f->budget) {
        ftable *lru = NULL;
        for (int i = 0; i < NSLOTS; i++) {
            ftable *t = f->slots[i];
            if (t && t->bytes && !t->pins && (!lru || t->last_use < lru->last_use))
                lru = t;
        }
        if (!lru)
            return; /* everything held is in use: exceed the budget by this table */
        drop(f, lru);
        f->counters.evictions++;
    }
}

/* Decodes one compressed file of table t into t->values[k]. */
static int decode_file(dk_finished *f, ftable *t, int k, char *err, size_t errlen)
{
    dk_metric metric = k ? DK_METRIC_DTC : DK_METRIC_DTW;
    char path[4096];
    dk_tb_path(f->dir, f->v, t->ix.m, dk_tb_metric_ext(metric), path, sizeof path);
    dk_ctable *ct = dk_ctable_open(path, err, errlen);
    if (!ct)
        return -1;
    const dk_ctable_info *in = dk_ctable_get_info(ct);
    const dk_material m = t->ix.m;
    const uint8_t want[4] = {m.wm, m.wk, m.bm, m.bk};
    int rc = 0;
    if (in->metric != metric || in->variant != f->v->id || memcmp(in->material, want, 4) != 0 ||
        in->count != t->ix.size)
        rc = dk_errorf(err, errlen, "%.900s is damaged: its header does not match its name", path);
    else if (k && in->limit != f->limit)
        rc = dk_errorf(err, errlen, "%.900s follows a draw rule of %u plies, this run %u", path,
                       in->limit, f->limit);
    size_t need = dk_ctable_max_unit_bytes(ct);
    if (rc == 0 && need > f->block_cap) {
        uint8_t *b = realloc(f->block, need);
        if (!b)
            rc = dk_errorf(err, errlen, "out of memory");
        else
            f->block = b, f->block_cap = need;
    }
    const unsigned w = t->width[k];
    for (uint64_t u = 0; rc == 0 && u < in->nunits; u++) {
        rc = dk_ctable_read_unit(ct, f->dctx, u, f->block, err, errlen);
        uint64_t first = u * in->unit;
        uint32_t n = dk_ctable_positions(in->count, in->unit, u);
        for (uint32_t j = 0; rc == 0 && j < n; j++) {
            dk_value v = dk_ctable_decode(ct, f->block, j);
            uint8_t *dst = t->values[k] + (first + j) * w;
            dst[0] = (uint8_t)v;
            if (w == 2)
                dst[1] = (uint8_t)(v >> 8);
        }
    }
    dk_ctable_close(ct);
    return rc;
}

/* The width of each file's values, from the headers alone. */
static int file_widths(dk_finished *f, ftable *t, char *err, size_t errlen)
{
    for (int k = 0; k < f->nmetrics; k++) {
        char path[4096];
        dk_tb_path(f->dir, f->v, t->ix.m, dk_tb_metric_ext(k ? DK_METRIC_DTC : DK_METRIC_DTW), path,
                   sizeof path);
        dk_ctable *ct = dk_ctable_open(path, err, errlen);
        if (!ct)
            return -1;
        t->width[k] = dk_ctable_get_info(ct)->width;
        dk_ctable_close(ct);
    }
    return 0;
}

static int load(dk_finished *f, ftable *t, char *err, size_t errlen)
{
    if (file_widths(f, t, err, errlen) != 0)
        return -1;
    uint64_t bytes = t->ix.size / 8 + 1;
    for (int k = 0; k < f->nmetrics; k++)
        bytes += t->ix.size * t->width[k];
    if (bytes > f->budget) {
        t->above_budget = true;
        return 0;
    }
    make_room(f, bytes);
    t->known = calloc(t->ix.size / 8 + 1, 1);
    for (int k = 0; k < f->nmetrics; k++)
        t->values[k] = malloc(t->ix.size * t->width[k]);
    t->bytes = bytes;
    f->held += bytes;
    int rc = t->known && t->values[0] && (f->nmetrics < 2 || t->values[1])
                 ? 0 : dk_errorf(err, errlen, "out of memory");
    for (int k = 0; rc == 0 && k < f->nmetrics; k++)
        rc = decode_file(f, t, k, err, errlen);
    if (rc != 0) {
        drop(f, t);
        return -1;
    }
    if (f->held > f->counters.peak_bytes)
        f->counters.peak_bytes = f->held;
    f->counters.loads++;
    return 0;
}

static ftable *get_table(dk_finished *f, dk_material m, char *err, size_t errlen)
{
    bool in_range = m.wm < RADIX && m.wk < RADIX && m.bm < RADIX && m.bk < RADIX;
    int k = in_range ? ((m.wm * RADIX + m.wk) * RADIX + m.bm) * RADIX + m.bk : 0;
    ftable *t = in_range ? f->slots[k] : NULL;
    if (t && t->values[0]) { /* held: the material was checked when its slot was made */
        t->last_use = ++f->clock;
        return t;
    }
    if (dk_material_pieces(m) > DK_TB_MAX_PIECES || !dk_material_valid(f->v, m))
        return material_error(m, err, errlen, "not a material tables hold"), NULL;
    if (!t) {
        if (!(t = calloc(1, sizeof *t)) || dk_index_init(&t->ix, f->v, m) != 0) {
            free(t);
            return material_error(m, err, errlen, "out of memory"), NULL;
        }
        f->slots[k] = t;
    }
    t->last_use = ++f->clock;
    if (!t->values[0] && !t->above_budget) {
        char why[1024];
        if (load(f, t, why, sizeof why) != 0)
            return material_error(m, err, errlen, why), NULL;
    }
    return t;
}

static int fallback_value(dk_finished *f, dk_material m, const dk_pos *p, dk_value out[2],
                          char *err, size_t errlen)
{
    if (!f->fallback && !(f->fallback = dk_tb_open(f->dir, f->v, &(dk_tb_options){fallback_cache})))
        return material_error(m, err, errlen, "out of memory");
    dk_tb_status st = dk_tb_probe_normal(f->fallback, m, p, DK_METRIC_DTW, &out[0]);
    out[1] = DK_RULE_DRAW;
    if (st == DK_TB_OK && f->limit)
        st = dk_tb_probe_normal(f->fallback, m, p, DK_METRIC_DTC, &out[1]);
    if (st == DK_TB_OK && f->limit && dk_tb_rule_limit(f->fallback) != f->limit)
        return material_error(m, err, errlen, "the tables follow another draw rule than this run");
    return st == DK_TB_OK ? 0 : material_error(m, err, errlen, dk_tb_last_error());
}

/* The values of p, who must capture, through its best capture (a conversion: the rule's
 * counter starts again). */
static int resolve(dk_finished *f, const dk_pos *p, dk_value out[2], char *err, size_t errlen)
{
    dk_movelist list;
    dk_gen_moves(f->v, p, &list);
    int32_t best[2] = {INT32_MIN, INT32_MIN};
    for (int i = 0; i < list.n; i++) {
        dk_pos after = dk_apply(p, &list.m[i]);
        dk_value e[2] = {dk_value_of_dtw(0), dk_rule_loss(0)};
        if (after.pieces[after.side]) {
            dk_pos n = dk_pos_flip(f->v, &after);
            if (dk_finished_value(f, dk_material_of(&n), &n, e, err, errlen) != 0)
                return -1;
        }
        dk_value t[2] = {dk_value_through(e[0]), dk_rule_through(e[1], true, 0, 0)};
        int32_t r[2] = {dk_value_rank(t[0]), dk_rule_rank(t[1])};
        for (int k = 0; k < 2; k++)
            if (r[k] > best[k]) {
                best[k] = r[k];
                out[k] = t[k];
            }
    }
    if (!f->limit)
        out[1] = DK_RULE_DRAW;
    f->counters.resolved++;
    return 0;
}

static inline dk_value read_value(const ftable *t, int k, uint64_t i)
{
    const uint8_t *v = t->values[k];
    return t->width[k] == 1 ? v[i] : (dk_value)(v[2 * i] | v[2 * i + 1] << 8);
}

/* Remembers resolved values if they fit the table's widths (else they are resolved again). */
static void remember(ftable *t, int nmetrics, uint64_t i, const dk_value v[2])
{
    for (int k = 0; k < nmetrics; k++)
        if (t->width[k] == 1 && v[k] > 0xff)
            return;
    for (int k = 0; k < nmetrics; k++) {
        uint8_t *dst = t->values[k] + i * t->width[k];
        dst[0] = (uint8_t)v[k];
        if (t->width[k] == 2)
            dst[1] = (uint8_t)(v[k] >> 8);
    }
    t->known[i / 8] |= (uint8_t)(1u << (i % 8));
}

int dk_finished_value(dk_finished *f, dk_material m, const dk_pos *p, dk_value out[2], char *err,
                      size_t errlen)
{
    ftable *t = get_table(f, m, err, errlen);
    if (!t)
        return -1;
    if (t->above_budget)
        return fallback_value(f, m, p, out, err, errlen);
    uint64_t i = dk_index_rank(&t->ix, p);
    uint8_t *known = &t->known[i / 8], bit = (uint8_t)(1u << (i % 8));
    if (!(*known & bit)) { /* the first read of i: whether it must capture, once */
        if (dk_can_capture(f->v, p, DK_WHITE)) {
            t->pins++;
            int rc = resolve(f, p, out, err, errlen);
            t->pins--;
            if (rc == 0)
                remember(t, f->nmetrics, i, out);
            return rc;
        }
        *known |= bit;
    }
    out[0] = read_value(t, 0, i);
    out[1] = f->limit ? read_value(t, 1, i) : DK_RULE_DRAW;
    return 0;
}
