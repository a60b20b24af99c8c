/* The .stats files: what the generator writes loads back the same, and damaged files are
 * refused rather than believed (the inputs tests/fuzz/regressions/stats/ found). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../gen/store/stats.h"
#include "../gen/store/valuefile.h"

static char dir[] = "/tmp/dk-stats-XXXXXX";

/* A file as `damka gen` wrote it for Brazilian 1m1k-0m1k, in parts that the tests change. */
static const char *const HEAD = "material 1m1k-0m1k\npositions 26040\nwins 7241\nlosses 2\n"
                                "draws 18797\nwld 1199 63a21aeb\ndtw 1783 fa181582\n";
static const char *const LONGEST = "longest_win 9 W:WK2,5:BK32\n";
static const char *const HIST = "histogram 0:1 1:5986 2:1 3:1049 5:186 7:18 9:2\n";
static const char *const RULE = "rule 30 wins 7241 cursed_wins 0 draws 18797 blessed_losses 0 "
                                "losses 2\ndtc 1922 25186802\nlongest_dtc 6 W:WK6,32:BK1\n"
                                "dtc_wins 1:6274 2:475 3:340 4:148 6:4\ndtc_losses 0:1 2:1\n";

/* Writes the parts (len bytes of the middle one, which may hold NULs) and loads the file. */
static int load(dk_stats *st, const char *longest, size_t longest_len, const char *hist)
{
    char path[256];
    snprintf(path, sizeof path, "%s/t.stats", dir);
    FILE *f = fopen(path, "wb");
    fputs(HEAD, f);
    fwrite(longest, 1, longest_len, f);
    fputs(hist, f);
    fputs(RULE, f);
    fclose(f);
    int rc = dk_stats_load(st, path);
    unlink(path);
    return rc;
}

