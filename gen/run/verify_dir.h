/* `damka verify`: every table of a directory checked byte by byte (CRC) and value by value
 * (the forward pass of verify.h), on several threads. */
#ifndef DK_VERIFY_DIR_H
#define DK_VERIFY_DIR_H

#include <stdio.h>

#include "../../index/material.h"
#include "../../rules/errors.h"
#include "verify_journal.h"

typedef struct dk_verify_summary {
    int tables, failed;
    int passed_before;   /* tables the journal said had passed, their values not checked again */
    bool journal_failed; /* the journal could not be written (said through the failure function) */
    uint64_t positions;
} dk_verify_summary;

/* Takes one line for each table that fails (what failed, where, and the command that makes
 * the table again), or for a failure of the whole check (out of memory). */
typedef void dk_verify_failure_fn(void *ctx, const char *line);

/* Verifies every table of variant v in dir with `threads` threads, printing one line per
 * table to `out` (NULL: silent) and handing each failure to failure(ctx, line). With a journal
 * (NULL: none), a table it says passed with the files it has now (read again whole) is not
 * checked again, and each table that passes is recorded in it. Fills *sum. Returns DK_OK if
 * every table passed (and at least one was found) and the journal was written, DK_FAILED
 * otherwise. Not thread-safe (it runs its own threads). */
int dk_verify_dir(const char *dir, const dk_variant *v, int threads, dk_verify_journal *journal, FILE *out,
                  dk_verify_failure_fn *failure, void *ctx, dk_verify_summary *sum);

#endif
