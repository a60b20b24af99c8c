#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../rules/errors.h"

int dk_map_file(const char *path, size_t min_len, const uint8_t **map, size_t *len, char *err,
                size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return dk_statusf(dk_status_of_errno(errno), err, errlen, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0) {
        rc = dk_statusf(dk_status_of_errno(errno), err, errlen, "cannot read %s: %s", path, strerror(errno));
    } else if ((size_t)st.st_size < min_len || st.st_size == 0) {
        rc = dk_statusf(DK_DAMAGED, err, errlen, "%s is damaged: truncated", path);
    } else {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            rc = dk_statusf(dk_status_of_errno(errno), err, errlen, "cannot map %s: %s", path, strerror(errno));
        } else {
            *map = m;
            *len = (size_t)st.st_size;
        }
    }
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

void dk_unmap_file(const uint8_t *map, size_t len)
{
    if (map)
        munmap((void *)map, len);
}

ssize_t dk_read_at(int fd, void *buf, size_t len, uint64_t off)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        done += (size_t)n;
    }
    return (ssize_t)done;
}
