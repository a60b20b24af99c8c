/* The MPI transport of `damka gen` (for generate.c only): the task and report messages
 * between rank 0's scheduler and the workers, rank 0's own worker thread and its mailbox, the
 * split unit's exchanges (dk_split_comm) over MPI_COMM_WORLD for a unit of every rank or over a
 * communicator of its group's ranks, and the loop in which rank 0's main thread, the only one
 * that calls MPI, tells the scheduler core (scheduler.h) what the ranks report and sends what
 * it hands out. */
#ifndef DK_TRANSPORT_H
#define DK_TRANSPORT_H

#include <pthread.h>

#include "options.h"
#include "progress.h"
#include "report.h"
#include "../sched/scheduler.h"
#include "tasks.h"

/* The longest message a rank's report carries. */
enum { DK_TRANSPORT_ERR_MAX = 1024 };

/* Rank 0's worker and the mailbox through which its thread talks to the scheduler (private to
 * transport.c). */
typedef struct dk_local_worker dk_local_worker;

/* What rank 0's main thread keeps while it schedules: the run, the scheduler core (dk_sched,
 * the policy) it tells what the ranks report, and what the transport adds (its worker, the
 * groups of ranks solving split units, the ranks' waits). */
typedef struct dk_rank0 {
    const dk_gen_options *o;
    dk_workgraph *g;
    int nranks;
    dk_sched core;
    int stopped;                   /* workers told to stop */
    char err[DK_TRANSPORT_ERR_MAX];
    dk_progress pr;
    dk_local_worker *local;        /* NULL: rank 0's worker did not start (the run fails) */
    uint32_t split;                /* the split unit of every rank running (split_progress) */
    struct dk_split_group *groups; /* groups running */
    uint32_t ngroups, groups_cap;
    double *since;                 /* when each rank began to wait for a task, or was handed one */
    dk_report_run run;             /* what the run did: split units, parts, the ranks' time */
} dk_rank0;

/* Rank 0's worker, zeroed, its worker not initialised yet: NULL when out of memory. Free it with
 * free() once its worker is freed (dk_worker_free). Thread-safe. */
dk_local_worker *dk_transport_local_new(void);

/* Its worker, to initialise (dk_worker_init), use and free (dk_worker_free). Pure. */
dk_worker *dk_transport_local_worker(dk_local_worker *lw);

/* Starts lw's thread (its worker initialised), which reports, then carries out what the
 * scheduler hands it until told to stop. Returns 0, or pthread_create's error number with no
 * thread started and nothing left to undo. Called by rank 0's main thread. */
int dk_transport_local_start(dk_local_worker *lw, pthread_t *th);

/* Waits for lw's thread th (started, and stopped by dk_transport_schedule) to end, and frees its
 * mailbox; its worker stays for the caller to read and free. Called by rank 0's main thread. */
void dk_transport_local_join(dk_local_worker *lw, pthread_t th);

/* Whether every rank is ok (collective over MPI_COMM_WORLD). */
bool dk_transport_all_ok(bool ok);

/* A rank other than 0: asks rank 0 for tasks and carries them out until told to stop; w NULL:
 * its worker could not start, which its first report says (why_not), as it says that it has no
 * memory for a group's list of ranks (taken before any task, so that no rank ever has to abort
 * the job in a group's split). */
void dk_transport_remote_worker(dk_worker *w, const char *why_not);

/* Rank 0's main thread: polls the reports of every rank and of its own worker, tells the
 * scheduler core, sends what it hands out, until every worker is stopped; times the ranks'
 * waits (s->run.waited, s->run.ran). */
void dk_transport_schedule(dk_rank0 *s);

/* Stops ranks 1 .. nranks - 1 before any task (rank 0 cannot schedule). */
void dk_transport_stop_workers(int nranks);

#endif
