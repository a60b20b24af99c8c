/* What a run of `damka gen` is asked to make, and how: the options every part of the run reads
 * (its directory, its graph and budget, its transport), filled by the command line (cli/runopts.h)
 * and by `damka plan`, which forecasts the run the same options make. A header of its own, so
 * that the run's parts read the options without including the whole run (generate.h). */
#ifndef DK_OPTIONS_H
#define DK_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../index/material.h"

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

#endif
