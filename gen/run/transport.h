/* The MPI transport of `damka gen` (for generate.c only): the order and report messages
 * between rank 0's scheduler and the workers, rank 0's own worker thread and its mailbox, the
 * split unit's exchanges (dk_split_comm) over MPI_COMM_WORLD for a unit of every rank or over a
 * communicator of its group's ranks, and the loop in which rank 0's main thread, the only one
 * that calls MPI, passes what the ranks report to rank 0's bookkeeping (rank0.h) and sends the
 * orders it gives. */
#ifndef DK_TRANSPORT_H
#define DK_TRANSPORT_H

#include <pthread.h>

#include "rank0.h"
#include "tasks.h"

/* Rank 0's worker and the mailbox through which its thread talks to the scheduler (private to
 * transport.c). */
typedef struct dk_local_worker dk_local_worker;

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

/* Rank 0's main thread: polls the reports of every rank and of its own worker `local` (NULL: it
 * never started), passes each to dk_rank0_report and then carries out what the core hands out
 * (dk_rank0_hand_out, s->sends set here: MPI, and local's mailbox), until every worker is
 * stopped; times the run (s->run.ran). */
void dk_transport_schedule(dk_rank0 *s, dk_local_worker *local);

/* Stops ranks 1 .. nranks - 1 before any task (rank 0 cannot schedule). */
void dk_transport_stop_workers(int nranks);

#endif
