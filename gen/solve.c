#include "solve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../query/drawrule.h"
#include "../rules/movegen.h"
#include "valuefile.h"
#include "verify.h"

/* The units one level above the unit being solved, opened on demand: man moves land there. */
typedef struct above_unit {
    uint32_t unit;
    dk_plan plan;
    dk_vfile *file;
} above_unit;

typedef struct bucket {
    uint32_t *a;
    size_t n, cap;
} bucket;

/* Per position while a group is solved: DTW settled, an exit that draws (DTW); the side to move
 * must capture; the rule value settled, an exit not lost under the rule. */
enum { DONE = 1, DRAW_EXIT = 2, MUST_CAPTURE = 4, RULE_DONE = 8, RULE_DRAW_EXIT = 16 };

/* Man moves from one group reach a few subslices of the level above, again and again. */
enum { EXIT_CACHE = 64 };

typedef struct exit_slot {
    uint64_t men;
    int side; /* -1: empty */
    dk_vfile *file;
    uint64_t base; /* position of kings_index 0 in the file */
} exit_slot;

struct dk_solver {
    const dk_workgraph *g;
    const dk_variant *v;
    dk_finished *finished;
    unsigned limit;       /* the draw rule in plies; 0: no rule values */
    unsigned stride;      /* values per position in units and outputs: 1, or 2 with a rule */
    const dk_wpair *pair; /* the pair of the unit being solved */
    dk_plan_cache *plans;
    const char *why; /* why push failed */
    exit_slot cache[EXIT_CACHE];
    char *dir;
    above_unit *above;
    size_t nabove, capabove;
    /* per-group scratch, grown to the largest group */
    size_t cap;
    dk_value *val, *worst, *rule;
    uint8_t *cnt, *rule_cnt, *flag;
    bucket *buckets;
    size_t nbuckets;
};

static void drop_above(dk_solver *s)
{
    for (int i = 0; i < EXIT_CACHE; i++)
        s->cache[i].side = -1;
    for (size_t i = 0; i < s->nabove; i++) {
        dk_plan_free(&s->above[i].plan);
        dk_vfile_close(s->above[i].file);
    }
    s->nabove = 0;
}

dk_solver *dk_solver_new(const dk_workgraph *g, dk_finished *finished, const char *dir,
                         unsigned limit)
{
    dk_solver *s = calloc(1, sizeof *s);
    if (!s || !(s->dir = strdup(dir))) {
        free(s);
        return NULL;
    }
    s->g = g;
    s->v = g->v;
    s->finished = finished;
    s->limit = limit;
    s->stride = limit ? 2 : 1;
    if (!(s->plans = dk_plan_cache_new(g))) {
        free(s->dir);
        free(s);
        return NULL;
    }
    drop_above(s);
    return s;
}

void dk_solver_free(dk_solver *s)
{
    if (!s)
        return;
    drop_above(s);
    dk_plan_cache_free(s->plans);
    free(s->above);
    for (size_t i = 0; i < s->nbuckets; i++)
        free(s->buckets[i].a);
    free(s->buckets);
    free(s->val);
    free(s->worst);
    free(s->rule);
    free(s->cnt);
    free(s->rule_cnt);
    free(s->flag);
    free(s->dir);
    free(s);
}

static above_unit *open_above(dk_solver *s, uint32_t u, char *err, size_t errlen)
{
    for (size_t i = 0; i < s->nabove; i++)
        if (s->above[i].unit == u)
            return &s->above[i];
    if (s->nabove == s->capabove) {
        size_t cap = s->capabove ? 2 * s->capabove : 8;
        above_unit *a = realloc(s->above, cap * sizeof *a);
        if (!a)
            return snprintf(err, errlen, "out of memory"), NULL;
        s->above = a;
        s->capabove = cap;
    }
    above_unit *a = &s->above[s->nabove];
    a->unit = u;
    if (dk_plan_build(&a->plan, s->plans, u) != 0)
        return snprintf(err, errlen, "out of memory"), NULL;
    char path[2048];
    dk_plan_path(&a->plan, s->dir, path, sizeof path);
    a->file = dk_vfile_open(path, false, err, errlen);
    const dk_vfile_info *in = a->file ? dk_vfile_get_info(a->file) : NULL;
    if (in && (in->count != a->plan.npositions || in->stride != s->stride || in->limit != s->limit)) {
        snprintf(err, errlen, "%s is damaged: wrong number of values or another draw rule", path);
        dk_vfile_close(a->file);
        a->file = NULL;
    }
    if (!a->file) {
        dk_plan_free(&a->plan);
        return NULL;
    }
    s->nabove++;
    return a;
}

