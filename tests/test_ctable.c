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
#include "../query/wldcode.h"
#include "../gen/finish/ctable_write.h"
#include "../gen/store/valuefile.h"
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

/* Writes n values (with every position free when all_free) and reads each back, a read block at a
 * time as the cache does. */
static void round_trip_sub(dk_metric metric, uint64_t n, bool wide, bool dictionary, uint32_t block,
                           uint32_t sub, bool all_free)
{
    test_rng r = {n * 7 + wide};
    uint8_t *dc;
    dk_value *v = make_values(n, wide, &dc, &r);
    if (all_free)
        memset(dc, 0xff, n / 8 + 1);
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/t-%d-%d", dir, (int)metric, (int)wide);
    dk_ctable_params p = {1, {1, 2, 0, 1}, metric, block, 3, dictionary, 0, 1, sub};
    dk_ctable_info out;
    assert_int_equal(dk_ctable_write(path, &p, v, dc, n, &out, err, sizeof err), 0);
    dk_ctable *t = dk_ctable_open(path, err, sizeof err);
    assert_non_null(t);
    const dk_ctable_info *in = dk_ctable_get_info(t);
    assert_int_equal(in->count, n);
    assert_int_equal(in->file_crc, out.file_crc);
    assert_int_equal(in->width, metric == DK_METRIC_WLD ? 0 : wide ? 2 : 1);
    assert_int_equal(in->version, DK_CTABLE_VERSION);
    if (metric == DK_METRIC_WLD) { /* sub-blocks are the read blocks; the writer's default divides the block */
        assert_int_equal(in->read_block, sub ? sub : in->sub_block);
        assert_int_equal(in->block_size % in->read_block, 0);
        assert_int_equal(in->dict_size, DK_WLD_TABLE);
    } else
        assert_int_equal(in->read_block, in->block_size);
    assert_int_equal(in->nread_blocks, (n + in->read_block - 1) / in->read_block);
    assert_int_equal(dk_ctable_check(t, err, sizeof err), 0);
    void *dctx = dk_ctable_dctx_new();
    uint8_t *buf = malloc(dk_ctable_max_read_block_bytes(t));
    for (uint64_t i = 0; i < n; i++) {
        if (i % in->read_block == 0)
            assert_int_equal(dk_ctable_read_block(t, dctx, i / in->read_block, buf, err, sizeof err), 0);
        if (dc[i / 8] >> (i % 8) & 1)
            continue;
        dk_value got = dk_ctable_decode(t, buf, (uint32_t)(i % in->read_block));
        if (metric == DK_METRIC_WLD)
            assert_int_equal(dk_code_of(got), dk_code_of(v[i]));
        else
            assert_int_equal(got, v[i]);
    }
    free(buf);
    dk_ctable_dctx_free(dctx);
    dk_ctable_close(t);
    unlink(path);
    if (all_free) /* nothing to store: one run a sub-block */
        assert_true(out.file_size < 64 + DK_WLD_TABLE + 16 * out.nblocks + 8 * out.nread_blocks + 8);
    free(v);
    free(dc);
}

static void round_trip(dk_metric metric, uint64_t n, bool wide, bool dictionary, uint32_t block)
{
    round_trip_sub(metric, n, wide, dictionary, block, 0, false);
}

static void test_round_trips(void **state)
{
    (void)state;
    round_trip(DK_METRIC_DTW, 100003, false, false, 0);
    round_trip(DK_METRIC_DTW, 100003, true, false, 4096);
    round_trip(DK_METRIC_WLD, 300001, false, false, 0);
    round_trip(DK_METRIC_WLD, 1, false, false, 0);
    round_trip(DK_METRIC_DTW, 200000, true, true, 1024); /* many blocks: the dictionary is tried */
    round_trip(DK_METRIC_WLD, 200000, false, false, 1024); /* the default sub-block does not divide: one a block */
    round_trip_sub(DK_METRIC_WLD, 100003, false, false, 8192, 256, false); /* partial last block and sub-block */
    round_trip_sub(DK_METRIC_WLD, 131072, false, false, 131072, 65536, false); /* the largest */
    round_trip_sub(DK_METRIC_WLD, 70001, false, false, 4096, 4, false);
    round_trip_sub(DK_METRIC_WLD, 100003, false, false, 0, 0, true);
    round_trip_sub(DK_METRIC_WLD, 5, false, false, 4, 4, true);
    /* more blocks than the writer holds of the index at once (8192): the last chunk partial, or empty */
    round_trip(DK_METRIC_DTW, 65567, false, false, 4);
    round_trip(DK_METRIC_DTW, 65536, true, false, 4);
}

