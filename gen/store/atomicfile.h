/* The generator's atomic replacement of files: every file it writes appears complete under its
 * name or not at all (temporary file, fsync, rename, fsync of the directory), so that a run
 * killed at any moment leaves only whole files and `*.tmp.*` leftovers. */
#ifndef DK_ATOMICFILE_H
#define DK_ATOMICFILE_H

#include <stddef.h>

/* An atomic writer: bytes go to "<path>.tmp.<pid>", dk_atomic_commit makes them `path` (fsync,
 * rename, fsync of the directory), dk_atomic_abort removes them (and leaves errno as it was).
 * Every failure is one line naming the step and the file: "cannot create P.tmp.N: ...",
 * "cannot write P: fsync: ...", "cannot rename P.tmp.N to P: ...", "cannot write P: fsync of
 * directory D: ...". A failed commit leaves nothing under `path` that was not there before,
 * except when only the directory's fsync failed: the file is then complete under its name.
 * A writer is one thread's; distinct paths may be written by several threads at once. */
typedef struct dk_atomic_file {
    int fd;
    char tmp[4096];
} dk_atomic_file;

/* Creates the temporary file. Returns 0, or -1 with one line in err. */
int dk_atomic_begin(dk_atomic_file *f, const char *path, char *err, size_t errlen);

/* Appends len bytes; at_offset >= 0 writes there instead (a header filled in last). Returns 0,
 * or -1 with errno set (the caller names the file). */
int dk_atomic_write(dk_atomic_file *f, const void *data, size_t len, long long at_offset);

/* Makes the bytes written `path`. Returns 0, or -1 with one line in err. */
int dk_atomic_commit(dk_atomic_file *f, const char *path, char *err, size_t errlen);

/* Removes the temporary file, errno kept. */
void dk_atomic_abort(dk_atomic_file *f);

/* The whole of a small file, atomically. Returns 0, or -1 with one line in err. */
int dk_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen);

#endif
