#include "perft.h"

#include "movegen.h"

uint64_t dk_perft(const dk_variant *v, const dk_pos *p, int depth)
{
    if (depth <= 0)
        return 1;
    if (depth == 1)
        return (uint64_t)dk_count_moves(v, p);
    dk_movelist list;
    dk_gen_moves(v, p, &list);
    uint64_t n = 0;
    for (int i = 0; i < list.n; i++) {
        dk_pos q = dk_apply(p, &list.m[i]);
        n += dk_perft(v, &q, depth - 1);
    }
    return n;
}
