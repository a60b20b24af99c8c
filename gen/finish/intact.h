/* Whether a finished table is whole, and what to tell the user when it is not: for the restart
 * scan of `damka gen` (restart.c), which makes a damaged table again, and for `damka verify`
 * and `damka stats`, which name the command that does. */
#ifndef DK_INTACT_H
#define DK_INTACT_H

#include <stdbool.h>
#include <stddef.h>

#include "../../index/perfect.h"
#include "../sched/workgraph.h"

/* Checks the finished tables of material ix->m in dir: its statistics file (written last, the
 * mark of a finished table) loads, is the material's and names the draw rule of `limit` plies,
 * and each table file (.wld, .dtw, with a rule .dtc) holds the material's positions and has the
 * size and CRC-32C the statistics record, the CRC computed again over the whole file (every
 * byte is read). Returns DK_OK; or, with one line in err saying which file is wrong and how,
 * DK_MISSING (no statistics: not finished), DK_DAMAGED (the bytes of a file are wrong, it is
 * another material's or rule's, or a table file is missing), DK_IO or DK_NO_MEMORY (reading
 * failed: nothing is known of the bytes). */
int dk_table_intact(const char *dir, const dk_index *ix, unsigned limit, char *err, size_t errlen);

/* Advice that ends a message about a damaged table of material m in dir: "run damka gen
 * --variant V --materials M --draw-rule N --out DIR to make it again" (the rule that of the
 * directory's statistics). With remove_stats, for damage the checksums do not show (a wrong
 * value), it says to remove the statistics file first: without it the table is not finished. */
void dk_table_repair_hint(const char *dir, const dk_variant *v, dk_material m, bool remove_stats,
                          char *buf, size_t len);

/* Whether the tables of material ix->m (of g) are finished: its statistics (written last) name
 * the rule of `limit` plies, and every table file opens with the size and CRC they record (its
 * header read, not every byte as dk_table_intact reads). The finishing of a pair leaves such a
 * material as it is (an earlier run wrote it, then was killed before the pair's other
 * material). Thread-safe. */
bool dk_material_finished(const dk_workgraph *g, const char *dir, const dk_index *ix, unsigned limit);

#endif
