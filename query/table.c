#include "table.h"

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
#include "checksum.h"

/* Layout, little-endian: magic[8] version u32 kind u8 variant u8 material[4] width u8 pad u8
 * part u32 count u64 crc u32 header_crc u32, zeros up to HEADER_SIZE, then the values. */
enum { HEADER_SIZE = DK_TABLE_HEADER, VERSION = 1 };
static const char MAGIC[8] = {'D', 'A', 'M', 'K', 'A', 'V', 'A', 'L'};

static void put32(uint8_t *p, uint32_t x)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}

static void put64(uint8_t *p, uint64_t x)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

static void encode_header(const dk_table_info *in, uint8_t *h)
{
    memset(h, 0, HEADER_SIZE);
    memcpy(h, MAGIC, 8);
    put32(h + 8, VERSION);
    h[12] = in->kind;
    h[13] = in->variant;
    memcpy(h + 14, in->material, 4);
    h[18] = in->width;
    put32(h + 20, in->part);
    put64(h + 24, in->count);
    put32(h + 32, in->crc);
    put32(h + 36, dk_crc32c(0, h, 36));
}

static int decode_header(const uint8_t *h, dk_table_info *out)
{
    if (memcmp(h, MAGIC, 8) != 0)
        return -1;
    if (get32(h + 8) != VERSION || get32(h + 36) != dk_crc32c(0, h, 36))
        return -1;
    out->kind = h[12];
    out->variant = h[13];
    memcpy(out->material, h + 14, 4);
    out->width = h[18];
    out->part = get32(h + 20);
    out->count = get64(h + 24);
    out->crc = get32(h + 32);
    return (out->width == 1 || out->width == 2) ? 0 : -1;
}

static int write_all(int fd, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int fsync_dir_of(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
    free(copy);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int dk_table_save(const char *path, dk_table_info *info, const dk_value *values, char *err,
                  size_t errlen)
{
    dk_value max = 0;
    for (uint64_t i = 0; i < info->count; i++)
        max = values[i] > max ? values[i] : max;
    info->width = max > 0xff ? 2 : 1;

    enum { CHUNK = 1 << 16 };
    uint8_t *buf = malloc(CHUNK * 2);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = buf ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
    if (fd < 0) {
        free(buf);
        return dk_errorf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
    }
    uint8_t header[HEADER_SIZE];
    memset(header, 0, sizeof header);
    int rc = write_all(fd, header, sizeof header); /* rewritten once the CRC is known */
    uint32_t crc = 0;
    for (uint64_t at = 0; rc == 0 && at < info->count; at += CHUNK) {
        size_t n = info->count - at < CHUNK ? (size_t)(info->count - at) : CHUNK;
        for (size_t i = 0; i < n; i++) {
            if (info->width == 1) {
                buf[i] = (uint8_t)values[at + i];
            } else {
                buf[2 * i] = (uint8_t)values[at + i];
                buf[2 * i + 1] = (uint8_t)(values[at + i] >> 8);
            }
        }
        crc = dk_crc32c(crc, buf, n * info->width);
        rc = write_all(fd, buf, n * info->width);
    }
    free(buf);
    info->crc = crc;
    encode_header(info, header);
    if (rc == 0 && (pwrite(fd, header, sizeof header, 0) != (ssize_t)sizeof header || fsync(fd)))
        rc = -1;
    if (close(fd) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    if (rc != 0) {
        int e = errno;
        unlink(tmp);
        return dk_errorf(err, errlen, "cannot write %s: %s", path, strerror(e));
    }
    fsync_dir_of(path);
    return 0;
}

dk_table *dk_table_open(const char *path, bool check_all, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        dk_errorf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    dk_table *t = calloc(1, sizeof *t);
    void *map = MAP_FAILED;
    if (!t || fstat(fd, &st) != 0) {
        dk_errorf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        goto out;
    }
    if (st.st_size < HEADER_SIZE) {
        dk_errorf(err, errlen, "%s is damaged: truncated header", path);
        goto out;
    }
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        dk_errorf(err, errlen, "cannot map %s: %s", path, strerror(errno));
        goto out;
    }
    if (decode_header(map, &t->info) != 0) {
        dk_errorf(err, errlen, "%s is damaged or not a damka value file (bad header)", path);
        goto out;
    }
    if ((uint64_t)st.st_size != HEADER_SIZE + t->info.count * t->info.width) {
        dk_errorf(err, errlen, "%s is damaged: %lld bytes, the header needs %llu", path,
             (long long)st.st_size, (unsigned long long)(HEADER_SIZE + t->info.count * t->info.width));
        goto out;
    }
    t->values = (const uint8_t *)map + HEADER_SIZE;
    if (check_all && dk_crc32c(0, t->values, t->info.count * t->info.width) != t->info.crc) {
        dk_errorf(err, errlen, "%s is damaged: checksum mismatch", path);
        goto out;
    }
    t->map = map;
    t->map_len = (size_t)st.st_size;
    close(fd);
    return t;
out:
    if (map != MAP_FAILED)
        munmap(map, (size_t)st.st_size);
    free(t);
    close(fd);
    return NULL;
}

const dk_table_info *dk_table_get_info(const dk_table *t) { return &t->info; }

void dk_table_close(dk_table *t)
{
    if (!t)
        return;
    munmap(t->map, t->map_len);
    free(t);
}
