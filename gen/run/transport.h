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

enum { TAG_REPORT = 1, TAG_TASK = 2, TAG_GROUP = 3 /* making a group's communicator */ };
/* A task's kind on the wire: a graph task's own kind (DK_WG_UNIT, DK_WG_FINISH, DK_WG_SCAN,
 * DK_WG_PACK), or one of these. */
enum { TASK_NONE = 0, TASK_STOP = DK_WG_PACK + 1, TASK_SPLIT = DK_WG_PACK + 2 };
enum { ERR_MAX = 1024 };

/* What a worker sends after each task (kind TASK_NONE for the first request). */
typedef struct report {
    int32_t kind, id, status;
    char err[ERR_MAX];
} report;

/* A task; for TASK_SPLIT, `group` ranks other than 0 solve unit `id` (their ranks follow in a
 * second message, lowest first), or every rank of the run (group 0). */
typedef struct task {
    int32_t kind, id, group;
} task;

/* Rank 0 computes in a thread of its own; the scheduler (the main thread, the only one that
 * calls MPI) talks to it through this mailbox. */
typedef struct mailbox {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool has_report, has_task;
    report rep;
    task job;
} mailbox;

typedef struct local_worker {
    dk_worker w;
    mailbox box;
} local_worker;

/* A split unit solved by a group of ranks other than 0, and its ranks that have not reported
 * it done yet: they wait for a task again only once every one of them has, as the simulation
 * frees them (forecast.c). */
typedef struct split_group {
    uint32_t unit, n, left;
    int32_t *ranks;
} split_group;

typedef struct sched {
    const dk_gen_options *o;
    dk_workgraph *g;
    int nranks;
    dk_sched core;
    int stopped;          /* workers sent TASK_STOP */
    char err[ERR_MAX];
    dk_progress pr;
    local_worker *local;  /* NULL: rank 0's worker did not start (the run fails) */
    uint32_t split;       /* the split unit of every rank running (split_progress) */
    split_group *groups;  /* groups running */
    uint32_t ngroups, groups_cap;
    double *since;        /* when each rank began to wait for a task, or was handed one */
    dk_report_run run;    /* what the run did: split units, parts, the ranks' time */
} sched;

static inline bool all_done(const sched *s) { return dk_workgraph_all_finished(s->g); }

/* The main function of rank 0's worker thread (arg: its local_worker): reports, then carries
 * out what its mailbox brings until TASK_STOP. */
void *dk_transport_local_main(void *arg);

/* Whether every rank is ok (collective over MPI_COMM_WORLD). */
bool dk_transport_all_ok(bool ok);

/* A rank other than 0: asks rank 0 for tasks and carries them out until told to stop; w NULL:
 * its worker could not start, which its first report says (why_not), as it says that it has no
 * memory for a group's list of ranks (taken before any task, so that no rank ever has to abort
 * the job in a group's split). */
void dk_transport_remote_worker(dk_worker *w, const char *why_not);

/* Rank 0's main thread: polls the reports of every rank and of its own worker, tells the
 * scheduler core, sends what it hands out, until every worker is stopped; times the ranks'
 * waits (s->waited, s->ran). */
void dk_transport_schedule(sched *s);

/* Stops ranks 1 .. nranks - 1 before any task (rank 0 cannot schedule). */
void dk_transport_stop_workers(int nranks);

#endif
