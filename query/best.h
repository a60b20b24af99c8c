/* The value of a position from the values of its moves, the one place that says it: the probe
 * resolving a capture position, the generator's reader of finished tables, verification and
 * move ranking all take their values through these functions (the solver's classify keeps
 * code of its own on purpose, so that verification checks it: gen/solve/verify_unit.c).
 *
 * A move leads to a child whose stored values are those of the opponent to move: a DTW value
 * (value.h; a WLD value is one without distance: the best of WLD values ranks right, and
 * dk_value_of_code takes its distance away) and, with a draw rule, a rule value
 * (drawrule.h) stored with the counter at 0. The mover's values through the move are
 * dk_value_through of the first and dk_rule_through of the second: a conversion (a capture or
 * a man move) reads the child at counter 0 and has a DTC of 1; a quiet king move reads it at
 * counter + 1, where a win or loss whose DTC no longer fits the plies left is cursed or blessed,
 * a draw under the rule.
 *
 * The position's value is the best of its moves' for the side to move: by dk_value_rank in DTW
 * (the fastest win, else a draw, else the slowest loss) and, independently, by dk_rule_rank
 * under the rule (win with the shortest DTC, cursed win, draw, blessed loss, loss with the
 * longest DTC). Among equal ranks the first move added stays (the values are equal). A position
 * without a move has lost in 0 plies, in both. The two may come from different moves.
 *
 * Every function here is pure (it touches only its arguments): thread-safe. */
#ifndef DK_BEST_H
#define DK_BEST_H

#include <stdint.h>

#include "../rules/position.h"
#include "drawrule.h"
#include "value.h"

/* Whether move m of p is a conversion, which resets the draw rule's counter: a capture, or a
 * move of a man. */
static inline bool dk_move_converts(const dk_pos *p, const dk_move *m)
{
    return m->captures || !(p->kings & dk_bit(m->from));
}

/* The mover's values through one move, with the counter at `counter` (< limit) before it:
 * out[0] from the child's DTW value child[0]; with a draw rule of `limit` plies (limit > 0),
 * out[1] from the child's stored rule value child[1], else DK_RULE_DRAW (child[1] unread). */
static inline void dk_move_values(const dk_value child[2], bool conversion, unsigned counter,
                                  unsigned limit, dk_value out[2])
{
    out[0] = dk_value_through(child[0]);
    out[1] = limit ? dk_rule_through(child[1], conversion, counter, limit) : DK_RULE_DRAW;
}

/* The best values through the moves added so far. */
typedef struct dk_best {
    int32_t rank[2];   /* dk_value_rank of value[0], dk_rule_rank of value[1]; INT32_MIN: none added */
    dk_value value[2]; /* DTW (or WLD) and rule value; loss in 0 until a move is added */
} dk_best;

/* No move yet: the values of a position without a move (loss in 0 plies, DTC 0). */
static inline void dk_best_start(dk_best *b)
{
    *b = (dk_best){{INT32_MIN, INT32_MIN}, {dk_value_of_dtw(0), dk_rule_loss(0)}};
}

/* Keeps t, of rank r, as value k if it ranks above the best so far. */
static inline void dk_best_keep(dk_best *b, int k, dk_value t, int32_t r)
{
    if (r > b->rank[k]) {
        b->rank[k] = r;
        b->value[k] = t;
    }
}

/* Adds a move to a child of stored values child[0] (DTW or WLD) and child[1] (rule value, read
 * only when limit > 0), a conversion or a quiet king move, the counter at `counter` before it
 * (0 <= counter < limit), under a draw rule of `limit` plies (0: no rule; value[1] stays). */
static inline void dk_best_add(dk_best *b, const dk_value child[2], bool conversion, unsigned counter,
                               unsigned limit)
{
    dk_value t[2];
    dk_move_values(child, conversion, counter, limit, t);
    dk_best_keep(b, 0, t[0], dk_value_rank(t[0]));
    if (limit)
        dk_best_keep(b, 1, t[1], dk_rule_rank(t[1]));
}

/* The same in one metric: a move to a child of DTW (or WLD) value `child` (value[1] stays). */
static inline void dk_best_add_dtw(dk_best *b, dk_value child)
{
    dk_value t = dk_value_through(child);
    dk_best_keep(b, 0, t, dk_value_rank(t));
}

/* The same under the rule alone: a move to a child of stored rule value `child` (value[0]
 * stays). A conversion needs no limit (pass 0). */
static inline void dk_best_add_rule(dk_best *b, dk_value child, bool conversion, unsigned counter,
                                    unsigned limit)
{
    dk_value t = dk_rule_through(child, conversion, counter, limit);
    dk_best_keep(b, 1, t, dk_rule_rank(t));
}

#endif
