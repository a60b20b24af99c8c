/* The two kinds of generation work a rank carries out with its worker (worker.h): solving and
 * verifying a unit, and finishing a pair (assembling its tables from the units, writing tables
 * and statistics). */
#ifndef DK_TASKS_H
#define DK_TASKS_H

#include "../finish/worker.h"
#include "../solve/solve.h"

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
 * (dk_material_finished, intact.h) is left as it is. Returns 0, or -1 with one line in err. */
int dk_task_finish_pair(dk_worker *w, uint32_t p, char *err, size_t errlen);

#endif
