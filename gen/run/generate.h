/* `damka gen`: every material up to N pieces, spread over MPI ranks. Rank 0 schedules the work
 * graph and computes too; every rank reads its inputs from the finished files of the output
 * directory and writes its results there atomically, so a run killed at any moment restarts
 * where it stopped and the files are the same whatever the number of ranks. */
#ifndef DK_GENERATE_H
#define DK_GENERATE_H

#include <stddef.h>

#include "../../rules/errors.h"
#include "options.h"

/* Runs the generation on this rank (MPI initialised by the caller, MPI_THREAD_FUNNELED or
 * more). Returns, the same on every rank: DK_OK when every table is finished and verified,
 * DK_REFUSED when the run is refused before anything is written (a memory budget below what it
 * needs or beyond a node's memory, a directory of another draw rule), DK_FAILED on a failure
 * while it runs; with a failure, rank 0 has one line in err saying why (another rank may have
 * none). Every rank must call it with the same options. Not thread-safe (one run a process). */
int dk_generate(const dk_gen_options *o, char *err, size_t errlen);

#endif
