/* A directory of finished tables, probed by position: the .wld, .dtw and .dtc files that
 * engines and players use, read through a bounded block cache. Where the side to move must
 * capture, the stored value is free, and the probe resolves the position by trying its
 * captures (they lead to smaller materials). Tables are opened on first use and stay open
 * until dk_tb_close. */
#ifndef DK_TABLEBASE_H
#define DK_TABLEBASE_H

#include <stdarg.h>

#include "../rules/errors.h"
#include "../index/perfect.h"
#include "ctable.h"

/* What a probe returns (a dk_status, rules/errors.h): DK_OK; DK_MISSING (the material has no
 * table in the directory); DK_DAMAGED (a table is damaged or truncated, or changed under the
 * handle: remembered until dk_tb_close); DK_IO (a table could not be read: tried again at the
 * next probe); DK_REFUSED (not a position tables hold: a side without pieces, too many
 * pieces); DK_NO_MEMORY; DK_MUST_CAPTURE (DK_TB_NO_CAPTURES, and the side to move must
 * capture); DK_NOT_CACHED (DK_TB_CACHE_ONLY, and the answer needs a block that is not in the
 * cache). Every failure leaves one line in dk_tb_last_error. */

/* Probe flags (dk_tb_probe_flags), for an engine's search. */
enum {
    DK_TB_NO_CAPTURES = 1, /* where the side to move must capture, answer DK_MUST_CAPTURE
                            * instead of trying the captures (the engine searches them) */
    DK_TB_CACHE_ONLY = 2,  /* answer only from blocks already in the cache: DK_NOT_CACHED
                            * where a block would have to be read and decompressed */
};

/* The most pieces of a table on any board; a variant's own bound is dk_material_max_pieces. */
enum { DK_TB_MAX_PIECES = DK_MATERIAL_MAX_PIECES };

/* A number for each material of up to DK_TB_MAX_PIECES pieces (four base-11 digits), for
 * arrays indexed by material; 0 is no material (no pieces). */
enum { DK_TB_MATERIAL_SLOTS = (DK_TB_MAX_PIECES + 1) * (DK_TB_MAX_PIECES + 1) * (DK_TB_MAX_PIECES + 1) *
                              (DK_TB_MAX_PIECES + 1) };

/* The slot of m (0..DK_TB_MATERIAL_SLOTS-1), or -1 when a count is above DK_TB_MAX_PIECES.
 * It does not check that m is a material of a variant. Pure. */
static inline int dk_tb_material_slot(dk_material m)
{
    enum { R = DK_TB_MAX_PIECES + 1 };
    if (m.wm >= R || m.wk >= R || m.bm >= R || m.bk >= R)
        return -1;
    return ((m.wm * R + m.wk) * R + m.bm) * R + m.bk;
}

typedef struct dk_tb_options {
    size_t cache_bytes;   /* the block cache budget (0: 64 MiB) */
} dk_tb_options;

typedef struct dk_tablebase dk_tablebase;

/* Opens directory dir for variant v; no file is read yet. Returns NULL only when out of memory.
 * o may be NULL (default cache). A compressed table that is missing or damaged when
 * first needed is remembered as such until dk_tb_close (files added later need a new handle). */
dk_tablebase *dk_tb_open(const char *dir, const dk_variant *v, const dk_tb_options *o);

/* Closes every table and frees the cache. No probe may be running. */
void dk_tb_close(dk_tablebase *tb);

/* The file extension of a metric's compressed tables: "wld", "dtw" or "dtc". Pure. */
const char *dk_tb_metric_ext(dk_metric metric);

/* "<dir>/<variant>-<material>.<ext>" (ext "wld", "dtw", "dtc", or a file of the generator's).
 * Returns the length. */
int dk_tb_path(const char *dir, const dk_variant *v, dk_material m, const char *ext, char *buf,
               size_t len);

