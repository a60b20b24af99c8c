#include "dirlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../rules/errors.h"
#include "../store/testhooks.h"

/* What the holder wrote: "host H pid P since YYYY-MM-DD HH:MM:SS UTC". */
static void read_holder(int fd, char *buf, size_t len)
{
    ssize_t n = pread(fd, buf, len - 1, 0);
    buf[n > 0 ? n : 0] = 0;
    buf[strcspn(buf, "\n")] = 0;
}

/* The process that holds the lock on fd, as F_GETLK reports it (0: none, or not known, as on
 * some network filesystems). */
static long holder_pid(int fd)
{
    struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    return fcntl(fd, F_GETLK, &q) == 0 && q.l_type != F_UNLCK ? (long)q.l_pid : 0;
}

/* Takes the lock on fd, waiting up to `wait` seconds for a holder to end (a rank of a job just
 * killed releases it as it exits), the wait said once on `say` (NULL: silently). Returns 0, or
 * the errno of the last attempt. */
static int lock_within(int fd, const char *dir, const char *holder, double wait, FILE *say)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    const struct timespec pause = {0, 20 * 1000 * 1000};
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (bool said = false;; said = true) {
        if (fcntl(fd, F_SETLK, &fl) == 0)
            return 0;
        int e = errno;
        clock_gettime(CLOCK_MONOTONIC, &t);
        double waited = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9;
        if ((e != EACCES && e != EAGAIN) || waited >= wait)
            return e;
        if (say && !said) {
            long pid = holder_pid(fd);
            char who[32] = "another process";
            if (pid > 0)
                snprintf(who, sizeof who, "pid %ld", pid);
            fprintf(say, "gen: %s is locked by %s (%s): waiting up to %g s for it to end\n", dir, who,
                    holder[0] ? holder : "holder unknown", wait);
        }
        nanosleep(&pause, NULL);
    }
}

int dk_dirlock_take(dk_dirlock *l, const char *dir, FILE *say, char *note, size_t notelen, char *err,
                    size_t errlen)
{
    note[0] = 0;
    if ((size_t)snprintf(l->path, sizeof l->path, "%s/lock", dir) >= sizeof l->path)
        return dk_errorf(err, errlen, "%.900s: the path of its lock is too long", dir);
    l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (l->fd < 0)
        return dk_errorf(err, errlen, "cannot open %s: %s", l->path, strerror(errno));
    char holder[256];
    read_holder(l->fd, holder, sizeof holder);
    double wait = DK_DIRLOCK_WAIT;
    dk_hook_lock_wait(&wait);
    int e = lock_within(l->fd, dir, holder, wait, say);
    if (e != 0) {
        read_holder(l->fd, holder, sizeof holder); /* a holder that came meanwhile */
        close(l->fd);
        l->fd = -1;
        if (e == EACCES || e == EAGAIN)
            return dk_errorf(err, errlen, "%s is in use by another damka gen (%s); wait for it to end, or "
                             "use another directory", dir, holder[0] ? holder : "holder unknown");
        return dk_errorf(err, errlen, "cannot lock %s: %s (the filesystem must support fcntl locks)",
                         l->path, strerror(e));
    }
    if (holder[0])
        snprintf(note, notelen, "gen: %s was left by a run that is gone (%s): taken over", l->path,
                 holder);
    char host[128] = "?", line[512], when[64];
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&now, &tm));
    int n = snprintf(line, sizeof line, "host %s pid %ld since %s\n", host, (long)getpid(), when);
    if (ftruncate(l->fd, 0) != 0 || pwrite(l->fd, line, (size_t)n, 0) != n) {
        int e = errno;
        dk_dirlock_release(l);
        return dk_errorf(err, errlen, "cannot write %s: %s", l->path, strerror(e));
    }
    return 0;
}

void dk_dirlock_release(dk_dirlock *l)
{
    if (l->fd < 0)
        return;
    /* emptied first: a file with a holder but no lock means a run that died */
    if (ftruncate(l->fd, 0) != 0) {
        /* nothing to do: the next run only takes it over with a note */
    }
    close(l->fd);
    l->fd = -1;
}
