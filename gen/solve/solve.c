#include "solve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../query/drawrule.h"
#include "../../rules/errors.h"
#include "../../rules/movegen.h"
#include "../store/bigmem.h"
#include "solve_internal.h"

static void close_above(dk_solver *s, size_t i);

static void drop_above(dk_solver *s)
{
    for (size_t i = 0; i < DK_SOLVER_ABOVE_OPEN; i++)
        close_above(s, i);
    for (int i = 0; i < EXIT_CACHE; i++)
        s->cache[i].member = -1;
}


dk_solver *dk_solver_new(const dk_workgraph *g, dk_finished *finished, dk_exit_check *check,
                         dk_groups_cache *gcache, const char *dir, unsigned limit, dk_block_pool *blocks)
{
    dk_solver *s = calloc(1, sizeof *s);
    if (!s || !(s->dir = strdup(dir))) {
        free(s);
        return NULL;
    }
    s->g = g;
    s->v = g->v;
    s->finished = finished;
    s->check = check;
    s->limit = limit;
    s->stride = limit ? 2 : 1;
    s->gcache = gcache;
    s->blocks = blocks;
    drop_above(s);
    return s;
}

/* Frees what a unit grew: the per-group scratch, the distance queues, a split's buffers. */
static void free_scratch(dk_solver *s)
{
    for (size_t i = 0; i < s->nbuckets; i++)
        free(s->buckets[i].a);
    free(s->buckets);
    s->buckets = NULL;
    s->nbuckets = 0;
    dk_big_free(s->cells, s->cap * sizeof *s->cells);
    dk_big_free(s->conv, s->conv_cap * 2 * sizeof *s->conv);
    s->cells = NULL;
    s->conv = NULL;
    s->cap = s->conv_cap = 0;
    dk_split_free_boxes(s);
    free(s->send);
    free(s->recv);
    free(s->answers);
    s->send = s->recv = s->answers = NULL;
    s->send_cap = s->recv_cap = s->answers_cap = 0;
}

void dk_solver_idle(dk_solver *s)
{
    drop_above(s);
    /* The scratch (10 bytes a position of the largest group) goes before a pair is finished,
     * which the budget counts instead of it, not beside it. Between two units it stays: fresh
     * pages cost a fault each. */
    free_scratch(s);
}

void dk_solver_free(dk_solver *s)
{
    if (!s)
        return;
    drop_above(s);
    free_scratch(s);
    free(s->dir);
    free(s);
}

/* Closes above unit slot i if open, forgetting the exits that read it. */
static void close_above(dk_solver *s, size_t i)
{
    above_unit *a = &s->above[i];
    if (!a->file)
        return;
    for (int k = 0; k < EXIT_CACHE; k++)
        if (s->cache[k].file == a->file)
            s->cache[k].member = -1;
    dk_unitfile_close(a->file);
    dk_groups_free(&a->ug);
    a->file = NULL;
}

static above_unit *open_above(dk_solver *s, uint32_t u, char *err, size_t errlen)
{
    size_t pick = 0; /* an empty slot, else the least recently opened */
    for (size_t i = 0; i < DK_SOLVER_ABOVE_OPEN; i++) {
        above_unit *a = &s->above[i];
        if (a->file && a->unit == u)
            return a;
        if (s->above[pick].file && (!a->file || a->opened < s->above[pick].opened))
            pick = i;
    }
    close_above(s, pick);
    above_unit *a = &s->above[pick];
    a->unit = u;
    a->opened = ++s->opened;
    if (dk_groups_build(&a->ug, s->gcache, u) != 0)
        return dk_errorf(err, errlen, "out of memory"), NULL;
    if (!(a->file = dk_unitfile_open(&a->ug, s->dir, s->limit, false, s->blocks, err, errlen))) {
        dk_groups_free(&a->ug);
        return NULL;
    }
    return a;
}

/* The values of p (White to move, of material m) after a move, as a finished table or unit
 * says: out[0] DTW, out[1] the rule value (with a draw rule). What solving and verification
 * read for every successor. Returns 0, or -1 with one line in err. */
