/* The manifest of a table directory: every table with its file size, checksum and statistics,
 * in generation order. Made from the per-table statistics files, so it is the same whatever
 * the number of ranks or restarts. */
#ifndef DK_MANIFEST_H
#define DK_MANIFEST_H

#include <stdio.h>

#include "../sched/workgraph.h"

/* The manifest's form: one JSON document for the whole directory,
 * {"manifest": "damka-manifest-2", "variants": [V, ...]}, one object V a variant with tables
 * there ("variant", "format", "metrics", "draw_rule_plies", "tables", "totals"), in the order
 * brazilian, international. */
#define DK_MANIFEST_FORMAT "damka-manifest-2"

/* Writes <dir>/manifest.json atomically, listing every table of every variant in dir (made from
 * their .stats files: generating one variant keeps the other's entries); left untouched when it
 * already says exactly that. Returns 0, or -1 with one line in err. */
int dk_manifest_write(const char *dir, char *err, size_t errlen);

/* What dk_manifest_check finds, beside DK_FAILED. */
enum {
    DK_MANIFEST_CURRENT = 0,    /* what dk_manifest_write would write now, or no manifest */
    DK_MANIFEST_DIFFERS = 1,    /* out of date: tables missing from it or gone */
    DK_MANIFEST_OLD_FORMAT = 2, /* written before DK_MANIFEST_FORMAT */
};

/* Whether <dir>/manifest.json, if there, is what dk_manifest_write would write now. Returns
 * DK_MANIFEST_CURRENT; DK_MANIFEST_DIFFERS or DK_MANIFEST_OLD_FORMAT with one line in err
 * saying so; DK_FAILED with one line in err when it or a .stats file cannot be read. */
int dk_manifest_check(const char *dir, char *err, size_t errlen);

/* Prints the statistics of every table in dir (variant v, or every variant if NULL): a table
 * for people, or the manifest's JSON (one document, with v's variant only if v is given).
 * Returns the number of tables found, or -1 with one line in err (and nothing printed) when a
 * statistics file is there but cannot be read, naming it and the command that makes its table
 * again, or when memory runs out. */
int dk_manifest_print(const char *dir, const dk_variant *v, bool json, FILE *f, char *err,
                      size_t errlen);

#endif
