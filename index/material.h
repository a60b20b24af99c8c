/* Materials: how many men and kings each side has.
 *
 * Tables are stored for White to move only: a Black-to-move position is turned by dk_pos_flip
 * into a White-to-move position of the colour-swapped material (its twin), which has the
 * same value. Materials are ordered so that everything a material's moves can reach comes
 * first: fewer pieces first (captures), then fewer men (promotions). */
#ifndef DK_MATERIAL_H
#define DK_MATERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "../rules/position.h"

typedef struct dk_material {
    uint8_t wm, wk, bm, bk; /* white men, white kings, black men, black kings */
} dk_material;
_Static_assert(sizeof(dk_material) == 4, "dk_material_equal compares a material as one word");

/* "2m1k-0m1k" is at most 4 two-digit counts and 5 separators. */
enum { DK_MATERIAL_NAME_MAX = 16 };

static inline int dk_material_pieces(dk_material m) { return m.wm + m.wk + m.bm + m.bk; }
static inline int dk_material_men(dk_material m) { return m.wm + m.bm; }
static inline bool dk_material_equal(dk_material a, dk_material b)
{
    /* one word compared, not four bytes one by one */
    uint32_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

/* The colour-swapped material: where the Black-to-move positions of m are stored. Pure. */
static inline dk_material dk_material_twin(dk_material m)
{
    dk_material t = {m.bm, m.bk, m.wm, m.wk};
    return t;
}

/* <0, 0, >0 as a comes before, equals or follows b in the generation order. Pure. */
int dk_material_cmp(dk_material a, dk_material b);

/* The most pieces of a material the index is made for: 10 on 8x8, 9 on 10x10 (DK_MATERIAL_MAX_PIECES,
 * the larger, sizes arrays indexed by material). Every count and index up to it fits 64 bits with
 * room (the largest material, International 2m2k-2m3k, has 12,383,939,937,600 positions, below
 * 2^44), and tests/test_index.c checks every count against a closed form; beyond it the work graph
 * and the tables are far out of reach. Pure. */
enum { DK_MATERIAL_MAX_PIECES = 10 };
int dk_material_max_pieces(const dk_variant *v);

/* Whether m is a material of variant v that has tables: each side has at least one piece and
 * at most v->men_per_side pieces. Pure. */
bool dk_material_valid(const dk_variant *v, dk_material m);

/* Every valid material of v with 2..max_pieces pieces and at most max_per_side pieces a side
 * (0: no limit besides v->men_per_side), in generation order. Writes up to cap of them to out
 * (out may be NULL when cap is 0) and returns how many there are. Pure; thread-safe. */
size_t dk_material_list(const dk_variant *v, int max_pieces, int max_per_side, dk_material *out,
                        size_t cap);

/* Writes "%dm%dk-%dm%dk" (white men, white kings, black men, black kings); returns its length. */
int dk_material_name(dk_material m, char *buf, size_t len);

/* Parses a name written by dk_material_name. Returns 0, or -1 if text is not one. Pure. */
int dk_material_parse(const char *text, dk_material *out);

/* The material of position p (whichever side is to move). Pure. */
static inline dk_material dk_material_of(const dk_pos *p)
{
    dk_material m = {(uint8_t)dk_popcount(dk_men(p, DK_WHITE)), (uint8_t)dk_popcount(dk_kings(p, DK_WHITE)),
                     (uint8_t)dk_popcount(dk_men(p, DK_BLACK)), (uint8_t)dk_popcount(dk_kings(p, DK_BLACK))};
    return m;
}

#endif
