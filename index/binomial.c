#include "binomial.h"

#include <pthread.h>

uint64_t dk_binom_table[DK_MAX_SQ + 1][DK_MAX_SQ + 1];
uint64_t dk_binom_by_k[DK_MAX_SQ + 1][DK_MAX_SQ + 1];
uint32_t dk_colex2[DK_COLEX2_SETS], dk_colex3[DK_COLEX3_SETS];
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
    for (uint32_t c2 = 1; c2 < DK_MAX_SQ; c2++)
        for (uint32_t c1 = 0; c1 < c2; c1++) {
            uint64_t r2 = dk_binom_table[c2][2] + c1;
            dk_colex2[r2] = c1 | c2 << 8;
            for (uint32_t c3 = c2 + 1; c3 < DK_MAX_SQ; c3++)
                dk_colex3[dk_binom_table[c3][3] + r2] = c1 | c2 << 8 | c3 << 16;
        }
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
