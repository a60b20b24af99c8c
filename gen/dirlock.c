#include "dirlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../rules/errors.h"

/* What the holder wrote: "host H pid P since YYYY-MM-DD HH:MM:SS UTC". */
static void read_holder(int fd, char *buf, size_t len)
{
    ssize_t n = pread(fd, buf, len - 1, 0);
    buf[n > 0 ? n : 0] = 0;
    buf[strcspn(buf, "\n")] = 0;
}

int dk_dirlock_take(dk_dirlock *l, const char *dir, char *note, size_t notelen, char *err,
                    size_t errlen)
{
    note[0] = 0;
    snprintf(l->path, sizeof l->path, "%s/lock", dir);
    l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (l->fd < 0)
        return dk_errorf(err, errlen, "cannot open %s: %s", l->path, strerror(errno));
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    char holder[256];
    read_holder(l->fd, holder, sizeof holder);
    if (fcntl(l->fd, F_SETLK, &fl) != 0) {
        int e = errno;
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
