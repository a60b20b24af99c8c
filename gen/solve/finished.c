#include "finished.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../query/best.h"
#include "../../query/clock.h"
#include "../../query/ctable.h"
#include "../../query/drawrule.h"
#include "../../query/tablebase.h"
#include "../../rules/errors.h"
#include "../../rules/movegen.h"

struct ftable;

/* One block of a material's tables, decoded: the DTW values of its positions and, with a draw
 * rule, their rule values (`width` bytes each, little-endian, as the files store them), and a
 * bit a position saying whether the values are the position's own: it has no capture, or its
 * captures were resolved and their values stored (see remember). */
typedef struct fblock {
    struct ftable *t;
    uint32_t b;
    int pins;           /* resolutions under way: the block must stay */
    bool used;          /* read since the hand last passed */
    uint64_t bytes;
    uint8_t *values[2];
    uint8_t *known;
    uint8_t data[];
} fblock;

typedef struct ftable {
    dk_index ix;
    dk_ctable *ct[2];   /* DTW, DTC; open (mapped) from the first read to the end */
    uint8_t width[2];
    uint32_t block_size, nblocks;
    fblock **blocks;    /* by block number: decoded, or NULL */
} ftable;

struct dk_finished {
    const dk_variant *v;
    char *dir;
    unsigned limit;
    int nmetrics;         /* DTW, and DTC with a rule */
    uint64_t budget, held;
    ftable *slots[DK_TB_MATERIAL_SLOTS];
    fblock **ring;        /* the blocks held, swept by the clock's hand */
    uint32_t nring, ring_cap;
    size_t hand;
    void *dctx;
    dk_men_memo men;      /* the placements of the positions read, few a unit's subslice */
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

/* Frees the block at place `at` of the ring; the last block takes its place. */
static void drop(dk_finished *f, uint32_t at)
{
    fblock *k = f->ring[at];
    k->t->blocks[k->b] = NULL;
    f->held -= k->bytes;
    f->ring[at] = f->ring[--f->nring];
    free(k);
}

void dk_finished_free(dk_finished *f)
{
    if (!f)
        return;
    while (f->nring)
        drop(f, f->nring - 1);
    for (int i = 0; i < DK_TB_MATERIAL_SLOTS; i++)
        if (f->slots[i]) {
            for (int k = 0; k < 2; k++)
                dk_ctable_close(f->slots[i]->ct[k]);
            free(f->slots[i]->blocks);
            free(f->slots[i]);
        }
    free(f->ring);
    dk_ctable_dctx_free(f->dctx);
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

/* Drops blocks, the least recently read first as the clock approximates it, until `need` more
 * bytes fit the budget; blocks being resolved stay (the budget is exceeded by a few blocks
 * then). */
static bool spare(void *ctx, size_t place)
{
    fblock *k = ((dk_finished *)ctx)->ring[place];
    bool spared = k->used || k->pins;
    k->used = false;
    return spared;
}

static void make_room(dk_finished *f, uint64_t need)
{
    ptrdiff_t at;
    while (f->held + need > f->budget && (at = dk_clock_sweep(&f->hand, f->nring, spare, f)) >= 0) {
        drop(f, (uint32_t)at); /* the last block moves into the hand's place: looked at next */
        f->counters.evictions++;
    }
}

/* Opens one compressed file of table t and checks that it is the file the name says. */
static int open_file(dk_finished *f, ftable *t, int k, char *err, size_t errlen)
{
    dk_metric metric = k ? DK_METRIC_DTC : DK_METRIC_DTW;
    char path[4096];
    dk_tb_path(f->dir, f->v, t->ix.m, dk_tb_metric_ext(metric), path, sizeof path);
    if (!(t->ct[k] = dk_ctable_open(path, err, errlen)))
        return -1;
    const dk_ctable_info *in = dk_ctable_get_info(t->ct[k]);
    const dk_material m = t->ix.m;
    const uint8_t want[4] = {m.wm, m.wk, m.bm, m.bk};
    if (in->metric != metric || in->variant != f->v->id || memcmp(in->material, want, 4) != 0 ||
        in->count != t->ix.size)
        return dk_errorf(err, errlen, "%.900s is damaged: its header does not match its name", path);
    if (k && in->limit != f->limit)
        return dk_errorf(err, errlen, "%.900s follows a draw rule of %u plies, this run %u", path,
                         in->limit, f->limit);
    /* One block of each file is one decoded block here: the writer gives both the same size. */
    if (k && in->block_size != t->block_size)
        return dk_errorf(err, errlen, "%.900s has blocks of %u positions, its DTW table %u", path,
                         in->block_size, t->block_size);
    t->width[k] = in->width;
    t->block_size = in->block_size;
    t->nblocks = in->nblocks;
    return 0;
}

static int open_table(dk_finished *f, ftable *t, char *err, size_t errlen)
{
    for (int k = 0; k < f->nmetrics; k++)
        if (open_file(f, t, k, err, errlen) != 0)
            return -1;
    if (!(t->blocks = calloc(t->nblocks, sizeof *t->blocks)))
        return dk_errorf(err, errlen, "out of memory");
    return 0;
}

static void close_table(ftable *t)
{
    for (int k = 0; k < 2; k++) {
        dk_ctable_close(t->ct[k]);
        t->ct[k] = NULL;
    }
    free(t->blocks);
    t->blocks = NULL;
}

/* Decodes block b of table t (each file's block, checked) into a new block held in the ring. */
static fblock *load(dk_finished *f, ftable *t, uint32_t b, char *err, size_t errlen)
{
    const uint32_t n = dk_ctable_positions(t->ix.size, t->block_size, b);
    size_t bytes[2] = {0, 0};
    for (int k = 0; k < f->nmetrics; k++)
        bytes[k] = dk_ctable_read_block_bytes(t->ct[k], b);
    uint64_t total = sizeof(fblock) + bytes[0] + bytes[1] + n / 8 + 1;
    make_room(f, total);
    if (f->nring == f->ring_cap) {
        uint32_t cap = f->ring_cap ? 2 * f->ring_cap : 1024;
        fblock **r = realloc(f->ring, cap * sizeof *r);
        if (!r)
            return dk_errorf(err, errlen, "out of memory"), NULL;
        f->ring = r;
        f->ring_cap = cap;
    }
    fblock *k = malloc(total);
    if (!k)
        return dk_errorf(err, errlen, "out of memory"), NULL;
    *k = (fblock){.t = t, .b = b, .used = true, .bytes = total};
    k->values[0] = k->data;
    k->values[1] = k->data + bytes[0];
    k->known = k->data + bytes[0] + bytes[1];
    memset(k->known, 0, n / 8 + 1);
    for (int m = 0; m < f->nmetrics; m++)
        if (dk_ctable_read_block(t->ct[m], f->dctx, b, k->values[m], err, errlen) != 0) {
            free(k);
            return NULL;
        }
    f->ring[f->nring++] = k;
    t->blocks[b] = k;
    f->held += total;
    if (f->held > f->counters.peak_bytes)
        f->counters.peak_bytes = f->held;
    f->counters.loads++;
    f->counters.positions += n;
    return k;
}

static ftable *get_table(dk_finished *f, dk_material m, char *err, size_t errlen)
{
    int k = dk_tb_material_slot(m);
    ftable *t = k >= 0 ? f->slots[k] : NULL;
    if (t) /* open: the material was checked when its slot was made */
        return t;
    if (dk_material_pieces(m) > DK_TB_MAX_PIECES || !dk_material_valid(f->v, m))
        return material_error(m, err, errlen, "not a material tables hold"), NULL;
    if (!(t = calloc(1, sizeof *t)) || dk_index_init(&t->ix, f->v, m) != 0) {
        free(t);
        return material_error(m, err, errlen, "out of memory"), NULL;
    }
    char why[1024];
    if (open_table(f, t, why, sizeof why) != 0) {
        close_table(t);
        free(t);
        return material_error(m, err, errlen, why), NULL;
    }
    f->slots[k] = t;
    return t;
}

/* The values of p, who must capture, through its best capture (a conversion: the rule's
 * counter starts again). */
static int resolve(dk_finished *f, const dk_pos *p, dk_value out[2], char *err, size_t errlen)
{
    dk_movelist list;
    dk_gen_moves(f->v, p, &list);
    dk_best best;
    dk_best_start(&best);
    for (int i = 0; i < list.n; i++) {
        dk_pos after = dk_apply(p, &list.m[i]);
        dk_value e[2] = {dk_value_of_dtw(0), dk_rule_loss(0)};
        if (after.pieces[after.side]) {
            dk_pos n = dk_pos_flip(f->v, &after);
            if (dk_finished_value(f, dk_material_of(&n), &n, e, err, errlen) != 0)
                return -1;
        }
        dk_best_add(&best, e, true, 0, f->limit);
    }
    out[0] = best.value[0];
    out[1] = f->limit ? best.value[1] : DK_RULE_DRAW;
    f->counters.resolved++;
    return 0;
}

static inline dk_value read_value(const fblock *k, unsigned width, int m, uint32_t j)
{
    const uint8_t *v = k->values[m];
    return width == 1 ? v[j] : (dk_value)(v[2 * j] | v[2 * j + 1] << 8);
}

/* Remembers resolved values if they fit the table's widths (else they are resolved again). */
static void remember(const ftable *t, fblock *k, int nmetrics, uint32_t j, const dk_value v[2])
{
    for (int m = 0; m < nmetrics; m++)
        if (t->width[m] == 1 && v[m] > 0xff)
            return;
    for (int m = 0; m < nmetrics; m++) {
        uint8_t *dst = k->values[m] + j * t->width[m];
        dst[0] = (uint8_t)v[m];
        if (t->width[m] == 2)
            dst[1] = (uint8_t)(v[m] >> 8);
    }
    k->known[j / 8] |= (uint8_t)(1u << (j % 8));
}

int dk_finished_value(dk_finished *f, dk_material m, const dk_pos *p, dk_value out[2], char *err,
                      size_t errlen)
{
    ftable *t = get_table(f, m, err, errlen);
    if (!t)
        return -1;
    uint64_t i = dk_index_rank_memo(&f->men, &t->ix, p);
    uint32_t b = (uint32_t)(i / t->block_size), j = (uint32_t)(i % t->block_size);
    fblock *k = t->blocks[b];
    if (!k) {
        char why[1024];
        if (!(k = load(f, t, b, why, sizeof why)))
            return material_error(m, err, errlen, why);
    }
    k->used = true;
    uint8_t *known = &k->known[j / 8], bit = (uint8_t)(1u << (j % 8));
    if (!(*known & bit)) { /* the first read of i: whether it must capture, once */
        if (dk_can_capture(f->v, p, DK_WHITE)) {
            k->pins++;
            int rc = resolve(f, p, out, err, errlen);
            k->pins--;
            if (rc == 0)
                remember(t, k, f->nmetrics, j, out);
            return rc;
        }
        *known |= bit;
    }
    out[0] = read_value(k, t->width[0], 0, j);
    out[1] = f->limit ? read_value(k, t->width[1], 1, j) : DK_RULE_DRAW;
    return 0;
}
