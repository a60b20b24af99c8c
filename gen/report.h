/* What `damka gen` tells on stderr at the start and the end of a run, besides its progress
 * line (progress.h) and its errors. */
#ifndef DK_REPORT_H
#define DK_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "budget.h"
#include "finished.h"
#include "workgraph.h"

/* At the start: that dir is already finished (all_done, total_mat materials), or what an
 * earlier run finished (done_mat materials, done_pos positions; nothing when none). */
void dk_report_start(const char *dir, bool all_done, uint32_t total_mat, uint32_t done_mat, uint64_t done_pos);

/* The split units a run solved: by every rank, and by groups of some ranks (the least and the
 * most ranks of a group). */
typedef struct dk_report_splits {
    uint32_t every, groups, least, most;
} dk_report_splits;

/* At the end: what rank 0's reader of finished tables f decoded within budget b, the split
 * units of graph g solved on nranks ranks, the pairs finished in parts (joins) and their
 * parts' tasks done, and the share of the ranks' time spent waiting for a task (waited
 * rank-seconds over ran seconds of scheduling). */
void dk_report_end(const dk_finished *f, const dk_budget *b, const dk_workgraph *g, int nranks,
                   dk_report_splits splits, uint32_t joins, uint32_t parts, double waited, double ran);

#endif
