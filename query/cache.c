#include "cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../rules/errors.h"
#include "clock.h"

/* Buckets per shard: about one per BUCKET_BYTES of its budget (WLD read blocks are 2 KiB as written,
 * so chains stay short), a power of two between the bounds. */
enum { SHARDS = 64, MIN_BUCKETS = 256, MAX_BUCKETS = 1 << 16, BUCKET_BYTES = 1024 };

/* Eviction by CLOCK (clock.h): with small WLD read blocks a cache holds tens of thousands of
 * entries, and moving an entry to the front of an LRU list cost two cache misses a hit. */
typedef struct entry {
    uint64_t block;
    uint32_t id;
    bool used;                  /* read since the hand last passed */
    struct entry *chain;        /* same bucket */
    size_t bytes;
    uint8_t data[];
} entry;

typedef struct shard {
    pthread_mutex_t lock;
    entry **bucket;
    size_t mask;                /* buckets - 1 */
    entry **ring;               /* the entries, in the places the hand sweeps */
    size_t n, cap, hand;
    size_t used, budget;
    void *dctx;
    uint64_t lookups, misses;
} shard;

struct dk_cache {
    shard shards[SHARDS];
};

static uint64_t mix(uint32_t id, uint64_t block)
{
    uint64_t k = block * 0x9E3779B97F4A7C15ull ^ id;
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

/* The shard comes from the low bits of the mixed key, the bucket from higher ones. */
static entry **bucket_of(shard *s, uint64_t h) { return &s->bucket[(h >> 8) & s->mask]; }

dk_cache *dk_cache_new(size_t budget)
{
    dk_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    size_t buckets = MIN_BUCKETS;
    while (buckets < MAX_BUCKETS && buckets * BUCKET_BYTES < budget / SHARDS)
        buckets *= 2;
    bool ok = true;
    for (int i = 0; i < SHARDS; i++) {
        pthread_mutex_init(&c->shards[i].lock, NULL);
        c->shards[i].budget = budget / SHARDS;
        c->shards[i].mask = buckets - 1;
        ok = ok && (c->shards[i].bucket = calloc(buckets, sizeof(entry *)));
    }
    if (!ok) {
        dk_cache_free(c);
        return NULL;
    }
    return c;
}

void dk_cache_free(dk_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < SHARDS; i++) {
        shard *s = &c->shards[i];
        for (size_t k = 0; k < s->n; k++)
            free(s->ring[k]);
        free(s->ring);
        dk_ctable_dctx_free(s->dctx);
        free(s->bucket);
        pthread_mutex_destroy(&s->lock);
    }
    free(c);
}

/* Adds e to the places the hand sweeps. Returns false when out of memory. */
static bool insert(shard *s, entry *e)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        entry **r = realloc(s->ring, cap * sizeof *r);
        if (!r)
            return false;
        s->ring = r;
        s->cap = cap;
    }
    s->ring[s->n++] = e;
    return true;
}

typedef struct sweep {
    shard *s;
    const entry *keep;
} sweep;

/* An entry read since the hand passed is spared once; the one being read always. */
static bool spare(void *ctx, size_t place)
{
    const sweep *w = ctx;
    entry *e = w->s->ring[place];
    bool spared = e->used || e == w->keep;
    e->used = false;
    return spared;
}

/* Frees entries until the shard is within its budget, never `keep` (the entry being read). */
static void evict(shard *s, const entry *keep)
{
    sweep w = {s, keep};
    ptrdiff_t at;
    while (s->used > s->budget && (at = dk_clock_sweep(&s->hand, s->n, spare, &w)) >= 0) {
        entry *e = s->ring[at];
        s->ring[at] = s->ring[--s->n];
        entry **p = bucket_of(s, mix(e->id, e->block));
        while (*p != e)
            p = &(*p)->chain;
        *p = e->chain;
        s->used -= e->bytes;
        free(e);
    }
}

dk_status dk_cache_values(dk_cache *c, const dk_ctable *t, uint32_t id, uint64_t block, const uint32_t *at,
                                size_t n, size_t stride, bool cached_only, dk_value *out, char *err, size_t errlen)
{
    uint64_t h = mix(id, block);
    shard *s = &c->shards[h % SHARDS];
    pthread_mutex_lock(&s->lock);
    s->lookups++;
    entry *e = *bucket_of(s, h);
    while (e && (e->block != block || e->id != id))
        e = e->chain;
    if (e) {
        e->used = true;
    } else if (cached_only) {
        pthread_mutex_unlock(&s->lock);
        return DK_NOT_CACHED;
    } else {
        s->misses++;
        size_t bytes = dk_ctable_read_block_bytes(t, block);
        if (!s->dctx)
            s->dctx = dk_ctable_dctx_new();
        e = s->dctx ? malloc(sizeof *e + bytes) : NULL;
        if (!e) {
            pthread_mutex_unlock(&s->lock);
            return dk_statusf(DK_NO_MEMORY, err, errlen, "out of memory reading a block of %s", dk_ctable_path(t));
        }
        int rc = dk_ctable_read_block(t, s->dctx, block, e->data, err, errlen);
        if (rc != 0) {
            free(e);
            pthread_mutex_unlock(&s->lock);
            return rc;
        }
        e->block = block;
        e->id = id;
        e->used = true; /* as if read: a new entry has the hand's round to be read again */
        e->bytes = sizeof *e + bytes;
        if (!insert(s, e)) {
            free(e);
            pthread_mutex_unlock(&s->lock);
            return dk_statusf(DK_NO_MEMORY, err, errlen, "out of memory reading a block of %s", dk_ctable_path(t));
        }
        entry **b = bucket_of(s, h);
        e->chain = *b;
        *b = e;
        s->used += e->bytes;
        evict(s, e);
    }
    for (size_t j = 0; j < n; j++)
        out[j * stride] = dk_ctable_decode(t, e->data, at[j]);
    pthread_mutex_unlock(&s->lock);
    return DK_OK;
}

void dk_cache_counters(dk_cache *c, uint64_t *lookups, uint64_t *misses)
{
    *lookups = *misses = 0;
    for (int i = 0; i < SHARDS; i++) {
        pthread_mutex_lock(&c->shards[i].lock);
        *lookups += c->shards[i].lookups;
        *misses += c->shards[i].misses;
        pthread_mutex_unlock(&c->shards[i].lock);
    }
}
