/* The cost model of a run of `damka gen`: what each task of the work graph takes a rank, and
 * the sizes of the files it writes, calibrated on Brazilian tables (costmodel.c says how). gen's
 * setup sets the graph's priorities from it (the longest chains of work first); `damka plan`'s
 * simulation (simulate.h) adds up its times.
 *
 * Positions are table entries (White to move; a position with both sides to move counts
 * twice), the unit gen's progress line counts. Pure: no MPI, no files. */
#ifndef DK_COSTMODEL_H
#define DK_COSTMODEL_H

#include <stdint.h>

#include "../sched/workgraph.h"
#include "budget.h"

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
                              table its exits reach is (simulate.c, READ_CHUNKS) */
    double piece_factor[DK_FORECAST_PIECES]; /* the variant's unit time against Brazilian's, by
                                                the pieces of the material */
    dk_budget budget;      /* the ranks' budget, for what a rank holds at its peak (memory 0:
                              not forecast) */
} dk_forecast_model;

/* The model calibrated on Brazilian tables (costmodel.c says how) for a draw rule of `limit`
 * plies and a cache of cache_bytes a rank. With mean_rate > 0 its times are scaled so that g's
 * units average mean_rate positions a second a rank (finishing scaled alike). Thread-safe. */
dk_forecast_model dk_forecast_default_model(const dk_workgraph *g, unsigned limit, uint64_t cache_bytes,
                                            double mean_rate);

/* Divides every time of m (units, finishing, decoding) by `speed` > 0: the model on a machine
 * `speed` times as fast as the one it was calibrated on. Thread-safe (m is the caller's). */
void dk_forecast_scale(dk_forecast_model *m, double speed);

/* Positions a second a rank solves, averaged over g's units under m. Thread-safe. */
double dk_forecast_mean_rate(const dk_workgraph *g, const dk_forecast_model *m);

/* Seconds task t takes a rank under model m, without the decoding of the finished tables a unit
 * reads (which depends on what its rank holds: simulate.c). Thread-safe. */
double dk_forecast_cost(const dk_workgraph *g, const dk_forecast_model *m, dk_wg_task t);

/* Seconds split unit u takes on a group of `ranks` ranks (>= 1) under m, decoding left out as
 * in dk_forecast_cost: each rank solves the parts it holds, so it lasts as long as the rank
 * holding the most parts takes, times the cost of talking when the ranks are more than one.
 * Thread-safe. */
double dk_forecast_split_cost(const dk_workgraph *g, const dk_forecast_model *m, uint32_t u, uint32_t ranks);

/* Sets g's scheduling priorities (dk_workgraph_prioritize) from the costs of its tasks under m,
 * so that gen's scheduler and the simulation start the longest chains of work first. Returns 0,
 * or -1 when out of memory (g left as it was). Not thread-safe for g. */
int dk_forecast_prioritize(dk_workgraph *g, const dk_forecast_model *m);

#endif
