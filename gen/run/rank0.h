/* Rank 0's side of `damka gen`'s scheduling, without MPI: what the ranks report told to the
 * scheduler core (scheduler.h), what the core hands out carried out through a table of sends
 * (dk_rank0_sends: transport.c's over MPI and rank 0's mailbox, a test's that records), the
 * groups of ranks solving split units, the ranks' waits timed and the run's counts. Rank 0's
 * main thread only calls these, one at a time. */
#ifndef DK_RANK0_H
#define DK_RANK0_H

#include <stddef.h>
#include <stdint.h>

#include "../../rules/errors.h"
#include "progress.h"
#include "report.h"
#include "../sched/scheduler.h"
#include "../sched/workgraph.h"

/* The longest message a rank's report carries. */
enum { DK_REPORT_ERR_MAX = 1024 };

/* The kind of an order rank 0 sends a rank, and of the report the rank answers it with: a graph
 * task's own kind (DK_WG_UNIT, DK_WG_FINISH, DK_WG_SCAN, DK_WG_PACK), or one of these. */
enum {
    DK_ORDER_NONE = 0,              /* a report only: the rank's first request */
    DK_ORDER_STOP = DK_WG_PACK + 1, /* the rank stops */
    DK_ORDER_SPLIT = DK_WG_PACK + 2 /* a part of a split unit */
};

/* What a rank reports once an order is carried out (kind DK_ORDER_NONE for its first request):
 * the order's kind and id, a dk_status, and a line saying why when it failed. The same bytes on
 * every rank (transport.c sends it as they are). */
typedef struct dk_rank_report {
    int32_t kind, id, status;
    char err[DK_REPORT_ERR_MAX];
} dk_rank_report;

/* How rank 0 reaches the ranks: ctx is passed back to each. */
typedef struct dk_rank0_sends {
    void *ctx;
    /* Rank `rank` is sent order `kind` of task `id`: a graph task, DK_ORDER_STOP (id 0), or
     * DK_ORDER_SPLIT of unit id: with group NULL a part of a split unit of every rank (never sent
     * to rank 0, which solves its own part with `solve`), else one of the group's n ranks
     * group[0..n), none of them 0, lowest first (each of them is sent the same group). */
    void (*send)(void *ctx, uint32_t rank, int32_t kind, uint32_t id, const int32_t *group, uint32_t n);
    /* Rank 0's part of split unit u of every rank, solved on the calling thread once every other
     * rank was sent its part: returns a dk_status, with one line in err on a failure. */
    int (*solve)(void *ctx, uint32_t u, char *err, size_t errlen);
} dk_rank0_sends;

/* What rank 0's main thread keeps while it schedules: the run's graph and ranks, the scheduler
 * core (dk_sched, the policy) it tells what the ranks report, the sends, and what it adds (the
 * groups of ranks solving split units, the ranks' waits). Its owner sets g, nranks, core
 * (dk_sched_init on all nranks ranks, none made on demand), sends (dk_transport_schedule sets
 * the MPI ones), since (nranks zeros) and pr, the rest zeroed, and frees since, groups and core
 * at the end. */
typedef struct dk_rank0 {
    dk_workgraph *g;
    int nranks;
    dk_sched core;
    dk_rank0_sends sends;
    int stopped;                   /* ranks told to stop */
    char err[DK_REPORT_ERR_MAX];   /* why the run failed, or empty */
    dk_progress pr;
    struct dk_split_group *groups; /* groups running (rank0.c) */
    uint32_t ngroups, groups_cap;
    double *since;                 /* when each rank began to wait for a task, or was handed one */
    dk_report_run run;             /* what the run did: split units, parts, the ranks' time */
} dk_rank0;

/* Rank `rank` reports r: the core is told what it did, and that the rank waits for an order again
 * (the ranks of a group once every one of them has reported its part); the first failure fails
 * the run, its message in s->err (with the rank named when it is not rank 0, whose messages are
 * the job's own). Call dk_rank0_hand_out next. Not thread-safe. */
void dk_rank0_report(dk_rank0 *s, uint32_t rank, const dk_rank_report *r);

/* Carries out what the core hands out (dk_sched_next) through s->sends until it has nothing
 * more: a task or a stop sent to its rank, a split unit's group taken and each of its ranks sent
 * its part, a split unit of every rank solved at once (rank 0's part here, through
 * s->sends.solve, then reported done). When out of memory for a group, or when the core has not
 * the ranks it granted, the run fails with a message. Not thread-safe. */
void dk_rank0_hand_out(dk_rank0 *s);

#endif
