/* The compressed table format: values written and read back exactly (1- and 2-byte DTW, WLD
 * codes), don't-care positions free, blocks independent, the dictionary path, and damage
 * detected at open, at block read and by the full check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../query/checksum.h"
#include "../gen/ctable_write.h"
#include "support.h"

static char dir[] = "/tmp/dk-ctable-XXXXXX";

/* Values with structure (runs) and noise, some above 255 when wide. */
static dk_value *make_values(uint64_t n, bool wide, uint8_t **dont_care, test_rng *r)
{
    dk_value *v = malloc(n * sizeof *v);
    *dont_care = calloc(n / 8 + 1, 1);
    dk_value run = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (test_rand_below(r, 50) == 0)
            run = (dk_value)test_rand_below(r, wide ? 700 : 60);
        v[i] = test_rand_below(r, 10) == 0 ? (dk_value)test_rand_below(r, 40) : run;
        if (test_rand_below(r, 7) == 0)
            (*dont_care)[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    return v;
}

static void round_trip(dk_metric metric, uint64_t n, bool wide, bool dictionary, uint32_t block)
{
    test_rng r = {n * 7 + wide};
    uint8_t *dc;
    dk_value *v = make_values(n, wide, &dc, &r);
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/t-%d-%d", dir, (int)metric, (int)wide);
    dk_ctable_params p = {1, {1, 2, 0, 1}, metric, block, 3, dictionary, 0, 1};
    dk_ctable_info out;
    assert_int_equal(dk_ctable_write(path, &p, v, dc, n, &out, err, sizeof err), 0);
    dk_ctable *t = dk_ctable_open(path, err, sizeof err);
    assert_non_null(t);
    const dk_ctable_info *in = dk_ctable_get_info(t);
    assert_int_equal(in->count, n);
    assert_int_equal(in->file_crc, out.file_crc);
    assert_int_equal(in->width, metric == DK_METRIC_WLD ? 0 : wide ? 2 : 1);
    assert_int_equal(dk_ctable_check(t, err, sizeof err), 0);
    void *dctx = dk_ctable_dctx_new();
    uint8_t *buf = malloc(dk_ctable_max_block_bytes(t));
    for (uint64_t i = 0; i < n; i++) {
        if (i % in->block_size == 0)
            assert_int_equal(dk_ctable_read_block(t, dctx, (uint32_t)(i / in->block_size), buf, err, sizeof err), 0);
        if (dc[i / 8] >> (i % 8) & 1)
            continue;
        dk_value got = dk_ctable_decode(t, buf, (uint32_t)(i % in->block_size));
        if (metric == DK_METRIC_WLD)
            assert_int_equal(dk_code_of(got), dk_code_of(v[i]));
        else
            assert_int_equal(got, v[i]);
    }
    free(buf);
    dk_ctable_dctx_free(dctx);
    dk_ctable_close(t);
    unlink(path);
    free(v);
    free(dc);
}

static void test_round_trips(void **state)
{
    (void)state;
    round_trip(DK_METRIC_DTW, 100003, false, false, 0);
    round_trip(DK_METRIC_DTW, 100003, true, false, 4096);
    round_trip(DK_METRIC_WLD, 300001, false, false, 0);
    round_trip(DK_METRIC_WLD, 1, false, false, 0);
    round_trip(DK_METRIC_DTW, 200000, true, true, 1024); /* many blocks: the dictionary is tried */
}

/* A copy of a good file with one change, which must be caught (at open, at a block, or by
 * the full check) and never read as a value. */
static void expect_caught(const char *good, long at, int delta, long truncate_to)
{
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/damaged", dir);
    FILE *in = fopen(good, "rb"), *out = fopen(path, "wb");
    int c;
    for (long k = 0; (c = fgetc(in)) != EOF && (truncate_to < 0 || k < truncate_to); k++)
        fputc(k == at ? (c ^ delta) & 0xff : c, out);
    fclose(in);
    fclose(out);
    dk_open_failure why = 0;
    dk_ctable *t = dk_ctable_open_why(path, &why, err, sizeof err);
    if (!t) {
        /* damage is damage: never taken for a failed read, which a reader would try again */
        assert_int_equal(why, DK_OPEN_DAMAGED);
        return;
    }
    assert_int_not_equal(dk_ctable_check(t, err, sizeof err), 0);
    assert_non_null(strstr(err, "damaged"));
    dk_ctable_close(t);
}

static void test_damage(void **state)
{
    (void)state;
    test_rng r = {5};
    uint8_t *dc;
    dk_value *v = make_values(50000, false, &dc, &r);
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/good", dir);
    dk_ctable_params p = {0, {0, 1, 1, 1}, DK_METRIC_DTW, 2048, 3, false, 0, 1};
    dk_ctable_info info;
    assert_int_equal(dk_ctable_write(path, &p, v, dc, 50000, &info, err, sizeof err), 0);
    for (long at = 0; at < (long)info.file_size; at += 1 + (long)test_rand_below(&r, 97))
        expect_caught(path, at, 1 << (at % 8), -1);
    for (long len = 0; len < (long)info.file_size; len += 1 + (long)test_rand_below(&r, 997))
        expect_caught(path, -1, 0, len);
    assert_null(dk_ctable_open("/nonexistent/file", err, sizeof err));
    /* a file that cannot be opened or mapped is not called damaged (tests/faults.sh injects
     * the failures themselves) */
    dk_open_failure why = 0;
    assert_null(dk_ctable_open_why("/nonexistent/file", &why, err, sizeof err));
    assert_int_equal(why, DK_OPEN_IO);
    assert_null(dk_ctable_open_why(dir, &why, err, sizeof err)); /* a directory: mmap fails */
    assert_int_equal(why, DK_OPEN_IO);
    assert_int_equal(dk_ctable_write(path, &p, v, dc, 0, NULL, err, sizeof err), -1);
    unlink(path);
    free(v);
    free(dc);
}

static void put32(uint8_t *p, uint32_t x) { memcpy(p, &x, 4); } /* little-endian hosts */
static void put64(uint8_t *p, uint64_t x) { memcpy(p, &x, 8); }

/* Writes a DTW file whose checksums are right but whose blocks are all empty, with the header
 * fields given, and returns whether it opens. */
static bool crafted_opens(uint64_t count, uint32_t block_size, uint32_t nblocks)
{
    size_t index_end = 64 + ((size_t)nblocks + 1) * 8, len = index_end + 8;
    uint8_t *f = calloc(1, len);
    memcpy(f, "DAMKATB1", 8);
    put32(f + 8, 1);
    f[13] = DK_METRIC_DTW;
    f[15] = f[17] = 1;
    f[18] = 2;
    put32(f + 20, block_size);
    put64(f + 24, count);
    put32(f + 32, nblocks);
    put64(f + 40, len);
    for (uint32_t b = 0; b <= nblocks; b++)
        put64(f + 64 + 8 * (size_t)b, index_end);
    put32(f + 48, dk_crc32c(0, f + 64, index_end - 64));
    put32(f + 52, dk_crc32c(0, f, 52));
    put32(f + index_end, dk_crc32c(0, f, index_end));
    memcpy(f + index_end + 4, "DKTE", 4);
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/damaged", dir);
    FILE *out = fopen(path, "wb");
    fwrite(f, 1, len, out);
    fclose(out);
    free(f);
    dk_ctable *t = dk_ctable_open(path, err, sizeof err);
    dk_ctable_close(t);
    return t != NULL;
}

/* Headers that checksums cannot catch (tests/fuzz/regressions/ctable/): a count so large that
 * ceil(count / block_size) wrapped to 0 blocks, and blocks of 2^31 positions that a full check
 * would allocate 4 GiB for. */
static void test_header_bounds(void **state)
{
    (void)state;
    assert_true(crafted_opens(4, 4, 1));
    assert_false(crafted_opens(UINT64_MAX, 4, 0));
    assert_false(crafted_opens((uint64_t)1 << 40, 1u << 31, 512));
    assert_true(crafted_opens((uint64_t)1 << 24, DK_CTABLE_MAX_BLOCK, 1));
    assert_false(crafted_opens((uint64_t)1 << 25, DK_CTABLE_MAX_BLOCK + 4, 2));
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/damaged", dir);
    unlink(path);
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_damage),
        cmocka_unit_test(test_header_bounds),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
