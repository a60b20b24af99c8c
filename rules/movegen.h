/* Legal moves, captures and un-moves of each variant (docs/rules.md, "Moves"). */
#ifndef DK_MOVEGEN_H
#define DK_MOVEGEN_H

#include "position.h"

/* Every legal move of p->side, each once: if any capture exists, only the captures (Turkish
 * strike, flying kings, men capturing backwards): under the majority rule those of the largest
 * number of pieces, else every complete one (v->majority, v->crown_in_capture); otherwise the
 * non-capture moves. Returns the count (also in list->n). p must pass
 * dk_pos_check. Thread-safe (no shared state). */
int dk_gen_moves(const dk_variant *v, const dk_pos *p, dk_movelist *list);

/* The quiet moves of p->side's kings: its legal king moves when it has no capture
 * (dk_can_capture), for a caller that reads the others elsewhere. Returns their number. */
int dk_gen_quiet_king_moves(const dk_variant *v, const dk_pos *p, dk_movelist *list);

/* The quiet moves of p->side's men (its legal man moves when it has no capture), and the
 * number of its quiet king moves without the list: for a caller that needs the moves that
 * convert and only counts the others. Thread-safe. */
int dk_gen_quiet_man_moves(const dk_variant *v, const dk_pos *p, dk_movelist *list);
int dk_count_quiet_king_moves(const dk_variant *v, const dk_pos *p);

/* The number of legal moves, without building the list when there is no capture. */
int dk_count_moves(const dk_variant *v, const dk_pos *p);

/* Whether colour c (to move or not) has a capture in p. */
bool dk_can_capture(const dk_variant *v, const dk_pos *p, int c);

/* Every non-capture move of the side NOT to move in p that leads to p: king moves, men
 * moves backwards, and promotions undone (a king on the mover's promotion row that was a
 * man one step back). Predecessors where the mover had a capture (and so could not make
 * a quiet move) are left out. Apply dk_unapply to get each predecessor. Returns the
 * count. Thread-safe. */
int dk_gen_unmoves(const dk_variant *v, const dk_pos *p, dk_movelist *list);

#endif