static void test_good_file(void **state)
{
    (void)state;
    dk_stats st, again;
    assert_int_equal(load(&st, LONGEST, strlen(LONGEST), HIST), 0);
    assert_int_equal(st.positions, 26040);
    assert_int_equal(st.max_dtw, 9);
    assert_int_equal(st.hist[1], 5986);
    assert_string_equal(st.longest_fen, "W:WK2,5:BK32");
    assert_int_equal(st.limit, 30);
    assert_int_equal(st.dtc_win[6], 4);
    assert_string_equal(st.longest_dtc_fen, "W:WK6,32:BK1");
    char path[256];
    snprintf(path, sizeof path, "%s/saved.stats", dir);
    char err[512];
    if (dk_stats_write(&st, path, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(dk_stats_load(&again, path), 0);
    unlink(path);
    assert_int_equal(again.wins, st.wins);
    assert_int_equal(again.hist[9], 2);
    assert_string_equal(again.longest_dtc_fen, st.longest_dtc_fen);
    dk_stats_free(&st);
    dk_stats_free(&again);
}

/* Statistics counted in parts and added up, in order, are those counted at once; a flag on a
 * position's first value is left out. */
static void test_parts_add_up(void **state)
{
    (void)state;
    dk_index ix;
    dk_material m = {1, 1, 0, 1};
    assert_int_equal(dk_index_init(&ix, dk_variant_get(DK_BRAZILIAN), m), 0);
    const unsigned limit = 30;
    uint64_t n = ix.size, seed = 12345;
    dk_value *v = malloc(n * 2 * sizeof *v), *flagged = malloc(n * 2 * sizeof *flagged);
    for (uint64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned r = (unsigned)(seed >> 33);
        v[2 * i] = r % 3 == 0 ? 0 : (dk_value)(1 + r % 23); /* draws, wins and losses, ties for the longest */
        unsigned d = (r >> 8) % (limit + 1);
        v[2 * i + 1] = r % 5 == 0 ? (dk_value)(r % 3) : (dk_value)(4 + 2 * d + (d && r % 2));
        flagged[2 * i] = (dk_value)(v[2 * i] | (r % 7 == 0 ? DK_VFILE_FLAG : 0));
        flagged[2 * i + 1] = v[2 * i + 1];
    }
    dk_stats whole, sum, part;
    char err[256];
    dk_value_source all = dk_value_array(v, 2, 0), fl = dk_value_array(flagged, 2, 0);
    assert_int_equal(dk_stats_compute(&whole, &ix, &all, limit, err, sizeof err), 0);
    uint64_t cut[] = {0, n / 5, n / 5 + 1, n / 2, n};
    assert_int_equal(dk_stats_begin(&sum, &ix, limit), 0);
    for (int k = 0; k < 4; k++) {
        assert_int_equal(dk_stats_begin(&part, &ix, limit), 0);
        assert_int_equal(dk_stats_count(&part, &fl, cut[k], cut[k + 1] - cut[k], err, sizeof err), 0);
        dk_stats_add(&sum, &part);
        dk_stats_free(&part);
    }
    dk_stats_end(&sum, &ix);
    assert_int_equal(sum.positions, whole.positions);
    assert_int_equal(sum.wins, whole.wins);
    assert_int_equal(sum.losses, whole.losses);
    assert_int_equal(sum.draws, whole.draws);
    assert_int_equal(sum.max_dtw, whole.max_dtw);
    assert_memory_equal(sum.hist, whole.hist, (whole.max_dtw + 1) * sizeof *whole.hist);
    assert_int_equal(sum.longest_win, whole.longest_win);
    assert_string_equal(sum.longest_fen, whole.longest_fen);
    assert_memory_equal(sum.rule, whole.rule, sizeof whole.rule);
    assert_memory_equal(sum.dtc_win, whole.dtc_win, (limit + 1) * sizeof *whole.dtc_win);
    assert_memory_equal(sum.dtc_loss, whole.dtc_loss, (limit + 1) * sizeof *whole.dtc_loss);
    assert_int_equal(sum.longest_dtc, whole.longest_dtc);
    assert_string_equal(sum.longest_dtc_fen, whole.longest_dtc_fen);
    dk_stats_free(&sum);
    dk_stats_free(&whole);
    free(v);
    free(flagged);
}

/* A histogram index a DTW cannot have is refused, not allocated: "-5" reads as 2^32 - 5. */
static void test_histogram_index(void **state)
{
    (void)state;
    dk_stats st;
    const char *bad[] = {"histogram 1:1635 3:1909-5:1662\n", "histogram 4294967295:1\n",
                         "histogram 65535:1\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(load(&st, LONGEST, strlen(LONGEST), bad[i]), DK_DAMAGED);
    assert_int_equal(load(&st, LONGEST, strlen(LONGEST), "histogram 65534:1\n"), 0);
    assert_int_equal(st.max_dtw, 65534);
    dk_stats_free(&st);
}

/* The FEN of the longest win is printed into JSON as it is: only FEN characters are taken. */
static void test_fen_field(void **state)
{
    (void)state;
    dk_stats st;
    static const char nul[] = "longest_win 9 \0\0W:WK2,5:BK32\n";
    assert_int_equal(load(&st, nul, sizeof nul - 1, HIST), DK_DAMAGED);
    const char *quote = "longest_win 9 W:WK2,5:BK32\"}\n";
    assert_int_equal(load(&st, quote, strlen(quote), HIST), DK_DAMAGED);
    const char *none = "longest_win 0 -\n";
    assert_int_equal(load(&st, none, strlen(none), HIST), 0);
    assert_string_equal(st.longest_fen, "");
    dk_stats_free(&st);
}

/* The messages of dk_stats_read and dk_stats_write name the file and what went wrong: a file
 * that cannot be opened is not called damaged, and a write that cannot finish says which step
 * failed (tests/faults.sh makes the system calls themselves fail). */
static void test_messages(void **state)
{
    (void)state;
    dk_stats st;
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/missing.stats", dir);
    assert_int_equal(dk_stats_read(&st, path, err, sizeof err), DK_MISSING);
    assert_non_null(strstr(err, "cannot open"));
    assert_non_null(strstr(err, path));
    snprintf(path, sizeof path, "%s/bad.stats", dir);
    FILE *f = fopen(path, "w");
    fputs("material nonsense\n", f);
    fclose(f);
    assert_int_equal(dk_stats_read(&st, path, err, sizeof err), DK_DAMAGED);
    assert_non_null(strstr(err, "damaged"));
    assert_non_null(strstr(err, path));
    assert_int_equal(load(&st, LONGEST, strlen(LONGEST), HIST), 0);
    /* a directory in the way of the rename */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(dk_stats_write(&st, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot rename"));
    assert_non_null(strstr(err, path));
    rmdir(path);
    snprintf(path, sizeof path, "%s/no-such-dir/x.stats", dir);
    assert_int_equal(dk_stats_write(&st, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot create"));
    dk_stats_free(&st);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_parts_add_up),
        cmocka_unit_test(test_histogram_index),
        cmocka_unit_test(test_fen_field),
        cmocka_unit_test(test_messages),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
