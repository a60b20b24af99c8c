#include "rank.h"

#include "../rules/movegen.h"

dk_tb_status dk_tb_rank_moves(dk_tablebase *tb, const dk_pos *p, dk_movelist *list,
                              dk_value values[DK_MAX_MOVES])
{
    return dk_tb_rank_moves_in(tb, p, DK_METRIC_DTW, list, values);
}

dk_tb_status dk_tb_rank_moves_in(dk_tablebase *tb, const dk_pos *p, dk_metric metric,
                                 dk_movelist *list, dk_value values[DK_MAX_MOVES])
{
    dk_gen_moves(dk_tb_variant(tb), p, list);
    for (int i = 0; i < list->n; i++) {
        dk_pos after = dk_apply(p, &list->m[i]);
        dk_value v;
        dk_tb_status st = dk_tb_probe(tb, &after, metric, &v);
        if (st != DK_TB_OK)
            return st;
        values[i] = dk_value_through(v);
        if (metric == DK_METRIC_WLD)
            values[i] = dk_value_of_code(dk_code_of(values[i]));
    }
    /* insertion sort: stable, and lists are short */
    for (int i = 1; i < list->n; i++) {
        dk_move m = list->m[i];
        dk_value v = values[i];
        int j = i;
        for (; j > 0 && dk_value_rank(values[j - 1]) < dk_value_rank(v); j--) {
            list->m[j] = list->m[j - 1];
            values[j] = values[j - 1];
        }
        list->m[j] = m;
        values[j] = v;
    }
    return DK_TB_OK;
}
