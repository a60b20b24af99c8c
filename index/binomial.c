#include "binomial.h"

#include <pthread.h>

uint64_t dk_binom_table[DK_MAX_SQ + 1][DK_MAX_SQ + 1];
uint64_t dk_binom_by_k[DK_MAX_SQ + 1][DK_MAX_SQ + 1];
static pthread_once_t binom_once = PTHREAD_ONCE_INIT;

static void build_binom(void)
{
    for (int n = 0; n <= DK_MAX_SQ; n++) {
        dk_binom_table[n][0] = 1;
        for (int k = 1; k <= n; k++)
            dk_binom_table[n][k] = dk_binom_table[n - 1][k - 1] + (k < n ? dk_binom_table[n - 1][k] : 0);
    }
    for (int n = 0; n <= DK_MAX_SQ; n++)
        for (int k = 0; k <= DK_MAX_SQ; k++)
            dk_binom_by_k[k][n] = dk_binom_table[n][k];
}

void dk_binom_init(void)
{
    pthread_once(&binom_once, build_binom);
}

dk_divider dk_divider_make(uint64_t d)
{
    __extension__ typedef unsigned __int128 u128;
    unsigned ceil_log2 = 0;
    while (ceil_log2 < 64 && ((u128)1 << ceil_log2) < d)
        ceil_log2++;
    unsigned shift = 63 + ceil_log2;
    dk_divider dv = {d, (uint64_t)((((u128)1 << shift) - 1) / d + 1), shift};
    return dv;
}