/* Coded blocks kept a range at a time, then given back in order. */
typedef struct kept {
    uint8_t *data;
    size_t n, given;
    uint64_t *sizes;
    uint32_t nblocks;
} kept;

static int keep(void *ctx, uint32_t b, const uint8_t *bytes, size_t n, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    kept *k = ctx;
    k->data = realloc(k->data, k->n + n);
    memcpy(k->data + k->n, bytes, n);
    k->n += n;
    k->sizes[b] = n;
    return 0;
}

/* Gives the kept bytes back in pieces of at most 1000, as parts' files would. */
static int give(void *ctx, const uint8_t **bytes, size_t *n, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    kept *k = ctx;
    *bytes = k->data + k->given;
    *n = k->n - k->given < 1000 ? k->n - k->given : 1000;
    k->given += *n;
    return 0;
}

/* Gives the kept sizes of the blocks asked for, which must be in the table. */
static int kept_sizes(void *ctx, uint32_t b0, uint32_t n, uint64_t *out, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    kept *k = ctx;
    assert_true(n > 0 && b0 + n <= k->nblocks);
    memcpy(out, k->sizes + b0, n * sizeof *out);
    return 0;
}

static uint8_t *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    rewind(f);
    uint8_t *b = malloc((size_t)*len);
    assert_int_equal(fread(b, 1, (size_t)*len, f), (size_t)*len);
    fclose(f);
    return b;
}

/* A table written in parts (ranges of blocks scanned in any order, coded range by range, from
 * values that carry the don't-care flag) has the bytes of the table written whole. */
static void parts_match(dk_metric metric, bool wide, bool dictionary, uint32_t block)
{
    const uint64_t n = 300000;
    test_rng r = {n + wide};
    uint8_t *dc;
    dk_value *v = make_values(n, wide, &dc, &r);
    if (block) /* small blocks of one long pattern: a dictionary pays */
        for (uint64_t i = 0; i < n; i++)
            v[i] = v[i % 3000];
    dk_value *flagged = malloc(n * sizeof *flagged);
    for (uint64_t i = 0; i < n; i++)
        flagged[i] = (dk_value)(v[i] | (dc[i / 8] >> (i % 8) & 1 ? DK_VFILE_FLAG : 0));
    char whole[256], parts[256], err[512];
    snprintf(whole, sizeof whole, "%s/whole", dir);
    snprintf(parts, sizeof parts, "%s/parts", dir);
    dk_ctable_params p = {1, {1, 2, 0, 1}, metric, block, 3, dictionary, 0, 1, 0};
    dk_ctable_info wi;
    assert_int_equal(dk_ctable_write(whole, &p, v, dc, n, &wi, err, sizeof err), 0);

    dk_value_source src = dk_value_array(flagged, 1, 0);
    dk_ctable_coder *c = dk_ctable_coder_new(&p, &src, NULL, true, n, err, sizeof err);
    assert_non_null(c);
    uint32_t nb = dk_ctable_coder_info(c)->nblocks, cut[] = {0, nb / 3, nb / 2 + 1, nb};
    dk_ctable_scan *all = calloc(1, sizeof *all), *one = malloc(sizeof *one);
    for (int k = 2; k >= 0; k--) { /* the sum does not depend on the order */
        memset(one, 0, sizeof *one);
        assert_int_equal(dk_ctable_coder_scan(c, cut[k], cut[k + 1], one), 0);
        dk_ctable_scan_add(all, one);
    }
    assert_int_equal(dk_ctable_coder_decide(c, all), 0);
    kept k = {NULL, 0, 0, calloc(nb, sizeof *k.sizes), nb};
    for (int q = 0; q < 3; q++) { /* each part with a coder of its own, deciding the same */
        dk_ctable_coder *cq = dk_ctable_coder_new(&p, &src, NULL, true, n, err, sizeof err);
        assert_int_equal(dk_ctable_coder_decide(cq, all), 0);
        assert_int_equal(dk_ctable_coder_info(cq)->dict_size, dk_ctable_coder_info(c)->dict_size);
        assert_int_equal(dk_ctable_coder_code(cq, cut[q], cut[q + 1], keep, &k), 0);
        dk_ctable_coder_free(cq);
    }
    dk_ctable_info pi = *dk_ctable_coder_info(c);
    dk_ctable_blocks blocks = {kept_sizes, give, &k};
    assert_int_equal(dk_ctable_write_blocks(parts, &pi, dk_ctable_coder_dict(c), &blocks, err, sizeof err), 0);
    assert_int_equal(pi.file_crc, wi.file_crc);
    assert_int_equal(pi.file_size, wi.file_size);
    long la, lb;
    uint8_t *a = slurp(whole, &la), *b = slurp(parts, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, (size_t)la);
    if (block)
        assert_true(pi.dict_size > 0);
    unlink(whole);
    unlink(parts);
    free(a);
    free(b);
    free(k.data);
    free(k.sizes);
    free(all);
    free(one);
    dk_ctable_coder_free(c);
    free(flagged);
    free(v);
    free(dc);
}

