/* Values under the draw rule (docs/draw-rule.md): the game is drawn once L plies in a row were
 * quiet king moves (a king moving without capturing); a capture or a man move (a conversion)
 * resets the count. What a rule-aware table stores, per position with the count at 0, is a
 * `dk_value` in this encoding:
 *
 *   0              draw (a game-theoretic draw)
 *   1              cursed win: a game-theoretic win that the rule turns into a draw
 *   2              blessed loss: a game-theoretic loss that the rule turns into a draw
 *   4 + 2*d + 1    win, d plies to conversion (DTC; d >= 1)
 *   4 + 2*d        loss, d plies to conversion (d >= 0; 0: no legal move)
 *
 * DTC of a win is the smallest budget r of plies (r = L - counter) with which the side to move
 * still wins; of a loss, the smallest with which it still loses. Both are at most L. Cursed
 * wins and blessed losses carry no distance. A position met with the counter at c is won under
 * the rule exactly when it is stored as a win with DTC <= L - c (lost likewise), else it is a
 * draw under the rule of the same game-theoretic kind (dk_rule_at). */
#ifndef DK_DRAWRULE_H
#define DK_DRAWRULE_H

#include "value.h"

enum {
    DK_RULE_DRAW = 0,
    DK_RULE_CURSED_WIN = 1,
    DK_RULE_BLESSED_LOSS = 2,
    DK_RULE_DECIDED = 4,      /* first encoded win/loss */
    DK_RULE_MAX_LIMIT = 30000 /* the largest L in plies: every value fits a dk_value */
};

/* Categories, ordered for the side to move: larger is better. */
typedef enum {
    DK_CAT_LOSS = -2,
    DK_CAT_BLESSED_LOSS = -1,
    DK_CAT_DRAW = 0,
    DK_CAT_CURSED_WIN = 1,
    DK_CAT_WIN = 2,
} dk_category;

static inline dk_value dk_rule_win(unsigned dtc) { return (dk_value)(DK_RULE_DECIDED + 2 * dtc + 1); }
static inline dk_value dk_rule_loss(unsigned dtc) { return (dk_value)(DK_RULE_DECIDED + 2 * dtc); }
static inline bool dk_rule_is_decided(dk_value r) { return r >= DK_RULE_DECIDED; }
static inline bool dk_rule_is_win(dk_value r) { return r >= DK_RULE_DECIDED && (r & 1); }
static inline bool dk_rule_is_loss(dk_value r) { return r >= DK_RULE_DECIDED && !(r & 1); }

/* Plies to conversion of a decided value. */
static inline unsigned dk_rule_dtc(dk_value r) { return (unsigned)(r - DK_RULE_DECIDED) >> 1; }

static inline dk_category dk_rule_category(dk_value r)
{
    if (r >= DK_RULE_DECIDED)
        return (r & 1) ? DK_CAT_WIN : DK_CAT_LOSS;
    return r == DK_RULE_CURSED_WIN ? DK_CAT_CURSED_WIN
           : r == DK_RULE_BLESSED_LOSS ? DK_CAT_BLESSED_LOSS : DK_CAT_DRAW;
}

/* The game-theoretic result a rule value implies, as a WLD-like dk_value (dk_value_of_code
 * style: 2 a win, 1 a loss, DK_DRAW): the rule only turns wins and losses into draws. */
static inline dk_value dk_rule_theory(dk_value r)
{
    dk_category c = dk_rule_category(r);
    return c > 0 ? 2 : c < 0 ? 1 : DK_DRAW;
}

/* The undecided value of a position whose game-theoretic value is v (a DTW or WLD value). */
static inline dk_value dk_rule_undecided(dk_value v)
{
    return dk_value_is_draw(v) ? DK_RULE_DRAW : dk_value_is_win(v) ? DK_RULE_CURSED_WIN : DK_RULE_BLESSED_LOSS;
}

/* The value with the counter at c (0 <= c <= limit) of a position whose stored value (counter
 * 0) is r: decided only if its DTC fits in the plies left. */
static inline dk_value dk_rule_at(dk_value r, unsigned c, unsigned limit)
{
    if (r < DK_RULE_DECIDED || dk_rule_dtc(r) + c <= limit)
        return r;
    return (r & 1) ? DK_RULE_CURSED_WIN : DK_RULE_BLESSED_LOSS;
}

/* The mover's value, with the counter at c (c < limit), through a move to a child whose
 * stored value is `child` (for the opponent, counter 0). A conversion (capture or man move)
 * resets the counter: the child counts at 0 and the DTC of the move is 1. A quiet king move
 * reads the child at c + 1 and adds one ply to its DTC. */
static inline dk_value dk_rule_through(dk_value child, bool conversion, unsigned c, unsigned limit)
{
    dk_value at = conversion ? child : dk_rule_at(child, c + 1, limit);
    if (at < DK_RULE_DECIDED)
        return at == DK_RULE_CURSED_WIN ? DK_RULE_BLESSED_LOSS
               : at == DK_RULE_BLESSED_LOSS ? DK_RULE_CURSED_WIN : DK_RULE_DRAW;
    unsigned d = conversion ? 1 : dk_rule_dtc(at) + 1;
    return (at & 1) ? dk_rule_loss(d) : dk_rule_win(d);
}

/* A key ordering values for the side to move, larger is better: by category (win, cursed win,
 * draw, blessed loss, loss), the fastest conversion among wins, the slowest among losses. The
 * best move by this key carries the position's own value (the recurrence of DTC). */
static inline int32_t dk_rule_rank(dk_value r)
{
    dk_category c = dk_rule_category(r);
    if (c == DK_CAT_WIN)
        return 0x40000 - (int32_t)dk_rule_dtc(r);
    if (c == DK_CAT_LOSS)
        return -0x40000 + (int32_t)dk_rule_dtc(r);
    return (int32_t)c;
}

#endif
