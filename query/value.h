/* Game values as tables store them: draw, or win/loss with the distance to win (DTW).
 *
 * A value is 0 for a draw (also "not yet known" while solving) and n+1 when the game ends in n
 * plies with best play: n odd, the side to move wins; n even, it loses (LOSS 0: no legal move).
 * The encoding makes the value of a move trivial: the mover's value through a move to a
 * position of value s (seen by the opponent) is s+1, or a draw when s is a draw. */
#ifndef DK_VALUE_H
#define DK_VALUE_H

#include <stdbool.h>
#include <stdint.h>

typedef uint16_t dk_value;

enum { DK_DRAW = 0, DK_VALUE_MAX = 0xffff };

static inline dk_value dk_value_of_dtw(unsigned plies) { return (dk_value)(plies + 1); }
static inline bool dk_value_is_draw(dk_value v) { return v == DK_DRAW; }
static inline bool dk_value_is_win(dk_value v) { return v != DK_DRAW && (v & 1) == 0; }
static inline bool dk_value_is_loss(dk_value v) { return v != DK_DRAW && (v & 1) == 1; }
static inline unsigned dk_value_dtw(dk_value v) { return (unsigned)v - 1; }

/* The mover's value through a move that reaches a position of value `after`. */
static inline dk_value dk_value_through(dk_value after)
{
    return after == DK_DRAW ? DK_DRAW : (dk_value)(after + 1);
}

/* A key that orders values for the side to move, larger is better: the fastest win, then a
 * draw, then the slowest loss. */
static inline int32_t dk_value_rank(dk_value v)
{
    if (v == DK_DRAW)
        return 0;
    return dk_value_is_win(v) ? 0x20000 - (int32_t)v : -0x20000 + (int32_t)v;
}

#endif
