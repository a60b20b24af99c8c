/* `damka compare`: a directory of tables checked, table by table, against a published
 * manifest.json (manifest.h), so that a whole copy, a partial one or a subset made again with
 * `damka gen --materials` can be told to be the published set's tables. */
#ifndef DK_MANIFEST_COMPARE_H
#define DK_MANIFEST_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "../../rules/variant.h"

typedef struct dk_compare_summary {
    unsigned same;    /* tables of the manifest here, every file and statistic the same */
    unsigned differ;  /* tables of the manifest here that are not the same (or cannot be read) */
    unsigned absent;  /* tables of the manifest not here */
    unsigned extra;   /* tables here the manifest does not list */
} dk_compare_summary;

/* What dk_manifest_compare says of each table: one line, and whether it is a difference. */
typedef void dk_compare_line_fn(void *ctx, bool differs, const char *line);

/* Compares dir with the manifest at `published` (its JSON, or that compressed by zstd), the
 * variants it lists (only `only`, if given): for each table it lists, whether dir holds it (its
 * statistics file: the mark of a finished table), every byte of each of its files against the
 * size and CRC-32C dir's statistics record, and those statistics (files' sizes and CRC-32C,
 * counts, histograms, longest wins) against the manifest's entry; then the tables dir holds that
 * it does not list. Hands line(ctx, ...) one line a table, "VARIANT MATERIAL same" or what
 * differs, in the manifest's order, and fills *sum. Returns DK_OK when the comparison ran
 * (whatever it found), DK_FAILED with one line in err when the manifest cannot be read or is
 * not one (a variant not known, a table without a material, a format not this damka's).
 * Not thread-safe with a `damka gen` writing dir. */
int dk_manifest_compare(const char *published, const char *dir, const dk_variant *only,
                        dk_compare_line_fn *line, void *ctx, dk_compare_summary *sum, char *err,
                        size_t errlen);

#endif
