/* Statistics of a finished table (one material, White to move): counts of wins, losses and
 * draws, the DTW histogram and the longest win. Kept beside the table in a small text file of
 * "key value" lines, from which the manifest and `damka stats` are made. */
#ifndef DK_STATS_H
#define DK_STATS_H

#include <stdio.h>

#include "../index/perfect.h"
#include "../query/value.h"

typedef struct dk_stats {
    dk_material m;
    uint64_t positions, wins, losses, draws;
    unsigned max_dtw;           /* histogram covers 0..max_dtw */
    uint64_t *hist;             /* positions by DTW (wins odd, losses even) */
    unsigned longest_win;       /* plies of the longest win (0: no win) */
    char longest_fen[128];      /* its position: the lowest index among the longest wins */
    uint64_t file_size[2];      /* the .wld and the .dtw file: bytes ... */
    uint32_t file_crc[2];       /* ... and CRC-32C of all but their trailer */
} dk_stats;

/* Counts values[0..ix->size-1] of material ix->m. Returns 0, or -1 if out of memory. */
int dk_stats_compute(dk_stats *st, const dk_index *ix, const dk_value *values);

void dk_stats_free(dk_stats *st);

/* Writes the stats file atomically (temporary file, fsync, rename). Returns 0 or -1. */
int dk_stats_save(const dk_stats *st, const char *path);

/* Reads a stats file. Returns 0, or -1 if it is missing or malformed. */
int dk_stats_load(dk_stats *st, const char *path);

/* Writes st as one JSON object (no newline); name is the file name without extension. */
void dk_stats_json(const dk_stats *st, const char *name, FILE *f);

#endif
