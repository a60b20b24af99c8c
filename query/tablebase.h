/* A directory of finished tables, probed by position. Tables are opened on first use and
 * stay mapped. Shared by the generator (values of exits), verification and the query command. */
#ifndef DK_TABLEBASE_H
#define DK_TABLEBASE_H

#include "../index/perfect.h"
#include "table.h"

typedef enum {
    DK_TB_OK = 0,
    DK_TB_MISSING,      /* the material has no table in the directory */
    DK_TB_DAMAGED,      /* the table exists but is damaged or truncated */
    DK_TB_BAD_POSITION, /* not a position tables hold (a side without pieces, too many pieces) */
} dk_tb_status;

enum { DK_TB_MAX_PIECES = 8 };

typedef struct dk_tablebase dk_tablebase;

/* Opens directory dir for variant v; no file is read yet. Returns NULL only when out of memory.
 * With check_all, every table's values are checked against their CRC when first opened. */
dk_tablebase *dk_tb_open(const char *dir, const dk_variant *v, bool check_all);

void dk_tb_close(dk_tablebase *tb);

/* The file name of material m's table in dir: "<dir>/<variant>-<material>.dtw". */
int dk_tb_path(const char *dir, const dk_variant *v, dk_material m, char *buf, size_t len);

/* The value of p (either side to move) for its side to move. A side to move without pieces is
 * LOSS 0 without any table. Thread-safe. */
dk_tb_status dk_tb_probe(dk_tablebase *tb, const dk_pos *p, dk_value *out);

/* The same for a White-to-move position of material m (p's material). Thread-safe. */
dk_tb_status dk_tb_probe_normal(dk_tablebase *tb, dk_material m, const dk_pos *p, dk_value *out);

/* The table and index of material m, opening them if needed; NULL with *status set if there
 * is none. Valid until dk_tb_close. Thread-safe. */
const dk_table *dk_tb_table(dk_tablebase *tb, dk_material m, const dk_index **ix,
                            dk_tb_status *status);

/* Forgets material m's table, so the next probe opens the file again (after it was rewritten).
 * Not thread-safe against probes of the same material. */
void dk_tb_forget(dk_tablebase *tb, dk_material m);

/* The variant the tables are for. */
const dk_variant *dk_tb_variant(const dk_tablebase *tb);

/* One line describing the last failure to open a table (for error messages). */
const char *dk_tb_last_error(dk_tablebase *tb);

#endif
