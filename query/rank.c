#include "rank.h"

#include "../rules/movegen.h"
#include "best.h"
#include "drawrule.h"

dk_status dk_tb_rank_moves(dk_tablebase *tb, const dk_pos *p, dk_movelist *list,
                              dk_value values[DK_MAX_MOVES])
{
    return dk_tb_rank_moves_in(tb, p, DK_METRIC_DTW, list, values);
}

/* The sort key of move i, larger first: its DTW rank (dk_value_rank); with rule values, first
 * its category under the rule, and among moves of one category and one DTW, the shorter
 * conversion of a win and the longer one of a loss (dk_rule_rank). */
static int64_t key(const dk_value *values, const dk_value *rule, int i)
{
    int64_t k = (int64_t)dk_value_rank(values[i]) * ((int64_t)1 << 20); /* |rank| < 2^18 */
    if (!rule)
        return k;
    dk_category c = dk_rule_category(rule[i]);
    int64_t dtc = c == DK_CAT_WIN ? -(int64_t)dk_rule_dtc(rule[i]) : c == DK_CAT_LOSS ? dk_rule_dtc(rule[i]) : 0;
    return (int64_t)c * ((int64_t)1 << 40) + k + dtc; /* |dtc| <= DK_RULE_MAX_LIMIT < 2^19 */
}

/* Insertion sort of the moves by key, best first: stable, and lists are short. */
static void sort_moves(dk_movelist *list, dk_value *values, dk_value *rule)
{
    for (int i = 1; i < list->n; i++) {
        dk_move m = list->m[i];
        dk_value v = values[i], r = rule ? rule[i] : 0;
        int64_t k = key(values, rule, i);
        int j = i;
        for (; j > 0 && key(values, rule, j - 1) < k; j--) {
            list->m[j] = list->m[j - 1];
            values[j] = values[j - 1];
            if (rule)
                rule[j] = rule[j - 1];
        }
        list->m[j] = m;
        values[j] = v;
        if (rule)
            rule[j] = r;
    }
}

dk_status dk_tb_rank_moves_in(dk_tablebase *tb, const dk_pos *p, dk_metric metric,
                                 dk_movelist *list, dk_value values[DK_MAX_MOVES])
{
    dk_gen_moves(dk_tb_variant(tb), p, list);
    for (int i = 0; i < list->n; i++) {
        dk_pos after = dk_apply(p, &list->m[i]);
        dk_value v;
        dk_status st = dk_tb_probe(tb, &after, metric, &v);
        if (st != DK_OK)
            return st;
        values[i] = dk_value_through(v);
        if (metric == DK_METRIC_WLD)
            values[i] = dk_value_of_code(dk_code_of(values[i]));
    }
    sort_moves(list, values, NULL);
    return DK_OK;
}

dk_status dk_tb_rank_moves_rule(dk_tablebase *tb, const dk_pos *p, unsigned counter,
                                   unsigned limit, dk_movelist *list, dk_value dtw[DK_MAX_MOVES],
                                   dk_value rule[DK_MAX_MOVES])
{
    dk_gen_moves(dk_tb_variant(tb), p, list);
    for (int i = 0; i < list->n; i++) {
        const dk_move *m = &list->m[i];
        dk_pos after = dk_apply(p, m);
        dk_value child[2], t[2];
        dk_status st = dk_tb_probe(tb, &after, DK_METRIC_DTW, &child[0]);
        if (st == DK_OK)
            st = dk_tb_probe(tb, &after, DK_METRIC_DTC, &child[1]);
        if (st != DK_OK)
            return st;
        dk_move_values(child, dk_move_converts(p, m), counter, limit, t);
        dtw[i] = t[0];
        rule[i] = t[1];
    }
    sort_moves(list, dtw, rule);
    return DK_OK;
}
