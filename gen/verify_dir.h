/* `damka verify`: every table of a directory checked byte by byte (CRC) and value by value
 * (the forward pass of verify.h), on several threads. */
#ifndef DK_VERIFY_DIR_H
#define DK_VERIFY_DIR_H

#include <stdio.h>

#include "../index/material.h"

typedef struct dk_verify_summary {
    int tables, failed;
    uint64_t positions;
} dk_verify_summary;

/* Verifies every table of variant v in dir with `threads` threads, printing one line per
 * table to `out` (NULL: silent) and one line per failure to stderr. Fills *sum. Returns 0 if
 * every table passed (and at least one was found), 1 otherwise. */
int dk_verify_dir(const char *dir, const dk_variant *v, int threads, FILE *out,
                  dk_verify_summary *sum);

#endif
