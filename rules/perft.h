/* Perft: the number of leaf positions of the legal move tree, a check of move generation
 * against published numbers. */
#ifndef DK_PERFT_H
#define DK_PERFT_H

#include "position.h"

/* Leaves at `depth` plies from p (each move counted once, as published). Thread-safe. */
uint64_t dk_perft(const dk_variant *v, const dk_pos *p, int depth);

#endif
