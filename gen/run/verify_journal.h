/* `damka verify --journal FILE`: the tables a verification of a directory passed, so that one
 * stopped (a batch job's time limit, a kill, a machine gone) and started again with the same
 * file checks the others only. A journal belongs to one state of the set: its first line holds
 * the CRC-32C of the directory's manifest.json, which lists every table file's size and CRC
 * (a table's values are checked against the tables it leads to, so a journal of another set,
 * even one table remade differently, is worth nothing and is started again). Each later line
 * names a table and its files' sizes and CRC-32C as the pass that checked it read them; verify
 * takes a table as passed only when its files, read again byte by byte, still are those.
 * The file is replaced whole and atomically after each table (gen/store/atomicfile.h): a kill
 * leaves the journal of before or of after the table. One thread's. */
#ifndef DK_VERIFY_JOURNAL_H
#define DK_VERIFY_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "../../index/material.h"
#include "../../rules/errors.h"

typedef struct dk_verify_journal dk_verify_journal;

/* A table's files as verify read them: size and CRC-32C of its WLD, DTW and DTC files (size 0:
 * no such file). */
typedef struct dk_table_files {
    uint64_t size[3];
    uint32_t crc[3];
} dk_table_files;

/* Opens the journal at path for the tables of dir: reads it if it is there, else starts an
 * empty one (written at the first table). *restarted says whether a journal there was of
 * another state of the set (another manifest.json) and was dropped. Returns DK_OK with *out;
 * DK_REFUSED with one line in err when dir has no manifest.json (not a finished set) or the file
 * is no journal (it is left as it is); DK_MISSING, DK_IO, DK_NO_MEMORY when the manifest or the
 * journal cannot be read. */
dk_status dk_verify_journal_open(const char *path, const char *dir, dk_verify_journal **out, bool *restarted,
                                 char *err, size_t errlen);

/* Whether the journal says table m of variant v, with exactly these files, passed. */
bool dk_verify_journal_passed(const dk_verify_journal *j, const dk_variant *v, dk_material m,
                              const dk_table_files *files);

/* Records that table m of v, with these files, passed, and writes the journal. Returns DK_OK,
 * or a kind (DK_IO, DK_NO_MEMORY) with one line in err naming the file; the journal on disk is
 * then the one of before. */
dk_status dk_verify_journal_add(dk_verify_journal *j, const dk_variant *v, dk_material m,
                                const dk_table_files *files, char *err, size_t errlen);

/* The tables the journal holds. */
int dk_verify_journal_tables(const dk_verify_journal *j);

void dk_verify_journal_close(dk_verify_journal *j);

#endif