/* The value of p (either side to move) for its side to move, in `metric`: a DTW value, a rule
 * value with the counter at 0 (DTC, drawrule.h), or for WLD a value of the right kind whose
 * distance means nothing (dk_value_of_code). A side to move without pieces is LOSS 0 (DTC: loss
 * with DTC 0) without any table. Every DTC table read must follow the same draw rule: a file
 * with another limit is DK_DAMAGED. Thread-safe. */
dk_status dk_tb_probe(dk_tablebase *tb, const dk_pos *p, dk_metric metric, dk_value *out);

/* Whether tables of tb's variant can hold p, a position dk_pos_verdict calls PLAY or GAME_OVER
 * (what every probe of a whole position checks first): DK_OK; DK_MISSING (the side to move
 * has a piece and there are more pieces than any table of the variant holds: a legal position
 * beyond the tables) or DK_REFUSED (the side
 * not to move has no piece), with dk_tb_last_error saying so. Thread-safe. */
dk_status dk_tb_holds(const dk_tablebase *tb, const dk_pos *p);

/* dk_tb_probe with `flags` (DK_TB_NO_CAPTURES, DK_TB_CACHE_ONLY, or both): 0 is dk_tb_probe.
 * A table is opened when first needed (its header and block index are read), with or without
 * DK_TB_CACHE_ONLY. With DK_TB_CACHE_ONLY and not DK_TB_NO_CAPTURES, a position that must
 * capture is answered only if every capture's value is in the cache. Thread-safe. */
dk_status dk_tb_probe_flags(dk_tablebase *tb, const dk_pos *p, dk_metric metric, unsigned flags,
                               dk_value *out);

/* The same for p, White to move, of material m (p's material). Thread-safe. */
dk_status dk_tb_probe_normal(dk_tablebase *tb, dk_material m, const dk_pos *p,
                                dk_metric metric, dk_value *out);

/* The most pieces n such that every material of 2 to n pieces has its WLD and DTW files in the
 * directory (0 if not even the 2-piece ones): what `damka query` and damka_max_pieces say the
 * tables hold. Looked up once a handle, like the rule's limit. Thread-safe. */
int dk_tb_max_pieces(dk_tablebase *tb);

/* The draw rule's limit L in plies of the directory's DTC tables: the limit of the first DTC
 * table opened, or of the first one found in the directory; 0 if it holds none. Thread-safe. */
unsigned dk_tb_rule_limit(dk_tablebase *tb);

/* The index of material m if its table of `metric` can be opened.
 * Valid until dk_tb_close. Thread-safe. */
const dk_index *dk_tb_index(dk_tablebase *tb, dk_material m, dk_metric metric,
                            dk_status *status);

/* Material m's compressed table of `metric`, opened and checked as a probe opens it (its
 * header against its name, a DTC table's draw rule against the other DTC tables'), for a
 * caller that decodes its blocks itself (ctable.h: dk_ctable_read_block, dk_ctable_decode).
 * Valid until dk_tb_close. NULL, with *status and dk_tb_last_error() saying why, when it is
 * missing or damaged or m is no material of the variant. Thread-safe. */
const dk_ctable *dk_tb_table(dk_tablebase *tb, dk_material m, dk_metric metric, dk_status *status);

/* Checks every byte of material m's compressed files (CRC and every block; the DTC file too
 * when it exists). Returns DK_OK, or a failure (a probe's kinds) with one line in err.
 * Thread-safe. */
int dk_tb_check_files(dk_tablebase *tb, dk_material m, char *err, size_t errlen);

const dk_variant *dk_tb_variant(const dk_tablebase *tb);

/* The library's one error line, per thread: what the calling thread's last failure was (to
 * open or read a table here, or a bad argument or position in the public API, query/api.c).
 * Thread-safe: each thread has its own. */
const char *dk_tb_last_error(void);

/* Sets the calling thread's error line from a format and its va_list (the arguments may include
 * the line itself). Thread-safe: each thread has its own. */
void dk_tb_set_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Empties the calling thread's error line. */
void dk_tb_clear_error(void);

/* Cache counters: lookups, blocks read. */
void dk_tb_cache_counters(dk_tablebase *tb, uint64_t *lookups, uint64_t *misses);

#endif
