/* The generator's value files (gen/store/valuefile.h): written in compressed blocks, read back value
 * for value in any ranges; a damaged byte is caught (by the whole-file CRC, or by the block's
 * own checksum), never read as a value; a file of another version is refused by name. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../gen/store/valuefile.h"
#include "../query/fileio.h"

static char dir[] = "/tmp/damka-test-valuefile-XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

/* Values that compress somewhat (runs) and, with `wide`, need two bytes. */
static dk_value *make_values(uint64_t n, bool wide)
{
    dk_value *v = malloc(n * sizeof *v);
    unsigned x = 12345;
    for (uint64_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        v[i] = (dk_value)(i % 7 == 0 ? (x >> 16) % (wide ? 3000 : 250) : i / 50 % 200);
    }
    return v;
}

/* With `flagged`, about every third position's first value carries the flag: it costs no width
 * and comes back with the value, in every read. */
static void round_trip(uint64_t count, unsigned stride, bool wide, bool flagged)
{
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/rt-%llu-%u-%d-%d", dir, (unsigned long long)count, stride, wide, flagged);
    dk_value *v = make_values(count * stride, wide);
    for (uint64_t p = 0; flagged && p < count; p++)
        if ((p * 2654435761u) % 3 == 0)
            v[p * stride] |= DK_VFILE_FLAG;
    dk_vfile_info info = {DK_FILE_UNIT, 0, {1, 2, 0, 1}, 0, 7, count, 0, (uint8_t)stride, stride > 1 ? 30 : 0,
                          flagged};
    assert_int_equal(dk_vfile_save(path, &info, v, err, sizeof err), 0);
    assert_int_equal(info.width, wide ? 2 : 1);
    dk_vfile *f = dk_vfile_open(path, true, NULL, err, sizeof err);
    assert_non_null(f);
    const dk_vfile_info *in = dk_vfile_get_info(f);
    assert_int_equal(in->count, count);
    assert_int_equal(in->stride, stride);
    assert_int_equal(in->level, 7);
    assert_int_equal(in->flagged, flagged);
    dk_value *back = malloc(count * stride * sizeof *back);
    /* all at once, then one value at a time backwards (every block decoded again and again) */
    assert_int_equal(dk_vfile_read(f, 0, count * stride, back, err, sizeof err), 0);
    assert_memory_equal(back, v, count * stride * sizeof *v);
    for (uint64_t i = count * stride; i-- > 0;) {
        dk_value one;
        assert_int_equal(dk_vfile_read(f, i, 1, &one, err, sizeof err), 0);
        assert_int_equal(one, v[i]);
    }
    dk_vfile_close(f);
    free(back);
    free(v);
}

static void test_round_trip(void **state)
{
    (void)state;
    for (int flagged = 0; flagged < 2; flagged++) {
        round_trip(1, 1, false, flagged);
        round_trip(DK_VFILE_BLOCK, 2, false, flagged);
        round_trip(3 * DK_VFILE_BLOCK + 17, 1, true, flagged);
        round_trip(5 * DK_VFILE_BLOCK - 1, 2, true, flagged);
        round_trip(2 * DK_VFILE_BLOCK + 9, 2, false, flagged);
    }
}

/* Three files read through one pool of five blocks, at random, interleaved: each read gives
 * the file's own values whichever file took whose slots; closing a file gives its slots back
 * to the others. */
