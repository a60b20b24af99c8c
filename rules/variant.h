/* Board geometry of a draughts variant: squares, diagonals, rays, rows.
 *
 * Squares are numbered 0..nsq-1 internally; the PDN number of square s is s+1.
 * Row 0 is the row farthest from White. Bit s of a bitboard is square s.
 * Geometry tables are built once per variant and are read-only afterwards. */
#ifndef DK_VARIANT_H
#define DK_VARIANT_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t dk_bb;

enum { DK_WHITE = 0, DK_BLACK = 1 };

/* Directions as seen from White: north is towards row 0 (Black's side). */
enum { DK_NW = 0, DK_NE = 1, DK_SW = 2, DK_SE = 3 };

enum { DK_MAX_SQ = 50 };

/* The ids are stored in table files: never renumber them. */
typedef enum { DK_BRAZILIAN = 0, DK_INTERNATIONAL = 1, DK_RUSSIAN = 2, DK_NVARIANTS } dk_variant_id;

typedef struct dk_variant {
    dk_variant_id id;
    const char *name;     /* "brazilian", "international", "russian" */
    int gametype;         /* PDN GameType: 26, 20, 25 */
    int size;             /* board side: 8 or 10 */
    int nsq;              /* dark squares: 32 or 50 */
    int men_per_side;     /* 12 or 20: also the most pieces a side may have */
    int algebraic;        /* official notation is algebraic (a1..h8) */
    int draw_rule_moves;  /* the draw rule: drawn after this many quiet king moves a player
                           * (15 on 8x8, 25 under FMJD rules on 10x10; 2x as many plies) */
    /* Where the capture rules differ (docs/rules.md, "Captures" and "Promotion"): */
    bool majority;        /* only the captures of the most pieces are legal (Brazilian,
                           * International); else any complete capture (Russian) */
    bool crown_in_capture; /* a man reaching its promotion row mid-capture is crowned there and
                            * goes on capturing as a king (Russian); else it goes on as a man */
    dk_bb all;            /* every square */
    dk_bb promo[2];       /* promotion row of each colour (White: row 0) */
    dk_bb man_ok[2];      /* squares a man of each colour may stand on */
    dk_bb start[2];       /* men of the start position */
    int8_t row[DK_MAX_SQ], col[DK_MAX_SQ];
    int8_t nb[DK_MAX_SQ][4];  /* neighbour in each direction, -1 off the board */
    dk_bb ray[DK_MAX_SQ][4];  /* every square beyond s in a direction */
    dk_bb step[2][DK_MAX_SQ]; /* the squares a man of each colour on s moves to */
} dk_variant;

/* The variant by name ("brazilian", "international", "russian", case-insensitive) or PDN
 * GameType number ("26", "20", "25"). Returns NULL if unknown. Thread-safe; tables are built on first use. */
const dk_variant *dk_variant_find(const char *name);

/* The variant by id. Thread-safe. */
const dk_variant *dk_variant_get(dk_variant_id id);

/* Directions in which men of colour c move forward, and backward. */
static inline int dk_forward_dir(int colour, int k) { return colour == DK_WHITE ? k : 2 + k; }
static inline int dk_backward_dir(int colour, int k) { return colour == DK_WHITE ? 2 + k : k; }
static inline int dk_opposite_dir(int d) { return 3 - d; }

static inline dk_bb dk_bit(int s) { return (dk_bb)1 << s; }
static inline int dk_lsb(dk_bb b) { return __builtin_ctzll(b); }
static inline int dk_msb(dk_bb b) { return 63 - __builtin_clzll(b); }
static inline int dk_popcount(dk_bb b) { return __builtin_popcountll(b); }

/* The first square of set `b` (non-empty, on one ray) seen from the ray's origin: south
 * directions run towards higher square numbers, north ones towards lower. */
static inline int dk_nearest(dk_bb b, int dir) { return dir >= DK_SW ? dk_lsb(b) : dk_msb(b); }

/* Squares a flying piece on s reaches in direction d before the first occupied square
 * (the blocker itself excluded); *blocker gets that square or -1. */
static inline dk_bb dk_slide(const dk_variant *v, int s, int d, dk_bb occ, int *blocker)
{
    dk_bb ray = v->ray[s][d];
    dk_bb hit = ray & occ;
    if (!hit) {
        *blocker = -1;
        return ray;
    }
    int b = dk_nearest(hit, d);
    *blocker = b;
    return ray & ~(v->ray[b][d] | dk_bit(b));
}

/* Every square a flying king on s reaches over empty squares. */
static inline dk_bb dk_king_reach(const dk_variant *v, int s, dk_bb occ)
{
    dk_bb r = 0;
    for (int d = 0; d < 4; d++) {
        int blk;
        r |= dk_slide(v, s, d, occ, &blk);
    }
    return r;
}

/* The square turned by 180 degrees. */
static inline int dk_rotate_sq(const dk_variant *v, int s) { return v->nsq - 1 - s; }

#endif
