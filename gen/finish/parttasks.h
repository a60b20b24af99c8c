/* The three tasks of a pair's finishing in parts (workgraph.h, dk_workgraph_cut_finishes: the
 * cut, partcut.c; the files, partfiles.h), so that any ranks share
 * it and none needs more than a part's memory: the same files as one finish-pair task, byte for
 * byte (ctable_write.h: a table written in parts).
 *
 * Each part is positions [lo, hi) of one material's tables, whole blocks of every metric:
 *   - scan: its values read from the pair's units into work/<v>-<m>.raw.part<lo>-<hi> (a flagged
 *     value file: the units' capture flags kept), then counted: the statistics of its positions
 *     and what its blocks tell the coding of each table (ctable_write.h: dk_ctable_scan) into
 *     work/<v>-<m>.scan.part<lo>-<hi>;
 *   - pack, once every part of the material is scanned: the coding decided from the sum of the
 *     scans (each part decides the same), its blocks coded into work/<v>-<m>.<ext>.part<lo>-<hi>
 *     for each table (wld, dtw, dtc);
 *   - the join (the pair's finish task, once every part is packed): each table's header and
 *     block index, its parts' blocks copied in order, then the statistics summed, last.
 * Every file is written atomically: a part found whole after a kill is not made again
 * (partfiles.h: dk_fpart_found, used by restart.c). A material whose tables are finished is
 * skipped by every step. */
#ifndef DK_PARTTASKS_H
#define DK_PARTTASKS_H

#include "worker.h"

/* Scans part q of w's graph. Returns 0, or -1 with one line in err. */
int dk_task_scan_part(dk_worker *w, uint32_t q, char *err, size_t errlen);

/* Packs part q, every part of its material scanned. Returns 0, or -1 with one line in err. */
int dk_task_pack_part(dk_worker *w, uint32_t q, char *err, size_t errlen);

/* Joins the parts of pair p, every one packed, into its tables and statistics (the .stats
 * file last), then removes the parts' files and, without keep_work, the pair's units. Returns
 * 0, or -1 with one line in err. */
int dk_task_join_parts(dk_worker *w, uint32_t p, char *err, size_t errlen);

#endif