static void test_shared_pool(void **state)
{
    (void)state;
    char path[3][256], err[512];
    enum { FILES = 3 };
    const uint64_t count[FILES] = {7 * DK_VFILE_BLOCK + 3, 4 * DK_VFILE_BLOCK, 9 * DK_VFILE_BLOCK + 100};
    dk_value *v[FILES];
    dk_vfile *f[FILES];
    dk_block_pool *pool = dk_block_pool_new(5 * DK_VFILE_SLOT_BYTES, DK_VFILE_SLOT_BYTES);
    assert_non_null(pool);
    for (int k = 0; k < FILES; k++) {
        snprintf(path[k], sizeof path[k], "%s/shared-%d", dir, k);
        v[k] = make_values(count[k] * 2, k != 1);
        for (uint64_t p = 0; p < count[k]; p += 3)
            v[k][2 * p] |= DK_VFILE_FLAG;
        dk_vfile_info info = {DK_FILE_UNIT, 0, {1, 1, 0, (uint8_t)k}, 0, 0, count[k], 0, 2, 30, true};
        assert_int_equal(dk_vfile_save(path[k], &info, v[k], err, sizeof err), 0);
        f[k] = dk_vfile_open(path[k], true, pool, err, sizeof err);
        assert_non_null(f[k]);
    }
    unsigned x = 777;
    for (int n = 0; n < 20000; n++) {
        x = x * 1103515245u + 12345u;
        int k = (int)(x >> 8) % FILES;
        if (!f[k])
            continue;
        uint64_t at = ((uint64_t)x >> 4) % (count[k] * 2);
        size_t len = at + 3 <= count[k] * 2 ? 3 : 1;
        dk_value got[3];
        assert_int_equal(dk_vfile_read(f[k], at, len, got, err, sizeof err), 0);
        assert_memory_equal(got, v[k] + at, len * sizeof *got);
        if (n == 12000) { /* the middle file goes: the others read on in its slots */
            dk_vfile_close(f[1]);
            f[1] = NULL;
        }
    }
    for (int k = 0; k < FILES; k++) {
        dk_vfile_close(f[k]);
        free(v[k]);
    }
    dk_block_pool_free(pool);
}

/* Every byte after the header flipped in turn (a sample): the CRC check refuses the file, and
 * without it a read either fails or gives the right values. */
static void test_damaged(void **state)
{
    (void)state;
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/damaged", dir);
    uint64_t count = 2 * DK_VFILE_BLOCK + 5;
    dk_value *v = make_values(count * 2, true), *back = malloc(count * 2 * sizeof *back);
    dk_vfile_info info = {DK_FILE_TABLE, 0, {0, 2, 0, 1}, 0, 0, count, 0, 2, 30, false};
    assert_int_equal(dk_vfile_save(path, &info, v, err, sizeof err), 0);
    FILE *fp = fopen(path, "r+b");
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    int refused = 0, failed = 0;
    for (long at = DK_VFILE_HEADER; at < len; at += 97) {
        int c;
        fseek(fp, at, SEEK_SET);
        c = fgetc(fp);
        fseek(fp, at, SEEK_SET);
        fputc(c ^ 0x5a, fp);
        fflush(fp);
        refused += dk_vfile_open(path, true, NULL, err, sizeof err) == NULL;
        dk_vfile *f = dk_vfile_open(path, false, NULL, err, sizeof err);
        if (!f || dk_vfile_read(f, 0, count * 2, back, err, sizeof err) != 0) {
            failed++;
            assert_non_null(strstr(err, path)); /* the message names the file */
        } else
            assert_memory_equal(back, v, count * 2 * sizeof *v);
        dk_vfile_close(f);
        fseek(fp, at, SEEK_SET);
        fputc(c, fp);
        fflush(fp);
    }
    fclose(fp);
    assert_int_equal(refused, (len - DK_VFILE_HEADER + 96) / 97);
    assert_true(failed > 0);
    free(v);
    free(back);
}

/* A file of another version (1 to 3 were written by older builds, before the capture flags) is
 * refused with a line naming the file and its version, never read. */
static void test_other_versions(void **state)
{
    (void)state;
    char path[256], err[512], want[400];
    snprintf(path, sizeof path, "%s/old", dir);
    dk_value v[6] = {3, 0, 5, 1, 0, 2};
    dk_vfile_info info = {DK_FILE_UNIT, 0, {0, 2, 0, 1}, 0, 0, 3, 0, 2, 30, true};
    assert_int_equal(dk_vfile_save(path, &info, v, err, sizeof err), 0);
    for (uint32_t version = 1; version <= 5; version++) {
        FILE *fp = fopen(path, "r+b");
        uint8_t le[4];
        dk_put32(le, version);
        fseek(fp, 8, SEEK_SET);
        fwrite(le, 1, 4, fp);
        fclose(fp);
        dk_vfile *f = dk_vfile_open(path, true, NULL, err, sizeof err);
        if (version == 4) {
            assert_non_null(f);
            dk_vfile_close(f);
            continue;
        }
        assert_null(f);
        snprintf(want, sizeof want, "%s is value file version %u; this build reads version 4 only", path, version);
        assert_string_equal(err, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_shared_pool),
        cmocka_unit_test(test_damaged),
        cmocka_unit_test(test_other_versions),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
