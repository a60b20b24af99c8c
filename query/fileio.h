/* What the table formats need from files: little-endian fields, reads at an offset, and a whole
 * file mapped read-only (the generator's own files; libdamka reads its tables with
 * dk_read_at, so that a file changed under it is an error, not a signal). The generator's
 * atomic writer is gen/store/atomicfile.h. */
#ifndef DK_FILEIO_H
#define DK_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

static inline void dk_put16(uint8_t *p, uint16_t x)
{
    p[0] = (uint8_t)x;
    p[1] = (uint8_t)(x >> 8);
}

static inline uint16_t dk_get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static inline void dk_put32(uint8_t *p, uint32_t x)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}

static inline void dk_put64(uint8_t *p, uint64_t x)
{
    dk_put32(p, (uint32_t)x);
    dk_put32(p + 4, (uint32_t)(x >> 32));
}

static inline uint32_t dk_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t dk_get64(const uint8_t *p) { return dk_get32(p) | (uint64_t)dk_get32(p + 4) << 32; }

/* Maps the whole file at path read-only: *map and *len. Returns DK_OK; with one line in err,
 * DK_DAMAGED if it is shorter than min_len bytes or empty ("damaged: truncated"), else what
 * errno says of the open, fstat or mmap that failed (dk_status_of_errno: DK_MISSING, DK_IO,
 * DK_NO_MEMORY). Thread-safe. */
int dk_map_file(const char *path, size_t min_len, const uint8_t **map, size_t *len, char *err,
                size_t errlen);

void dk_unmap_file(const uint8_t *map, size_t len);

/* Reads len bytes at offset off of fd into buf (pread, again after a partial read or EINTR).
 * Returns the bytes read: len, fewer where the file ends, or -1 with errno. Thread-safe. */
ssize_t dk_read_at(int fd, void *buf, size_t len, uint64_t off);

#endif
