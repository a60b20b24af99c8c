/* One `damka gen` at a time on an output directory.
 *
 * Rank 0 holds a POSIX record lock (fcntl F_SETLK, write lock on the whole file) on DIR/lock for
 * the whole run, and writes into the file who holds it: host, process id, start time. fcntl
 * locks, unlike flock and lock files created with O_EXCL, are released by the kernel (or, on NFS,
 * by the lock manager; on Lustre with the flock or localflock mount option; on GPFS always) when
 * the process dies, however it dies, so a lock never outlives its run: a DIR/lock file without a
 * lock is what a dead run left behind, and the next run takes it over with a note.
 *
 * A run started just after its directory's job was killed finds the lock still held: the dying
 * ranks release it as they exit (cli/launcher.h ends them once mpirun is gone), which may take a
 * while for a rank that frees much memory. So a held lock is waited for, up to DK_DIRLOCK_WAIT
 * seconds, the wait said once with the holding process's id (F_GETLK); a live run still holds
 * it then, and the new run is refused. */
#ifndef DK_DIRLOCK_H
#define DK_DIRLOCK_H

#include <stddef.h>
#include <stdio.h>

/* How long a held lock is waited for, in seconds. */
#define DK_DIRLOCK_WAIT 10.0

typedef struct dk_dirlock {
    int fd;            /* -1: not held */
    char path[4096];
} dk_dirlock;

/* Takes the lock of directory dir (which must exist), waiting for a holder to end up to
 * DK_DIRLOCK_WAIT seconds (the test hook DAMKA_TEST_LOCK_WAIT changes it), the wait said in one
 * line on `say` (NULL: silently). Returns 0 (with a line in note if a dead run's lock was taken
 * over, else note empty); -1 with one line in err saying who holds it and since when, or why
 * the lock cannot be taken (a filesystem without locks, a path too long, say). Not
 * thread-safe (fcntl locks are the process's). */
int dk_dirlock_take(dk_dirlock *l, const char *dir, FILE *say, char *note, size_t notelen, char *err,
                    size_t errlen);

/* Releases the lock (the file stays: the next run finds it free). */
void dk_dirlock_release(dk_dirlock *l);

#endif