int dk_solver_value(dk_solver *s, dk_material m, const dk_pos *p, dk_value out[2], char *err,
                    size_t errlen)
{
    if (!p->pieces[DK_WHITE]) {
        out[0] = dk_value_of_dtw(0);
        out[1] = dk_rule_loss(0);
        return 0;
    }
    const dk_wpair *pair = s->pair;
    int side = pair && dk_material_equal(m, pair->m) ? 0
               : pair && dk_material_equal(m, pair->twin) ? 1 : -1;
    if (side >= 0) {
        /* Within the pair being solved only a man move leads on: to a finished unit of the
         * level above. */
        const dk_index *ix = side ? &pair->ix_twin : &pair->ix;
        uint64_t men, k;
        dk_index_rank_split(ix, p, &men, &k);
        exit_slot *c = &s->cache[(men * 2 + (uint64_t)side) % EXIT_CACHE];
        if (c->side != side || c->men != men) {
            int64_t u = dk_workgraph_unit_of(s->g, m, men);
            above_unit *a = u < 0 ? NULL : open_above(s, (uint32_t)u, err, errlen);
            if (!a)
                return -1;
            int in_group;
            int64_t gi = dk_plan_find(&a->plan, m, men, &in_group);
            if (gi < 0)
                return snprintf(err, errlen, "internal error: subslice not in its unit"), -1;
            *c = (exit_slot){men, side, a->file,
                             a->plan.groups[gi].offset + (uint64_t)in_group * a->plan.K};
        }
        uint64_t at = (c->base + k) * s->stride;
        out[1] = DK_RULE_DRAW;
        return dk_vfile_read(c->file, at, s->stride, out, err, errlen);
    }
    return dk_finished_value(s->finished, m, p, out, err, errlen);
}

static int grow(dk_solver *s, size_t n)
{
    if (n <= s->cap)
        return 0;
    free(s->val);
    free(s->worst);
    free(s->rule);
    free(s->cnt);
    free(s->rule_cnt);
    free(s->flag);
    s->val = malloc(n * sizeof *s->val);
    s->worst = malloc(n * sizeof *s->worst);
    s->rule = malloc(n * sizeof *s->rule);
    s->cnt = malloc(n);
    s->rule_cnt = malloc(n);
    s->flag = malloc(n);
    s->cap = (s->val && s->worst && s->rule && s->cnt && s->rule_cnt && s->flag) ? n : 0;
    return s->cap ? 0 : -1;
}

/* Queues position i for distance d (DTW or DTC, one pass at a time). */
static int push_at(dk_solver *s, size_t d, uint32_t i)
{
    s->why = "out of memory";
    if (d >= s->nbuckets) {
        size_t n = d + 64;
        bucket *b = realloc(s->buckets, n * sizeof *b);
        if (!b)
            return -1;
        memset(b + s->nbuckets, 0, (n - s->nbuckets) * sizeof *b);
        s->buckets = b;
        s->nbuckets = n;
    }
    bucket *b = &s->buckets[d];
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        uint32_t *a = realloc(b->a, cap * sizeof *a);
        if (!a)
            return -1;
        b->a = a;
        b->cap = cap;
    }
    b->a[b->n++] = i;
    return 0;
}

static int push(dk_solver *s, dk_value v, uint32_t i)
{
    if (v >= DK_VALUE_MAX) { /* the next ply would not fit in a value: stop, never wrap */
        s->why = "a distance beyond 65534 plies";
        return -1;
    }
    return push_at(s, dk_value_dtw(v), i);
}

/* What one group needs while it is solved. */
typedef struct group_ctx {
    const dk_index *ix[2];
    dk_material mat[2];
    uint64_t men[2];
    uint64_t K;
    int nsides;
} group_ctx;

static inline int other_side(const group_ctx *c, int side) { return c->nsides == 1 ? 0 : 1 - side; }

static inline uint32_t local_index(const group_ctx *c, int side, const dk_pos *n)
{
    dk_bb men = (n->pieces[0] | n->pieces[1]) & ~n->kings;
    return (uint32_t)((uint64_t)side * c->K +
                      dk_index_kings_rank(c->ix[side], men, n->pieces[0] & n->kings, n->pieces[1] & n->kings));
}

