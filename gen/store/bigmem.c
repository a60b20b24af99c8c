#include "bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Under AddressSanitizer the buffers come from calloc, so that it sees a read or write past
 * their ends (a mapping of whole pages would hide it). */
#if defined(__SANITIZE_ADDRESS__)
#define FROM_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FROM_MALLOC 1
#endif
#endif

#ifndef FROM_MALLOC
/* A huge page (x86-64, arm64 with 4 KiB pages). A buffer of at least half of one is mapped in
 * whole ones, at an address aligned to one: the system gives huge pages only to aligned whole
 * ones, and a mapping of a few MiB at an arbitrary address would get none or one. */
#define HUGE ((size_t)2 << 20)

static size_t mapped_bytes(size_t bytes) { return bytes >= HUGE / 2 ? (bytes + HUGE - 1) / HUGE * HUGE : bytes; }
#endif

void *dk_big_alloc(size_t bytes)
{
    if (!bytes)
        return NULL;
#ifdef FROM_MALLOC
    return calloc(1, bytes);
#else
    const size_t len = mapped_bytes(bytes), extra = bytes < HUGE / 2 ? 0 : HUGE; /* room to align */
    if (len < bytes || len + extra < len)
        return NULL;
    uint8_t *m = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    if (!extra)
        return m;
    uint8_t *at = (uint8_t *)(((uintptr_t)m + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
    if (at > m)
        munmap(m, (size_t)(at - m));
    if (m + extra > at)
        munmap(at + len, (size_t)(m + extra - at));
#ifdef MADV_HUGEPAGE
    (void)madvise(at, len, MADV_HUGEPAGE); /* best effort: without it, 4 KiB pages */
#endif
    return at;
#endif
}

void dk_big_free(void *p, size_t bytes)
{
#ifdef FROM_MALLOC
    (void)bytes;
    free(p);
#else
    if (p)
        munmap(p, mapped_bytes(bytes));
#endif
}

void dk_big_idle(void *p, size_t from, size_t to)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    from = (from + page - 1) / page * page;
    if (!p || from >= to)
        return;
#ifdef FROM_MALLOC
    memset((uint8_t *)p + from, 0, to - from); /* what the pages given back would read */
#else
    (void)madvise((uint8_t *)p + from, to - from, MADV_DONTNEED); /* the end: rounded up */
#endif
}
