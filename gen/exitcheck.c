#include "exitcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../query/drawrule.h"
#include "../query/tablebase.h"
#include "../rules/errors.h"
#include "../rules/movegen.h"
#include "unitfile.h"
#include "verify.h"

/* Units of the level above kept open: man moves from one unit reach a few, and fewer open
 * than the solver keeps (16) would close and reopen files all the time. */
enum { OPEN_ABOVE = 16 };

/* Where the subslices man moves lead to are (direct-mapped): the positions of one subslice
 * lead to the same few again and again. */
enum { PLACES = 64 };

typedef struct place {
    const dk_index *ix; /* NULL: empty */
    uint64_t men;
    struct open_unit *o;
    uint64_t base;      /* where the subslice's kings index 0 is in the unit */
} place;

/* Positions of finished tables that must capture, resolved through their captures (libdamka
 * resolves them anew at each probe), remembered by position (direct-mapped, 512 KiB): the
 * exits of a unit's positions lead to the same ones again and again. */
enum { SEEN_BITS = 14 };

typedef struct seen {
    dk_bb pieces[2], kings; /* the position (White to move); no white piece: empty */
    dk_value v[2];
} seen;

typedef struct open_unit {
    uint32_t unit;
    uint64_t used;     /* tick of the last read; 0: the slot is empty */
    dk_plan plan;
    dk_unitfile *file; /* keeps a pointer to plan: the slot stays in place while open */
} open_unit;

struct dk_exit_check {
    const dk_workgraph *g;
    dk_plan_cache *plans;
    char *dir;
    unsigned limit;
    dk_tablebase *tb;
    bool rule_checked; /* the tables' draw rule was found to be the run's */
    dk_block_pool *blocks; /* the open units' decompressed blocks: an instance of its own */
    open_unit open[OPEN_ABOVE];
    uint64_t tick;
    place places[PLACES];
    seen seen[1 << SEEN_BITS];
};

dk_exit_check *dk_exit_check_new(const dk_workgraph *g, dk_plan_cache *plans, const char *dir,
                                 unsigned limit, uint64_t cache_bytes, uint64_t unit_cache_bytes)
{
    dk_exit_check *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->g = g;
    c->plans = plans;
    c->limit = limit;
    c->dir = strdup(dir);
    c->tb = dk_tb_open(dir, g->v, &(dk_tb_options){(size_t)cache_bytes});
    c->blocks = dk_block_pool_new(unit_cache_bytes, DK_VFILE_SLOT_BYTES);
    if (!c->dir || !c->tb || !c->blocks) {
        dk_exit_check_free(c);
        return NULL;
    }
    return c;
}

static void close_unit(dk_exit_check *c, open_unit *o)
{
    if (!o->used)
        return;
    for (int i = 0; i < PLACES; i++)
        if (c->places[i].o == o)
            c->places[i].ix = NULL;
    dk_unitfile_close(o->file);
    dk_plan_free(&o->plan);
    o->file = NULL;
    o->used = 0;
}

void dk_exit_check_idle(dk_exit_check *c)
{
    for (int i = 0; i < OPEN_ABOVE; i++)
        close_unit(c, &c->open[i]);
    dk_block_pool_idle(c->blocks);
}

void dk_exit_check_free(dk_exit_check *c)
{
    if (!c)
        return;
    for (int i = 0; i < OPEN_ABOVE; i++)
        close_unit(c, &c->open[i]);
    dk_block_pool_free(c->blocks);
    dk_tb_close(c->tb);
    free(c->dir);
    free(c);
}

/* Unit u of the level above, opened if it is not (the least recently read closed). */
static open_unit *unit_above(dk_exit_check *c, uint32_t u, char *err, size_t errlen)
{
    open_unit *pick = &c->open[0];
    for (int i = 0; i < OPEN_ABOVE; i++) {
        open_unit *o = &c->open[i];
        if (o->used && o->unit == u) {
            o->used = ++c->tick;
            return o;
        }
        if (o->used < pick->used)
            pick = o;
    }
    close_unit(c, pick);
    if (dk_plan_build(&pick->plan, c->plans, u) != 0)
        return dk_errorf(err, errlen, "out of memory"), NULL;
    if (!(pick->file = dk_unitfile_open(&pick->plan, c->dir, c->limit, false, c->blocks, err, errlen))) {
        dk_plan_free(&pick->plan);
        return NULL;
    }
    pick->unit = u;
    pick->used = ++c->tick;
    return pick;
}

/* The values of n (White to move) of material m, one of the pair's, after a man move: from
 * the finished unit of the level above that holds it, found from n's full index. */