/* push, with the reason in err on failure */
static int settle(dk_solver *s, dk_value v, uint32_t i, char *err, size_t errlen)
{
    if (push(s, v, i) == 0)
        return 0;
    snprintf(err, errlen, "%s", s->why);
    return -1;
}

/* The first rule value of position i from its exits (all conversions), before king moves are
 * resolved: a win or loss in 1 ply, no move at all (loss in 0), or undecided with the number
 * of king moves still open. Queued by the rule pass (solve_rule), not here. */
static void classify_rule(dk_solver *s, uint32_t i, int nmoves, int internal, bool win_exit,
                          bool draw_exit)
{
    s->rule_cnt[i] = 0;
    s->rule[i] = DK_RULE_DRAW;
    if (nmoves == 0)
        s->rule[i] = dk_rule_loss(0);
    else if (win_exit)
        s->rule[i] = dk_rule_win(1);
    else if (internal == 0 && !draw_exit)
        s->rule[i] = dk_rule_loss(1);
    else if (internal == 0)
        s->flag[i] |= RULE_DONE; /* undecided for good: its kind comes from its DTW */
    else
        s->rule_cnt[i] = (uint8_t)internal;
    if (draw_exit)
        s->flag[i] |= RULE_DRAW_EXIT;
}

/* First values of position i (P, White to move): from its exits, or final when it must capture
 * or has no move; otherwise the number of king moves still open. */
static int classify(dk_solver *s, uint32_t i, const dk_pos *p, char *err,
                    size_t errlen)
{
    const dk_variant *v = s->v;
    dk_movelist list;
    dk_gen_moves(v, p, &list);
    s->flag[i] = 0;
    s->cnt[i] = 0;
    s->val[i] = DK_DRAW;
    s->worst[i] = DK_DRAW;
    bool capture = list.n > 0 && list.m[0].captures != 0;
    if (capture)
        s->flag[i] = MUST_CAPTURE;
    dk_value best_win = DK_DRAW, worst_loss = DK_DRAW;
    bool draw = false, rule_win = false, rule_draw = false;
    int internal = 0;
    for (int k = 0; k < list.n; k++) {
        const dk_move *m = &list.m[k];
        if (!capture && (p->kings & dk_bit(m->from))) {
            internal++;
            continue;
        }
        dk_pos after = dk_apply(p, m);
        dk_pos n = dk_pos_flip(v, &after);
        dk_value e[2];
        if (dk_solver_value(s, dk_material_of(&n), &n, e, err, errlen) != 0)
            return -1;
        dk_value t = dk_value_through(e[0]);
        if (dk_value_is_win(t)) {
            if (best_win == DK_DRAW || t < best_win)
                best_win = t;
        } else if (dk_value_is_draw(t)) {
            draw = true;
        } else if (t > worst_loss) {
            worst_loss = t;
        }
        /* every exit is a conversion: the child counts with the counter at 0 */
        rule_win |= dk_rule_is_loss(e[1]);
        rule_draw |= !dk_rule_is_win(e[1]);
    }
    if (s->limit)
        classify_rule(s, i, list.n, internal, rule_win, rule_draw);
    s->worst[i] = worst_loss;
    if (list.n == 0) {
        s->val[i] = dk_value_of_dtw(0);
        return settle(s, s->val[i], i, err, errlen);
    }
    if (best_win != DK_DRAW) {
        s->val[i] = best_win;
        return settle(s, best_win, i, err, errlen);
    }
    if (internal == 0) {
        if (draw) {
            s->flag[i] |= DONE;
            return 0;
        }
        s->val[i] = worst_loss;
        return settle(s, worst_loss, i, err, errlen);
    }
    s->cnt[i] = (uint8_t)internal;
    if (draw)
        s->flag[i] |= DRAW_EXIT;
    return 0;
}

/* The positions of the group (local indexes into preds) from which a quiet king move leads to
 * position i of side `side`, leaving out those that had to capture. Returns the count. */
