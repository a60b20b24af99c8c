#include "support.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz check failed: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

const char *fuzz_string(const uint8_t *data, size_t size)
{
    static char *buf;
    static size_t cap;
    if (size + 1 > cap) {
        free(buf);
        cap = size + 1;
        if (!(buf = malloc(cap)))
            fuzz_fail("out of memory");
    }
    memcpy(buf, data, size);
    buf[size] = 0;
    return buf;
}

static char tmpdir[512];

void fuzz_clear_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

static void remove_tmpdir(void)
{
    fuzz_clear_dir(tmpdir);
    rmdir(tmpdir);
}

const char *fuzz_tmpdir(void)
{
    if (tmpdir[0])
        return tmpdir;
    struct stat st;
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    snprintf(tmpdir, sizeof tmpdir, "%s/damka-fuzz-XXXXXX", base);
    if (!mkdtemp(tmpdir))
        fuzz_fail("cannot make a directory under %s", base);
    atexit(remove_tmpdir);
    return tmpdir;
}

const char *fuzz_data_dir(const char *env, const char *fallback)
{
    struct stat st;
    const char *dir = getenv(env);
    if (!dir || !*dir)
        dir = fallback;
    FUZZ_CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode), "no table directory %s (run from the repository, or set %s)",
               dir, env);
    return dir;
}

char *fuzz_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    FUZZ_CHECK(f, "cannot read %s", path);
    char *buf = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&buf, &n);
    FUZZ_CHECK(mem, "out of memory");
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, got, mem);
    FUZZ_CHECK(!ferror(f) && fclose(mem) == 0, "cannot read %s", path);
    fclose(f);
    *len = n;
    return buf;
}

void fuzz_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        fuzz_fail("cannot write %s", path);
}

uint32_t fuzz_crc32c(const void *data, size_t len)
{
    static uint32_t table[256];
    if (!table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
            table[i] = c;
        }
    const uint8_t *p = data;
    uint32_t c = 0xffffffffu;
    while (len--)
        c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
    return ~c;
}

uint32_t fuzz_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t fuzz_get64(const uint8_t *p) { return fuzz_get32(p) | (uint64_t)fuzz_get32(p + 4) << 32; }

void fuzz_put32(uint8_t *p, uint32_t x)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}
