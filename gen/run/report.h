/* What `damka gen` tells on stderr at the start and the end of a run, besides its progress
 * line (progress.h) and its errors. */
#ifndef DK_REPORT_H
#define DK_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "../plan/budget.h"
#include "../check/exitcheck.h"
#include "../solve/finished.h"
#include "../plan/simulate.h"
#include "../sched/workgraph.h"

/* At the start: that dir is already finished (all_done, total_mat materials), or what an
 * earlier run finished (done_mat materials, done_pos positions; nothing when none). */
void dk_report_start(const char *dir, bool all_done, uint32_t total_mat, uint32_t done_mat, uint64_t done_pos);

/* The split units a run solved: by every rank, and by groups of some ranks (the least and the
 * most ranks of a group). */
typedef struct dk_report_splits {
    uint32_t every, groups, least, most;
} dk_report_splits;

/* What a run did, as rank 0's scheduler counted it. */
typedef struct dk_report_run {
    dk_report_splits splits;
    uint32_t joins, parts;          /* pairs finished in parts, and their parts' tasks done */
    double waited;                  /* rank-seconds the ranks spent waiting for a task */
    double ran;                     /* seconds the scheduler ran */
    double busy[DK_LINK_KINDS];     /* rank-seconds of tasks by kind, each from its hand-out to its report */
} dk_report_run;

/* At the end: what rank 0's reader of finished tables f decoded within budget b and what its
 * check read again through its own reader, the split units of graph g solved on nranks ranks,
 * the pairs finished in parts, the ranks' time by kind of task and the share of it spent
 * waiting for a task. */
void dk_report_end(const dk_finished *f, const dk_exit_check *check, const dk_budget *b, const dk_workgraph *g,
                   int nranks, const dk_report_run *run);

#endif
