#include "exitcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../query/drawrule.h"
#include "../../rules/errors.h"
#include "../../rules/notation.h"
#include "../store/unitfile.h"

/* Units of the level above kept open: man moves from one unit reach a few, and fewer open
 * than the solver keeps (16) would close and reopen files all the time. */
enum { OPEN_ABOVE = 16 };

/* Where the subslices man moves lead to are (direct-mapped): the positions of one subslice
 * lead to the same few again and again. */
enum { PLACE_BITS = 10, PLACES = 1 << PLACE_BITS };

typedef struct place {
    const dk_index *ix; /* NULL: empty */
    uint64_t men;
    struct open_unit *o;
    uint64_t base;      /* where the subslice's kings index 0 is in the unit */
} place;

typedef struct open_unit {
    uint32_t unit;
    uint64_t used;     /* tick of the last read; 0: the slot is empty */
    dk_groups ug;
    dk_unitfile *file; /* keeps a pointer to ug: the slot stays in place while open */
} open_unit;

struct dk_exit_check {
    const dk_workgraph *g;
    dk_groups_cache *gcache;
    char *dir;
    unsigned limit;
    dk_check_tables *tables;        /* the finished tables */
    dk_block_pool *blocks;          /* the open units' decompressed blocks (the caller's, the solver's too) */
    open_unit open[OPEN_ABOVE];
    uint64_t tick;
    place places[PLACES];
    dk_men_memo men;                /* the placements of man moves' exits, few a subslice */
};

dk_exit_check *dk_exit_check_new(const dk_workgraph *g, dk_groups_cache *gcache, const char *dir,
                                 unsigned limit, uint64_t cache_bytes, uint64_t most_bytes, dk_block_pool *blocks)
{
    dk_exit_check *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->g = g;
    c->gcache = gcache;
    c->limit = limit;
    c->dir = strdup(dir);
    c->blocks = blocks;
    c->tables = dk_check_tables_new(dir, g->v, limit, cache_bytes, most_bytes);
    if (!c->dir || !c->tables) {
        dk_exit_check_free(c);
        return NULL;
    }
    return c;
}

void dk_exit_check_set_room(dk_exit_check *c, uint64_t bytes) { dk_check_tables_set_room(c->tables, bytes); }

dk_check_tables_counters dk_exit_check_table_counters(const dk_exit_check *c)
{
    return dk_check_tables_get_counters(c->tables);
}

static void close_unit(dk_exit_check *c, open_unit *o)
{
    if (!o->used)
        return;
    for (int i = 0; i < PLACES; i++)
        if (c->places[i].o == o)
            c->places[i].ix = NULL;
    dk_unitfile_close(o->file);
    dk_groups_free(&o->ug);
    o->file = NULL;
    o->used = 0;
}

void dk_exit_check_idle(dk_exit_check *c)
{
    for (int i = 0; i < OPEN_ABOVE; i++)
        close_unit(c, &c->open[i]);
}

void dk_exit_check_free(dk_exit_check *c)
{
    if (!c)
        return;
    for (int i = 0; i < OPEN_ABOVE; i++)
        close_unit(c, &c->open[i]);
    dk_check_tables_free(c->tables);
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
    if (dk_groups_build(&pick->ug, c->gcache, u) != 0)
        return dk_errorf(err, errlen, "out of memory"), NULL;
    if (!(pick->file = dk_unitfile_open(&pick->ug, c->dir, c->limit, false, c->blocks, err, errlen))) {
        dk_groups_free(&pick->ug);
        return NULL;
    }
    pick->unit = u;
    pick->used = ++c->tick;
    return pick;
}

/* The values of position i of ix's material, one of the pair's (an exit by a man move): from
 * the finished unit of the level above that holds it, found from the full index. */
static int above_value(dk_exit_check *c, const dk_index *ix, uint64_t i, dk_value out[2], char *err,
                       size_t errlen)
{
    uint64_t kings, men = dk_divmod(&ix->div_kings, i, &kings);
    place *pl = &c->places[((men ^ (uintptr_t)ix) * 0x9E3779B97F4A7C15ull) >> (64 - PLACE_BITS)];
    if (pl->ix != ix || pl->men != men) {
        int64_t u = dk_workgraph_unit_of(c->g, ix->m, men);
        open_unit *o = u < 0 ? NULL : unit_above(c, (uint32_t)u, err, errlen);
        if (!o)
            return u < 0 ? dk_errorf(err, errlen, "a man move leads to no unit") : -1;
        int member;
        int64_t gi = dk_groups_find(&o->ug, ix->m, men, &member);
        if (gi < 0)
            return dk_errorf(err, errlen, "a man move leads to a subslice its unit does not hold");
        *pl = (place){ix, men, o, o->ug.groups[gi].offset + (uint64_t)member * o->ug.K};
    }
    uint64_t at = pl->base + kings;
    unsigned stride = c->limit ? 2 : 1;
    out[1] = DK_RULE_DRAW;
    if (dk_unitfile_read(pl->o->file, at * stride, stride, out, err, errlen) != 0)
        return -1;
    out[0] = dk_unit_dtw(out[0]);
    return 0;
}

/* The message of an exit n of p the solver read otherwise. */
static int differs(const dk_exit_check *c, const dk_pos *p, const dk_pos *n, const dk_value got[2],
                   const dk_value want[2], char *err, size_t errlen)
{
    char name[DK_MATERIAL_NAME_MAX], fen[DK_FEN_MAX], nfen[DK_FEN_MAX];
    dk_material_name(dk_material_of(p), name, sizeof name);
    dk_fen_format(c->g->v, p, false, fen, sizeof fen);
    dk_fen_format(c->g->v, n, false, nfen, sizeof nfen);
    char rule[2][32] = {"", ""};
    for (int k = 0; c->limit && k < 2; k++)
        snprintf(rule[k], sizeof rule[k], ", rule value %u", (unsigned)(k ? want : got)[1]);
    return dk_errorf(err, errlen, "verification failed: material %s, position %s: the solver read "
                     "DTW value %u%s for its exit to %s, verification's own reader %u%s", name, fen,
                     (unsigned)got[0], rule[0], nfen, (unsigned)want[0], rule[1]);
}

static bool same(const dk_exit_check *c, const dk_value a[2], const dk_value b[2])
{
    return a[0] == b[0] && (!c->limit || a[1] == b[1]);
}

int dk_exit_check_compare(dk_exit_check *c, const dk_wpair *pair, const dk_pos *p, dk_material m,
                      const dk_pos *n, const dk_value got[2], char *err, size_t errlen)
{
    dk_value want[2] = {dk_value_of_dtw(0), dk_rule_loss(0)}; /* no piece left: lost */
    const dk_index *ix = dk_material_equal(m, pair->m)      ? &pair->ix
                         : dk_material_equal(m, pair->twin) ? &pair->ix_twin
                                                            : NULL;
    if (n->pieces[DK_WHITE] &&
        (ix ? above_value(c, ix, dk_index_rank_memo(&c->men, ix, n), want, err, errlen)
            : dk_check_tables_value(c->tables, m, n, want, err, errlen)) != 0)
        return -1;
    return same(c, got, want) ? 0 : differs(c, p, n, got, want, err, errlen);
}
