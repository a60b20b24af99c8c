/* What both table formats need from files: little-endian fields, a whole file mapped read-only,
 * and atomic replacement (temporary file, fsync, rename, fsync of the directory). */
#ifndef DK_FILEIO_H
#define DK_FILEIO_H

#include <stddef.h>
#include <stdint.h>

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

/* Maps the whole file at path read-only: *map and *len. Returns 0; -1 with one line in err if
 * it cannot be opened, read or mapped (missing, unreadable, out of memory: errno says which);
 * -2 if it is shorter than min_len bytes ("damaged: truncated"). Thread-safe. */
int dk_map_file(const char *path, size_t min_len, const uint8_t **map, size_t *len, char *err,
                size_t errlen);

void dk_unmap_file(const uint8_t *map, size_t len);

/* An atomic writer: bytes go to "<path>.tmp.<pid>", dk_atomic_commit makes them `path` (fsync,
 * rename, fsync of the directory), dk_atomic_abort removes them (and leaves errno as it was).
 * Every failure is one line naming the step and the file: "cannot create P.tmp.N: ...",
 * "cannot write P: fsync: ...", "cannot rename P.tmp.N to P: ...", "cannot write P: fsync of
 * directory D: ...". A failed commit leaves nothing under `path` that was not there before,
 * except when only the directory's fsync failed: the file is then complete under its name. */
typedef struct dk_atomic_file {
    int fd;
    char tmp[4096];
} dk_atomic_file;

int dk_atomic_begin(dk_atomic_file *f, const char *path, char *err, size_t errlen);

/* Appends len bytes; at_offset >= 0 writes there instead (a header filled in last). Returns 0,
 * or -1 with errno set (the caller names the file). */
int dk_atomic_write(dk_atomic_file *f, const void *data, size_t len, long long at_offset);

int dk_atomic_commit(dk_atomic_file *f, const char *path, char *err, size_t errlen);

void dk_atomic_abort(dk_atomic_file *f);

/* The whole of a small file, atomically. Returns 0, or -1 with one line in err. */
int dk_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen);

#endif
