#include "verify.h"

#include "../rules/movegen.h"
#include "../index/material.h"

int dk_expected_value(const dk_variant *v, const dk_pos *p, dk_value_fn get, void *ctx,
                      dk_value *out, bool *capture, char *err, size_t errlen)
{
    dk_movelist list;
    dk_gen_moves(v, p, &list);
    *capture = list.n > 0 && list.m[0].captures != 0;
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
                        void *ctx, uint8_t *must_capture, uint64_t *bad, char *err, size_t errlen)
{
    for (uint64_t men = men_lo; men < men_hi; men++) {
        dk_subslice_iter it;
        dk_subslice_begin(&it, ix, men);
        do {
            dk_value stored, expect;
            bool capture;
            uint64_t i = men * ix->kings_count + it.kings_index;
            if (get(ctx, ix->m, &it.pos, &stored, err, errlen) != 0 ||
                dk_expected_value(ix->v, &it.pos, get, ctx, &expect, &capture, err, errlen) != 0)
                return -1;
            if (stored != expect) {
                *bad = i;
                return 1;
            }
            if (capture && must_capture)
                must_capture[i / 8] |= (uint8_t)(1u << (i % 8));
        } while (dk_subslice_next(&it));
    }
    return 0;
}
