/* The scheduling policy of a run, one core for `damka gen`'s rank 0 (run/rank0.c, over MPI by
 * run/transport.c) and `damka plan`'s simulation (plan/simulate.c), so that the forecast hands
 * out tasks as the generator does:
 *   - waiting ranks are served lowest rank first, each the next task the work graph hands out
 *     (dk_workgraph_take: the highest priority first);
 *   - a unit marked split is solved by a group of ranks (dk_sched_group): the fewest whose
 *     shares fit what the run's budget holds for one rank's share of a split unit, which is the
 *     share of the largest one on every rank of the run (dk_workgraph_held), so that groups
 *     cost no memory a run without them would not; and when nothing else is ready as it
 *     starts, every rank waiting besides, as far as it has parts, for speed;
 *   - once taken, a split unit is held while the ranks of its group come free: ranks other
 *     than 0 that wait are kept for it, rank 0 takes any task but a split unit meanwhile;
 *     the others go on with their tasks, and groups run side by side;
 *   - rank 0 takes part only in a group of every rank (gen's rank 0 schedules on the thread
 *     that would talk to the group): such a unit waits until every rank waits, and nothing
 *     else is handed out until it is done;
 *   - after a failure, and once every pair is finished, each waiting rank is told to stop;
 *   - every rank waiting while nothing is ready and pairs are unfinished is an internal error.
 * The transport tells the core what happened (a rank waits for a task, a task is done, a task
 * failed) and carries out what it hands out (dk_sched_next). No MPI, threads or clocks.
 *
 * Ranks either all exist from the start and say when they first wait (gen's ranks send a first
 * request), or are made on demand (the simulation, whose rank count may be unlimited): ranks
 * never handed anything wait, the lowest of them is made when needed, and only ranks made count
 * towards "every rank waits". Either way the lowest waiting rank is served first. */
#ifndef DK_SCHEDULER_H
#define DK_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "heap.h"
#include "workgraph.h"

/* Ranks without limit (ranks made on demand only). */
#define DK_SCHED_UNLIMITED UINT32_MAX

typedef enum dk_sched_kind {
    DK_SCHED_WAIT,  /* nothing to hand out until something is reported */
    DK_SCHED_TASK,  /* rank `rank` gets `task` */
    DK_SCHED_SPLIT, /* the split unit task.id starts on `ranks` ranks: take them with
                       dk_sched_take_rank (every rank of the run when `every`) */
    DK_SCHED_STOP,  /* rank `rank` stops: every pair is finished, or a task failed */
    DK_SCHED_STUCK, /* every rank waits, nothing is ready, pairs are unfinished: an internal
                       error; the scheduler counts as failed from now on */
    DK_SCHED_NOMEM  /* out of memory for a rank made on demand */
} dk_sched_kind;

typedef struct dk_sched_grant {
    dk_sched_kind kind;
    uint32_t rank;   /* TASK, STOP */
    dk_wg_task task; /* TASK, SPLIT */
    uint32_t ranks;  /* SPLIT: the ranks of its group */
    bool every;      /* SPLIT: the group is every rank of the run, rank 0 with them */
} dk_sched_grant;

/* Read its fields, change them only through the functions below. */
typedef struct dk_sched {
    dk_workgraph *g;
    uint32_t nranks;   /* ranks of the run, or DK_SCHED_UNLIMITED */
    uint32_t made;     /* ranks [0, made) exist; the others wait, never handed anything */
    dk_heap idle;      /* ranks below `made` waiting for a task, lowest first */
    size_t cap;        /* room in idle */
    uint64_t share;    /* the positions one rank may hold of a split unit */
    uint32_t fixed;    /* every group of this many ranks (a test's), or 0 */
    int64_t held;      /* a split unit taken, waiting for the ranks of its group, or -1 */
    int64_t splitting; /* a split unit of every rank running, or -1 */
    bool taking;       /* a group other than every rank is being taken: rank 0 is skipped */
    bool failed;
} dk_sched;

/* Sets up s to schedule g's ready tasks (its scheduling state as dk_workgraph_reset left it) on
 * nranks ranks (>= 1): made on demand when on_demand (nranks may then be DK_SCHED_UNLIMITED),
 * else all existing and none waiting until dk_sched_waits says so. A split unit's group is
 * sized by the share of the largest split unit on nranks ranks (O(units)), or to `fixed` ranks
 * (at most nranks; 0: by the share). Returns 0, or -1 when out of memory. Not thread-safe for
 * g. */
int dk_sched_init(dk_sched *s, dk_workgraph *g, uint32_t nranks, bool on_demand, uint32_t fixed);

/* The fewest ranks whose shares of split unit u fit s->share (at most the run's ranks), or
 * s->fixed. Pure. */
uint32_t dk_sched_group(const dk_sched *s, uint32_t u);

/* Frees what s holds (not the graph). */
void dk_sched_free(dk_sched *s);

/* Rank `rank` (below s->made, not already waiting) waits for a task: its first request, or the
 * task it had (a split unit's part too) has ended, done or failed. Not thread-safe. */
void dk_sched_waits(dk_sched *s, uint32_t rank);

/* Task t, handed out, is done: the graph releases what it unblocks (dk_workgraph_done); a
 * split unit ends with it (report it once, however many ranks took part, and before its ranks
 * wait again). Not thread-safe. */
void dk_sched_done(dk_sched *s, dk_wg_task t);

/* A task failed (or the run cannot go on): from now on waiting ranks are told to stop. Not
 * thread-safe. */
void dk_sched_fail(dk_sched *s);

/* What to hand out next; call until it returns DK_SCHED_WAIT (or DK_SCHED_NOMEM). A TASK or
 * STOP takes the rank out of the waiting ones; after a SPLIT the caller takes its `ranks`
 * ranks, lowest first (dk_sched_take_rank), before anything else; after a SPLIT of `every`
 * rank nothing more is handed out until the unit is done or something failed. Not
 * thread-safe. */
dk_sched_grant dk_sched_next(dk_sched *s);

/* Takes the lowest waiting rank into *rank for the split unit just started (made if on
 * demand; rank 0 only into a group of every rank). Returns 1, 0 when no rank waits (ranks made
 * on demand: all nranks made and busy), or -1 when out of memory. Not thread-safe. */
int dk_sched_take_rank(dk_sched *s, uint32_t *rank);

#endif
