#include "verify.h"

#include "../rules/movegen.h"
#include "../index/material.h"

int dk_expected_value(const dk_variant *v, const dk_pos *p, dk_value_fn get, void *ctx,
                      dk_value *out, char *err, size_t errlen)
{
    dk_movelist list;
    dk_gen_moves(v, p, &list);
    if (list.n == 0) {
        *out = dk_value_of_dtw(0);
        return 0;
    }
    int32_t best_rank = INT32_MIN;
    for (int k = 0; k < list.n; k++) {
        dk_pos after = dk_apply(p, &list.m[k]);
        dk_value e;
        if (!after.pieces[after.side]) {
            e = dk_value_of_dtw(0);
        } else {
            dk_pos n = dk_pos_flip(v, &after);
            if (get(ctx, dk_material_of(&n), &n, &e, err, errlen) != 0)
                return -1;
        }
        dk_value t = dk_value_through(e);
        if (dk_value_rank(t) > best_rank) {
            best_rank = dk_value_rank(t);
            *out = t;
        }
    }
    return 0;
}

int dk_verify_subslices(const dk_index *ix, uint64_t men_lo, uint64_t men_hi, dk_value_fn get,
                        void *ctx, uint64_t *bad, char *err, size_t errlen)
{
    for (uint64_t men = men_lo; men < men_hi; men++) {
        dk_subslice_iter it;
        dk_subslice_begin(&it, ix, men);
        do {
            dk_value stored, expect;
            if (get(ctx, ix->m, &it.pos, &stored, err, errlen) != 0 ||
                dk_expected_value(ix->v, &it.pos, get, ctx, &expect, err, errlen) != 0)
                return -1;
            if (stored != expect) {
                *bad = men * ix->kings_count + it.kings_index;
                return 1;
            }
        } while (dk_subslice_next(&it));
    }
    return 0;
}
