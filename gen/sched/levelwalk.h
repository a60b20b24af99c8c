/* The placements of men of one advancement level (subslice.h) within a range of men_index,
 * found without walking the others.
 *
 * A men_index is, inside a class of the index (index/perfect.h), a white configuration's rank
 * times the number of black configurations plus the black configuration's rank. Black men's
 * squares, numbered upwards, lie on rows that never go down, and a black man's weight is its
 * row: for each white configuration of the range, the black configurations of the weight the
 * level leaves are enumerated directly, in ascending rank, their largest square first, a
 * branch entered only if the sums of the lightest and heaviest squares left can reach the
 * weight still missing. A unit of work lists its own subslices this way at a cost in
 * proportion to them (plus one step a white configuration of its range), where walking the
 * range would unrank every placement of every level. */
#ifndef DK_LEVELWALK_H
#define DK_LEVELWALK_H

#include <stdint.h>
#include "../../index/perfect.h"

/* Called for each placement found: its men_index and its men. Returns 0 to go on, anything else
 * to stop the walk, which then returns it. */
typedef int (*dk_level_visit)(void *ctx, uint64_t men_index, dk_bb wmen, dk_bb bmen);

/* Calls visit for each placement of men of ix's material at advancement level `level`
 * (dk_men_level) whose men_index lies in [lo, hi), in ascending men_index. Returns 0, or what
 * visit returned to stop. Thread-safe (ix is only read). */
int dk_level_walk(const dk_index *ix, int level, uint64_t lo, uint64_t hi, dk_level_visit visit, void *ctx);

#endif
