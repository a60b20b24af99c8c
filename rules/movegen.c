#include "movegen.h"

#include <stddef.h>

/* State of one capture search: the board stays as it was (Turkish strike), the moving
 * piece's square counts as empty. Under the majority rule only the longest sequences are
 * kept; without it (Russian) every complete one. */
typedef struct capture_search {
    const dk_variant *v;
    dk_bb enemy;  /* pieces that may be captured */
    dk_bb empty;  /* squares a capturing piece may cross or land on */
    int from;
    int best;
    dk_movelist *list;
} capture_search;

static void record(capture_search *cs, int to, dk_bb captured, int n, bool promotes)
{
    dk_movelist *l = cs->list;
    if (cs->v->majority) {
        if (n < cs->best)
            return;
        if (n > cs->best) {
            cs->best = n;
            l->n = 0;
        }
    }
    /* (from, to, captures) names one move even where men are crowned in passing: a route that
     * crowned its man took a piece on the row next to the last, and a man that never reaches
     * the last row cannot take one there */
    for (int i = 0; i < l->n; i++)
        if (l->m[i].to == to && l->m[i].captures == captured && l->m[i].from == cs->from)
            return;
    if (l->n < DK_MAX_MOVES)
        l->m[l->n++] = (dk_move){captured, (uint8_t)cs->from, (uint8_t)to, (uint8_t)n, promotes};
}

/* Whether a king on s, having taken `captured`, can take one more piece (not back along
 * `back`, where the piece just taken still stands). */
static bool king_can_go_on(const capture_search *cs, int s, dk_bb captured, int back)
{
    const dk_variant *v = cs->v;
    dk_bb occ = ~cs->empty;
    for (int d = 0; d < 4; d++) {
        if (d == back || !(v->ray[s][d] & cs->enemy & ~captured))
            continue;
        int b;
        dk_slide(v, s, d, occ, &b);
        if (b >= 0 && (cs->enemy & ~captured & dk_bit(b)) && v->nb[b][d] >= 0 &&
            (cs->empty & dk_bit(v->nb[b][d])))
            return true;
    }
    return false;
}

static void king_captures(capture_search *cs, int s, dk_bb captured, int n, int back, bool crowned);

/* Both searches go on from a landing square in every direction but back the way the piece
 * came (`back`, -1 at the start): that way the first piece met is the one just captured, which
 * stays on the board and cannot be captured twice. */
static void man_captures(capture_search *cs, int s, dk_bb captured, int n, int colour, int back)
{
    const dk_variant *v = cs->v;
    bool more = false;
    for (int d = 0; d < 4; d++) {
        if (d == back)
            continue;
        int m = v->nb[s][d];
        if (m < 0 || !(cs->enemy & ~captured & dk_bit(m)))
            continue;
        int t = v->nb[m][d];
        if (t < 0 || !(cs->empty & dk_bit(t)))
            continue;
        more = true;
        if (v->crown_in_capture && (v->promo[colour] & dk_bit(t)))
            king_captures(cs, t, captured | dk_bit(m), n + 1, dk_opposite_dir(d), true);
        else
            man_captures(cs, t, captured | dk_bit(m), n + 1, colour, dk_opposite_dir(d));
    }
    if (!more && n > 0)
        record(cs, s, captured, n, (v->promo[colour] & dk_bit(s)) != 0);
}

/* `crowned`: a man that became a king during this capture. */
static void king_captures(capture_search *cs, int s, dk_bb captured, int n, int back, bool crowned)
{
    const dk_variant *v = cs->v;
    dk_bb occ = ~cs->empty;
    bool more = false;
    for (int d = 0; d < 4; d++) {
        if (d == back || !(v->ray[s][d] & cs->enemy & ~captured))
            continue; /* back, or no piece left to capture on the ray */
        int b;
        dk_slide(v, s, d, occ, &b);
        if (b < 0 || !(cs->enemy & ~captured & dk_bit(b)))
            continue;
        int after;
        dk_bb land = dk_slide(v, b, d, occ, &after);
        if (!v->majority) {
            /* the king must land where it can go on capturing, if there is such a square (the
             * majority rule implies this, so only the other variants need it) */
            dk_bb on = 0;
            for (dk_bb l = land; l; l &= l - 1)
                if (king_can_go_on(cs, dk_lsb(l), captured | dk_bit(b), dk_opposite_dir(d)))
                    on |= l & -l;
            if (on)
                land = on;
        }
        while (land) {
            int t = dk_lsb(land);
            land &= land - 1;
            more = true;
            king_captures(cs, t, captured | dk_bit(b), n + 1, dk_opposite_dir(d), crowned);
        }
    }
    if (!more && n > 0)
        record(cs, s, captured, n, crowned);
}

/* The legal captures of colour c into list (under the majority rule the longest); returns
 * whether there is any. */
static bool gen_captures(const dk_variant *v, const dk_pos *p, int c, dk_movelist *list)
{
    capture_search cs = {v, p->pieces[c ^ 1], 0, 0, 1, list};
    list->n = 0;
    dk_bb own = p->pieces[c];
    dk_bb occ = dk_occupied(p);
    for (dk_bb b = own; b; b &= b - 1) {
        int s = dk_lsb(b);
        cs.from = s;
        cs.empty = v->all & ~(occ & ~dk_bit(s));
        if (p->kings & dk_bit(s))
            king_captures(&cs, s, 0, 0, -1, false);
        else
            man_captures(&cs, s, 0, 0, c, -1);
    }
    return list->n > 0;
}

