/* What a run is made of before any task: the work graph of its targets and room in each
 * rank's memory for its largest task. `damka gen` and `damka plan` both call these, so that
 * plan forecasts the very graph and budget gen would use. */
#ifndef DK_SETUP_H
#define DK_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "../index/workgraph.h"
#include "budget.h"
#include "generate.h"

/* The work graph of o's targets: o->only and what they depend on, else every material of
 * o->v up to o->pieces pieces with at most o->per_side a side; units of at most unit_positions
 * positions. Returns NULL when out of memory or a material is invalid. Thread-safe. */
dk_workgraph *dk_setup_graph(const dk_gen_options *o, uint64_t unit_positions);

/* The positions of g's largest unit and of its largest pair (both materials). Thread-safe. */
void dk_setup_largest(const dk_workgraph *g, uint64_t *unit, uint64_t *pair);

/* Makes room in b for g's largest tasks, lowering b's cache: a unit above the bound (one
 * subslice too large to cut) and finishing the largest pair, with a draw rule of `limit` plies.
 * Returns 0, or -1 with one line in err when the memory cannot hold them. Pure. */
int dk_setup_reserve(const dk_workgraph *g, unsigned limit, dk_budget *b, char *err, size_t errlen);

#endif