static int predecessors(const dk_solver *s, const group_ctx *c, uint32_t i, int side,
                        uint32_t preds[DK_MAX_MOVES])
{
    dk_pos q = dk_index_unrank_split(c->ix[side], c->men[side], i - (uint64_t)side * c->K);
    dk_movelist back;
    dk_gen_king_unmoves_unchecked(s->v, &q, &back);
    int os = other_side(c, side), n = 0;
    for (int k = 0; k < back.n; k++) {
        dk_pos pred = dk_unapply(&q, &back.m[k]);
        dk_pos f = dk_pos_flip(s->v, &pred);
        uint32_t j = local_index(c, os, &f);
        if (!(s->flag[j] & MUST_CAPTURE)) /* a capture was compulsory: no quiet move led here */
            preds[n++] = j;
    }
    return n;
}

/* Passes the final DTW value of position i back to its predecessors by king moves. */
static int propagate(dk_solver *s, const group_ctx *c, uint32_t i, int side)
{
    dk_value val = s->val[i];
    uint32_t preds[DK_MAX_MOVES];
    int np = predecessors(s, c, i, side, preds);
    for (int k = 0; k < np; k++) {
        uint32_t j = preds[k];
        if (s->flag[j] & DONE)
            continue;
        dk_value through = dk_value_through(val);
        if (dk_value_is_loss(val)) {
            /* j wins by moving here, and nothing faster was found before this distance */
            if (dk_value_is_win(s->val[j]) && s->val[j] <= through)
                continue;
            s->val[j] = through;
            if (push(s, through, j))
                return -1;
        } else {
            if (dk_value_is_win(s->val[j]))
                continue;
            if (through > s->worst[j])
                s->worst[j] = through;
            if (--s->cnt[j] == 0 && !(s->flag[j] & DRAW_EXIT)) {
                s->val[j] = s->worst[j];
                if (push(s, s->val[j], j))
                    return -1;
            }
        }
    }
    return 0;
}

/* Passes the decided rule value of position i (DTC d < limit) back by king moves: a
 * predecessor wins in d + 1 by moving into a loss; it loses in d + 1 once its last open king
 * move leads to a win and no exit holds (its other king moves led to wins settled earlier, in
 * no more plies). */
static int propagate_rule(dk_solver *s, const group_ctx *c, uint32_t i, int side)
{
    dk_value r = s->rule[i];
    unsigned d = dk_rule_dtc(r) + 1;
    uint32_t preds[DK_MAX_MOVES];
    int np = predecessors(s, c, i, side, preds);
    for (int k = 0; k < np; k++) {
        uint32_t j = preds[k];
        if ((s->flag[j] & RULE_DONE) || dk_rule_is_win(s->rule[j]))
            continue;
        if (dk_rule_is_loss(r)) {
            s->rule[j] = dk_rule_win(d);
        } else if (--s->rule_cnt[j] == 0 && !(s->flag[j] & RULE_DRAW_EXIT)) {
            s->rule[j] = dk_rule_loss(d);
        } else {
            continue;
        }
        if (push_at(s, d, j))
            return -1;
    }
    return 0;
}

/* The rule values of a group whose DTW values are solved: the decided ones in increasing DTC
 * up to the limit, from the exits classify found; the rest take their kind from their DTW. */
static int solve_rule(dk_solver *s, const group_ctx *c, size_t n, char *err, size_t errlen)
{
    for (size_t b = 0; b < s->nbuckets; b++)
        s->buckets[b].n = 0;
    for (size_t i = 0; i < n; i++)
        if (dk_rule_is_decided(s->rule[i]) && push_at(s, dk_rule_dtc(s->rule[i]), (uint32_t)i))
            return snprintf(err, errlen, "%s", s->why), -1;
    for (size_t d = 0; d <= s->limit && d < s->nbuckets; d++) {
        for (size_t k = 0; k < s->buckets[d].n; k++) {
            uint32_t i = s->buckets[d].a[k];
            s->flag[i] |= RULE_DONE;
            if (d < s->limit && propagate_rule(s, c, i, i >= c->K ? 1 : 0) != 0)
                return snprintf(err, errlen, "%s", s->why), -1;
        }
    }
    return 0;
}

