/* What a run is made of before any task: the work graph of its targets and room in each
 * rank's memory for its largest task. `damka gen` and `damka plan` both call these, so that
 * plan forecasts the very graph and budget gen would use. */
#ifndef DK_SETUP_H
#define DK_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "generate.h"
#include "workgraph.h"

/* The work graph of o's targets: o->only and what they depend on, else every material of
 * o->v up to o->pieces pieces with at most o->per_side a side; units of at most
 * b->unit_positions positions, those of one subslice above o->split_positions (default: what
 * half of b->memory holds, dk_budget_split_positions) marked split. Returns NULL when out of
 * memory or a material is invalid. Thread-safe. */
dk_workgraph *dk_setup_graph(const dk_gen_options *o, const dk_budget *b);

/* The most positions of unit u one of `nranks` ranks holds while it is solved: the unit, or for
 * a split unit (parts of the bound, solved by every rank at once, gen/groups.h) the parts of the
 * rank holding the most. Pure. */
uint64_t dk_setup_held(const dk_workgraph *g, uint32_t u, int nranks);

/* The most positions a rank holds for a unit (dk_setup_held) on `nranks` ranks, and the
 * positions of g's largest finishing task: a pair (both materials), or for a pair finished in
 * parts its largest part or its join. Thread-safe. */
void dk_setup_largest(const dk_workgraph *g, int nranks, uint64_t *unit, uint64_t *pair);

/* Makes room in b for g's largest tasks on `nranks` ranks, lowering b's cache: a rank's share
 * of a split unit (which may be above the bound) and the largest finishing task (dk_setup_largest), with a draw
 * rule of `limit` plies. Returns 0, or -1 with one line in err when the memory cannot hold
 * them. Pure. */
int dk_setup_reserve(const dk_workgraph *g, int nranks, unsigned limit, dk_budget *b, char *err,
                     size_t errlen);

/* Sets a run up as gen does, with `memory` bytes a rank on `nranks` ranks: the budget into *b
 * (dk_budget_split), the work graph (dk_setup_graph) and room for its largest tasks
 * (dk_setup_reserve). Returns the graph, or NULL with one line in err: *refused set when the
 * memory does not suffice, the line saying the least this run needs (with a memory below the
 * floor too: the run is set up at the floor to find it), else out of memory. Thread-safe. */
dk_workgraph *dk_setup_run(const dk_gen_options *o, uint64_t memory, int nranks, dk_budget *b, bool *refused,
                           char *err, size_t errlen);

#endif
