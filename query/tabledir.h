/* What a directory of tables holds, from its file names alone: which variants have tables
 * there and the most pieces of a material with a table. What `damka query` says when a
 * directory is missing, holds no tables or holds another variant's. */
#ifndef DK_TABLEDIR_H
#define DK_TABLEDIR_H

#include <stddef.h>

#include "../rules/variant.h"

typedef struct dk_tb_dir {
    unsigned variants;              /* bit id set for each variant with a .dtw table */
    int most_pieces[DK_NVARIANTS];  /* the most pieces of such a table's material, 0 if none */
} dk_tb_dir;

/* Lists dir's `<variant>-<material>.dtw` files into *out. Returns 0, or -1 with errno set when
 * dir cannot be read (ENOTDIR when it is not a directory). Thread-safe. */
int dk_tb_dir_scan(const char *dir, dk_tb_dir *out);

/* The only variant with tables in d, or NULL when it holds none or several. Pure. */
const dk_variant *dk_tb_dir_only_variant(const dk_tb_dir *d);

/* "brazilian", "brazilian and international": the variants with tables in d, into buf. Pure. */
void dk_tb_dir_variant_names(const dk_tb_dir *d, char *buf, size_t len);

#endif
