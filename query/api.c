/* libdamka (damka.h) over the compressed tablebase (tablebase.h) and the rules engine. */
#include "damka.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../rules/movegen.h"
#include "../rules/notation.h"
#include "drawrule.h"
#include "rank.h"
#include "tablebase.h"

struct damka_tb {
    const dk_variant *v;
    char *dir;
    dk_tablebase *tb;
    int max_pieces;
};

/* Errors go to the library's one error line (dk_tb_set_verror, query/tablebase.h). */
const char *damka_last_error(void) { return dk_tb_last_error(); }

const char *damka_version(void) { return DAMKA_VERSION_STRING; }

static damka_status fail(damka_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static damka_status fail(damka_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dk_tb_set_verror(fmt, ap);
    va_end(ap);
    return st;
}

const char *damka_status_text(damka_status status)
{
    switch (status) {
    case DAMKA_OK: return "ok";
    case DAMKA_NOT_IN_TABLES: return "not in the tables";
    case DAMKA_DAMAGED: return "damaged table file";
    case DAMKA_BAD_POSITION: return "bad position";
    case DAMKA_BAD_ARGUMENT: return "bad argument";
    case DAMKA_NO_MEMORY: return "out of memory";
    case DAMKA_NO_DIRECTORY: return "no such table directory";
    case DAMKA_MUST_CAPTURE: return "the side to move must capture";
    case DAMKA_NOT_CACHED: return "not in the cache";
    }
    return "unknown status";
}

damka_tb *damka_open(const char *dir, const char *variant, size_t cache_mb, damka_status *status)
{
    damka_status dummy;
    if (!status)
        status = &dummy;
    dk_tb_clear_error();
    if (!dir) {
        *status = fail(DAMKA_BAD_ARGUMENT, "no table directory given");
        return NULL;
    }
    const dk_variant *v = dk_variant_find(variant ? variant : "brazilian");
    if (!v) {
        *status = fail(DAMKA_BAD_ARGUMENT, "unknown variant '%.100s'", variant);
        return NULL;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        *status = fail(DAMKA_NO_DIRECTORY, "%.900s: %s", dir,
                       stat(dir, &st) != 0 ? strerror(errno) : "not a directory");
        return NULL;
    }
    /* the cache budget in bytes, saturated rather than wrapped */
    size_t mb = cache_mb ? cache_mb : 64, max_mb = ((size_t)-1 >> 20);
    dk_tb_options o = {(mb > max_mb ? max_mb : mb) << 20};
    damka_tb *t = calloc(1, sizeof *t);
    if (t)
        t->tb = dk_tb_open(dir, v, &o);
    if (!t || !t->tb) {
        free(t);
        *status = fail(DAMKA_NO_MEMORY, "out of memory");
        return NULL;
    }
    t->v = v;
    if (!(t->dir = strdup(dir))) {
        damka_close(t);
        *status = fail(DAMKA_NO_MEMORY, "out of memory");
        return NULL;
    }
    t->max_pieces = dk_tb_max_pieces(t->tb);
    *status = DAMKA_OK;
    return t;
}

void damka_close(damka_tb *tb)
{
    if (!tb)
        return;
    dk_tb_close(tb->tb);
    free(tb->dir);
    free(tb);
}

const char *damka_variant(const damka_tb *tb) { return tb ? tb->v->name : NULL; }

int damka_squares(const damka_tb *tb) { return tb ? tb->v->nsq : 0; }

int damka_max_pieces(const damka_tb *tb) { return tb ? tb->max_pieces : 0; }

/* --- positions --- */

static damka_position to_public(const dk_pos *p)
{
    damka_position q = {p->pieces[DK_WHITE], p->pieces[DK_BLACK], p->kings, p->side == DK_BLACK};
    return q;
}

/* Converts and checks a position: OK (PLAY or GAME_OVER, dk_pos_verdict) or BAD_POSITION (with
 * the reason in the error line). */
static damka_status from_public(const dk_variant *v, const damka_position *p, dk_pos *out)
{
    out->pieces[DK_WHITE] = p->white;
    out->pieces[DK_BLACK] = p->black;
    out->kings = p->kings;
    out->side = p->black_to_move ? DK_BLACK : DK_WHITE;
    char why[DK_ERR_MAX];
    if (dk_verdict_refused(dk_pos_verdict(v, out, why, sizeof why)))
        return fail(DAMKA_BAD_POSITION, "%s", why);
    return DAMKA_OK;
}

damka_status damka_position_from_fen_n(const damka_tb *tb, const char *fen, size_t len, damka_position *out)
{
    dk_tb_clear_error();
    if (!tb || !fen || !out)
        return fail(DAMKA_BAD_ARGUMENT, "NULL argument");
    dk_pos p = {{0, 0}, 0, DK_WHITE};
    char why[DK_ERR_MAX];
    if (dk_verdict_refused(dk_fen_read(tb->v, fen, len, &p, why, sizeof why)))
        return fail(DAMKA_BAD_POSITION, "%s", why);
    *out = to_public(&p);
    return DAMKA_OK;
}

damka_status damka_position_from_fen(const damka_tb *tb, const char *fen, damka_position *out)
{
    return damka_position_from_fen_n(tb, fen, fen ? strlen(fen) : 0, out);
}

damka_status damka_position_to_fen(const damka_tb *tb, const damka_position *p, char *buf,
                                   size_t len)
{
    dk_tb_clear_error();
    if (!tb || !p || !buf || !len)
        return fail(DAMKA_BAD_ARGUMENT, "NULL argument");
    buf[0] = 0;
    dk_pos q;
    damka_status st = from_public(tb->v, p, &q);
    if (st != DAMKA_OK)
        return st;
    char fen[DK_FEN_MAX];
    int n = dk_fen_format(tb->v, &q, false, fen, sizeof fen);
    if (n < 0 || (size_t)n >= len)
        return fail(DAMKA_BAD_ARGUMENT, "FEN buffer too small (%d bytes needed)", n + 1);
    memcpy(buf, fen, (size_t)n + 1);
    return DAMKA_OK;
}

/* --- probes --- */

static damka_status from_tb(dk_status st)
{
    switch (st) {
    case DK_OK: return DAMKA_OK;
    case DK_MISSING: return fail(DAMKA_NOT_IN_TABLES, "no table: %s", dk_tb_last_error());
    case DK_DAMAGED:
    case DK_IO: return fail(DAMKA_DAMAGED, "%s", dk_tb_last_error());
    case DK_REFUSED: return fail(DAMKA_BAD_POSITION, "not a position tables hold");
    case DK_NO_MEMORY: return fail(DAMKA_NO_MEMORY, "out of memory");
    case DK_MUST_CAPTURE: return fail(DAMKA_MUST_CAPTURE, "the side to move must capture");
    case DK_NOT_CACHED: return fail(DAMKA_NOT_CACHED, "a block the answer needs is not in the cache");
    default: return fail(DAMKA_DAMAGED, "unexpected tablebase status %d", (int)st);
    }
}

static damka_value to_value(dk_value v, dk_metric metric)
{
    damka_value r;
    r.wdl = dk_value_is_draw(v) ? DAMKA_DRAW : dk_value_is_win(v) ? DAMKA_WIN : DAMKA_LOSS;
    r.dtw = r.wdl == DAMKA_DRAW || metric == DK_METRIC_WLD ? -1 : (int)dk_value_dtw(v);
    return r;
}

/* Checks p for probing: a legal position (from_public), which the tables can hold (dk_tb_holds,
 * the check of every probe: more pieces than any table is NOT_IN_TABLES). */
static damka_status probe_ready(const damka_tb *tb, const damka_position *p, dk_pos *q)
{
    dk_tb_clear_error();
    if (!tb || !p)
        return fail(DAMKA_BAD_ARGUMENT, "NULL argument");
    damka_status st = from_public(tb->v, p, q);
    if (st != DAMKA_OK)
        return st;
    dk_status held = dk_tb_holds(tb->tb, q);
    if (held == DK_MISSING)
        return fail(DAMKA_NOT_IN_TABLES, "%s", dk_tb_last_error());
    return held == DK_OK ? DAMKA_OK : fail(DAMKA_BAD_POSITION, "%s", dk_tb_last_error());
}

static damka_status probe(damka_tb *tb, const damka_position *p, dk_metric metric, unsigned flags,
                          damka_value *out)
{
    dk_pos q;
    damka_status st = probe_ready(tb, p, &q);
    if (st != DAMKA_OK)
        return st;
    if (!out)
        return fail(DAMKA_BAD_ARGUMENT, "NULL argument");
    if (flags & ~(unsigned)(DAMKA_PROBE_NO_CAPTURES | DAMKA_PROBE_CACHE_ONLY))
        return fail(DAMKA_BAD_ARGUMENT, "unknown probe flags 0x%x", flags);
    unsigned tb_flags = (flags & DAMKA_PROBE_NO_CAPTURES ? DK_TB_NO_CAPTURES : 0) |
                        (flags & DAMKA_PROBE_CACHE_ONLY ? DK_TB_CACHE_ONLY : 0);
    dk_value v;
    st = from_tb(dk_tb_probe_flags(tb->tb, &q, metric, tb_flags, &v));
    if (st == DAMKA_OK)
        *out = to_value(v, metric);
    return st;
}

damka_status damka_probe_wdl(damka_tb *tb, const damka_position *p, damka_value *out)
{
    return probe(tb, p, DK_METRIC_WLD, 0, out);
}

damka_status damka_probe_dtw(damka_tb *tb, const damka_position *p, damka_value *out)
{
    return probe(tb, p, DK_METRIC_DTW, 0, out);
}

damka_status damka_probe_wdl_flags(damka_tb *tb, const damka_position *p, unsigned flags,
                                   damka_value *out)
{
    return probe(tb, p, DK_METRIC_WLD, flags, out);
}

damka_status damka_probe_dtw_flags(damka_tb *tb, const damka_position *p, unsigned flags,
                                   damka_value *out)
{
    return probe(tb, p, DK_METRIC_DTW, flags, out);
}

damka_status damka_cache_counters(damka_tb *tb, uint64_t *lookups, uint64_t *misses)
{
    if (!tb) /* on success the last error stays: a look at the counters is not a call that fails */
        return fail(DAMKA_BAD_ARGUMENT, "NULL argument");
    uint64_t l, m;
    dk_tb_cache_counters(tb->tb, &l, &m);
    if (lookups)
        *lookups = l;
    if (misses)
        *misses = m;
    return DAMKA_OK;
}

/* --- moves --- */

static void fill_move(const dk_variant *v, const dk_movelist *list, int i, damka_move_value *out)
{
    const dk_move *m = &list->m[i];
    out->from = m->from + 1;
    out->to = m->to + 1;
    out->captures = m->captures;
    out->promotes = m->promotes != 0;
    char text[DK_MOVE_TEXT_MAX];
    dk_move_format(v, list, i, v->algebraic, text, sizeof text);
    snprintf(out->notation, sizeof out->notation, "%s", text);
}

static damka_status rank(damka_tb *tb, const damka_position *p, dk_metric metric,
                         damka_move_value *moves, int cap, int *count)
{
    if (count)
        *count = 0;
    dk_pos q;
    damka_status st = probe_ready(tb, p, &q);
    if (st != DAMKA_OK)
        return st;
    if (!count || cap < 0 || (cap > 0 && !moves))
        return fail(DAMKA_BAD_ARGUMENT, "NULL argument or negative capacity");
    dk_movelist *list = malloc(sizeof *list);
    dk_value *values = malloc(DK_MAX_MOVES * sizeof *values);
    if (!list || !values) {
        free(list);
        free(values);
        return fail(DAMKA_NO_MEMORY, "out of memory");
    }
    st = from_tb(dk_tb_rank_moves_in(tb->tb, &q, metric, list, values));
    if (st == DAMKA_OK) {
        for (int i = 0; i < list->n && i < cap; i++) {
            fill_move(tb->v, list, i, &moves[i]);
            moves[i].value = to_value(values[i], metric);
        }
        *count = list->n;
    }
    free(list);
    free(values);
    return st;
}

damka_status damka_rank_moves(damka_tb *tb, const damka_position *p, damka_move_value *moves,
                              int cap, int *count)
{
    return rank(tb, p, DK_METRIC_DTW, moves, cap, count);
}

damka_status damka_rank_moves_wdl(damka_tb *tb, const damka_position *p,
                                  damka_move_value *moves, int cap, int *count)
{
    return rank(tb, p, DK_METRIC_WLD, moves, cap, count);
}

/* --- the draw rule --- */

int damka_draw_rule(damka_tb *tb) { return tb ? (int)dk_tb_rule_limit(tb->tb) : 0; }

/* damka_category has dk_category's values (checked at compile time). */
_Static_assert(DAMKA_RULE_LOSS == (int)DK_CAT_LOSS && DAMKA_RULE_WIN == (int)DK_CAT_WIN &&
                   DAMKA_RULE_CURSED_WIN == (int)DK_CAT_CURSED_WIN,
               "damka_category mirrors dk_category");

static damka_rule_value to_rule_value(dk_value r, unsigned counter, unsigned limit)
{
    damka_rule_value out = {(damka_category)dk_rule_category(r),
                            dk_rule_is_decided(r) ? (int)dk_rule_dtc(r) : -1, (int)limit, (int)counter};
    return out;
}

/* The directory's limit, checking that counter is within 0..limit (0..limit-1 when moves are
 * to be made). Returns OK, NOT_IN_TABLES or BAD_ARGUMENT. */
static damka_status rule_ready(damka_tb *tb, int counter, bool moving, unsigned *limit)
{
    *limit = dk_tb_rule_limit(tb->tb);
    if (!*limit)
        return fail(DAMKA_NOT_IN_TABLES, "no draw-rule (.dtc) tables in %.900s", tb->dir);
    if (counter < 0 || counter > (int)*limit - (moving ? 1 : 0))
        return fail(DAMKA_BAD_ARGUMENT, "counter %d outside 0..%u", counter, *limit - (moving ? 1 : 0));
    return DAMKA_OK;
}

damka_status damka_probe_rule(damka_tb *tb, const damka_position *p, int counter,
                              damka_rule_value *out)
{
    dk_pos q;
    damka_status st = probe_ready(tb, p, &q);
    unsigned limit;
    if (st != DAMKA_OK)
        return st;
    if (!out)
        return fail(DAMKA_BAD_ARGUMENT, "NULL argument");
    if ((st = rule_ready(tb, counter, false, &limit)) != DAMKA_OK)
        return st;
    dk_value r;
    st = from_tb(dk_tb_probe(tb->tb, &q, DK_METRIC_DTC, &r));
    if (st == DAMKA_OK)
        *out = to_rule_value(dk_rule_at(r, (unsigned)counter, limit), (unsigned)counter, limit);
    return st;
}

damka_status damka_rank_moves_rule(damka_tb *tb, const damka_position *p, int counter,
                                   damka_rule_move *moves, int cap, int *count)
{
    if (count)
        *count = 0;
    dk_pos q;
    unsigned limit;
    damka_status st = probe_ready(tb, p, &q);
    if (st != DAMKA_OK)
        return st;
    if (!count || cap < 0 || (cap > 0 && !moves))
        return fail(DAMKA_BAD_ARGUMENT, "NULL argument or negative capacity");
    if ((st = rule_ready(tb, counter, true, &limit)) != DAMKA_OK)
        return st;
    dk_movelist *list = malloc(sizeof *list);
    dk_value *values = malloc(2 * DK_MAX_MOVES * sizeof *values);
    if (!list || !values) {
        free(list);
        free(values);
        return fail(DAMKA_NO_MEMORY, "out of memory");
    }
    dk_value *rule = values + DK_MAX_MOVES;
    st = from_tb(dk_tb_rank_moves_rule(tb->tb, &q, (unsigned)counter, limit, list, values, rule));
    if (st == DAMKA_OK) {
        for (int i = 0; i < list->n && i < cap; i++) {
            fill_move(tb->v, list, i, &moves[i].move);
            moves[i].move.value = to_value(values[i], DK_METRIC_DTW);
            moves[i].rule = to_rule_value(rule[i], (unsigned)counter, limit);
        }
        *count = list->n;
    }
    free(list);
    free(values);
    return st;
}

damka_status damka_apply_move(const damka_tb *tb, const damka_position *p,
                              const damka_move_value *m, damka_position *out)
{
    dk_tb_clear_error();
    if (!tb || !p || !m || !out)
        return fail(DAMKA_BAD_ARGUMENT, "NULL argument");
    dk_pos q;
    damka_status st = from_public(tb->v, p, &q);
    if (st != DAMKA_OK)
        return st;
    dk_movelist *list = malloc(sizeof *list);
    if (!list)
        return fail(DAMKA_NO_MEMORY, "out of memory");
    dk_gen_moves(tb->v, &q, list);
    st = fail(DAMKA_BAD_POSITION, "not a legal move of the position");
    for (int i = 0; i < list->n; i++) {
        const dk_move *x = &list->m[i];
        if (x->from + 1 == m->from && x->to + 1 == m->to && x->captures == m->captures) {
            dk_pos after = dk_apply(&q, x);
            *out = to_public(&after);
            dk_tb_clear_error();
            st = DAMKA_OK;
            break;
        }
    }
    free(list);
    return st;
}

damka_status damka_check_files(damka_tb *tb, int *files)
{
    dk_tb_clear_error();
    if (files)
        *files = 0;
    if (!tb)
        return fail(DAMKA_BAD_ARGUMENT, "NULL argument");
    int top = dk_material_max_pieces(tb->v);
    size_t n = dk_material_list(tb->v, top, 0, NULL, 0);
    dk_material *ms = malloc(n * sizeof *ms);
    if (!ms)
        return fail(DAMKA_NO_MEMORY, "out of memory");
    dk_material_list(tb->v, top, 0, ms, n);
    damka_status st = DAMKA_OK;
    int checked = 0;
    for (size_t i = 0; i < n && st == DAMKA_OK; i++) {
        for (int metric = DK_METRIC_WLD; metric <= DK_METRIC_DTC && st == DAMKA_OK; metric++) {
            char path[4096], err[1024];
            dk_tb_path(tb->dir, tb->v, ms[i], dk_tb_metric_ext((dk_metric)metric), path, sizeof path);
            if (access(path, F_OK) != 0)
                continue;
            dk_ctable *t = dk_ctable_open(path, err, sizeof err);
            const dk_ctable_info *in = t ? dk_ctable_get_info(t) : NULL;
            const uint8_t want[4] = {ms[i].wm, ms[i].wk, ms[i].bm, ms[i].bk};
            if (!t)
                st = fail(DAMKA_DAMAGED, "%s", err);
            else if (in->metric != metric || in->variant != tb->v->id || memcmp(in->material, want, 4) != 0)
                st = fail(DAMKA_DAMAGED, "%.900s is damaged: its header does not match its name", path);
            else if (dk_ctable_check(t, err, sizeof err) != 0)
                st = fail(DAMKA_DAMAGED, "%s", err);
            dk_ctable_close(t);
            checked++;
        }
    }
    free(ms);
    if (files)
        *files = checked;
    if (st == DAMKA_OK && checked == 0)
        st = fail(DAMKA_NOT_IN_TABLES, "no table file of %s in %.900s", tb->v->name, tb->dir);
    return st;
}
