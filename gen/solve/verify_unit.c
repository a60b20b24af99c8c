/* The forward check of a solved unit (solve.h): every position's value against the best its
 * moves reach (verify.h), read from the unit itself, the units above and the finished tables. */
#include "solve.h"

#include "../../rules/errors.h"
#include "../../rules/movegen.h"
#include "solve_internal.h"

/* Adds to x the values of the successors of p (held here, on `member` of group c) by quiet king
 * moves, unless p must capture, which x records. Every such successor is a position of the
 * group's other member, ranked by dk_quiet_rank from p's squares. One this rank holds is read from
 * `values` (the group's, local order); one another rank holds is asked for, the question queued
 * for that rank with `slot` (the chunk slot of p), and added when the answer comes. Returns 0,
 * or -1 with one line in err. */
int dk_solver_verify_quiet(dk_solver *s, const group_ctx *c, const dk_pos *p, int member,
                           const dk_value *values, uint32_t slot, dk_expected *x, char *err,
                           size_t errlen)
{
    const dk_variant *v = s->v;
    if ((x->must_capture = dk_can_capture(v, p, p->side)))
        return 0;
    int os = other_member(c, member);
    dk_quiet_ranker q = dk_quiet_ranker_of(c->ix[os], p);
    dk_bb occ = dk_occupied(p);
    const dk_value *here[DK_MAX_MOVES]; /* fetched from memory together, then added */
    int n = 0;
    for (dk_bb b = dk_kings(p, DK_WHITE); b; b &= b - 1) {
        int from = dk_lsb(b);
        dk_quiet_king k = dk_quiet_king_of(&q, from);
        for (dk_bb to = dk_king_reach(v, from, occ); to; to &= to - 1) {
            uint32_t l;
            int r = owner_of(&c->L, (uint64_t)os * c->K + dk_quiet_rank(&k, dk_lsb(to)), &l);
            if (r == c->L.rank) {
                here[n] = values + (size_t)l * s->stride;
                __builtin_prefetch(here[n++]);
            } else if (dk_split_box_add(&s->box[r], &l, sizeof l) != 0 || dk_split_box_add(&s->slots[r], &slot, sizeof slot) != 0) {
                return dk_errorf(err, errlen, "out of memory");
            }
        }
    }
    for (int k = 0; k < n; k++) {
        dk_value e[2] = {dk_unit_dtw(here[k][0]), s->stride > 1 ? here[k][1] : DK_RULE_DRAW};
        dk_expected_add(x, e, false, s->limit);
    }
    return 0;
}

/* Whether position l's stored values are the expected ones x, its capture flag included. */
bool dk_solver_passes(const dk_solver *s, const dk_value *values, uint32_t l, const dk_expected *x)
{
    const dk_value *at = values + (size_t)l * s->stride;
    dk_value stored[2] = {dk_unit_dtw(at[0]), s->stride > 1 ? at[1] : DK_RULE_DRAW};
    return ((at[0] & DK_UNIT_CAPTURE) != 0) == x->must_capture && dk_values_pass(stored, x->best.value, s->limit);
}

int dk_verify_unit(dk_solver *s, const dk_groups *ug, const dk_value *values, uint64_t *bad_group,
                   int *bad_member, uint64_t *bad_kings, char *err, size_t errlen)
{
    for (size_t gi = 0; gi < ug->ngroups; gi++) {
        const dk_group *gr = &ug->groups[gi];
        group_ctx c = make_group(ug, gr, NULL);
        const dk_value *gv = values + gr->offset * s->stride, *conv = s->conv + 2 * gr->offset;
        held_iter h;
        for (bool more = held_begin(&h, &c); more; more = held_next(&h)) {
            dk_expected x;
            dk_expected_unpack(&x, conv + 2 * (size_t)h.l, s->limit);
            if (dk_solver_verify_quiet(s, &c, &h.it.pos, h.member, gv, 0, &x, err, errlen) != 0)
                return DK_FAILED;
            if (!dk_solver_passes(s, gv, h.l, &x)) {
                *bad_group = gi;
                *bad_member = h.member;
                *bad_kings = h.i - (uint64_t)h.member * c.K;
                return DK_WRONG_VALUE;
            }
        }
    }
    return DK_OK;
}