static void test_parts(void **state)
{
    (void)state;
    parts_match(DK_METRIC_WLD, false, false, 0);
    parts_match(DK_METRIC_DTW, false, false, 0);
    parts_match(DK_METRIC_DTW, true, false, 0);
    parts_match(DK_METRIC_DTW, false, true, 0);
    parts_match(DK_METRIC_DTW, true, true, 0);
    parts_match(DK_METRIC_DTW, true, true, 2048);
}

static void test_bad_sizes(void **state)
{
    (void)state;
    dk_value v[16] = {0};
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/bad", dir);
    static const uint32_t sizes[][2] = {{4096, 3000}, {4096, 6}, {1 << 18, 4096}, {4096, 8192}, {6, 0}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        dk_ctable_params p = {1, {1, 2, 0, 1}, DK_METRIC_WLD, sizes[k][0], 0, false, 0, 1, sizes[k][1]};
        assert_int_equal(dk_ctable_write(path, &p, v, NULL, 16, NULL, err, sizeof err), -1);
        assert_non_null(strstr(err, "bad block size"));
    }
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
    dk_status why = DK_OK;
    dk_ctable *t = dk_ctable_open_why(path, &why, err, sizeof err);
    if (!t) {
        /* damage is damage: never taken for a failed read, which a reader would try again */
        assert_int_equal(why, DK_DAMAGED);
        return;
    }
    assert_int_equal(dk_ctable_check(t, err, sizeof err), DK_DAMAGED);
    assert_non_null(strstr(err, "damaged"));
    dk_ctable_close(t);
}

/* Changes of bytes and truncations of a DTW file, and of a WLD file (code table, blocks). */
static void test_damage(void **state)
{
    (void)state;
    test_rng r = {5};
    uint8_t *dc;
    dk_value *v = make_values(50000, false, &dc, &r);
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/good", dir);
    for (int wld = 0; wld < 2; wld++) {
        dk_ctable_params p = {0, {0, 1, 1, 1}, wld ? DK_METRIC_WLD : DK_METRIC_DTW, wld ? 8192 : 2048, 3,
                              false, 0, 1, wld ? 512 : 0};
        dk_ctable_info info;
        assert_int_equal(dk_ctable_write(path, &p, v, dc, 50000, &info, err, sizeof err), 0);
        for (long at = 0; at < (long)info.file_size; at += 1 + (long)test_rand_below(&r, wld ? 13 : 97))
            expect_caught(path, at, 1 << (at % 8), -1);
        for (long len = 0; len < (long)info.file_size; len += 1 + (long)test_rand_below(&r, 997))
            expect_caught(path, -1, 0, len);
    }
    dk_ctable_params p = {0, {0, 1, 1, 1}, DK_METRIC_DTW, 2048, 3, false, 0, 1, 0};
    assert_null(dk_ctable_open("/nonexistent/file", err, sizeof err));
    /* a file that is not there, or cannot be read, is not called damaged (tests/faults.sh
     * injects the failures themselves) */
    dk_status why = DK_OK;
    assert_null(dk_ctable_open_why("/nonexistent/file", &why, err, sizeof err));
    assert_int_equal(why, DK_MISSING);
    assert_null(dk_ctable_open_why(dir, &why, err, sizeof err)); /* a directory: its read fails */
    assert_int_equal(why, DK_IO);
    assert_int_equal(dk_ctable_write(path, &p, v, dc, 0, NULL, err, sizeof err), -1);
    unlink(path);
    free(v);
    free(dc);
}

static void put32(uint8_t *p, uint32_t x) { memcpy(p, &x, 4); } /* little-endian hosts */
static void put64(uint8_t *p, uint64_t x) { memcpy(p, &x, 8); }

/* Writes a file whose checksums are right but whose blocks are all empty, with the header
 * fields given (format `version`, the sub-block size at bytes 60..63, dict bytes of
 * table_byte), and returns whether it opens; err gets why not. */
