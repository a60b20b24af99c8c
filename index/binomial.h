/* Binomial coefficients and division by run-time constants, for the perfect index.
 *
 * The combinatorial number system needs C(n, k) for n, k <= DK_MAX_SQ thousands of times per
 * second per thread, so the table is built once. Unranking splits an index into mixed-radix
 * digits whose radices are fixed per material; dividing by them with a precomputed reciprocal
 * keeps hardware division out of the generator's inner loop. */
#ifndef DK_BINOMIAL_H
#define DK_BINOMIAL_H

#include <stdint.h>
#include "../rules/variant.h"

/* dk_binom_table[n][k] = C(n, k) for 0 <= k, n <= DK_MAX_SQ (0 when k > n). C(50, 25) < 2^47,
 * so every entry fits. Read it only after dk_binom_init() has returned. */
extern uint64_t dk_binom_table[DK_MAX_SQ + 1][DK_MAX_SQ + 1];

/* The same numbers by k first: dk_binom_by_k[k][n] = C(n, k), so that a search over n for a fixed
 * k reads one contiguous row. */
extern uint64_t dk_binom_by_k[DK_MAX_SQ + 1][DK_MAX_SQ + 1];

/* Builds dk_binom_table once. Thread-safe (pthread_once); cheap to call again. */
void dk_binom_init(void);

/* C(n, k) from the table; 0 when k < 0, k > n or n > DK_MAX_SQ. Needs dk_binom_init(). Thread-safe. */
static inline uint64_t dk_binom(int n, int k)
{
    if (k < 0 || n < 0 || k > n || n > DK_MAX_SQ)
        return 0;
    return dk_binom_table[n][k];
}

/* Division by an invariant d >= 1 as a multiply and a shift: for every n < 2^63,
 * floor(n * magic / 2^shift) == n / d (Granlund-Montgomery with a 64-bit magic; the error
 * magic * d - 2^shift < d <= 2^(shift - 63) makes it exact). */
typedef struct dk_divider {
    uint64_t d;
    uint64_t magic;
    unsigned shift;
} dk_divider;

/* The divider for 1 <= d < 2^62 (so that the magic fits 64 bits). Pure; thread-safe. */
dk_divider dk_divider_make(uint64_t d);

/* n / d for n < 2^63. Pure; thread-safe. */
static inline uint64_t dk_div(const dk_divider *dv, uint64_t n)
{
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)(((u128)n * dv->magic) >> dv->shift);
}

/* Quotient and remainder of n / d for n < 2^63; the remainder goes to *rem. */
static inline uint64_t dk_divmod(const dk_divider *dv, uint64_t n, uint64_t *rem)
{
    uint64_t q = dk_div(dv, n);
    *rem = n - q * dv->d;
    return q;
}

#endif
