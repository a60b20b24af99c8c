#include "verify.h"

#include "../index/material.h"
#include "../query/ctable.h"
#include "../query/drawrule.h"
#include "../rules/movegen.h"

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

int dk_verify_subslices(const dk_index *ix, uint64_t men_lo, uint64_t men_hi, unsigned limit,
                        dk_stored_fn stored, dk_value_fn get, void *ctx, uint64_t *bad, char *err,
                        size_t errlen)
{
    for (uint64_t men = men_lo; men < men_hi; men++) {
        dk_subslice_iter it;
        dk_subslice_begin(&it, ix, men);
        do {
            if (dk_can_capture(ix->v, &it.pos, DK_WHITE))
                continue;
            const uint64_t i = men * ix->kings_count + it.kings_index;
            dk_value values[2], expect[2];
            if (stored(ctx, i, &it.pos, values, err, errlen) != 0 ||
                dk_expected_values(ix->v, &it.pos, limit, get, ctx, expect, err, errlen) != 0)
                return -1;
            if (!dk_values_pass(values, expect, limit)) {
                *bad = i;
                return 1;
            }
        } while (dk_subslice_next(&it));
    }
    return 0;
}
