#include "blockpool.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../query/clock.h"
#include "../../rules/check.h"
#include "bigmem.h"

typedef struct holder {
    int32_t *slot_of; /* the reader's map; NULL: the slot is free */
    uint64_t block;
} holder;

struct dk_block_pool {
    size_t slot_bytes;
    uint32_t nslots;
    uint32_t limit;    /* slots handed out: the first `limit` (dk_block_pool_bound) */
    uint32_t next;     /* slots handed out at least once since the pool was last reset */
    uint32_t touched;  /* slots whose memory may be touched: those beyond were given back */
    uint32_t nfree;    /* released slots, in free[] */
    uint32_t hand;     /* the clock's */
    uint8_t *mem;      /* bigmem.h: its pages can be given back (dk_block_pool_idle) */
    size_t mem_bytes;
    holder *held;
    uint32_t *free;
    uint8_t *referenced;
};

dk_block_pool *dk_block_pool_new(uint64_t bytes, size_t slot_bytes)
{
    uint64_t n = slot_bytes ? bytes / slot_bytes : 0;
    if (n < 1)
        n = 1;
    if (n > INT32_MAX)
        n = INT32_MAX;
    dk_block_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->slot_bytes = slot_bytes;
    p->nslots = p->limit = (uint32_t)n;
    p->mem_bytes = n * slot_bytes;
    p->mem = dk_big_alloc(p->mem_bytes);
    p->held = calloc(n, sizeof *p->held);
    p->free = malloc(n * sizeof *p->free);
    p->referenced = calloc(n, 1);
    if (!p->mem || !p->held || !p->free || !p->referenced) {
        dk_block_pool_free(p);
        return NULL;
    }
    return p;
}

void dk_block_pool_free(dk_block_pool *p)
{
    if (!p)
        return;
    dk_big_free(p->mem, p->mem_bytes);
    free(p->held);
    free(p->free);
    free(p->referenced);
    free(p);
}

size_t dk_block_pool_slot_bytes(const dk_block_pool *p) { return p->slot_bytes; }

uint8_t *dk_block_pool_get(dk_block_pool *p, const int32_t *slot_of, uint64_t block)
{
    uint32_t s = (uint32_t)slot_of[block];
    p->referenced[s] = 1;
    return p->mem + (size_t)s * p->slot_bytes;
}

/* A slot read since the hand last passed is spared once. */
static bool spare(void *ctx, size_t slot)
{
    dk_block_pool *p = ctx;
    bool read = p->referenced[slot];
    p->referenced[slot] = 0;
    return read;
}

/* A slot to fill: a released one, else one never used, else the clock's choice (every slot
 * holds a block then), taken from its reader. */
static uint32_t pick(dk_block_pool *p)
{
    if (p->nfree)
        return p->free[--p->nfree];
    if (p->next < p->limit) {
        if (p->next == p->touched)
            p->touched++;
        return p->next++;
    }
    size_t hand = p->hand;
    ptrdiff_t at = dk_clock_sweep(&hand, p->limit, spare, p);
    DK_ASSERT(at >= 0); /* no slot is pinned: the second round finds one */
    uint32_t s = (uint32_t)at;
    p->hand = (s + 1) % p->limit; /* the slot is filled again in place: the hand moves on */
    p->held[s].slot_of[p->held[s].block] = -1;
    return s;
}

uint8_t *dk_block_pool_take(dk_block_pool *p, int32_t *slot_of, uint64_t block)
{
    uint32_t s = pick(p);
    p->held[s] = (holder){slot_of, block};
    p->referenced[s] = 1;
    slot_of[block] = (int32_t)s;
    return p->mem + (size_t)s * p->slot_bytes;
}

void dk_block_pool_release(dk_block_pool *p, int32_t *slot_of, uint64_t block)
{
    int32_t s = slot_of[block];
    if (s < 0)
        return;
    slot_of[block] = -1;
    p->held[s] = (holder){NULL, 0};
    p->referenced[s] = 0;
    p->free[p->nfree++] = (uint32_t)s;
}

/* Every slot free, none handed out yet: the next ones are taken from the first. */
static void reset(dk_block_pool *p)
{
    memset(p->referenced, 0, p->nslots);
    p->next = p->nfree = p->hand = 0;
}

void dk_block_pool_idle(dk_block_pool *p, uint64_t keep_bytes)
{
    uint64_t keep = keep_bytes / p->slot_bytes;
    if (p->touched > keep) {
        dk_big_idle(p->mem, (size_t)keep * p->slot_bytes, (size_t)p->touched * p->slot_bytes);
        p->touched = (uint32_t)keep;
    }
    reset(p);
}

void dk_block_pool_bound(dk_block_pool *p, uint64_t bytes)
{
    uint64_t n = bytes / p->slot_bytes;
    p->limit = !bytes || n > p->nslots ? p->nslots : n ? (uint32_t)n : 1;
    reset(p);
}

void dk_block_pool_limit(dk_block_pool *p, uint64_t bytes)
{
    const uint64_t n = bytes / p->slot_bytes;
    const uint32_t limit = n < 1 ? 1 : n > p->nslots ? p->nslots : (uint32_t)n;
    for (uint32_t s = limit; s < p->next; s++) {
        if (p->held[s].slot_of)
            p->held[s].slot_of[p->held[s].block] = -1;
        p->held[s] = (holder){NULL, 0};
        p->referenced[s] = 0;
    }
    uint32_t kept = 0;
    for (uint32_t k = 0; k < p->nfree; k++)
        if (p->free[k] < limit)
            p->free[kept++] = p->free[k];
    p->nfree = kept;
    if (p->next > limit)
        p->next = limit;
    if (p->touched > limit) {
        dk_big_idle(p->mem, (size_t)limit * p->slot_bytes, (size_t)p->touched * p->slot_bytes);
        p->touched = limit;
    }
    p->limit = limit;
    if (p->hand >= limit)
        p->hand = 0;
}

uint32_t dk_block_pool_slots(const dk_block_pool *p) { return p->nslots; }
