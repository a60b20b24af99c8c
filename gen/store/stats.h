/* Statistics of a finished table (one material, White to move): counts of wins, losses and
 * draws, the DTW histogram and the longest win; with a draw rule, the counts of the five
 * categories under it, the DTC histograms of its wins and losses and the longest DTC. Kept
 * beside the table in a small text file of "key value" lines, from which the manifest and
 * `damka stats` are made. */
#ifndef DK_STATS_H
#define DK_STATS_H

#include <stdio.h>

#include "../../index/perfect.h"
#include "../../rules/errors.h"
#include "json.h"
#include "valuesource.h"
#include "../../query/value.h"

enum { DK_STATS_FILES = 3 }; /* .wld, .dtw, .dtc: file k is metric k + 1 */

/* Rule categories as the statistics count them. */
enum { DK_RC_WIN, DK_RC_CURSED_WIN, DK_RC_DRAW, DK_RC_BLESSED_LOSS, DK_RC_LOSS, DK_RC_N };

/* The name of category k (DK_RC_*) in the .stats files and the JSON ("wins", "cursed_wins",
 * ...). Pure. */
const char *dk_stats_rule_key(int k);

typedef struct dk_stats {
    dk_material m;
    uint64_t positions, wins, losses, draws;
    unsigned max_dtw;           /* histogram covers 0..max_dtw */
    uint64_t *hist;             /* positions by DTW (wins odd, losses even) */
    unsigned longest_win;       /* plies of the longest win (0: no win) */
    char longest_fen[128];      /* its position: the lowest index among the longest wins */
    uint64_t file_size[DK_STATS_FILES]; /* the .wld, .dtw and .dtc files: bytes ... */
    uint32_t file_crc[DK_STATS_FILES];  /* ... and CRC-32C of all but their trailer */
    /* under the draw rule (limit 0: no rule-aware table; the rest is zero) */
    unsigned limit;             /* L in plies */
    uint64_t rule[DK_RC_N];     /* positions by category */
    uint64_t *dtc_win, *dtc_loss; /* rule wins and losses by DTC, 0..limit */
    unsigned longest_dtc;       /* the largest DTC of a rule win (0: none) */
    char longest_dtc_fen[128];  /* its position: the lowest index among them */
    /* while counting (dk_stats_count): the largest value, the longest win's value and where
     * the longest win and DTC are (the FENs are made by dk_stats_end) */
    dk_value max_value, longest_value;
    uint64_t longest_at, longest_dtc_at;
} dk_stats;

/* Counts the values of material ix->m, read from src (in two or three passes): per position
 * its DTW value, followed by its rule value when limit > 0 (a draw rule of limit plies).
 * Returns 0, or -1 with one line in err (the source failed, or out of memory). */
int dk_stats_compute(dk_stats *st, const dk_index *ix, const dk_value_source *src, unsigned limit,
                     char *err, size_t errlen);

void dk_stats_free(dk_stats *st);

/* Counting in parts (a pair's finishing split over ranks): dk_stats_begin makes empty counts of
 * material ix->m (the histogram over every value until dk_stats_end); dk_stats_count adds
 * positions first..first+n-1 read from src (a position's first value may carry
 * DK_VFILE_FLAG, valuefile.h, which is left out); dk_stats_add adds b's counts (positions after
 * a's) to a's; dk_stats_end cuts the histogram and makes the FENs, leaving what
 * dk_stats_compute gives for the same positions. begin returns 0, or -1 when out of memory;
 * count 0, or -1 with one line in err. Pure apart from their arguments. */
int dk_stats_begin(dk_stats *st, const dk_index *ix, unsigned limit);
int dk_stats_count(dk_stats *st, const dk_value_source *src, uint64_t first, uint64_t n, char *err,
                   size_t errlen);
void dk_stats_add(dk_stats *a, const dk_stats *b);
void dk_stats_end(dk_stats *st, const dk_index *ix);

/* Writes the stats file atomically (temporary file, fsync, rename). Returns 0, or -1 with one
 * line in err naming the step that failed and the file (atomicfile.h). */
int dk_stats_write(const dk_stats *st, const char *path, char *err, size_t errlen);

/* Reads a stats file. Returns DK_OK; or, with one line in err, DK_DAMAGED (it is malformed),
 * DK_MISSING, DK_IO (it cannot be opened or read: "cannot open P: ...") or DK_NO_MEMORY. */
int dk_stats_read(dk_stats *st, const char *path, char *err, size_t errlen);

/* dk_stats_read without the message: the same status. */
int dk_stats_load(dk_stats *st, const char *path);

/* Writes st as one JSON object, the next item of w (the document, or an item of an array);
 * file is the tables' file name without extension. */
void dk_stats_json(const dk_stats *st, const char *file, dk_json *w);

/* "<dir>/<variant>-<material>.stats", the statistics file of material m (snprintf's return). */
int dk_stats_path(const char *dir, const dk_variant *v, dk_material m, char *buf, size_t len);

#endif
