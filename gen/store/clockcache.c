#include "clockcache.h"

#include <stdlib.h>

#include "../../query/clock.h"

/* PAGE_BYTES: bytes of a page; SWEEP_AHEAD: how far ahead of the hand the sweep asks for an
 * entry's state, so that it has come when the hand gets there (a later add, mostly). */
enum { PAGE_BYTES = DK_CLOCK_PAGE / 4, SWEEP_AHEAD = 8 };

static unsigned get(const dk_clock *c, uint32_t key)
{
    return c->page[key / DK_CLOCK_PAGE][key % DK_CLOCK_PAGE / 4] >> (2 * (key % 4)) & 3;
}

static void set(dk_clock *c, uint32_t key, unsigned state)
{
    uint8_t *b = &c->page[key / DK_CLOCK_PAGE][key % DK_CLOCK_PAGE / 4];
    *b = (uint8_t)((*b & ~(3u << (2 * (key % 4)))) | state << (2 * (key % 4)));
}

int dk_clock_init(dk_clock *c, uint32_t nkeys)
{
    uint32_t npages = nkeys / DK_CLOCK_PAGE + 1;
    *c = (dk_clock){.page = calloc(npages, sizeof(uint8_t *)), .npages = npages};
    return c->page ? 0 : -1;
}

int dk_clock_read(dk_clock *c, uint32_t key)
{
    uint8_t **p = &c->page[key / DK_CLOCK_PAGE];
    if (!*p && !(*p = calloc(PAGE_BYTES, 1)))
        return -1;
    if (!get(c, key))
        return 0;
    set(c, key, 2);
    return 1;
}

/* An entry read since the hand last passed is spared once (its state back to held). */
static bool spare(void *ctx, size_t place)
{
    dk_clock *c = ctx;
    if (place + SWEEP_AHEAD < c->n)
        dk_clock_prefetch(c, c->ring[place + SWEEP_AHEAD].key);
    uint32_t key = c->ring[place].key;
    if (get(c, key) != 2)
        return false;
    set(c, key, 1);
    return true;
}

int dk_clock_add(dk_clock *c, uint32_t key, uint64_t bytes, uint64_t limit)
{
    ptrdiff_t at;
    while (c->held + bytes > limit && (at = dk_clock_sweep(&c->hand, c->n, spare, c)) >= 0) {
        dk_clock_entry *e = &c->ring[at];
        set(c, e->key, 0);
        c->held -= e->bytes;
        *e = c->ring[--c->n]; /* looked at next */
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 1024;
        dk_clock_entry *r = realloc(c->ring, cap * sizeof *r);
        if (!r)
            return -1;
        c->ring = r;
        c->cap = cap;
    }
    c->ring[c->n++] = (dk_clock_entry){bytes, key};
    set(c, key, 2);
    c->held += bytes;
    return 0;
}

void dk_clock_free(dk_clock *c)
{
    for (uint32_t i = 0; c->page && i < c->npages; i++)
        free(c->page[i]);
    free(c->page);
    free(c->ring);
    *c = (dk_clock){0};
}
