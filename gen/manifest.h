/* The manifest of a table directory: every table with its file size, checksum and statistics,
 * in generation order. Made from the per-table statistics files, so it is the same whatever
 * the number of ranks or restarts. */
#ifndef DK_MANIFEST_H
#define DK_MANIFEST_H

#include <stdio.h>

#include "../index/workgraph.h"

/* Writes <dir>/manifest.json atomically for every variant with tables in dir. Returns 0, or
 * -1 with one line in err. */
int dk_manifest_write(const char *dir, const dk_workgraph *g, char *err, size_t errlen);

/* Prints the statistics of every table in dir (variant v, or every variant if NULL): a table
 * for people, or the manifest's JSON. Returns the number of tables found, or -1 with one line
 * in err (and nothing printed) when a statistics file is there but cannot be read, naming it
 * and the command that makes its table again, or when memory runs out. */
int dk_manifest_print(const char *dir, const dk_variant *v, bool json, FILE *f, char *err,
                      size_t errlen);

#endif
