/* The WLD run-length code (query/wldcode.c, gen/finish/wldcode_write.c): blocks coded and every
 * sub-block decoded back to the same 2-bit codes, on random and structured data, with edge
 * cases (one position, one value, a partial last sub-block, sub-blocks stored as they are), and
 * damaged sub-blocks and code tables refused without reading or writing out of bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../gen/finish/wldcode_write.h"
#include "../query/checksum.h"
#include "../query/fileio.h"
#include "support.h"

static void set_code(uint8_t *codes, uint32_t i, unsigned v) { codes[i / 4] |= (uint8_t)(v << (2 * (i % 4))); }

/* n codes: runs of mean length `mean` (1: independent noise), values 0..2. */
static uint8_t *make_codes(uint32_t n, uint32_t mean, test_rng *r)
{
    uint8_t *c = calloc(n / 4 + 1, 1);
    unsigned v = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (test_rand_below(r, mean) == 0)
            v = (unsigned)test_rand_below(r, 3);
        set_code(c, i, v);
    }
    return c;
}

/* Sub-block s of a coded block: where it lies. */
static void sub_range(const uint8_t *blk, size_t len, uint32_t subs, uint32_t s, size_t *a, size_t *z)
{
    size_t table = 4 + 2 * (size_t)(subs - 1);
    *a = s ? dk_get16(blk + 4 + 2 * (s - 1)) : table;
    *z = s + 1 < subs ? dk_get16(blk + 4 + 2 * s) : len;
}

/* Decodes sub-block s of a block as a reader does; returns the decoder's verdict. */
static int decode_sub(const dk_wld_codes *c, const uint8_t *blk, size_t len, uint32_t n, uint32_t sub,
                      uint32_t s, uint8_t *out)
{
    uint32_t subs = (n + sub - 1) / sub, m = n - s * sub < sub ? n - s * sub : sub;
    size_t a, z;
    sub_range(blk, len, subs, s, &a, &z);
    if (z - a == (m + 3) / 4) {
        memcpy(out, blk + a, z - a);
        return 0;
    }
    return dk_wld_decode(c, blk + a, z - a, m, out);
}

/* Codes one block of n codes in sub-blocks of `sub`, checks its CRC and decodes every
 * sub-block back; returns the block's bytes. With skew, the counts make runs of 2^16 so common
 * that every other run gets a long code. */
static size_t round_trip_skewed(const uint8_t *codes, uint32_t n, uint32_t sub, bool skew)
{
    dk_wld_counts k;
    memset(&k, 0, sizeof k);
    dk_wld_count(&k, codes, n, sub);
    unsigned extra, cls = dk_wld_class(1u << 16, &extra);
    for (unsigned x = 0; skew && x < DK_WLD_CONTEXTS; x++)
        for (unsigned v = 0; v < 3; v++)
            k.n[x][v * DK_WLD_CLASSES + cls] += 1000000000;
    dk_wld_encoder e;
    dk_wld_encoder_init(&e, &k);
    dk_wld_codes c;
    assert_int_equal(dk_wld_codes_init(&c, e.table), 0);
    uint8_t *blk = malloc(dk_wld_block_bound(n, sub)), *out = malloc(sub / 4 + 1);
    size_t len = dk_wld_encode_block(&e, codes, n, sub, blk);
    assert_true(len <= dk_wld_block_bound(n, sub));
    assert_int_equal(dk_get32(blk), dk_crc32c(0, blk + 4, len - 4));
    for (uint32_t s = 0; s * sub < n; s++) {
        uint32_t m = n - s * sub < sub ? n - s * sub : sub;
        assert_int_equal(decode_sub(&c, blk, len, n, sub, s, out), 0);
        for (uint32_t i = 0; i < m; i++) /* every position, the unused bits of the last byte too */
            assert_int_equal(out[i / 4] >> (2 * (i % 4)) & 3, codes[(s * sub + i) / 4] >> (2 * ((s * sub + i) % 4)) & 3);
        if (m % 4)
            assert_int_equal(out[m / 4] >> (2 * (m % 4)), 0);
    }
    free(blk);
    free(out);
    return len;
}

static size_t round_trip(const uint8_t *codes, uint32_t n, uint32_t sub) { return round_trip_skewed(codes, n, sub, false); }

static void test_round_trips(void **state)
{
    (void)state;
    test_rng r = {42};
    static const uint32_t means[] = {1, 3, 20, 300, 100000};
    for (size_t k = 0; k < sizeof means / sizeof means[0]; k++) {
        uint8_t *c = make_codes(65536, means[k], &r);
        round_trip(c, 65536, 4096);
        round_trip(c, 65536, 4);
        round_trip(c, 65536, 65536);
        round_trip(c, 65533, 1024);  /* a partial last sub-block */
        round_trip(c, 5000, 4096);
        free(c);
    }
}

