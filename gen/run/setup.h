/* What a run is made of before any task: the work graph of its targets and room in each
 * rank's memory for its largest task. `damka gen` and `damka plan` both call these, so that
 * plan forecasts the very graph and budget gen would use. */
#ifndef DK_SETUP_H
#define DK_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "../plan/budget.h"
#include "options.h"
#include "../sched/workgraph.h"

/* The graph a default unit bound aims at, in units (about: layers smaller than the bound are a
 * unit each, and ranges cut by men_index hold fewer positions than the bound); the most units
 * the positions of a run may make of a bound given (the graph of Brazilian up to 10 pieces at
 * 4194304, 94 million units, takes 4.5 GiB); the largest bound (what --unit-positions takes). */
#define DK_SETUP_UNITS_AIM ((uint64_t)1 << 17)
#define DK_SETUP_UNITS_MAX ((uint64_t)1 << 24)
#define DK_SETUP_UNIT_MAX ((uint64_t)1 << 40)

/* The positions (White to move) of the materials mats, n of them: UINT64_MAX if they do not fit
 * 64 bits. Thread-safe. */
uint64_t dk_setup_positions(const dk_variant *v, const dk_material *mats, size_t n);

/* The positions of o's targets (o->only without what they depend on, or every material up to
 * o->pieces): a lower bound on the run's. 0 when out of memory. Thread-safe. */
uint64_t dk_setup_target_positions(const dk_gen_options *o);

/* The default unit bound for a run of `positions` positions: DK_DEFAULT_UNIT_POSITIONS, doubled
 * (up to DK_SETUP_UNIT_MAX) while the positions are above DK_SETUP_UNITS_AIM units of it, so that
 * a run of 9 or 10 pieces has a graph of about a million units, not a hundred million (gigabytes
 * and minutes to build, hours for plan to simulate). Up to 8 pieces on 8x8 it is
 * DK_DEFAULT_UNIT_POSITIONS. Gen and plan lower it to what a rank's memory holds
 * (dk_setup_run). Pure. */
uint64_t dk_setup_default_unit(uint64_t positions);

/* The least default finishing bound (positions): smaller parts cost more than they save. */
#define DK_SETUP_FINISH_LEAST ((uint64_t)1 << 26)

/* The most positions a rank holds for a unit (dk_workgraph_held) on `nranks` ranks, and the
 * positions of g's largest finishing task: a pair (both materials), or for a pair finished in
 * parts its largest part or its join. Thread-safe. */
void dk_setup_largest(const dk_workgraph *g, int nranks, uint64_t *unit, uint64_t *pair);

/* Sets a run up as gen does, with `memory` bytes a rank on `nranks` ranks: the budget into *b
 * (dk_budget_split; without o->unit_positions, a large run's bound is dk_setup_default_unit as
 * far as half the memory holds it, dk_budget_split_positions), the work graph (setup_graph)
 * and room for its largest tasks (reserve; for a run of more than DK_SETUP_UNITS_AIM
 * default units, finishing the targets' largest pair is checked before the graph is built). Returns the graph, or NULL with one line in err: *refused
 * set when the memory does not suffice, the line saying the least this run needs (with a memory
 * below the floor too: the run is set up at the floor to find it), else out of memory.
 * Thread-safe. */
dk_workgraph *dk_setup_run(const dk_gen_options *o, uint64_t memory, int nranks, dk_budget *b, bool *refused,
                           char *err, size_t errlen);

#endif
