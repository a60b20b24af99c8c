#include "clockcache.h"

#include <stdlib.h>

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

int dk_clock_add(dk_clock *c, uint32_t key, uint64_t bytes, uint64_t limit)
{
    while (c->held + bytes > limit && c->n) {
        if (c->hand >= c->n)
            c->hand = 0;
        dk_clock_entry *e = &c->ring[c->hand];
        if (c->hand + SWEEP_AHEAD < c->n)
            dk_clock_prefetch(c, c->ring[c->hand + SWEEP_AHEAD].key);
        if (get(c, e->key) == 2) {
            set(c, e->key, 1);
            c->hand++;
            continue;
        }
        set(c, e->key, 0);
        c->held -= e->bytes;
        *e = c->ring[--c->n];
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
