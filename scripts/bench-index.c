/* Rank and unrank throughput of the perfect index, in millions of positions per second.
 * Built and run by `make bench-index`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../index/perfect.h"

enum { N = 1 << 22 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void bench(const dk_variant *v, const char *name)
{
    dk_material m;
    dk_index ix;
    if (dk_material_parse(name, &m) != 0 || dk_index_init(&ix, v, m) != 0) {
        fprintf(stderr, "bench-index: bad material %s\n", name);
        exit(1);
    }
    uint64_t *idx = malloc(N * sizeof *idx), seed = 1, sum = 0;
    dk_pos *pos = malloc(N * sizeof *pos);
    for (int i = 0; i < N; i++)
        idx[i] = rnd(&seed) % ix.size;
    memset(pos, 0, N * sizeof *pos); /* page faults out of the timing */
    double t0 = now();
    for (int i = 0; i < N; i++)
        pos[i] = dk_index_unrank(&ix, idx[i]);
    double t1 = now();
    for (int i = 0; i < N; i++)
        sum += dk_index_rank(&ix, &pos[i]);
    double t2 = now();
    /* Walking whole subslices, as the solver does. */
    uint64_t walked = 0;
    for (uint64_t s = 0; walked < N; s = (s + 7919) % ix.men_count) {
        dk_subslice_iter it;
        dk_subslice_begin(&it, &ix, s);
        do {
            sum += it.pos.kings;
            walked++;
        } while (dk_subslice_next(&it));
    }
    double t3 = now();
    /* Consecutive indexes, the order a generator sweeps a table in. */
    uint64_t seq = ix.size < N ? ix.size : N;
    for (uint64_t k = 0; k < seq; k++) {
        dk_pos p = dk_index_unrank(&ix, k);
        sum += p.kings ^ p.pieces[0];
    }
    double t4 = now();
    uint64_t check = 0;
    for (int i = 0; i < N; i++)
        check += idx[i];
    printf("%-14s %-10s %15llu  unrank random %5.1f M/s, in order %5.1f M/s  rank %6.1f M/s  subslice walk %6.1f M/s%s\n",
           v->name, name, (unsigned long long)ix.size, N / (t1 - t0) / 1e6, seq / (t4 - t3) / 1e6, N / (t2 - t1) / 1e6,
           walked / (t3 - t2) / 1e6,
           (sum - (sum - check)) == check ? "" : " (mismatch)");
    free(idx);
    free(pos);
}

int main(void)
{
    const dk_variant *b = dk_variant_get(DK_BRAZILIAN), *i = dk_variant_get(DK_INTERNATIONAL);
    bench(b, "1m1k-1m1k");
    bench(b, "1m2k-1m2k");
    bench(b, "2m2k-2m2k");
    bench(b, "4m0k-3m0k");
    bench(i, "1m2k-1m2k");
    bench(i, "2m2k-2m1k");
    bench(i, "4m0k-4m0k");
    return 0;
}
