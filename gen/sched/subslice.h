/* Subslices: the positions of a material that share one placement of men.
 *
 * Men only move forward, so advancement orders them: level = sum over white men of
 * (size - 1 - row) + sum over black men of row (row 0 is farthest from White). Any man move of
 * either colour raises the level by exactly 1 and keeps the material; a king move keeps the
 * subslice; captures reach materials with fewer pieces, promotions materials with one man fewer
 * and one king more. Turning the board (dk_pos_flip) keeps the level, so a material and its
 * twin have the same levels. */
#ifndef DK_SUBSLICE_H
#define DK_SUBSLICE_H

#include <stddef.h>
#include <stdint.h>
#include "../../index/material.h"

/* What a man of `colour` on square s adds to the level: the rows it has advanced. Pure. */
static inline int dk_man_weight(const dk_variant *v, int colour, int s)
{
    return colour == DK_WHITE ? v->size - 1 - v->row[s] : v->row[s];
}

/* The advancement level of a placement of men. Pure; thread-safe. */
int dk_men_level(const dk_variant *v, dk_bb wmen, dk_bb bmen);

/* The highest level a placement of m's men could have (levels are 0..this). Pure. */
static inline int dk_max_level(const dk_variant *v, dk_material m)
{
    return (m.wm + m.bm) * (v->size - 2);
}

/* Fills counts[0..dk_max_level(v, m)] with the number of subslices of m at each level (a count
 * over squares, no enumeration). Returns 0, or -1 if out of memory. Thread-safe. */
int dk_level_counts(const dk_variant *v, dk_material m, uint64_t *counts);

/* The placement of men turned 180 degrees with colours swapped: the men of the twin
 * material's subslice that holds the Black-to-move positions of (wmen, bmen). Pure. */
void dk_men_flip(const dk_variant *v, dk_bb wmen, dk_bb bmen, dk_bb *flip_w, dk_bb *flip_b);

/* The materials, in normal form (White to move, so the colour-swapped material of the position
 * after the move), that a move by White from a position of m reaches by a capture or a
 * promotion. A superset of what occurs (any number of captured men and kings, with or without
 * promotion), which keeps the order right; materials where Black has no piece left are omitted
 * (the game is over there). Writes up to cap to out and returns how many there are. Pure. */
size_t dk_material_exits(const dk_variant *v, dk_material m, dk_material *out, size_t cap);

#endif
