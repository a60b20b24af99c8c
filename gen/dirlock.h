/* One `damka gen` at a time on an output directory.
 *
 * Rank 0 holds a POSIX record lock (fcntl F_SETLK, write lock on the whole file) on DIR/lock for
 * the whole run, and writes into the file who holds it: host, process id, start time. fcntl
 * locks, unlike flock and lock files created with O_EXCL, are released by the kernel (or, on NFS,
 * by the lock manager; on Lustre with the flock or localflock mount option; on GPFS always) when
 * the process dies, however it dies, so a lock never outlives its run: a DIR/lock file without a
 * lock is what a dead run left behind, and the next run takes it over with a note. */
#ifndef DK_DIRLOCK_H
#define DK_DIRLOCK_H

#include <stddef.h>

typedef struct dk_dirlock {
    int fd;            /* -1: not held */
    char path[4096];
} dk_dirlock;

/* Takes the lock of directory dir (which must exist). Returns 0 (with a line in note if a dead
 * run's lock was taken over, else note empty); -1 with one line in err saying who holds it and
 * since when, or why the lock cannot be taken (a filesystem without locks, say). */
int dk_dirlock_take(dk_dirlock *l, const char *dir, char *note, size_t notelen, char *err,
                    size_t errlen);

/* Releases the lock (the file stays: the next run finds it free). */
void dk_dirlock_release(dk_dirlock *l);

#endif
