/* Each task's processor and wall time, for fitting `damka plan`'s cost model (costmodel.c) on a
 * machine and a variant: when the environment names a file in DAMKA_TASK_TIMES, every rank
 * appends one line a task it carries out (docs/usage.md, "Planning a run": the columns). A
 * task's processor time is its thread's, so that it holds on a machine shared with other work.
 * Not set: nothing is measured or written. */
#ifndef DK_TASKTIMES_H
#define DK_TASKTIMES_H

#include <time.h>

#include "../sched/workgraph.h"

/* When a task began, by its thread's processor clock and the wall clock. */
typedef struct dk_task_clock {
    struct timespec cpu, wall;
} dk_task_clock;

/* The clocks now. Thread-safe. */
dk_task_clock dk_task_clock_start(void);

/* Appends task t's line, begun at `start` (kind DK_WG_UNIT, DK_WG_SCAN, DK_WG_PACK or
 * DK_WG_FINISH; a split unit: DK_WG_UNIT with its share on `ranks` > 1 ranks), to the file
 * DAMKA_TASK_TIMES names, with one write (whole lines from concurrent ranks and threads, the
 * file opened for appending). Does nothing when it is not set; a file that cannot be written is
 * said once on stderr and the run goes on (a measurement, not the run's output). Thread-safe. */
void dk_task_times_record(const dk_workgraph *g, dk_wg_task t, int ranks, dk_task_clock start);

#endif
