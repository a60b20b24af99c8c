/* A bounded cache of decoded read blocks of tables (dk_ctable_read_block: WLD sub-blocks, DTW and DTC
 * blocks), shared by every thread that probes. Split into shards, each with its own lock,
 * eviction clock and reader's context (decompression context and the buffer a compressed
 * block is read into), so that threads probing different blocks rarely wait for each other and
 * no lock covers the whole cache. */
#ifndef DK_CACHE_H
#define DK_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctable.h"

typedef struct dk_cache dk_cache;

/* A cache holding at most about `budget` bytes of decoded read blocks, their bookkeeping included (at
 * least one block per shard). Returns NULL when out of memory. */
dk_cache *dk_cache_new(size_t budget);

/* Frees the cache and its blocks. No probe may be running. */
void dk_cache_free(dk_cache *c);

/* The values at positions at[0..n) of read block `block` of table t, known to the cache as `id`
 * (unique per open table), with one lookup (one lock): the value of at[j] goes to
 * out[j * stride], from the cached block or after reading and checking it. With cached_only, a
 * block not in the cache is neither read nor decoded: the call returns DK_NOT_CACHED at
 * once (the cache is left as it was). Returns DK_OK, DK_NOT_CACHED, or, with one line in err, what dk_ctable_read_block says (DK_DAMAGED,
 * DK_IO, DK_NO_MEMORY). Thread-safe. */
dk_status dk_cache_values(dk_cache *c, const dk_ctable *t, uint32_t id, uint64_t block, const uint32_t *at,
                          size_t n, size_t stride, bool cached_only, dk_value *out, char *err, size_t errlen);

/* Counters, for benchmarks: lookups and blocks read since creation. Thread-safe (approximate
 * while probes run). */
void dk_cache_counters(dk_cache *c, uint64_t *lookups, uint64_t *misses);

#endif
