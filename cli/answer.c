#include "answer.h"

#include <stdio.h>

#include "../query/rank.h"
#include "../rules/notation.h"

dk_status answer_probe(const answer_src *s, const dk_pos *p, unsigned counter, answer *a)
{
    a->p = *p;
    a->counter = counter;
    a->value = DK_DRAW;
    a->rule = DK_RULE_DRAW;
    dk_status st = dk_tb_probe(s->tb, p, DK_METRIC_DTW, &a->value);
    if (st == DK_OK && s->limit)
        st = dk_tb_probe(s->tb, p, DK_METRIC_DTC, &a->rule);
    a->rule = dk_rule_at(a->rule, counter, s->limit);
    if (st != DK_OK)
        return st;
    if (answer_moves_under_rule(s->limit, counter))
        return dk_tb_rank_moves_rule(s->tb, p, counter, s->limit, &a->list, a->values, a->rules);
    return dk_tb_rank_moves(s->tb, p, &a->list, a->values);
}

/* A probe's failure as said to a user: of a table where it is one's. */
static const char *status_text(dk_status st)
{
    return st == DK_DAMAGED ? "damaged table" : st == DK_IO ? "unreadable table" : dk_status_text(st);
}

void answer_why_not(const answer_src *s, const dk_pos *p, dk_status st, char *err, size_t len)
{
    int pieces = dk_popcount(dk_occupied(p)), most = s->held.most_pieces[s->v->id];
    bool both = p->pieces[DK_WHITE] && p->pieces[DK_BLACK];
    if (both && (st == DK_MISSING || st == DK_REFUSED) && pieces > most)
        snprintf(err, len, "not in the tables: the position has %d pieces, the tables in %.1500s hold at most %d",
                 pieces, s->dir, most);
    else if (both && pieces > dk_material_max_pieces(s->v))
        snprintf(err, len, "not in the tables: the position has %d pieces, no table holds more than %d", pieces,
                 dk_material_max_pieces(s->v));
    else if (st == DK_MISSING && dk_tb_max_pieces(s->tb) >= 2)
        snprintf(err, len, "not in the tables: no table file %.1500s (the tables in %.1500s hold every "
                 "material up to %d pieces)", dk_tb_last_error(), s->dir, dk_tb_max_pieces(s->tb));
    else if (st == DK_MISSING)
        snprintf(err, len, "not in the tables: no table file %.1500s", dk_tb_last_error());
    else if (st == DK_REFUSED)
        snprintf(err, len, "not a position the tables hold (the side not to move has no piece)");
    else
        snprintf(err, len, "%s (%.1500s)", status_text(st), dk_tb_last_error()[0] ? dk_tb_last_error() : s->dir);
}

/* "loss", "blessed-loss", "draw", "cursed-win", "win": a rule value's category. Pure. */
static const char *category_name(dk_value r)
{
    static const char *const names[] = {"loss", "blessed-loss", "draw", "cursed-win", "win"};
    return names[dk_rule_category(r) - DK_CAT_LOSS];
}

const char *answer_result_name(dk_value v)
{
    return dk_value_is_draw(v) ? "draw" : dk_value_is_win(v) ? "win" : "loss";
}

/* "rule": {"limit": L, "counter": C, "category": ..., "dtc": n or null}. */
static void json_rule(dk_json *w, dk_value r, unsigned limit, unsigned counter)
{
    dk_json_object(w, "rule");
    dk_json_u64(w, "limit", limit);
    dk_json_u64(w, "counter", counter);
    dk_json_string(w, "category", category_name(r));
    if (dk_rule_is_decided(r))
        dk_json_u64(w, "dtc", dk_rule_dtc(r));
    else
        dk_json_null(w, "dtc");
    dk_json_end(w);
}

/* "result": ..., "dtw": n or null. */
static void json_value(dk_json *w, dk_value v)
{
    dk_json_string(w, "result", answer_result_name(v));
    if (dk_value_is_draw(v))
        dk_json_null(w, "dtw");
    else
        dk_json_u64(w, "dtw", dk_value_dtw(v));
}

void answer_json(dk_json *w, const answer_src *s, const answer *a, const char *canon, const answer_extra *x)
{
    const dk_movelist *list = &a->list;
    dk_json_object(w, NULL);
    dk_json_string(w, "fen", canon);
    json_value(w, a->value);
    if (s->limit)
        json_rule(w, a->rule, s->limit, a->counter);
    else
        dk_json_null(w, "rule");
    if (x && x->position)
        x->position(w, a, x->ctx);
    dk_json_array(w, "moves");
    for (int i = 0; i < list->n; i++) {
        char text[DK_MOVE_TEXT_MAX];
        dk_move_format(s->v, list, i, s->v->algebraic, text, sizeof text);
        dk_json_object(w, NULL);
        dk_json_string(w, "notation", text);
        dk_json_u64(w, "from", list->m[i].from + 1u);
        dk_json_u64(w, "to", list->m[i].to + 1u);
        dk_json_array(w, "captures");
        for (dk_bb c = list->m[i].captures; c; c &= c - 1)
            dk_json_u64(w, NULL, dk_lsb(c) + 1u);
        dk_json_end(w);
        json_value(w, a->values[i]);
        if (answer_moves_under_rule(s->limit, a->counter))
            json_rule(w, a->rules[i], s->limit, a->counter);
        else /* no rule tables, or the counter at the limit: the members are the same in every answer */
            dk_json_null(w, "rule");
        if (x && x->move)
            x->move(w, a, i, x->ctx);
        dk_json_end(w);
    }
    dk_json_end(w);
    dk_json_end(w);
}
