/* Every legal move of a position with the value it leads to, best first. */
#ifndef DK_RANK_H
#define DK_RANK_H

#include "tablebase.h"

/* The legal moves of p into list, reordered best first for the side to move (fastest win,
 * then draws, then slowest loss; ties keep generation order), and values[i] the value of
 * move i for the side making it, counted from p (so the best move carries p's own value).
 * Returns DK_OK, or the status of the first successor that has no value. Thread-safe. */
dk_status dk_tb_rank_moves(dk_tablebase *tb, const dk_pos *p, dk_movelist *list,
                              dk_value values[DK_MAX_MOVES]);

/* The same in metric WLD or DTW (dk_tb_probe). */
dk_status dk_tb_rank_moves_in(dk_tablebase *tb, const dk_pos *p, dk_metric metric,
                                 dk_movelist *list, dk_value values[DK_MAX_MOVES]);

/* The legal moves of p into list with, for each, dtw[i] its DTW value and rule[i] its value under
 * the draw rule of `limit` plies with the counter at `counter` (< limit) before the move (both
 * for the side making it, counted from p; drawrule.h): a conversion reads the child's DTC table
 * at counter 0, a quiet king move at counter + 1. Reordered best first under the rule: by
 * category (win, cursed win, draw, blessed loss, loss), then by DTW as dk_tb_rank_moves does,
 * then by DTC (the shorter conversion of a win first, the longer one of a loss); ties keep
 * generation order. Returns DK_OK, or the status of the first successor that has
 * no value. Thread-safe. */
dk_status dk_tb_rank_moves_rule(dk_tablebase *tb, const dk_pos *p, unsigned counter,
                                   unsigned limit, dk_movelist *list, dk_value dtw[DK_MAX_MOVES],
                                   dk_value rule[DK_MAX_MOVES]);

#endif