static int solver_value(dk_solver *s, dk_material m, const dk_pos *p, dk_value out[2], char *err,
                        size_t errlen)
{
    if (!p->pieces[DK_WHITE]) {
        out[0] = dk_value_of_dtw(0);
        out[1] = dk_rule_loss(0);
        return 0;
    }
    const dk_wpair *pair = s->pair;
    int member = pair && dk_material_equal(m, pair->m) ? 0
               : pair && dk_material_equal(m, pair->twin) ? 1 : -1;
    if (member >= 0) {
        /* Within the pair being solved only a man move leads on: to a finished unit of the
         * level above. */
        const dk_index *ix = member ? &pair->ix_twin : &pair->ix;
        dk_bb wmen = dk_men(p, DK_WHITE), bmen = dk_men(p, DK_BLACK);
        /* found by its men's bitboards, so that a hit ranks only the kings */
        uint64_t h = ((wmen * 0x9E3779B97F4A7C15ull) ^ (bmen * 0xC2B2AE3D27D4EB4Full)) + (uint64_t)member;
        exit_slot *c = &s->cache[(h >> 32) % EXIT_CACHE];
        if (c->member != member || c->wmen != wmen || c->bmen != bmen) {
            uint64_t x;
            int flipped;
            int64_t u = dk_workgraph_unit_of_placement(s->g, pair, member, wmen, bmen, &x, &flipped);
            if (u < 0)
                return dk_errorf(err, errlen, "internal error: a man move leads to no unit");
            above_unit *a = open_above(s, (uint32_t)u, err, errlen);
            if (!a)
                return -1;
            int64_t gi = dk_groups_find_canonical(&a->ug, x);
            if (gi < 0)
                return dk_errorf(err, errlen, "internal error: subslice not in its unit");
            *c = (exit_slot){wmen, bmen, member, a->file, a->ug.groups[gi].offset + (uint64_t)flipped * a->ug.K};
        }
        uint64_t k = dk_index_kings_rank(ix, wmen | bmen, dk_kings(p, DK_WHITE), dk_kings(p, DK_BLACK));
        uint64_t at = (c->base + k) * s->stride;
        out[1] = DK_RULE_DRAW;
        int rc = dk_unitfile_read(c->file, at, s->stride, out, err, errlen);
        out[0] = dk_unit_dtw(out[0]);
        return rc;
    }
    return dk_finished_value(s->finished, m, p, out, err, errlen);
}

static int grow(dk_solver *s, size_t n)
{
    if (n <= s->cap)
        return 0;
    dk_big_free(s->cells, s->cap * sizeof *s->cells);
    s->cells = dk_big_alloc(n * sizeof *s->cells);
    s->cap = s->cells ? n : 0;
    return s->cap ? 0 : -1;
}

/* Queues position l (a local index) for distance d (DTW or DTC, one pass at a time). */
static int push_at(dk_solver *s, size_t d, uint32_t l)
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
    b->a[b->n++] = l;
    return 0;
}

static int push(dk_solver *s, dk_value v, uint32_t l)
{
    if (v >= DK_UNIT_CAPTURE - 1) { /* the next ply would reach the capture flag: stop */
        s->why = "a distance beyond 32766 plies";
        return -1;
    }
    return push_at(s, dk_value_dtw(v), l);
}

/* push, with the reason in err on failure */
static int settle(dk_solver *s, dk_value v, uint32_t l, char *err, size_t errlen)
{
    return push(s, v, l) == 0 ? DK_OK : dk_errorf(err, errlen, "%s", s->why);
}

/* The first rule value of position l from its exits (all conversions), before king moves are
 * resolved: a win or loss in 1 ply, no move at all (loss in 0), or undecided with the number
 * of king moves still open. Queued by the rule pass, not here. */
