#include "checktables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../query/ctable.h"
#include "../../query/drawrule.h"
#include "../../query/tablebase.h"
#include "../../rules/errors.h"
#include "../../rules/movegen.h"
#include "../store/blockpool.h"
#include "verify.h"

/* A slot's bytes are a whole number of pages: the pool gives the memory of slots back. */
enum { PAGE = 4096 };

/* A material's table as this reader holds it. A decoded block in its slot: the DTW values as
 * decoded, the rule's values (with a draw rule) at at[1], then a bit a position at `known`: set
 * once the values there are the position's own (it need not capture, or its captures were
 * resolved and their values written there). */
typedef struct check_table {
    const dk_index *ix;       /* libdamka's */
    const dk_ctable *ct[2];   /* DTW, DTC: libdamka's, open while its handle is */
    uint32_t block;           /* positions a decoded block */
    size_t at[2], known;      /* where a slot holds each metric's values and the bits */
    size_t slot_bytes;        /* what a slot must hold for this table */
    uint64_t nblocks;
    int32_t *slot_of;         /* by block: its slot in the pool, -1: not decoded */
} check_table;

struct dk_check_tables {
    const dk_variant *v;
    unsigned limit;
    int nmetrics;               /* DTW, and DTC with a rule */
    dk_tablebase *tb;           /* opens and checks the files; its own cache is not used */
    void *dctx;
    dk_block_pool *pool;        /* made at the first decode, with slots for the largest table */
    size_t slot_bytes;          /* the pool's slots' (0: no pool) */
    uint64_t room, most_room;
    dk_men_memo men;            /* the placements of men read, few a unit's subslice */
    check_table *tables[DK_TB_MATERIAL_SLOTS];
    dk_check_tables_counters counters;
};

dk_check_tables *dk_check_tables_new(const char *dir, const dk_variant *v, unsigned limit, uint64_t room,
                                     uint64_t most_room)
{
    dk_check_tables *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->v = v;
    t->limit = limit;
    t->nmetrics = limit ? 2 : 1;
    t->room = room;
    t->most_room = most_room > room ? most_room : room;
    t->tb = dk_tb_open(dir, v, &(dk_tb_options){1}); /* its cache: the least */
    t->dctx = dk_ctable_dctx_new();
    if (!t->tb || !t->dctx) {
        dk_check_tables_free(t);
        return NULL;
    }
    return t;
}

/* Drops every decoded block and the pool (made again at the next decode). */
static void tables_drop_pool(dk_check_tables *t)
{
    for (int k = 0; k < DK_TB_MATERIAL_SLOTS; k++)
        if (t->tables[k])
            memset(t->tables[k]->slot_of, 0xff, t->tables[k]->nblocks * sizeof *t->tables[k]->slot_of);
    dk_block_pool_free(t->pool);
    t->pool = NULL;
    t->slot_bytes = 0;
}

void dk_check_tables_free(dk_check_tables *t)
{
    if (!t)
        return;
    dk_block_pool_free(t->pool);
    for (int k = 0; k < DK_TB_MATERIAL_SLOTS; k++)
        if (t->tables[k]) {
            free(t->tables[k]->slot_of);
            free(t->tables[k]);
        }
    dk_ctable_dctx_free(t->dctx);
    dk_tb_close(t->tb);
    free(t);
}

void dk_check_tables_set_room(dk_check_tables *t, uint64_t room)
{
    t->room = room;
    if (!t->pool)
        return;
    if (room / t->slot_bytes > dk_block_pool_slots(t->pool)) {
        t->most_room = room;
        tables_drop_pool(t);
        return;
    }
    dk_block_pool_limit(t->pool, room);
}

dk_check_tables_counters dk_check_tables_get_counters(const dk_check_tables *t) { return t->counters; }

static int tables_error(dk_material m, char *err, size_t errlen, const char *why)
{
    char name[DK_MATERIAL_NAME_MAX];
    dk_material_name(m, name, sizeof name);
    return dk_errorf(err, errlen, "verification's reader of the tables, material %s: %s", name, why);
}