static int above_value(dk_exit_check *c, const dk_index *ix, const dk_pos *n, dk_value out[2],
                       char *err, size_t errlen)
{
    uint64_t i = dk_index_rank(ix, n), men = i / ix->kings_count;
    place *pl = &c->places[((men ^ (uintptr_t)ix) * 0x9E3779B97F4A7C15ull) >> 58];
    if (pl->ix != ix || pl->men != men) {
        int64_t u = dk_workgraph_unit_of(c->g, ix->m, men);
        open_unit *o = u < 0 ? NULL : unit_above(c, (uint32_t)u, err, errlen);
        if (!o)
            return u < 0 ? dk_errorf(err, errlen, "a man move leads to no unit") : -1;
        int side;
        int64_t gi = dk_plan_find(&o->plan, ix->m, men, &side);
        if (gi < 0)
            return dk_errorf(err, errlen, "a man move leads to a subslice its unit does not hold");
        *pl = (place){ix, men, o, o->plan.groups[gi].offset + (uint64_t)side * o->plan.K};
    }
    uint64_t at = pl->base + i % ix->kings_count;
    open_unit *o = pl->o;
    unsigned stride = c->limit ? 2 : 1;
    out[1] = DK_RULE_DRAW;
    if (dk_unitfile_read(o->file, at * stride, stride, out, err, errlen) != 0)
        return -1;
    out[0] = dk_unit_dtw(out[0]);
    return 0;
}

static int table_value(dk_exit_check *c, dk_material m, const dk_pos *n, dk_value out[2],
                       char *err, size_t errlen);

/* table_value as verify.h's dk_value_fn, for the resolution of a capture position. */
static int table_value_fn(void *ctx, dk_material m, const dk_pos *p, dk_value out[2], char *err,
                          size_t errlen)
{
    return table_value(ctx, m, p, out, err, errlen);
}

/* The values of n (White to move) of material m from the finished tables: a position that must
 * capture through its captures (dk_expected_values), remembered in `seen`. */
static int table_value(dk_exit_check *c, dk_material m, const dk_pos *n, dk_value out[2],
                       char *err, size_t errlen)
{
    out[1] = DK_RULE_DRAW;
    dk_tb_status st = c->limit ? dk_tb_probe_normal_dtw_dtc(c->tb, m, n, DK_TB_NO_CAPTURES, out)
                               : dk_tb_probe_normal_flags(c->tb, m, n, DK_METRIC_DTW, DK_TB_NO_CAPTURES, out);
    if (st == DK_TB_MUST_CAPTURE) {
        uint64_t h = (n->pieces[DK_WHITE] * 0x9E3779B97F4A7C15ull) ^ (n->pieces[DK_BLACK] * 0xC2B2AE3D27D4EB4Full) ^
                     (n->kings * 0x165667B19E3779F9ull);
        seen *s = &c->seen[h >> (64 - SEEN_BITS)];
        if (s->pieces[DK_WHITE] != n->pieces[DK_WHITE] || s->pieces[DK_BLACK] != n->pieces[DK_BLACK] ||
            s->kings != n->kings) {
            dk_value v[2];
            if (dk_expected_values(c->g->v, n, c->limit, table_value_fn, c, v, err, errlen) != 0)
                return -1;
            *s = (seen){{n->pieces[DK_WHITE], n->pieces[DK_BLACK]}, n->kings, {v[0], v[1]}};
        }
        out[0] = s->v[0];
        out[1] = c->limit ? s->v[1] : DK_RULE_DRAW;
        return 0;
    }
    if (st != DK_TB_OK)
        return dk_errorf(err, errlen, "%s", dk_tb_last_error());
    /* libdamka refuses DTC tables of another rule than its first: that one is checked once */
    if (c->limit && !c->rule_checked && dk_tb_rule_limit(c->tb) != c->limit)
        return dk_errorf(err, errlen, "the finished tables follow a draw rule of %u plies, this run %u",
                         dk_tb_rule_limit(c->tb), c->limit);
    c->rule_checked = true;
    return 0;
}

int dk_exit_check_value(dk_exit_check *c, const dk_wpair *pair, dk_material m, const dk_pos *n,
                        dk_value out[2], char *err, size_t errlen)
{
    if (!n->pieces[DK_WHITE]) {
        out[0] = dk_value_of_dtw(0);
        out[1] = dk_rule_loss(0);
        return 0;
    }
    if (dk_material_equal(m, pair->m))
        return above_value(c, &pair->ix, n, out, err, errlen);
    if (dk_material_equal(m, pair->twin))
        return above_value(c, &pair->ix_twin, n, out, err, errlen);
    return table_value(c, m, n, out, err, errlen);
}
