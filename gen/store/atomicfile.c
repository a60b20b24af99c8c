#include "atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../rules/errors.h"

int dk_atomic_begin(dk_atomic_file *f, const char *path, char *err, size_t errlen)
{
    snprintf(f->tmp, sizeof f->tmp, "%.4000s.tmp.%ld", path, (long)getpid());
    f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f->fd < 0)
        return dk_errorf(err, errlen, "cannot create %s: %s", f->tmp, strerror(errno));
    return 0;
}

int dk_atomic_write(dk_atomic_file *f, const void *data, size_t len, long long at_offset)
{
    const uint8_t *p = data;
    while (len) {
        ssize_t n = at_offset >= 0 ? pwrite(f->fd, p, len, (off_t)at_offset) : write(f->fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            errno = EIO; /* no progress, no error: never seen on a regular file */
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
        if (at_offset >= 0)
            at_offset += n;
    }
    return 0;
}

/* Makes the rename of a file into dir durable: fsync of the directory. */
static int fsync_dir_of(const char *path, char *err, size_t errlen)
{
    char *copy = strdup(path);
    if (!copy)
        return dk_errorf(err, errlen, "cannot write %s: out of memory", path);
    const char *dir = dirname(copy);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
    if (fd < 0)
        rc = dk_errorf(err, errlen, "cannot open directory %s to make %s durable: %s", dir, path,
                       strerror(errno));
    else if (fsync(fd) != 0)
        rc = dk_errorf(err, errlen, "cannot write %s: fsync of directory %s: %s", path, dir,
                       strerror(errno));
    if (fd >= 0)
        close(fd);
    free(copy);
    return rc;
}

int dk_atomic_commit(dk_atomic_file *f, const char *path, char *err, size_t errlen)
{
    int rc = 0;
    if (fsync(f->fd) != 0)
        rc = dk_errorf(err, errlen, "cannot write %s: fsync: %s", path, strerror(errno));
    if (close(f->fd) != 0 && rc == 0)
        rc = dk_errorf(err, errlen, "cannot write %s: close: %s", path, strerror(errno));
    f->fd = -1;
    if (rc == 0 && rename(f->tmp, path) != 0)
        rc = dk_errorf(err, errlen, "cannot rename %s to %s: %s", f->tmp, path, strerror(errno));
    if (rc != 0) {
        unlink(f->tmp);
        return -1;
    }
    /* the file is complete under its name; a failure here only leaves it less durable, but
     * says that the disk fails: the run stops rather than going on */
    return fsync_dir_of(path, err, errlen);
}

void dk_atomic_abort(dk_atomic_file *f)
{
    int e = errno; /* callers report the error that made them abort */
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    unlink(f->tmp);
    errno = e;
}

int dk_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    dk_atomic_file f;
    if (dk_atomic_begin(&f, path, err, errlen) != 0)
        return -1;
    if (dk_atomic_write(&f, data, len, -1) != 0) {
        int e = errno;
        dk_atomic_abort(&f);
        return dk_errorf(err, errlen, "cannot write %s: %s", path, strerror(e));
    }
    return dk_atomic_commit(&f, path, err, errlen);
}
