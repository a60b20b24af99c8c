/* Squares, moves and positions as text: PDN FEN and move notation. */
#ifndef DK_NOTATION_H
#define DK_NOTATION_H

#include <stddef.h>
#include "position.h"

enum { DK_FEN_MAX = 256, DK_MOVE_TEXT_MAX = 96, DK_ERR_MAX = 160 };

/* Parses one square, numeric ("28") or, on 8x8, algebraic ("c3"), at *text; advances
 * *text past it. Returns the square (0-based) or -1. Pure. */
int dk_square_parse(const dk_variant *v, const char **text);

/* The most bytes of a FEN as given (surrounding blanks and quotes included). */
enum { DK_FEN_TEXT_MAX = 255 };

/* Reads the len bytes at text (NULs included: a NUL is refused, not an end) as a PDN FEN of v,
 * the one parser of every interface: "W:W31-50:B1-20", "B:WK3,28:B12", on 8x8 "W:Wa1,c3:Bh8";
 * the side to move, then the white and the black pieces in either order, ranges, K for kings;
 * surrounding blanks and quotes and a final period are dropped; lidraughts' fields :H<n> (its
 * halfmove clock, which counts moves since a drawn material appeared: not the draw rule's
 * counter) and :F<n> (the move number) may follow the pieces and are ignored. Returns the
 * verdict (dk_verdict): PLAY or GAME_OVER with the position in *out; IMPOSSIBLE or MALFORMED
 * with one line in err (*out untouched). Pure; thread-safe. */
dk_verdict dk_fen_read(const dk_variant *v, const char *text, size_t len, dk_pos *out, char *err,
                       size_t errlen);

/* dk_fen_read of a NUL-terminated fen: 0 for PLAY or GAME_OVER, else -1 with err. Pure. */
int dk_fen_parse(const dk_variant *v, const char *fen, dk_pos *out, char *err, size_t errlen);

/* Writes p as FEN with numeric squares (or algebraic); returns the length. */
int dk_fen_format(const dk_variant *v, const dk_pos *p, bool algebraic, char *buf, size_t len);

/* Writes move i of list ("32-28", "28x19", "c3-d4", "c3xe5"). When another capture of the
 * list has the same from and to squares, the captured squares follow in parentheses, as
 * "26x8(12,17)", so that every move of a list reads differently. Returns the length. */
int dk_move_format(const dk_variant *v, const dk_movelist *list, int i, bool algebraic, char *buf,
                   size_t len);

/* Finds the move of list that text names (any form dk_move_format writes, numeric or
 * algebraic; for captures "from x to" is enough when it is unique). Returns its index,
 * -1 if none, -2 if ambiguous. */
int dk_move_parse(const dk_variant *v, const dk_movelist *list, const char *text);

#endif
