/* The two kinds of generation work a rank carries out: solving and verifying a unit, and
 * finishing a pair (assembling its tables from the units, writing tables and statistics). */
#ifndef DK_TASKS_H
#define DK_TASKS_H

#include "../plan/budget.h"
#include "../finish/ctable_write.h"
#include "../solve/solve.h"

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
                           * pair's finishing borrows its first part (assemble.h) */
} dk_worker;

/* Opens what a worker needs over directory dir within budget b: its cache of decoded finished
 * tables (finished.h) and its exit cache (solve.h). Returns 0, or -1 when out of memory. */
int dk_worker_init(dk_worker *w, const dk_workgraph *g, const char *dir, bool keep_work,
                   bool dictionary, unsigned limit, const dk_budget *b);

void dk_worker_free(dk_worker *w);

/* Gives back what solving units holds between them: before finishing a pair (or a part of
 * one), which the budget counts instead. */
void dk_worker_idle(dk_worker *w);

/* How w writes material m's table of `metric` (its draw rule, dictionary, stride). Pure. */
dk_ctable_params dk_worker_table_params(const dk_worker *w, dk_material m, dk_metric metric);

/* Solves unit u, checks every value by the independent forward pass (verify.h) and writes the
 * unit's file atomically. Returns 0, or -1 with one line in err (a verification failure names
 * the material and a failing position as FEN). A test build alters values here on request
 * (dk_hook_corrupt_values, dk_hook_corrupt_exit: testhooks.h). */
int dk_task_unit(dk_worker *w, uint32_t u, char *err, size_t errlen);

/* Solves unit u, which the work graph marks oversize, together with the other ranks of comm
 * (all of them call it at once), checks every value by the forward pass split the same way and
 * writes the parts this rank holds (groups.h, unitfile.h). The test hooks of dk_task_unit work
 * here too, on the values each rank holds, and a test build may pause as a split starts
 * (dk_hook_split_pause). Returns DK_OK on every rank, or on every rank a failure: DK_FAILED
 * with one line in err on a rank that failed itself, DK_PEER_FAILED on the others. */
int dk_task_split(dk_worker *w, uint32_t u, const dk_split_comm *comm, char *err, size_t errlen);

/* Finishes pair p, whose units are all written and verified (a pair cut into parts: whose
 * parts are all packed, dk_task_join_parts): builds each material's table
 * (its must-capture map from the units' flags, unitfile.h), writes the compressed WLD, DTW
 * and (with a draw rule) DTC tables and the statistics, then removes the unit files; with
 * keep_work it keeps them and each material's values too (work/<variant>-<material>.raw,
 * valuefile.h). A material whose tables an earlier, killed run finished
 * (dk_material_finished, restart.h) is left as it is. Returns 0, or -1 with one line in err. */
int dk_task_finish_pair(dk_worker *w, uint32_t p, char *err, size_t errlen);

#endif