static int solve_group(dk_solver *s, const dk_plan *plan, const dk_group *gr, dk_value *out,
                       char *err, size_t errlen)
{
    const dk_wpair *pair = plan->pair;
    group_ctx c = {{&pair->ix, &pair->ix_twin}, {pair->m, pair->twin}, {gr->men[0], gr->men[1]},
                   plan->K, gr->self_flip ? 1 : 2};
    size_t n = (size_t)c.K * (size_t)c.nsides;
    if (n > UINT32_MAX || grow(s, n) != 0)
        return snprintf(err, errlen, "out of memory for a group of %zu positions", n), -1;
    for (size_t b = 0; b < s->nbuckets; b++)
        s->buckets[b].n = 0;
    for (int side = 0; side < c.nsides; side++) {
        dk_subslice_iter it;
        dk_subslice_begin(&it, c.ix[side], c.men[side]);
        do {
            uint32_t i = (uint32_t)((uint64_t)side * c.K + it.kings_index);
            if (classify(s, i, &it.pos, err, errlen) != 0)
                return -1;
        } while (dk_subslice_next(&it));
    }
    for (size_t d = 0; d < s->nbuckets; d++) {
        for (size_t k = 0; k < s->buckets[d].n; k++) {
            uint32_t i = s->buckets[d].a[k];
            if ((s->flag[i] & DONE) || dk_value_dtw(s->val[i]) != d)
                continue;
            s->flag[i] |= DONE;
            if (propagate(s, &c, i, i >= c.K ? 1 : 0) != 0)
                return snprintf(err, errlen, "%s", s->why), -1;
        }
    }
    for (size_t i = 0; i < n; i++)
        out[i * s->stride] = (s->flag[i] & DONE) ? s->val[i] : DK_DRAW;
    if (!s->limit)
        return 0;
    if (solve_rule(s, &c, n, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        out[i * 2 + 1] = dk_rule_is_decided(s->rule[i]) ? s->rule[i] : dk_rule_undecided(out[i * 2]);
    return 0;
}

int dk_solve_unit(dk_solver *s, const dk_plan *plan, dk_value *out, char *err, size_t errlen)
{
    s->pair = plan->pair;
    drop_above(s);
    for (size_t gi = 0; gi < plan->ngroups; gi++) {
        const dk_group *gr = &plan->groups[gi];
        if (solve_group(s, plan, gr, out + gr->offset * s->stride, err, errlen) != 0)
            return -1;
    }
    return 0; /* the units above stay open for dk_verify_unit */
}

/* Where verification of a unit reads values: its own groups from the values just solved,
 * everything else as the solver does. */
typedef struct unit_source {
    dk_solver *s;
    const dk_plan *plan;
    const dk_group *group;
    const dk_value *values; /* the group's */
} unit_source;

static int unit_value(void *ctx, dk_material m, const dk_pos *p, dk_value out[2], char *err,
                      size_t errlen)
{
    const unit_source *u = ctx;
    const dk_wpair *pair = u->plan->pair;
    unsigned stride = u->s->stride;
    for (int side = 0; side < 2; side++) {
        if (!dk_material_equal(m, side ? pair->twin : pair->m))
            continue;
        const dk_index *ix = side ? &pair->ix_twin : &pair->ix;
        uint64_t men, k;
        dk_index_rank_split(ix, p, &men, &k);
        if (men == u->group->men[side]) {
            const dk_value *at = u->values +
                ((u->group->self_flip ? 0 : (uint64_t)side) * u->plan->K + k) * stride;
            out[0] = at[0];
            out[1] = stride > 1 ? at[1] : DK_RULE_DRAW;
            return 0;
        }
    }
    return dk_solver_value(u->s, m, p, out, err, errlen);
}

int dk_verify_unit(dk_solver *s, const dk_plan *plan, const dk_value *values, uint64_t *bad_group,
                   int *bad_side, uint64_t *bad_kings, char *err, size_t errlen)
{
    const dk_wpair *pair = plan->pair;
    for (size_t gi = 0; gi < plan->ngroups; gi++) {
        const dk_group *gr = &plan->groups[gi];
        unit_source src = {s, plan, gr, values + gr->offset * s->stride};
        for (int side = 0; side < (gr->self_flip ? 1 : 2); side++) {
            const dk_index *ix = side ? &pair->ix_twin : &pair->ix;
            dk_subslice_iter it;
            dk_subslice_begin(&it, ix, gr->men[side]);
            do {
                dk_value stored[2], expect[2];
                if (unit_value(&src, ix->m, &it.pos, stored, err, errlen) != 0 ||
                    dk_expected_values(s->v, &it.pos, s->limit, unit_value, &src, expect, err,
                                       errlen) != 0)
                    return -1;
                if (!dk_values_pass(stored, expect, s->limit)) {
                    *bad_group = gi;
                    *bad_side = side;
                    *bad_kings = it.kings_index;
                    return 1;
                }
            } while (dk_subslice_next(&it));
        }
    }
    return 0;
}