static void classify_rule(dk_solver *s, uint32_t l, int nmoves, int internal, bool win_exit,
                          bool draw_exit)
{
    s->cells[l].rule_cnt = 0;
    s->cells[l].rule = DK_RULE_DRAW;
    if (nmoves == 0)
        s->cells[l].rule = dk_rule_loss(0);
    else if (win_exit)
        s->cells[l].rule = dk_rule_win(1);
    else if (internal == 0 && !draw_exit)
        s->cells[l].rule = dk_rule_loss(1);
    else if (internal == 0)
        s->cells[l].flag |= RULE_DONE; /* undecided for good: its kind comes from its DTW */
    else
        s->cells[l].rule_cnt = (uint8_t)internal;
    if (draw_exit)
        s->cells[l].flag |= RULE_DRAW_EXIT;
}

#ifdef DK_TEST_HOOKS
/* The test hook's state (dk_solver_test_corrupt_exit): positions to classify before an exit read
 * is altered, and the kind of that exit. Kept by the thread that solves (a thread has one
 * solver), and only in the test build (gen/solve/solve.c compiled again with DK_TEST_HOOKS): the
 * release build's exit reads and position loop carry no branch for it. */
static _Thread_local uint64_t corrupt_in = UINT64_MAX;
static _Thread_local int corrupt_kind;

void dk_solver_test_corrupt_exit(dk_solver *s, uint64_t after, dk_exit_kind kind)
{
    (void)s;
    corrupt_in = after;
    corrupt_kind = (int)kind;
}

/* Whether exit n (White to move, of material m) is of `kind` (the test hook's). */
static bool exit_kind_is(const dk_solver *s, dk_material m, const dk_pos *n, int kind)
{
    if (dk_material_equal(m, s->pair->m) || dk_material_equal(m, s->pair->twin))
        return kind == DK_EXIT_ANY || kind == DK_EXIT_ABOVE;
    if (!n->pieces[DK_WHITE]) /* lost: no table is read */
        return kind == DK_EXIT_ANY;
    return kind == DK_EXIT_ANY || kind == (dk_can_capture(s->v, n, DK_WHITE) ? DK_EXIT_CAPTURE : DK_EXIT_STORED);
}

/* The test hook on an exit read: this read altered when its turn has come. */
static void hook_exit_read(const dk_solver *s, dk_material m, const dk_pos *n, dk_value e[2])
{
    if (corrupt_in == 0 && exit_kind_is(s, m, n, corrupt_kind)) {
        e[0] = e[0] == DK_DRAW ? dk_value_of_dtw(1) : (dk_value)(e[0] + 2);
        corrupt_in = UINT64_MAX;
    }
}

/* The test hook on a position classified: one fewer to go. */
static void hook_classified(void)
{
    if (corrupt_in != UINT64_MAX && corrupt_in > 0)
        corrupt_in--;
}
#else
void dk_solver_test_corrupt_exit(dk_solver *s, uint64_t after, dk_exit_kind kind) { (void)s, (void)after, (void)kind; }
static inline void hook_exit_read(const dk_solver *s, dk_material m, const dk_pos *n, dk_value e[2])
{
    (void)s, (void)m, (void)n, (void)e;
}
static inline void hook_classified(void) {}
#endif

/* The values of exit n of p (White to move, of material m) as the solver reads them, read
 * again along the check's own path and compared (exitcheck.h). */
static int exit_value(dk_solver *s, const dk_pos *p, dk_material m, const dk_pos *n, dk_value e[2],
                      char *err, size_t errlen)
{
    if (solver_value(s, m, n, e, err, errlen) != 0)
        return -1;
    hook_exit_read(s, m, n, e);
    return dk_exit_check_compare(s->check, s->pair, p, m, n, e, err, errlen);
}

/* First values of position l (p, White to move): from its exits, or final when it must
 * capture or has no move; otherwise the number of king moves still open. The best of the
 * exits is found by this loop's own code, not by query/best.h: verification checks every value
 * the solver settles against dk_best's (the conversions packed in x), and the two agreeing is
 * a check only while they are two. */
