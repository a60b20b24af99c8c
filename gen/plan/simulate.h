/* What a run of `damka gen` would take, without running it: rank 0's scheduler simulated over
 * the work graph with the cost model (costmodel.h). The simulation and gen's rank 0 (run/rank0.c)
 * carry out the grants of the same scheduler core (scheduler.h: lowest free rank first, the next
 * task the graph hands out by the priorities dk_forecast_prioritize sets, split units on groups
 * of ranks), so they cannot disagree on the order; the simulation adds only time: each task ends
 * after its cost, and every task ending at one time reports before anything is handed out.
 * Along the way it counts what ranks read and hold, and the files on disk.
 *
 * Positions are table entries (White to move; a position with both sides to move counts
 * twice), the unit gen's progress line counts. Pure: no MPI, no files. */
#ifndef DK_SIMULATE_H
#define DK_SIMULATE_H

#include <stdint.h>

#include "../sched/scheduler.h"
#include "../sched/workgraph.h"
#include "budget.h"
#include "costmodel.h"

/* Ranks without limit: every ready task starts at once (the critical path). */
#define DK_FORECAST_UNLIMITED DK_SCHED_UNLIMITED

/* The kinds of tasks on a run's chain (dk_forecast.chain), and of a run's busy time
 * (dk_report_run.busy). */
typedef enum dk_forecast_link {
    DK_LINK_UNIT,   /* a unit solved by one rank */
    DK_LINK_SPLIT,  /* a split unit, by a group of ranks */
    DK_LINK_FINISH, /* a pair finished whole */
    DK_LINK_SCAN,   /* a part of a finishing scanned */
    DK_LINK_PACK,   /* a part packed */
    DK_LINK_JOIN,   /* a pair's parts joined */
    DK_LINK_KINDS
} dk_forecast_link;

/* The tasks of one kind on the chain, and their seconds. */
typedef struct dk_forecast_links {
    uint32_t tasks;
    double seconds;
} dk_forecast_links;

typedef struct dk_forecast {
    uint32_t ranks;           /* as asked (DK_FORECAST_UNLIMITED too) */
    double wall;              /* seconds from the start to the last pair finished */
    double work;              /* rank-seconds: the sum of every task's cost */
    uint32_t peak_parallel;   /* the most tasks running at once */
    uint32_t ranks_used;      /* ranks that ever had a task */
    double longest;           /* seconds of the longest task ... */
    dk_wg_task longest_task;  /* ... and which it is */
    uint64_t table_bytes;     /* compressed tables written */
    uint64_t work_peak_bytes; /* the most bytes of unit files in DIR/work at once */
    uint64_t disk_peak_bytes; /* the most bytes on disk at once: tables so far and unit files */
    uint64_t written_bytes;   /* bytes written in all: unit files, parts' files and tables */
    uint64_t read_bytes;      /* compressed table bytes read by all ranks together */
    double decode_work;       /* rank-seconds of that, decoding (part of work) */
    uint64_t read_max_bytes;  /* by the rank that reads most */
    uint64_t held_peak_bytes; /* the most bytes of decoded tables a rank holds */
    /* What a rank holds at the run's peak, part by part, as m->budget models it
     * (dk_budget_unit_use, dk_budget_finish_use: the task, and the decoded tables its rank
     * holds as the task starts), and the task it runs then. */
    dk_budget_use memory_peak;
    dk_wg_task memory_task;
    /* The chain that makes the wall time: from the last task to end back to the start, each
     * task the one that ended just as the next began (what it waited for: a task it depends on,
     * or a rank coming free); with unlimited ranks, the critical path. Its tasks by kind, and
     * the seconds its units spent decoding finished tables. */
    dk_forecast_links chain[DK_LINK_KINDS];
    double chain_decode;
} dk_forecast;

/* The name of a kind of task on a chain ("units", "split units", ...). Pure. */
const char *dk_forecast_link_name(dk_forecast_link k);

/* The kind of task t of g: a unit split or not as g says, a finish a join when its pair is in
 * parts. Pure. */
dk_forecast_link dk_forecast_link_of(const dk_workgraph *g, dk_wg_task t);

/* Simulates the run on `ranks` ranks (>= 1, or DK_FORECAST_UNLIMITED) from nothing done into
 * *out. Tables read: a unit reads, of the DTW (and DTC) table of each material its materials
 * reach by a capture or a promotion, the part its positions lead to (read_spread); its rank
 * decodes that part's chunks it does not hold and keeps them while its cache allows, the least
 * recently read dropped first (a clock). Uses and leaves changed g's scheduling state (reset on
 * entry). Returns 0, or -1 when out of memory. Not thread-safe for g. */
int dk_forecast_run(dk_workgraph *g, const dk_forecast_model *m, uint32_t ranks, dk_forecast *out);

/* What a caller of dk_forecast_watched sees of the simulation, and may set (tests: the run's
 * hand-outs against gen's rank 0). */
typedef struct dk_forecast_watch {
    uint32_t group; /* every split unit's group of this many ranks, as gen's test hook fixes it
                       (dk_hook_group_ranks; scheduler.h, dk_sched_init's `fixed`); 0: sized
                       by the run's share */
    void *ctx;
    /* Called for each grant of the core carried out (a TASK, a SPLIT on ranks[0..a->ranks)
     * taken lowest first, a STOP; ranks[0] the rank of a TASK or STOP), in order; *seconds, a
     * task's time under the model (NULL for a STOP), may be set to another time. */
    void (*handed)(void *ctx, const dk_sched_grant *a, const uint32_t *ranks, double *seconds);
} dk_forecast_watch;

/* dk_forecast_run, telling w (w->handed may be NULL) what it hands out. */
int dk_forecast_watched(dk_workgraph *g, const dk_forecast_model *m, uint32_t ranks, const dk_forecast_watch *w,
                        dk_forecast *out);

/* The fewest ranks whose wall time is within `tolerance` (0.05: 5%) of the critical path (the
 * wall time with unlimited ranks): beyond it the wall time stops falling. Found by bisection
 * between 1 and the unlimited run's peak parallelism (at which the two runs are the same),
 * taking the wall time as non-increasing in the ranks. Its forecast in *at, the unlimited one
 * in *unlimited. Returns the number of ranks, or 0 when out of memory. Not thread-safe for g. */
uint32_t dk_forecast_saturation(dk_workgraph *g, const dk_forecast_model *m, double tolerance,
                                dk_forecast *at, dk_forecast *unlimited);

#endif
