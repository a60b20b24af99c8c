/* What a run of `damka gen` would take, without running it: rank 0's scheduler simulated over
 * the work graph with a cost model. The simulation and gen's rank 0 (transport.c) drive the same
 * scheduler core (scheduler.h: lowest free rank first, the next task the graph hands out by the
 * priorities dk_forecast_prioritize sets, split units on groups of ranks), so they
 * cannot disagree on the order; the simulation adds only time: each task ends after its cost.
 *
 * Positions are table entries (White to move; a position with both sides to move counts
 * twice), the unit gen's progress line counts. Pure: no MPI, no files. */
#ifndef DK_FORECAST_H
#define DK_FORECAST_H

#include <stdint.h>

#include "../sched/scheduler.h"
#include "../sched/workgraph.h"
#include "budget.h"

/* Ranks without limit: every ready task starts at once (the critical path). */
#define DK_FORECAST_UNLIMITED DK_SCHED_UNLIMITED

/* The pieces of a material the model tells apart in a variant's unit cost (piece_factor): 0 to 6,
 * the last standing for more. */
enum { DK_FORECAST_PIECES = 7 };

/* The cost of tasks and the size of files. A unit of material M takes positions x
 * unit_seconds x (1 + king_weight x kings of M) x piece_factor[pieces of M]: king moves and
 * their un-moves are most of the work, so king-heavy materials go slower; a variant's board
 * changes what a position of a material of so many pieces costs (piece_factor: its time against
 * Brazilian's, measured; all 1 for Brazilian).
 * Finishing a pair takes positions x finish_seconds.
 * A unit also decodes the parts of finished tables it reads that its rank does not hold: their
 * positions x decode_seconds, which is what a small cache costs. */
typedef struct dk_forecast_model {
    double unit_seconds;   /* a rank's seconds a unit position without kings */
    double king_weight;    /* what each king adds to that, as a fraction */
    double finish_seconds; /* a rank's seconds a position to finish: assemble, compress, write */
    double table_bits[3];  /* bits a position of the compressed WLD, DTW and DTC tables */
    double unit_bits;      /* bits a position of a unit file in DIR/work */
    unsigned limit;        /* the draw rule in plies (0: no DTC tables, one value a position) */
    uint64_t cache_bytes;  /* a rank's cache of decoded blocks of finished tables: the solver's
                              part of budget.h's cache_bytes */
    double decode_seconds; /* a rank's seconds a position of a finished table it decodes (values
                              expanded, capture positions resolved), each time it is not held */
    double read_spread;    /* how much wider than a unit's share of its pair the share of each
                              table its exits reach is (forecast.c, READ_CHUNKS) */
    double piece_factor[DK_FORECAST_PIECES]; /* the variant's unit time against Brazilian's, by
                                                the pieces of the material */
    dk_budget budget;      /* the ranks' budget, for what a rank holds at its peak (memory 0:
                              not forecast) */
} dk_forecast_model;

/* The kinds of tasks on a run's chain (dk_forecast.chain). */
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

/* The model calibrated on Brazilian tables (forecast.c says how) for a draw rule of `limit`
 * plies and a cache of cache_bytes a rank. With mean_rate > 0 its times are scaled so that g's
 * units average mean_rate positions a second a rank (finishing scaled alike). Thread-safe. */
dk_forecast_model dk_forecast_default_model(const dk_workgraph *g, unsigned limit, uint64_t cache_bytes,
                                            double mean_rate);

/* Divides every time of m (units, finishing, decoding) by `speed` > 0: the model on a machine
 * `speed` times as fast as the one it was calibrated on. Thread-safe (m is the caller's). */
void dk_forecast_scale(dk_forecast_model *m, double speed);

/* Positions a second a rank solves, averaged over g's units under m. Thread-safe. */
double dk_forecast_mean_rate(const dk_workgraph *g, const dk_forecast_model *m);

/* Seconds task t takes under model m. Thread-safe. */
double dk_forecast_cost(const dk_workgraph *g, const dk_forecast_model *m, dk_wg_task t);

/* Sets g's scheduling priorities (dk_workgraph_prioritize) from the costs of its tasks under m,
 * so that gen's scheduler and the simulation start the longest chains of work first. Returns 0,
 * or -1 when out of memory (g left as it was). Not thread-safe for g. */
int dk_forecast_prioritize(dk_workgraph *g, const dk_forecast_model *m);

/* The name of a kind of task on a chain ("units", "split units", ...). Pure. */
const char *dk_forecast_link_name(dk_forecast_link k);

/* The kind of task t of g: a unit split or not as g says, a finish a join when its pair is in
 * parts. Pure. */
dk_forecast_link dk_forecast_link_of(const dk_workgraph *g, dk_wg_task t);

/* Simulates the run on `ranks` ranks (>= 1, or DK_FORECAST_UNLIMITED) from nothing done into
 * *out. Tables read: a unit reads, of the DTW (and DTC) table of each material its materials
 * reach by a capture or a promotion, the part its positions lead to (read_spread); its rank
 * decodes that part's chunks it does not hold and keeps them while its cache allows, the least
 * recently read dropped first (a clock). Uses and leaves changed g's scheduling state (reset on entry). Returns 0, or
 * -1 when out of memory. Not thread-safe for g. */
int dk_forecast_run(dk_workgraph *g, const dk_forecast_model *m, uint32_t ranks, dk_forecast *out);

/* The fewest ranks whose wall time is within `tolerance` (0.05: 5%) of the critical path (the
 * wall time with unlimited ranks): beyond it the wall time stops falling. Found by bisection
 * between 1 and the unlimited run's peak parallelism (at which the two runs are the same),
 * taking the wall time as non-increasing in the ranks. Its forecast in *at, the unlimited one
 * in *unlimited. Returns the number of ranks, or 0 when out of memory. Not thread-safe for g. */
uint32_t dk_forecast_saturation(dk_workgraph *g, const dk_forecast_model *m, double tolerance,
                                dk_forecast *at, dk_forecast *unlimited);

#endif
