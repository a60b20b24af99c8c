/* Positions as bitboards, and moves as the retrograde code uses them. */
#ifndef DK_POSITION_H
#define DK_POSITION_H

#include <stdbool.h>
#include <stddef.h>
#include "variant.h"

typedef struct dk_pos {
    dk_bb pieces[2]; /* by colour, men and kings */
    dk_bb kings;     /* kings of either colour */
    int side;        /* colour to move */
} dk_pos;

/* A move: the piece on `from` goes to `to` (equal for a king that captures round a
 * cycle), the pieces on `captures` are removed, a man that ends on its promotion row
 * becomes a king (`promotes`). The same struct describes an un-move: the move that led
 * from a predecessor to the current position. */
typedef struct dk_move {
    dk_bb captures;
    uint8_t from, to;
    uint8_t ncaptures;
    uint8_t promotes;
} dk_move;

/* Enough for any legal position: 20 pieces with at most 17 king moves each; captures are
 * deduplicated by (from, to, captured set). */
enum { DK_MAX_MOVES = 768 };

typedef struct dk_movelist {
    int n;
    dk_move m[DK_MAX_MOVES];
} dk_movelist;

static inline dk_bb dk_occupied(const dk_pos *p) { return p->pieces[0] | p->pieces[1]; }
static inline dk_bb dk_men(const dk_pos *p, int c) { return p->pieces[c] & ~p->kings; }
static inline dk_bb dk_kings(const dk_pos *p, int c) { return p->pieces[c] & p->kings; }

/* Why a position is not legal for its variant. */
typedef enum {
    DK_POS_OK = 0,
    DK_POS_OVERLAP,       /* a square holds a white and a black piece */
    DK_POS_OFF_BOARD,     /* a piece on a square the board does not have */
    DK_POS_MAN_ON_PROMO,  /* a man on its own promotion row */
    DK_POS_TOO_MANY,      /* more pieces on a side than a side starts with */
    DK_POS_BAD_SIDE,      /* side to move is neither colour */
} dk_pos_error;

/* Checks the position against the variant's rules. Pure; thread-safe. */
dk_pos_error dk_pos_check(const dk_variant *v, const dk_pos *p);

/* One line describing the error (static string). */
const char *dk_pos_error_text(dk_pos_error e);

/* What a position (or a FEN, dk_fen_read) is to the game: the one classification every
 * interface answers by (docs/cli.md has the table of its answers). */
typedef enum dk_verdict {
    DK_VERDICT_PLAY = 0,   /* a legal position with a piece on each side: the tables' business */
    DK_VERDICT_GAME_OVER,  /* legal, and the side to move has no piece: it has lost (a loss in
                            * 0 plies, without any table) */
    DK_VERDICT_IMPOSSIBLE, /* no game reaches it: dk_pos_check fails (a man on its own promotion
                            * row, too many pieces on a side, ...), or the side not to move has
                            * no piece (no move loses the mover's own pieces; an empty board) */
    DK_VERDICT_MALFORMED,  /* a text that is not a FEN of the variant (dk_fen_read only) */
} dk_verdict;

/* Whether a verdict is bad input, refused before any work (exit status 2, HTTP 400). */
static inline bool dk_verdict_refused(dk_verdict k) { return k >= DK_VERDICT_IMPOSSIBLE; }

/* Classifies p for v: PLAY, GAME_OVER, or IMPOSSIBLE with one line in err (err may be NULL).
 * Pure; thread-safe. */
dk_verdict dk_pos_verdict(const dk_variant *v, const dk_pos *p, char *err, size_t errlen);

/* The start position, White to move. */
dk_pos dk_pos_start(const dk_variant *v);

/* The position after move m (a move of p->side). Pure. */
static inline dk_pos dk_apply(const dk_pos *p, const dk_move *m)
{
    /* Built from scalars and returned whole: storing into q.pieces[us] and then copying q
     * stalls on store forwarding (a narrow indexed store read back by a wide load). */
    dk_bb from = dk_bit(m->from), to = dk_bit(m->to);
    int us = p->side, them = us ^ 1;
    dk_bb mine = (p->pieces[us] & ~from) | to, theirs = p->pieces[them] & ~m->captures;
    dk_bb kings = p->kings & ~(m->captures | from);
    if ((p->kings & from) || m->promotes)
        kings |= to;
    dk_pos q = {{us == DK_WHITE ? mine : theirs, us == DK_WHITE ? theirs : mine}, kings, them};
    return q;
}

/* The predecessor of p through un-move m (a quiet move of the side not to move in p). Pure. */
static inline dk_pos dk_unapply(const dk_pos *p, const dk_move *m)
{
    /* scalars, as in dk_apply */
    dk_bb from = dk_bit(m->from), to = dk_bit(m->to);
    int mover = p->side ^ 1;
    dk_bb moved = (p->pieces[mover] & ~to) | from, other = p->pieces[p->side];
    dk_bb kings = p->kings & ~to;
    if ((p->kings & to) && !m->promotes)
        kings |= from;
    dk_pos q = {{mover == DK_WHITE ? moved : other, mover == DK_WHITE ? other : moved}, kings, mover};
    return q;
}

/* Turning the board by 180 degrees maps square s to nsq-1-s: a bit reversal. */
static inline dk_bb dk_rotate_bb(const dk_variant *v, dk_bb b)
{
    b = __builtin_bswap64(b);
    b = ((b >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((b & 0x0F0F0F0F0F0F0F0Full) << 4);
    b = ((b >> 2) & 0x3333333333333333ull) | ((b & 0x3333333333333333ull) << 2);
    b = ((b >> 1) & 0x5555555555555555ull) | ((b & 0x5555555555555555ull) << 1);
    return b >> (64 - v->nsq);
}

/* The same position turned 180 degrees with colours swapped: White to move becomes Black
 * to move of the mirrored material, and the game value is unchanged. Pure. */
static inline dk_pos dk_pos_flip(const dk_variant *v, const dk_pos *p)
{
    dk_pos q;
    q.pieces[DK_WHITE] = dk_rotate_bb(v, p->pieces[DK_BLACK]);
    q.pieces[DK_BLACK] = dk_rotate_bb(v, p->pieces[DK_WHITE]);
    q.kings = dk_rotate_bb(v, p->kings);
    q.side = p->side ^ 1;
    return q;
}

static inline bool dk_pos_equal(const dk_pos *a, const dk_pos *b)
{
    return a->pieces[0] == b->pieces[0] && a->pieces[1] == b->pieces[1] && a->kings == b->kings &&
           a->side == b->side;
}

static inline bool dk_move_equal(const dk_move *a, const dk_move *b)
{
    return a->from == b->from && a->to == b->to && a->captures == b->captures &&
           a->promotes == b->promotes;
}

#endif
