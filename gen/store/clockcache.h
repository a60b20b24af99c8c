/* A rank's cache of decoded chunks as `damka plan`'s simulation models it (plan/simulate.c):
 * entries of given sizes, each named by a key, dropped by the same clock sweep as gen/solve/finished.c
 * drops its decoded blocks (query/clock.h): an entry read since the hand last passed is spared
 * once, else dropped, the last entry taking its place (and looked at next). Each key's state takes two bits, in pages of
 * DK_CLOCK_PAGE keys made when first used: keys read together (a table's chunks) share a cache
 * line. Not thread-safe. */
#ifndef DK_CLOCKCACHE_H
#define DK_CLOCKCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Keys a page of states. */
#define DK_CLOCK_PAGE 256

typedef struct dk_clock_entry {
    uint64_t bytes;
    uint32_t key;
} dk_clock_entry;

/* Read `held`, change the rest only through the functions below. */
typedef struct dk_clock {
    uint8_t **page;      /* by key / DK_CLOCK_PAGE, NULL until used: 2 bits a key (0: not
                            held, 1: held, 2: held and read since the hand last passed) */
    uint32_t npages;
    dk_clock_entry *ring;
    size_t n, cap, hand;
    uint64_t held;       /* bytes of the entries */
} dk_clock;

/* Sets up c empty for keys below nkeys. Returns 0, or -1 when out of memory. */
int dk_clock_init(dk_clock *c, uint32_t nkeys);

/* Whether key is held; if so marks it read. Returns 1, 0, or -1 when out of memory. */
int dk_clock_read(dk_clock *c, uint32_t key);

/* Asks the processor for key's page (the first of two steps), then for key's state (the
 * second, once that has come): to be read soon. */
static inline void dk_clock_prefetch_page(const dk_clock *c, uint32_t key)
{
    __builtin_prefetch(&c->page[key / DK_CLOCK_PAGE]);
}

static inline void dk_clock_prefetch(const dk_clock *c, uint32_t key)
{
    const uint8_t *p = c->page[key / DK_CLOCK_PAGE];
    if (p)
        __builtin_prefetch(&p[key % DK_CLOCK_PAGE / 4]);
}

/* Drops entries, sweeping, until `bytes` more fit within `limit` bytes (or none is left), then
 * adds key (not held, its page made by dk_clock_read) of that size, marked read. Returns 0, or
 * -1 when out of memory (c as it was but for the entries dropped). */
int dk_clock_add(dk_clock *c, uint32_t key, uint64_t bytes, uint64_t limit);

/* Frees what c holds. */
void dk_clock_free(dk_clock *c);

#endif