static int classify(dk_solver *s, uint32_t l, const dk_pos *p, dk_value conv[2], char *err,
                    size_t errlen)
{
    const dk_variant *v = s->v;
    dk_movelist list; /* the conversions: the captures, or else the man moves */
    bool capture = dk_can_capture(v, p, p->side);
    int internal = 0; /* the king moves, only counted: they stay in the group */
    if (capture) {
        dk_gen_moves(v, p, &list);
    } else {
        dk_gen_quiet_man_moves(v, p, &list);
        internal = dk_count_quiet_king_moves(v, p);
    }
    s->cells[l].flag = capture ? MUST_CAPTURE : 0;
    s->cells[l].cnt = 0;
    s->cells[l].val = DK_DRAW;
    s->cells[l].slowest_loss = DK_DRAW;
    dk_value best_win = DK_DRAW, slowest_loss = DK_DRAW;
    bool draw = false, rule_win = false, rule_draw = false;
    dk_expected x; /* the conversions as verification sees them: its own code, not this one */
    dk_expected_start(&x);
    hook_classified();
    for (int k = 0; k < list.n; k++) {
        const dk_move *m = &list.m[k];
        dk_pos after = dk_apply(p, m);
        dk_pos n = dk_pos_flip(v, &after);
        dk_value e[2];
        if (exit_value(s, p, dk_material_of(&n), &n, e, err, errlen) != 0)
            return -1;
        dk_expected_add(&x, e, true, s->limit);
        dk_value t = dk_value_through(e[0]);
        if (dk_value_is_win(t)) {
            if (best_win == DK_DRAW || t < best_win)
                best_win = t;
        } else if (dk_value_is_draw(t)) {
            draw = true;
        } else if (t > slowest_loss) {
            slowest_loss = t;
        }
        /* every exit is a conversion: the child counts with the counter at 0 */
        rule_win |= dk_rule_is_loss(e[1]);
        rule_draw |= !dk_rule_is_win(e[1]);
    }
    dk_expected_pack(&x, conv);
    int nmoves = list.n + internal;
    if (s->limit)
        classify_rule(s, l, nmoves, internal, rule_win, rule_draw);
    s->cells[l].slowest_loss = slowest_loss;
    if (nmoves == 0) {
        s->cells[l].val = dk_value_of_dtw(0);
        return settle(s, s->cells[l].val, l, err, errlen);
    }
    if (best_win != DK_DRAW) {
        s->cells[l].val = best_win;
        return settle(s, best_win, l, err, errlen);
    }
    if (internal == 0) {
        if (draw) {
            s->cells[l].flag |= DONE;
            return 0;
        }
        s->cells[l].val = slowest_loss;
        return settle(s, slowest_loss, l, err, errlen);
    }
    s->cells[l].cnt = (uint8_t)internal;
    if (draw)
        s->cells[l].flag |= DRAW_EXIT;
    return 0;
}

/* What the final DTW value `val` of a successor tells predecessor l. A predecessor that had to
 * capture was not reached by a quiet move: nothing. */
static int apply_dtw(dk_solver *s, uint32_t l, dk_value val)
{
    if (s->cells[l].flag & (DONE | MUST_CAPTURE))
        return 0;
    dk_value through = dk_value_through(val);
    if (dk_value_is_loss(val)) {
        /* l wins by moving there, and nothing faster was found before this distance */
        if (dk_value_is_win(s->cells[l].val) && s->cells[l].val <= through)
            return 0;
        s->cells[l].val = through;
        return push(s, through, l);
    }
    if (dk_value_is_win(s->cells[l].val))
        return 0;
    if (through > s->cells[l].slowest_loss)
        s->cells[l].slowest_loss = through;
    if (--s->cells[l].cnt == 0 && !(s->cells[l].flag & DRAW_EXIT)) {
        s->cells[l].val = s->cells[l].slowest_loss;
        return push(s, s->cells[l].val, l);
    }
    return 0;
}

/* What the decided rule value r (DTC d < limit) of a successor tells predecessor l: it wins in
 * d + 1 by moving into a loss; it loses in d + 1 once its last open king move leads to a win
 * and no exit holds (its other king moves led to wins settled earlier, in no more plies). */
