/* What a run of `damka gen` finds in DIR of the runs before it, decided here: which pairs are
 * finished (their tables whole), which material's tables are damaged and so made again, which
 * units are finished (their files whole), hence what the run resumes; and whether DIR's tables
 * follow another draw rule. The files' own checks are intact.h's and unitfile.h's, as is
 * the one finishing asks, whether an earlier run already wrote a material of the pair it
 * finishes (dk_material_finished, intact.h). */
#ifndef DK_RESTART_H
#define DK_RESTART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../sched/workgraph.h"

/* Finds what earlier runs finished in dir under the draw rule of `limit` plies and sets g's
 * scheduling state from it (dk_workgraph_reset): every pair whose tables are all whole
 * (dk_table_intact, every byte read), and every unit of another pair whose files are all present
 * and intact (dk_unitfile_intact). A material whose statistics file is there (it was finished)
 * but whose tables are damaged is named on stderr ("gen: making brazilian 1m2k-0m1k again:
 * ...") and its statistics file removed, so that finishing its pair writes it again. Adds the
 * finished positions and materials to *positions_done and *materials_done. Returns 0, or -1 when
 * out of memory. Not thread-safe with anything writing dir. */
int dk_restart_scan(dk_workgraph *g, const char *dir, unsigned limit, uint64_t *positions_done,
                    uint32_t *materials_done);

/* Whether the finished tables in dir (their statistics) follow another draw rule than `limit`;
 * if so, *found is theirs and *which names one of them. */
bool dk_dir_rule_differs(const char *dir, const dk_variant *v, unsigned limit, unsigned *found,
                         char *which, size_t len);

#endif