/* Opens material m's tables through libdamka and lays out their slots. NULL with one line in
 * err when a file is missing or damaged, or follows another draw rule than the run's. */
static check_table *tables_open(dk_check_tables *t, dk_material m, char *err, size_t errlen)
{
    static const dk_metric metrics[2] = {DK_METRIC_DTW, DK_METRIC_DTC};
    check_table *c = calloc(1, sizeof *c);
    if (!c)
        return tables_error(m, err, errlen, "out of memory"), NULL;
    dk_status st;
    for (int x = 0; x < t->nmetrics; x++)
        if (!(c->ct[x] = dk_tb_table(t->tb, m, metrics[x], &st))) {
            free(c);
            return tables_error(m, err, errlen, dk_tb_last_error()), NULL;
        }
    c->ix = dk_tb_index(t->tb, m, DK_METRIC_DTW, &st);
    const dk_ctable_info *in = dk_ctable_get_info(c->ct[0]);
    c->block = in->read_block;
    c->nblocks = in->nread_blocks;
    const dk_ctable_info *rule = t->limit ? dk_ctable_get_info(c->ct[1]) : NULL;
    char why[256] = "";
    if (rule && rule->limit != t->limit)
        snprintf(why, sizeof why, "its DTC table follows a draw rule of %u plies, this run %u", rule->limit, t->limit);
    else if (rule && rule->read_block != c->block)
        snprintf(why, sizeof why, "its DTC table has blocks of %u positions, its DTW table %u", rule->read_block,
                 c->block);
    if (why[0]) {
        free(c);
        return tables_error(m, err, errlen, why), NULL;
    }
    c->at[1] = (dk_ctable_max_read_block_bytes(c->ct[0]) + 7) / 8 * 8;
    c->known = c->at[1] + (rule ? (dk_ctable_max_read_block_bytes(c->ct[1]) + 7) / 8 * 8 : 0);
    c->slot_bytes = (c->known + c->block / 8 + 1 + PAGE - 1) / PAGE * PAGE;
    if (!(c->slot_of = malloc(c->nblocks * sizeof *c->slot_of))) {
        free(c);
        return tables_error(m, err, errlen, "out of memory"), NULL;
    }
    memset(c->slot_of, 0xff, c->nblocks * sizeof *c->slot_of);
    return c;
}

/* Decodes block b of table c into a slot (the pool made first, or made again with larger
 * slots): its memory, or NULL with one line in err. */
static uint8_t *tables_decode(dk_check_tables *t, check_table *c, uint64_t b, char *err, size_t errlen)
{
    if (t->pool && c->slot_bytes > t->slot_bytes)
        tables_drop_pool(t);
    if (!t->pool) {
        size_t most = c->slot_bytes;
        for (int k = 0; k < DK_TB_MATERIAL_SLOTS; k++)
            if (t->tables[k] && t->tables[k]->slot_bytes > most)
                most = t->tables[k]->slot_bytes;
        if (!(t->pool = dk_block_pool_new(t->most_room, most)))
            return tables_error(c->ix->m, err, errlen, "out of memory"), NULL;
        t->slot_bytes = most;
        dk_block_pool_limit(t->pool, t->room);
    }
    uint8_t *s = dk_block_pool_take(t->pool, c->slot_of, b);
    char why[512];
    for (int x = 0; x < t->nmetrics; x++)
        if (dk_ctable_read_block(c->ct[x], t->dctx, b, s + c->at[x], why, sizeof why) != 0) {
            dk_block_pool_release(t->pool, c->slot_of, b);
            return tables_error(c->ix->m, err, errlen, why), NULL;
        }
    memset(s + c->known, 0, dk_ctable_positions(c->ix->size, c->block, b) / 8 + 1);
    t->counters.loads++;
    return s;
}