static int apply_rule(dk_solver *s, uint32_t l, dk_value r)
{
    if ((s->cells[l].flag & (RULE_DONE | MUST_CAPTURE)) || dk_rule_is_win(s->cells[l].rule))
        return 0;
    unsigned d = dk_rule_dtc(r) + 1;
    if (dk_rule_is_loss(r))
        s->cells[l].rule = dk_rule_win(d);
    else if (--s->cells[l].rule_cnt == 0 && !(s->cells[l].flag & RULE_DRAW_EXIT))
        s->cells[l].rule = dk_rule_loss(d);
    else
        return 0;
    return push_at(s, d, l);
}

static int apply(dk_solver *s, bool rule, uint32_t l, dk_value v)
{
    return rule ? apply_rule(s, l, v) : apply_dtw(s, l, v);
}

/* Applies the waiting updates (see dk_solver.pending). */
static int apply_pending(dk_solver *s, bool rule)
{
    const uint32_t *at = s->pending[s->pending_at];
    int n = s->npending;
    s->npending = 0;
    for (int k = 0; k < n; k++)
        if (apply(s, rule, at[k], s->pending_v) != 0)
            return -1;
    return 0;
}

/* Passes the value v of position l (held here) back to its predecessors by quiet king moves:
 * queued for their holder where another rank holds them; where this rank does, their cells
 * are fetched and they wait for the next call (or apply_pending), which applies them. Every
 * such predecessor is a position of the group's other member, ranked by dk_unmove_rank. */
static int send_back(dk_solver *s, const group_ctx *c, uint32_t l, dk_value v, bool rule)
{
    uint64_t i = global_of(&c->L, l);
    int member = member_of(c, i), os = other_member(c, member);
    dk_pos q = group_pos(c, member, i - (uint64_t)member * c->K);
    dk_unmove_ranker u = dk_unmove_ranker_of(c->ix[os], &q);
    dk_bb occ = dk_occupied(&q);
    uint32_t *here = s->pending[s->pending_at ^ 1];
    int n = 0;
    for (dk_bb b = dk_kings(&q, DK_BLACK); b; b &= b - 1) {
        int to = dk_lsb(b);
        dk_unmove_king k = dk_unmove_king_of(&u, to);
        for (dk_bb from = dk_king_reach(s->v, to, occ); from; from &= from - 1) {
            uint32_t at;
            int owner = owner_of(&c->L, (uint64_t)os * c->K + dk_unmove_rank(&k, dk_lsb(from)), &at);
            if (owner == c->L.rank) {
                __builtin_prefetch(&s->cells[at], 1);
                here[n++] = at;
                continue;
            }
            update up = {at, v, 0};
            s->why = "out of memory";
            if (dk_split_box_add(&s->box[owner], &up, sizeof up) != 0)
                return -1;
            s->queued++;
        }
    }
    if (apply_pending(s, rule) != 0)
        return -1;
    s->pending_at ^= 1;
    s->npending = n;
    s->pending_v = v;
    return 0;
}

/* Takes position l of the bucket of distance d: settles it and passes its value back. */
static int take(dk_solver *s, const group_ctx *c, uint32_t l, size_t d, bool rule)
{
    if (rule) {
        s->cells[l].flag |= RULE_DONE;
        return d < s->limit ? send_back(s, c, l, s->cells[l].rule, true) : 0;
    }
    if ((s->cells[l].flag & DONE) || dk_value_dtw(s->cells[l].val) != d)
        return 0; /* settled earlier at a smaller distance */
    s->cells[l].flag |= DONE;
    return send_back(s, c, l, s->cells[l].val, false);
}

static size_t bucket_len(const dk_solver *s, size_t d) { return d < s->nbuckets ? s->buckets[d].n : 0; }

/* The first non-empty bucket from d on, or INT64_MAX. */
static int64_t next_bucket(const dk_solver *s, size_t d)
{
    while (d < s->nbuckets && s->buckets[d].n == 0)
        d++;
    return d < s->nbuckets ? (int64_t)d : INT64_MAX;
}

