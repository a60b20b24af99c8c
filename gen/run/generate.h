/* `damka gen`: every material up to N pieces, spread over MPI ranks. Rank 0 schedules the work
 * graph and computes too; every rank reads its inputs from the finished files of the output
 * directory and writes its results there atomically, so a run killed at any moment restarts
 * where it stopped and the files are the same whatever the number of ranks. */
#ifndef DK_GENERATE_H
#define DK_GENERATE_H

#include <stdbool.h>
#include <stdint.h>

#include "../../index/material.h"
#include "../../rules/errors.h"

typedef struct dk_gen_options {
    const dk_variant *v;
    int pieces;               /* every material up to this many pieces ... */
    int per_side;             /* ... with at most this many a side (0: no limit) */
    const dk_material *only;  /* or just these and what they depend on (NULL: all) */
    size_t nonly;
    const char *dir;
    uint64_t unit_positions;  /* the bound on positions per work unit (0: from the memory) */
    uint64_t memory_per_rank; /* bytes a rank may hold (0: the node's memory shared among its
                               * ranks); the smallest of all ranks counts */
    bool quiet, keep_work;
    bool dictionary;          /* try a zstd dictionary per table file */
    unsigned rule_limit;      /* the draw rule in plies (0: no rule-aware tables) */
    uint64_t split_positions; /* units of one subslice above this (and above the unit bound) are
                               * split over the ranks (0: what half a rank's memory holds) */
    uint64_t finish_positions; /* pairs of more table entries than this are finished in parts
                               * (workgraph.h; 0: chosen by dk_setup_run) */
} dk_gen_options;

/* Runs the generation on this rank (MPI initialised by the caller, MPI_THREAD_FUNNELED or
 * more). Returns, the same on every rank: DK_OK when every table is finished and verified,
 * DK_REFUSED when the run is refused before anything is written (a memory budget below what it
 * needs or beyond a node's memory, a directory of another draw rule), DK_FAILED on a failure
 * while it runs; with a failure, rank 0 has one line in err saying why (another rank may have
 * none). Every rank must call it with the same options. Not thread-safe (one run a process). */
int dk_generate(const dk_gen_options *o, char *err, size_t errlen);

#endif