static bool crafted_opens_table(dk_metric metric, uint64_t count, uint32_t block_size, uint32_t nblocks,
                                uint32_t version, uint32_t sub, uint32_t dict, uint8_t table_byte, char *err,
                                size_t errlen)
{
    size_t index_end = 64 + dict + ((size_t)nblocks + 1) * 8, len = index_end + 8;
    uint8_t *f = calloc(1, len);
    memcpy(f, "DAMKATB1", 8);
    put32(f + 8, version);
    f[13] = (uint8_t)metric;
    f[15] = f[17] = 1;
    f[18] = metric == DK_METRIC_WLD ? 0 : 2;
    put32(f + 20, block_size);
    put64(f + 24, count);
    put32(f + 32, nblocks);
    put32(f + 36, dict);
    put64(f + 40, len);
    put32(f + 60, sub);
    memset(f + 64, table_byte, dict);
    for (uint32_t b = 0; b <= nblocks; b++)
        put64(f + 64 + dict + 8 * (size_t)b, index_end);
    put32(f + 48, dk_crc32c(0, f + 64, index_end - 64));
    put32(f + 52, dk_crc32c(0, f, 52));
    put32(f + index_end, dk_crc32c(0, f, index_end));
    memcpy(f + index_end + 4, "DKTE", 4);
    char path[256];
    snprintf(path, sizeof path, "%s/damaged", dir);
    FILE *out = fopen(path, "wb");
    fwrite(f, 1, len, out);
    fclose(out);
    free(f);
    dk_ctable *t = dk_ctable_open(path, err, errlen);
    dk_ctable_close(t);
    return t != NULL;
}

static bool crafted_opens_wld(uint64_t count, uint32_t block_size, uint32_t nblocks, uint32_t version,
                              uint32_t sub, uint32_t dict, char *err, size_t errlen)
{
    return crafted_opens_table(DK_METRIC_WLD, count, block_size, nblocks, version, sub, dict, 0, err, errlen);
}

static bool crafted_opens(uint64_t count, uint32_t block_size, uint32_t nblocks)
{
    char err[512];
    return crafted_opens_table(DK_METRIC_DTW, count, block_size, nblocks, DK_CTABLE_VERSION, 0, 0, 0, err,
                               sizeof err);
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

/* WLD headers: the sub-block must divide the block, which must keep its offsets in 16 bits, and
 * the code table must be there; a version this build does not read, older or newer, is named. */
static void test_wld_header(void **state)
{
    (void)state;
    char err[512];
    assert_true(crafted_opens_wld(8192, 4096, 2, 2, 1024, DK_WLD_TABLE, err, sizeof err));
    assert_true(crafted_opens_wld(DK_WLD_MAX_BLOCK, DK_WLD_MAX_BLOCK, 1, 2, 65536, DK_WLD_TABLE, err, sizeof err));
    assert_false(crafted_opens_wld(8192, 4096, 2, 2, 1000, DK_WLD_TABLE, err, sizeof err));
    assert_false(crafted_opens_wld(8192, 4096, 2, 2, 0, DK_WLD_TABLE, err, sizeof err));
    assert_false(crafted_opens_wld(8192, 4096, 2, 2, 8192, DK_WLD_TABLE, err, sizeof err));
    assert_false(crafted_opens_wld(2 * DK_WLD_MAX_BLOCK, 2 * DK_WLD_MAX_BLOCK, 1, 2, 65536, DK_WLD_TABLE, err,
                                   sizeof err));
    assert_false(crafted_opens_wld(8192, 4096, 2, 2, 1024, 0, err, sizeof err));
    /* version 1 (WLD blocks zstd frames, never released) is refused, DTW files too */
    assert_false(crafted_opens_wld(8192, 4096, 2, 1, 0, 0, err, sizeof err));
    assert_non_null(strstr(err, "is table format version 1; this build reads version 2 only"));
    assert_false(crafted_opens_table(DK_METRIC_DTW, 8192, 4096, 2, 1, 0, 0, 0, err, sizeof err));
    assert_non_null(strstr(err, "is table format version 1; this build reads version 2 only"));
    /* DTW and DTC files have no sub-blocks */
    assert_true(crafted_opens_table(DK_METRIC_DTW, 8192, 4096, 2, 2, 0, 0, 0, err, sizeof err));
    assert_false(crafted_opens_table(DK_METRIC_DTW, 8192, 4096, 2, 2, 1024, 0, 0, err, sizeof err));
    assert_false(crafted_opens_wld(8192, 4096, 2, 3, 1024, DK_WLD_TABLE, err, sizeof err));
    assert_non_null(strstr(err, "is table format version 3; this build reads version 2 only"));
    /* a code table that is no prefix code: every symbol 1 bit long */
    assert_false(crafted_opens_table(DK_METRIC_WLD, 8192, 4096, 2, 2, 1024, DK_WLD_TABLE, 0x11, err, sizeof err));
    assert_non_null(strstr(err, "bad code table"));
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
    snprintf(path, sizeof path, "%s/bad", dir);
    unlink(path);
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_damage),
        cmocka_unit_test(test_header_bounds),
        cmocka_unit_test(test_wld_header),
        cmocka_unit_test(test_bad_sizes),
        cmocka_unit_test(test_parts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
