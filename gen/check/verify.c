#include "verify.h"

#include "../../index/material.h"
#include "../../query/ctable.h"
#include "../../query/drawrule.h"
#include "../../rules/movegen.h"

void dk_expected_start(dk_expected *x)
{
    dk_best_start(&x->best);
    x->must_capture = false;
}

/* No conversion yet: an impossible value (a through value never has the flag bit). */
#define NO_CONVERSION ((dk_value)0x8000)

void dk_expected_pack(const dk_expected *x, dk_value packed[2])
{
    packed[0] = x->best.rank[0] == INT32_MIN ? NO_CONVERSION : x->best.value[0];
    packed[1] = x->best.value[1];
}

void dk_expected_unpack(dk_expected *x, const dk_value packed[2], unsigned limit)
{
    dk_expected_start(x);
    if (packed[0] == NO_CONVERSION)
        return;
    x->best.value[0] = packed[0];
    x->best.rank[0] = dk_value_rank(packed[0]);
    if (limit) {
        x->best.value[1] = packed[1];
        x->best.rank[1] = dk_rule_rank(packed[1]);
    }
}

int dk_expected_values(const dk_variant *v, const dk_pos *p, unsigned limit, dk_value_fn get,
                       void *ctx, dk_value out[2], char *err, size_t errlen)
{
    dk_best best;
    dk_best_start(&best);
    dk_movelist list;
    dk_gen_moves(v, p, &list);
    for (int k = 0; k < list.n; k++) {
        const dk_move *m = &list.m[k];
        dk_pos after = dk_apply(p, m);
        dk_value e[2] = {dk_value_of_dtw(0), dk_rule_loss(0)};
        if (after.pieces[after.side]) {
            dk_pos n = dk_pos_flip(v, &after);
            if (get(ctx, dk_material_of(&n), &n, e, err, errlen) != 0)
                return -1;
        }
        dk_best_add(&best, e, dk_move_converts(p, m), 0, limit);
    }
    out[0] = best.value[0];
    out[1] = best.value[1];
    return 0;
}

bool dk_values_pass(const dk_value stored[2], const dk_value expect[2], unsigned limit)
{
    if (stored[0] != expect[0])
        return false;
    return !limit || (stored[1] == expect[1] &&
                      dk_rule_theory(stored[1]) == dk_value_of_code(dk_code_of(stored[0])));
}

/* The expected values of p, which has no capture: its quiet king moves ranked in the turned
 * material's subslice turned_men, its man moves through r->get. */
static int expected_quiet(const dk_index *ix, const dk_pos *p, uint64_t turned_men, unsigned limit,
                          const dk_verify_reads *r, dk_value out[2], char *err, size_t errlen)
{
    const dk_variant *v = ix->v;
    dk_best best;
    dk_best_start(&best);
    const uint64_t base = turned_men * r->turned->kings_count;
    const dk_bb occ = dk_occupied(p);
    dk_quiet_ranker q = dk_quiet_ranker_of(r->turned, p);
    for (dk_bb b = dk_kings(p, DK_WHITE); b; b &= b - 1) {
        const int from = dk_lsb(b);
        dk_quiet_king k = dk_quiet_king_of(&q, from);
        for (dk_bb to = dk_king_reach(v, from, occ); to; to &= to - 1) {
            dk_value e[2];
            if (r->quiet(r->ctx, base + dk_quiet_rank(&k, dk_lsb(to)), p, from, dk_lsb(to), e, err, errlen) != 0)
                return -1;
            dk_best_add(&best, e, false, 0, limit);
        }
    }
    dk_movelist list;
    dk_gen_moves(v, p, &list);
    for (int m = 0; m < list.n; m++) {
        if (p->kings & dk_bit(list.m[m].from))
            continue;
        dk_pos after = dk_apply(p, &list.m[m]), n = dk_pos_flip(v, &after);
        dk_value e[2];
        if (r->get(r->ctx, dk_material_of(&n), &n, e, err, errlen) != 0)
            return -1;
        dk_best_add(&best, e, true, 0, limit);
    }
    out[0] = best.value[0];
    out[1] = best.value[1];
    return 0;
}

int dk_verify_subslices(const dk_index *ix, uint64_t men_lo, uint64_t men_hi, unsigned limit,
                        const dk_verify_reads *r, uint64_t *bad, char *err, size_t errlen)
{
    for (uint64_t men = men_lo; men < men_hi; men++) {
        dk_subslice_iter it;
        dk_subslice_begin(&it, ix, men);
        /* every quiet king move of the subslice leads to one subslice of the turned material */
        const dk_pos turned = dk_pos_flip(ix->v, &it.pos);
        const uint64_t turned_men = dk_index_men_rank(r->turned, turned.pieces[DK_WHITE] & ~turned.kings,
                                                      turned.pieces[DK_BLACK] & ~turned.kings);
        do {
            if (dk_can_capture(ix->v, &it.pos, DK_WHITE))
                continue;
            const uint64_t i = men * ix->kings_count + it.kings_index;
            dk_value values[2], expect[2];
            if (r->stored(r->ctx, i, &it.pos, values, err, errlen) != 0 ||
                expected_quiet(ix, &it.pos, turned_men, limit, r, expect, err, errlen) != 0)
                return -1;
            if (!dk_values_pass(values, expect, limit)) {
                *bad = i;
                return 1;
            }
        } while (dk_subslice_next(&it));
    }
    return 0;
}
