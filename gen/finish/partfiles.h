/* The files of a pair finished in parts (parttasks.h), written and read here only, each
 * atomically: where a part's files are, the summary of a scanned part (DKSCAN01) and a part's
 * coded blocks of one table (DKPACK01), both laid out in query/FORMAT.md, and whether a part's
 * files are whole, for a restart. Nothing here is shared between threads: any number may work
 * on different files. */
#ifndef DK_PARTFILES_H
#define DK_PARTFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../index/perfect.h"
#include "../sched/workgraph.h"
#include "../store/stats.h"
#include "ctable_write.h"

/* The tables a part codes: WLD, DTW and, with a draw rule of `limit` plies, DTC (table k is
 * metric k + 1). Pure. */
int dk_fpart_tables(unsigned limit);

/* The material of part f of g (the member of its pair it cuts). Pure. */
const dk_index *dk_fpart_index(const dk_workgraph *g, const dk_fpart *f);

/* The file of part q: DIR/work/<variant>-<material>.<what>.part<lo>-<hi> (what: "raw", "scan",
 * or a table's extension) into buf. Returns false, buf empty, if it does not fit (never for a
 * DIR that dk_generate accepts, DK_RUNDIR_MAX). */
bool dk_fpart_path(const dk_workgraph *g, const char *dir, uint32_t q, const char *what, char *buf, size_t len);

/* The blocks [*b0, *b1) of a table laid out as `in` that part f covers. Pure. */
void dk_fpart_blocks(const dk_ctable_info *in, const dk_fpart *f, uint32_t *b0, uint32_t *b1);

/* Removes every file of part q (never the file of a name cut short). */
void dk_fpart_remove(const dk_workgraph *g, const char *dir, uint32_t q);

/* The summary of a scanned part: the statistics of its positions and what its blocks tell the
 * coding of each table (WLD, DTW, DTC). */
typedef struct dk_fpart_summary {
    dk_stats st;
    dk_ctable_scan t[3];
} dk_fpart_summary;

/* Writes s, the summary of part f, to path (DKSCAN01). Returns 0, or -1 with one line in err. */
int dk_fpart_summary_write(const dk_fpart_summary *s, const dk_fpart *f, const char *path, char *err,
                           size_t errlen);

/* Reads part f's summary at path into *s (statistics of material ix under a draw rule of
 * `limit` plies; free s->st with dk_stats_free). Returns 0, or -1 with one line in err
 * (missing, damaged, or of another part or rule). */
int dk_fpart_summary_read(dk_fpart_summary *s, const dk_index *ix, const dk_fpart *f, unsigned limit,
                          const char *path, char *err, size_t errlen);

/* Codes part f's blocks with coder c (its coding decided) into the pack file at path
 * (DKPACK01). Returns 0, or -1 with one line in err (nothing left at path). */
int dk_fpart_pack_write(dk_ctable_coder *c, const dk_fpart *f, const char *path, char *err, size_t errlen);

/* Block sizes read at once from a pack file: the room dk_fpart_pack_sizes, _next and _finish
 * need in raw (8 bytes each) and sizes. */
enum { DK_FPART_SIZES_CHUNK = 4096 };

/* A pack file read back: its header and dictionary held, its blocks given in order by
 * dk_fpart_pack_next, its sizes read a chunk at a time. Read its fields, change them only
 * through the functions below. */
typedef struct dk_fpart_pack {
    int fd;
    uint32_t width, dict_size, b0, nb; /* the coding's width and dictionary; its blocks [b0, b0 + nb) */
    uint8_t *dict;
    uint64_t sizes_at;       /* where the blocks' sizes begin in the file */
    uint64_t blocks_len, at; /* bytes of blocks, and given so far */
    uint32_t crc, want;      /* CRC of what was read, and the one stored */
    char path[4096];
} dk_fpart_pack;

/* Opens the pack file at path, which must hold the blocks [b0, b0 + nb) of a table. Returns 0,
 * or -1 with one line in err (p closed). */
int dk_fpart_pack_open(dk_fpart_pack *p, const char *path, uint32_t b0, uint32_t nb, char *err, size_t errlen);

void dk_fpart_pack_close(dk_fpart_pack *p);

/* Reads the sizes of p's blocks [b, b + n) (n <= DK_FPART_SIZES_CHUNK) into raw as stored and,
 * decoded, into out (NULL: not wanted). Returns 0, or -1 with one line in err. */
int dk_fpart_pack_sizes(const dk_fpart_pack *p, uint32_t b, uint32_t n, uint8_t *raw, uint64_t *out, char *err,
                        size_t errlen);

/* Gives the next bytes of p's blocks (at most cap) in buf, *n of them; after the last, checks
 * the file as dk_fpart_pack_finish does. Returns 0, or -1 with one line in err. */
int dk_fpart_pack_next(dk_fpart_pack *p, uint8_t *buf, size_t cap, size_t *n, uint8_t *raw, uint64_t *sizes,
                       char *err, size_t errlen);

/* Once every block of p is read: adds its sizes to its CRC, which must be the stored one, and
 * checks that they add up to its blocks (a pack without block bytes is checked so at once).
 * Returns 0, or -1 with one line in err ("damaged"). */
int dk_fpart_pack_finish(dk_fpart_pack *p, uint8_t *raw, uint64_t *sizes, char *err, size_t errlen);

/* Whether part q of g is scanned (bit 0) and packed (bit 1) in dir under the draw rule of
 * `limit` plies: its files present and whole (their CRCs). Thread-safe. */
int dk_fpart_found(const dk_workgraph *g, const char *dir, uint32_t q, unsigned limit);

#endif