/* One pass over distances: takes the queued positions in increasing distance up to `last`,
 * passing values back. On several ranks a bucket is taken in rounds, each ended by one exchange
 * that carries the updates for other ranks (at most FLUSH_UPDATES buffered) and every rank's
 * state: whether it has taken its bucket, failed, sent anything, and its next bucket. When all
 * have taken bucket d, the ranks go on at d + 1 if updates just moved (they may land there),
 * else at the smallest bucket any rank holds. Updates from a position at distance d land at
 * d + 1 or beyond, so the order in which a bucket's positions and updates are taken does not
 * change the values: neither a round's updates from other ranks nor the updates send_back holds
 * back until the next position is taken. */
static int run_pass(dk_solver *s, const group_ctx *c, size_t last, bool rule, char *err, size_t errlen)
{
    int status = DK_OK;
    size_t d = 0;
    s->npending = 0;
    if (c->comm) { /* where the first bucket is */
        int64_t w[1] = {next_bucket(s, 0)};
        dk_split_agree(c, w, 1);
        if (w[0] == INT64_MAX)
            return 0;
        d = (size_t)w[0];
    }
    for (size_t k = 0, rounds = 0; d <= last; rounds++) {
        dk_split_report(c, rule ? "solving under the rule" : "solving", d, 0, rounds);
        while (status == 0 && k < bucket_len(s, d) && s->queued < FLUSH_UPDATES)
            if (take(s, c, s->buckets[d].a[k++], d, rule) != 0)
                status = DK_FAILED;
        if (status == 0 && apply_pending(s, rule) != 0)
            status = DK_FAILED;
        if (!c->comm) { /* one rank: the bucket is taken */
            if (status || (d = (size_t)next_bucket(s, d + 1)) == (size_t)INT64_MAX)
                break;
            k = 0;
            continue;
        }
        bool sent = s->queued > 0;
        int64_t w[4] = {k < bucket_len(s, d) ? 0 : 1, status ? -1 : 0, sent ? 0 : 1, next_bucket(s, d + 1)};
        if (dk_split_exchange(s, c, sizeof(update), w, 4) != 0 && status == 0) {
            status = DK_FAILED;
            s->why = "out of memory for the updates of a split unit";
        }
        if (w[1] < 0 && status == 0)
            status = DK_PEER_FAILED;
        const update *u = s->recv;
        for (int r = 0; r < c->L.nranks; r++)
            for (size_t j = 0; j < s->recv_counts[r] && status == 0; j++, u++)
                if (apply(s, rule, u->at, u->v) != 0)
                    status = DK_FAILED;
        if (w[1] < 0)
            break;
        if (w[0] == 1) { /* every rank has taken bucket d */
            if (w[2] == 1 && w[3] == INT64_MAX)
                break; /* nothing queued anywhere, nothing on its way */
            d = w[2] == 1 ? (size_t)w[3] : d + 1;
            k = 0;
        }
    }
    if (c->comm) { /* a failure applying the last round's updates */
        int64_t w[1] = {status == DK_FAILED ? -1 : 0};
        dk_split_agree(c, w, 1);
        if (w[0] < 0 && status == DK_OK)
            status = DK_PEER_FAILED;
    }
    if (status == DK_FAILED)
        return dk_errorf(err, errlen, "%s", s->why);
    if (status == DK_PEER_FAILED)
        return dk_statusf(DK_PEER_FAILED, err, errlen, "another rank sharing the unit failed");
    return DK_OK;
}

/* The rule values of a group whose DTW values are solved: the decided ones in increasing DTC
 * up to the limit, from the exits classify found; the rest take their kind from their DTW. */
static int solve_rule(dk_solver *s, const group_ctx *c, char *err, size_t errlen)
{
    for (size_t b = 0; b < s->nbuckets; b++)
        s->buckets[b].n = 0;
    for (uint32_t l = 0; l < c->L.nlocal; l++)
        if (dk_rule_is_decided(s->cells[l].rule) && push_at(s, dk_rule_dtc(s->cells[l].rule), l))
            return dk_errorf(err, errlen, "%s", s->why);
    return run_pass(s, c, s->limit, true, err, errlen);
}