static void test_edges(void **state)
{
    (void)state;
    test_rng r = {7};
    uint8_t one[1] = {2}; /* a block of one position: a loss */
    round_trip(one, 1, 4);
    round_trip(one, 1, 4096);
    for (unsigned v = 0; v < 3; v++) { /* one value throughout (as when every position is free) */
        uint8_t *c = calloc(131072 / 4, 1);
        for (uint32_t i = 0; i < 131072; i++)
            set_code(c, i, v);
        size_t len = round_trip(c, 131072, 65536);
        assert_true(len < 4 + 2 + 16); /* two runs of 65536 */
        free(c);
    }
    /* sub-blocks whose code is no shorter than the codes themselves: stored as they are (of
     * 4 positions or fewer, always), and read back */
    uint8_t *noise = make_codes(4096, 1, &r);
    assert_int_equal(round_trip_skewed(noise, 4096, 4096, true), 4 + 1024);
    assert_int_equal(round_trip(noise, 4, 4), 4 + 1);
    assert_int_equal(round_trip(noise, 7, 4), 4 + 2 + 1 + 1);
    free(noise);
    /* the longest runs a sub-block holds: 2^16 positions, then one */
    uint8_t *c = calloc(131072 / 4, 1);
    set_code(c, 65535, 1);
    round_trip(c, 131072, 65536);
    free(c);
}

/* Every single-bit change of a coded block's sub-blocks is refused or decodes to values (the
 * block's CRC is what catches it), never read outside the sub-block (ASan watches) nor written
 * past the output; a sub-block cut short, made longer or empty is refused. */
static void test_damage(void **state)
{
    (void)state;
    test_rng r = {11};
    uint32_t n = 8192, sub = 2048;
    uint8_t *codes = make_codes(n, 20, &r);
    dk_wld_counts k;
    memset(&k, 0, sizeof k);
    dk_wld_count(&k, codes, n, sub);
    dk_wld_encoder e;
    dk_wld_encoder_init(&e, &k);
    dk_wld_codes c;
    assert_int_equal(dk_wld_codes_init(&c, e.table), 0);
    uint8_t *blk = malloc(dk_wld_block_bound(n, sub));
    size_t len = dk_wld_encode_block(&e, codes, n, sub, blk);
    for (uint32_t s = 0; s < n / sub; s++) {
        size_t a, z;
        sub_range(blk, len, n / sub, s, &a, &z);
        assert_true(z - a < sub / 4); /* coded */
        for (size_t at = a; at < z; at++)
            for (int bit = 0; bit < 8; bit++) {
                uint8_t *copy = malloc(z - a), out[512];
                memcpy(copy, blk + a, z - a);
                copy[at - a] ^= (uint8_t)(1 << bit);
                out[sizeof out - 1] = 0;
                if (dk_wld_decode(&c, copy, z - a, sub, out) == 0) /* a value, never code 3 */
                    for (uint32_t i = 0; i < sub; i++)
                        assert_int_not_equal(out[i / 4] >> (2 * (i % 4)) & 3, 3);
                free(copy);
            }
        /* cut short or made longer: the bits no longer add up */
        uint8_t out[512], *longer = calloc(z - a + 1, 1);
        memcpy(longer, blk + a, z - a);
        assert_int_not_equal(dk_wld_decode(&c, blk + a, z - a - 1, sub, out), 0);
        assert_int_not_equal(dk_wld_decode(&c, longer, z - a + 1, sub, out), 0);
        assert_int_not_equal(dk_wld_decode(&c, blk + a, 0, sub, out), 0);
        free(longer);
    }
    free(blk);
    free(codes);
}

/* Code tables that are no prefix code are refused; any that is decodes safely. */
static void test_tables(void **state)
{
    (void)state;
    uint8_t t[DK_WLD_TABLE];
    dk_wld_codes c;
    memset(t, 0, sizeof t);
    assert_int_equal(dk_wld_codes_init(&c, t), 0); /* no code at all: nothing decodes */
    uint8_t out[2], in[2] = {0, 0};
    assert_int_not_equal(dk_wld_decode(&c, in, 1, 4, out), 0);
    t[0] = 0x11; /* symbols 0 and 1 of the first context: codes 0 and 1 */
    assert_int_equal(dk_wld_codes_init(&c, t), 0);
    t[1] = 0x01; /* a third code of 1 bit */
    assert_int_equal(dk_wld_codes_init(&c, t), -1);
    memset(t, 0xff, sizeof t); /* 192 codes of 15 bits fit */
    assert_int_equal(dk_wld_codes_init(&c, t), 0);
    test_rng r = {3};
    for (int k = 0; k < 2000; k++) {
        for (size_t i = 0; i < sizeof t; i++)
            t[i] = (uint8_t)(test_rand_below(&r, 4) ? 0 : test_rand(&r));
        if (dk_wld_codes_init(&c, t) != 0)
            continue;
        uint8_t src[64], dst[1024];
        for (size_t i = 0; i < sizeof src; i++)
            src[i] = (uint8_t)test_rand(&r);
        (void)dk_wld_decode(&c, src, 1 + test_rand_below(&r, sizeof src), 1 + (uint32_t)test_rand_below(&r, 4096), dst);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_damage),
        cmocka_unit_test(test_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
