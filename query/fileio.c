#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../rules/errors.h"

int dk_map_file(const char *path, size_t min_len, const uint8_t **map, size_t *len, char *err,
                size_t errlen)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return dk_errorf(err, errlen, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0) {
        rc = dk_errorf(err, errlen, "cannot read %s: %s", path, strerror(errno));
    } else if ((size_t)st.st_size < min_len || st.st_size == 0) {
        rc = dk_errorf(err, errlen, "%s is damaged: truncated", path);
    } else {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            rc = dk_errorf(err, errlen, "cannot map %s: %s", path, strerror(errno));
        } else {
            *map = m;
            *len = (size_t)st.st_size;
        }
    }
    close(fd);
    return rc;
}

void dk_unmap_file(const uint8_t *map, size_t len)
{
    if (map)
        munmap((void *)map, len);
}

int dk_atomic_begin(dk_atomic_file *f, const char *path, char *err, size_t errlen)
{
    snprintf(f->tmp, sizeof f->tmp, "%.4000s.tmp.%ld", path, (long)getpid());
    f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
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
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
        if (at_offset >= 0)
            at_offset += n;
    }
    return 0;
}

static void fsync_dir_of(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return;
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
    free(copy);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int dk_atomic_commit(dk_atomic_file *f, const char *path, char *err, size_t errlen)
{
    int rc = fsync(f->fd);
    if (close(f->fd) != 0)
        rc = -1;
    f->fd = -1;
    if (rc == 0 && rename(f->tmp, path) == 0) {
        fsync_dir_of(path);
        return 0;
    }
    int e = errno;
    unlink(f->tmp);
    return dk_errorf(err, errlen, "cannot write %s: %s", path, strerror(e));
}

void dk_atomic_abort(dk_atomic_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    unlink(f->tmp);
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