/* Solves the positions of group c this rank holds into out (local order, stride values each),
 * and packs their conversions into conv (two values each). */
int dk_solver_solve_group(dk_solver *s, const group_ctx *c, dk_value *out, dk_value *conv, char *err,
                          size_t errlen)
{
    size_t n = (size_t)c->L.nlocal;
    if (c->L.nlocal > UINT32_MAX || grow(s, n ? n : 1) != 0)
        return dk_errorf(err, errlen, "out of memory for a group of %llu positions",
                         (unsigned long long)c->L.nlocal);
    for (size_t b = 0; b < s->nbuckets; b++)
        s->buckets[b].n = 0;
    int64_t status = 0;
    held_iter h;
    for (bool more = held_begin(&h, c); more; more = held_next(&h)) {
        if ((h.l & 0xfff) == 0)
            dk_split_report(c, "classifying", h.l, c->L.nlocal, 0);
        if (classify(s, h.l, &h.it.pos, conv + 2 * (size_t)h.l, err, errlen) != 0) {
            status = DK_FAILED;
            break;
        }
    }
    bool mine = status < 0;
    dk_split_agree(c, &status, 1);
    if (status < 0)
        return mine ? DK_FAILED : dk_statusf(DK_PEER_FAILED, err, errlen, "another rank sharing the unit failed");
    int rc = run_pass(s, c, SIZE_MAX, false, err, errlen);
    if (rc != 0)
        return rc;
    for (size_t i = 0; i < n; i++)
        out[i * s->stride] = (dk_value)(((s->cells[i].flag & DONE) ? s->cells[i].val : DK_DRAW) |
                                        ((s->cells[i].flag & MUST_CAPTURE) ? DK_UNIT_CAPTURE : 0));
    if (!s->limit)
        return 0;
    if ((rc = solve_rule(s, c, err, errlen)) != 0)
        return rc;
    for (size_t i = 0; i < n; i++)
        out[i * 2 + 1] = dk_rule_is_decided(s->cells[i].rule) ? s->cells[i].rule
                         : dk_rule_undecided(dk_unit_dtw(out[i * 2]));
    return 0;
}

/* The conversions' array for n positions. */
int dk_solver_grow_conv(dk_solver *s, uint64_t n, char *err, size_t errlen)
{
    if (n <= s->conv_cap)
        return 0;
    dk_big_free(s->conv, s->conv_cap * 2 * sizeof *s->conv);
    s->conv_cap = 0;
    if (!(s->conv = dk_big_alloc((size_t)n * 2 * sizeof *s->conv)))
        return dk_errorf(err, errlen, "out of memory for a unit of %llu positions", (unsigned long long)n);
    s->conv_cap = n;
    return 0;
}

/* Starts a unit of ug's pair: the units above stay open from the last unit when it was of
 * the same pair (the next unit reads mostly the same ones), else are closed. */
void dk_solver_begin_unit(dk_solver *s, const dk_groups *ug)
{
    if (s->pair != ug->pair)
        drop_above(s);
    s->pair = ug->pair;
}

int dk_solve_unit(dk_solver *s, const dk_groups *ug, dk_value *out, char *err, size_t errlen)
{
    dk_solver_begin_unit(s, ug);
    if (dk_solver_grow_conv(s, ug->npositions ? ug->npositions : 1, err, errlen) != 0)
        return -1;
    for (size_t gi = 0; gi < ug->ngroups; gi++) {
        const dk_group *gr = &ug->groups[gi];
        group_ctx c = make_group(ug, gr, NULL);
        if (dk_solver_solve_group(s, &c, out + gr->offset * s->stride, s->conv + 2 * gr->offset, err, errlen) != 0)
            return -1;
    }
    return 0; /* the units above stay open for dk_verify_unit */
}