bool dk_can_capture(const dk_variant *v, const dk_pos *p, int c)
{
    dk_bb enemy = p->pieces[c ^ 1];
    dk_bb occ = dk_occupied(p);
    dk_bb empty = v->all & ~occ;
    for (dk_bb b = dk_men(p, c); b; b &= b - 1) {
        int s = dk_lsb(b);
        for (int d = 0; d < 4; d++) {
            int m = v->nb[s][d];
            if (m >= 0 && (enemy & dk_bit(m)) && v->nb[m][d] >= 0 && (empty & dk_bit(v->nb[m][d])))
                return true;
        }
    }
    for (dk_bb b = dk_kings(p, c); b; b &= b - 1) {
        int s = dk_lsb(b);
        for (int d = 0; d < 4; d++) {
            dk_bb hit = v->ray[s][d] & occ;
            if (!(hit & enemy))
                continue; /* no enemy on the ray: nothing to find, the common case */
            int blk = dk_nearest(hit, d);
            if ((enemy & dk_bit(blk)) && v->nb[blk][d] >= 0 && (empty & dk_bit(v->nb[blk][d])))
                return true;
        }
    }
    return false;
}

static void add_all(dk_movelist *l, int from, dk_bb targets, dk_bb promo)
{
    for (; targets; targets &= targets - 1) {
        int to = dk_lsb(targets);
        l->m[l->n++] = (dk_move){0, (uint8_t)from, (uint8_t)to, 0, (promo & dk_bit(to)) != 0};
    }
}

enum { QUIET_MEN = 1, QUIET_KINGS = 2 };

/* The quiet moves of p->side's men and/or kings (kinds): into list, or only counted when list
 * is NULL. */
static int quiet_moves(const dk_variant *v, const dk_pos *p, dk_movelist *list, unsigned kinds)
{
    int c = p->side, n = 0;
    dk_bb occ = dk_occupied(p);
    if (list)
        list->n = 0;
    for (dk_bb b = (kinds & QUIET_MEN) ? dk_men(p, c) : 0; b; b &= b - 1) {
        int s = dk_lsb(b);
        dk_bb to = v->step[c][s] & ~occ;
        if (list)
            add_all(list, s, to, v->promo[c]);
        n += dk_popcount(to);
    }
    for (dk_bb b = (kinds & QUIET_KINGS) ? dk_kings(p, c) : 0; b; b &= b - 1) {
        int s = dk_lsb(b);
        dk_bb to = dk_king_reach(v, s, occ);
        if (list)
            add_all(list, s, to, 0);
        n += dk_popcount(to);
    }
    return n;
}

int dk_gen_moves(const dk_variant *v, const dk_pos *p, dk_movelist *list)
{
    if (gen_captures(v, p, p->side, list))
        return list->n;
    return quiet_moves(v, p, list, QUIET_MEN | QUIET_KINGS);
}

int dk_gen_quiet_king_moves(const dk_variant *v, const dk_pos *p, dk_movelist *list)
{
    return quiet_moves(v, p, list, QUIET_KINGS);
}

int dk_gen_quiet_man_moves(const dk_variant *v, const dk_pos *p, dk_movelist *list)
{
    return quiet_moves(v, p, list, QUIET_MEN);
}

int dk_count_quiet_king_moves(const dk_variant *v, const dk_pos *p)
{
    return quiet_moves(v, p, NULL, QUIET_KINGS);
}

int dk_count_moves(const dk_variant *v, const dk_pos *p)
{
    dk_movelist list;
    if (dk_can_capture(v, p, p->side))
        return gen_captures(v, p, p->side, &list) ? list.n : 0;
    return quiet_moves(v, p, NULL, QUIET_MEN | QUIET_KINGS);
}

/* Adds un-move from->to unless the mover had a capture in the predecessor. */
static void add_unmove(const dk_variant *v, const dk_pos *p, dk_movelist *l, int from, int to,
                       bool promotes)
{
    dk_move m = {0, (uint8_t)from, (uint8_t)to, 0, promotes};
    dk_pos q = dk_unapply(p, &m);
    if (!dk_can_capture(v, &q, q.side))
        l->m[l->n++] = m;
}

int dk_gen_unmoves(const dk_variant *v, const dk_pos *p, dk_movelist *list)
{
    int c = p->side ^ 1; /* the colour that has just moved */
    dk_bb occ = dk_occupied(p);
    dk_bb empty = v->all & ~occ;
    list->n = 0;
    /* a man came one step back: from a square where a man of the other colour would step */
    for (dk_bb b = dk_men(p, c); b; b &= b - 1) {
        int s = dk_lsb(b);
        for (dk_bb from = v->step[c ^ 1][s] & empty; from; from &= from - 1)
            add_unmove(v, p, list, dk_lsb(from), s, false);
    }
    for (dk_bb b = dk_kings(p, c); b; b &= b - 1) {
        int s = dk_lsb(b);
        for (dk_bb from = dk_king_reach(v, s, occ); from; from &= from - 1)
            add_unmove(v, p, list, dk_lsb(from), s, false);
        dk_bb back = (v->promo[c] & dk_bit(s)) ? v->step[c ^ 1][s] & empty : 0;
        for (dk_bb from = back; from; from &= from - 1)
            add_unmove(v, p, list, dk_lsb(from), s, true);
    }
    return list->n;
}