/* Writes the values v of the j-th position into slot s, as the files store them, and marks
 * them its own; values too large for a table's width are not written (resolved again). */
static void tables_write(const dk_check_tables *t, const check_table *c, uint8_t *s, uint32_t j, const dk_value v[2])
{
    for (int x = 0; x < t->nmetrics; x++)
        if (dk_ctable_get_info(c->ct[x])->width == 1 && v[x] > 0xff)
            return;
    for (int x = 0; x < t->nmetrics; x++) {
        uint8_t *at = s + c->at[x];
        if (dk_ctable_get_info(c->ct[x])->width == 1) {
            at[j] = (uint8_t)v[x];
        } else {
            at[2 * j] = (uint8_t)v[x];
            at[2 * j + 1] = (uint8_t)(v[x] >> 8);
        }
    }
    s[c->known + j / 8] |= (uint8_t)(1u << (j % 8));
}

static int tables_child(void *ctx, dk_material m, const dk_pos *p, dk_value out[2], char *err, size_t errlen)
{
    return dk_check_tables_value(ctx, m, p, out, err, errlen);
}

/* Material m's table (opened the first time), or NULL with one line in err. */
static check_table *tables_of(dk_check_tables *t, dk_material m, char *err, size_t errlen)
{
    const int k = dk_tb_material_slot(m);
    if (k < 0)
        return tables_error(m, err, errlen, "no material tables hold"), NULL;
    return t->tables[k] ? t->tables[k] : (t->tables[k] = tables_open(t, m, err, errlen));
}

/* The values of position i of table c: p, or made by pos(pos_ctx) when p is NULL and the
 * position is needed. */
static int tables_value(dk_check_tables *t, check_table *c, uint64_t i, const dk_pos *p, dk_check_pos_fn pos,
                        void *pos_ctx, dk_value out[2], char *err, size_t errlen)
{
    const uint64_t b = i / c->block;
    const uint32_t j = (uint32_t)(i % c->block);
    uint8_t *s = c->slot_of[b] >= 0 ? dk_block_pool_get(t->pool, c->slot_of, b) : tables_decode(t, c, b, err, errlen);
    if (!s)
        return -1;
    uint8_t *known = s + c->known + j / 8, bit = (uint8_t)(1u << (j % 8));
    if (!(*known & bit)) {
        dk_pos made;
        if (!p) {
            pos(pos_ctx, &made);
            p = &made;
        }
        if (dk_can_capture(t->v, p, DK_WHITE)) {
            /* the reads below may take this block's slot: it is looked up again after them */
            if (dk_expected_values(t->v, p, t->limit, tables_child, t, out, err, errlen) != 0)
                return -1;
            if (!t->limit)
                out[1] = DK_RULE_DRAW;
            t->counters.resolved++;
            if (c->slot_of[b] >= 0)
                tables_write(t, c, dk_block_pool_get(t->pool, c->slot_of, b), j, out);
            return 0;
        }
        *known |= bit;
    }
    out[0] = dk_ctable_decode(c->ct[0], s + c->at[0], j);
    out[1] = t->limit ? dk_ctable_decode(c->ct[1], s + c->at[1], j) : DK_RULE_DRAW;
    return 0;
}

int dk_check_tables_value(dk_check_tables *t, dk_material m, const dk_pos *p, dk_value out[2], char *err,
                          size_t errlen)
{
    check_table *c = tables_of(t, m, err, errlen);
    return c ? tables_value(t, c, dk_index_rank_memo(&t->men, c->ix, p), p, NULL, NULL, out, err, errlen) : -1;
}

int dk_check_tables_value_at(dk_check_tables *t, dk_material m, uint64_t i, dk_check_pos_fn pos, void *pos_ctx,
                             dk_value out[2], char *err, size_t errlen)
{
    check_table *c = tables_of(t, m, err, errlen);
    return c ? tables_value(t, c, i, NULL, pos, pos_ctx, out, err, errlen) : -1;
}
