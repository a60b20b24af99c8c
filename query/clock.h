/* The CLOCK sweep (second chance) by which every cache of damka chooses what to drop: the probe
 * cache (query/cache.c), the generator's decoded finished tables (gen/solve/finished.c), its exit
 * cache (gen/store/blockpool.c) and plan's model of the former (gen/store/clockcache.c). Each keeps its own
 * entries in an array, in places 0..n-1, and a hand; a hit only marks its entry, so that it
 * touches no other entry's memory. When room is needed the hand sweeps the places: an entry
 * the owner spares (marked since the hand last passed, whose mark it then clears, or pinned) is
 * passed, the first one not spared is the victim. The owner drops it and usually moves its last
 * entry into the victim's place, where the hand then looks next. */
#ifndef DK_CLOCK_H
#define DK_CLOCK_H

#include <stdbool.h>
#include <stddef.h>

/* The place of the next victim among n places, sweeping from *hand (wrapped into 0..n-1):
 * spare(ctx, place) is asked of each place the hand reaches; true passes it (spare clears the
 * mark that earned the pass), false makes it the victim, returned with *hand on it. Returns -1,
 * *hand past the places passed, when every place was spared twice round (every entry pinned),
 * or when n is 0. Inline so that a constant spare is inlined into the sweep. Thread-safe as the
 * owner's entries are. */
static inline ptrdiff_t dk_clock_sweep(size_t *hand, size_t n, bool (*spare)(void *ctx, size_t place),
                                       void *ctx)
{
    for (size_t passed = 0; passed < 2 * n; passed++) {
        if (*hand >= n)
            *hand = 0;
        if (!spare(ctx, *hand))
            return (ptrdiff_t)*hand;
        ++*hand;
    }
    return -1;
}

#endif
