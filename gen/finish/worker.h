/* A rank's worker: what its tasks (tasks.h, parttasks.h) hold from one task to the next, its
 * readers of finished tables and units, its solver and its exit check, their caches and its
 * memory budget. In finish/, the lowest room that holds all of it (a table's parameters are
 * finishing's), so that finishing in parts takes a worker as the run's tasks do. */
#ifndef DK_WORKER_H
#define DK_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "../check/exitcheck.h"
#include "../solve/finished.h"
#include "../plan/budget.h"
#include "../sched/groups.h"
#include "../solve/solve.h"
#include "../store/blockpool.h"
#include "ctable_write.h"

typedef struct dk_worker {
    const dk_workgraph *g;
    const char *dir;
    bool keep_work;
    bool dictionary;   /* try a zstd dictionary per table file */
    unsigned limit;    /* the draw rule in plies (0: no rule-aware tables) */
    dk_finished *finished;
    dk_solver *solver;
    dk_exit_check *check; /* verification's own reader of the exits */
    dk_groups_cache *gcache;
    dk_budget budget;
    dk_value *values;  /* a unit's values, kept from one unit to the next, freed before a pair
                        * is finished */
    uint64_t values_cap;
    dk_block_pool *above; /* the decompressed blocks of the units above, the exit cache: the
                           * solver's unit files and the check's take room in it, and a
                           * pair's finishing borrows its first part (pairreader.h) */
} dk_worker;

/* Opens what a worker needs over directory dir within budget b: its cache of decoded finished
 * tables (finished.h) and its exit cache (solve.h). Returns 0, or -1 when out of memory. */
int dk_worker_init(dk_worker *w, const dk_workgraph *g, const char *dir, bool keep_work,
                   bool dictionary, unsigned limit, const dk_budget *b);

void dk_worker_free(dk_worker *w);

/* Gives back what solving units holds between them: before finishing a pair (or a part of
 * one), which the budget counts instead. */
void dk_worker_idle(dk_worker *w);

/* What verification's reader of the tables may take: while a unit (or a share of one) of
 * `positions` is solved (solving), or between units and while a pair is finished. Pure. */
uint64_t dk_worker_check_room(const dk_worker *w, bool solving, uint64_t positions);

/* How w writes material m's table of `metric` (its draw rule, dictionary, stride). Pure. */
dk_ctable_params dk_worker_table_params(const dk_worker *w, dk_material m, dk_metric metric);

#endif
