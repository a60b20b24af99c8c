/* The journal of `damka verify --journal` (gen/run/verify_journal.h): what it records is found
 * again by a later open, only for the same files and the same manifest; a journal of another
 * manifest is started again; a file that is no journal, one cut inside a line, an empty name, a
 * directory and a set without manifest.json are refused, the file left as it was; a journal that
 * cannot be written says so and keeps what it held. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../gen/run/verify_journal.h"

static char dir[64], journal[128];
static const dk_variant *V;

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static int setup(void **state)
{
    (void)state;
    V = dk_variant_get(DK_INTERNATIONAL);
    snprintf(dir, sizeof dir, "/tmp/dk_journal_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(journal, sizeof journal, "%s/journal", dir);
    char manifest[128];
    snprintf(manifest, sizeof manifest, "%s/manifest.json", dir);
    write_text(manifest, "{\"manifest\": \"damka-manifest-2\", \"variants\": []}\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static dk_verify_journal *open_ok(bool *restarted)
{
    dk_verify_journal *j;
    char err[4096];
    assert_int_equal(dk_verify_journal_open(journal, dir, &j, restarted, err, sizeof err), DK_OK);
    return j;
}

static const dk_material M1 = {1, 1, 0, 2}, M2 = {0, 3, 0, 3};
static const dk_table_files F1 = {{780, 1200, 900}, {0x6f66a227, 0x12345678, 0x9abcdef0}};
static const dk_table_files F2 = {{5000, 7000, 0}, {1, 2, 0}};

static void test_recorded_then_found(void **state)
{
    (void)state;
    unlink(journal);
    bool restarted;
    char err[4096];
    dk_verify_journal *j = open_ok(&restarted);
    assert_false(restarted);
    assert_int_equal(dk_verify_journal_tables(j), 0);
    assert_false(dk_verify_journal_passed(j, V, M1, &F1));
    assert_int_equal(dk_verify_journal_add(j, V, M1, &F1, err, sizeof err), DK_OK);
    assert_int_equal(dk_verify_journal_add(j, V, M2, &F2, err, sizeof err), DK_OK);
    dk_verify_journal_close(j);

    j = open_ok(&restarted);
    assert_false(restarted);
    assert_int_equal(dk_verify_journal_tables(j), 2);
    assert_true(dk_verify_journal_passed(j, V, M1, &F1));
    assert_true(dk_verify_journal_passed(j, V, M2, &F2));
    /* another file's CRC or size, a DTC file more, another material or variant: not passed */
    dk_table_files f = F1;
    f.crc[1] ^= 1;
    assert_false(dk_verify_journal_passed(j, V, M1, &f));
    f = F1;
    f.size[2]++;
    assert_false(dk_verify_journal_passed(j, V, M1, &f));
    f = F2;
    f.size[2] = 10;
    assert_false(dk_verify_journal_passed(j, V, M2, &f));
    assert_false(dk_verify_journal_passed(j, V, M2, &F1));
    assert_false(dk_verify_journal_passed(j, dk_variant_get(DK_BRAZILIAN), M1, &F1));
    dk_verify_journal_close(j);
    /* the file: the manifest's line, then a line a table */
    const char *text = read_text(journal);
    assert_non_null(strstr(text, "damka-verify-journal-1 manifest "));
    assert_non_null(strstr(text, "\ninternational 1m1k-0m2k wld 780 6f66a227 dtw 1200 12345678 dtc 900 9abcdef0\n"));
    assert_non_null(strstr(text, "\ninternational 0m3k-0m3k wld 5000 00000001 dtw 7000 00000002\n"));
}

static void test_other_manifest_starts_again(void **state)
{
    (void)state;
    unlink(journal);
    bool restarted;
    char err[4096], manifest[128];
    dk_verify_journal *j = open_ok(&restarted);
    assert_int_equal(dk_verify_journal_add(j, V, M1, &F1, err, sizeof err), DK_OK);
    dk_verify_journal_close(j);
    snprintf(manifest, sizeof manifest, "%s/manifest.json", dir);
    char *saved = strdup(read_text(manifest));
    write_text(manifest, "{\"manifest\": \"damka-manifest-2\", \"variants\": [ ]}\n");
    j = open_ok(&restarted);
    assert_true(restarted);
    assert_int_equal(dk_verify_journal_tables(j), 0);
    assert_false(dk_verify_journal_passed(j, V, M1, &F1));
    dk_verify_journal_close(j);
    write_text(manifest, saved);
    free(saved);
}

static void test_refused(void **state)
{
    (void)state;
    dk_verify_journal *j;
    bool restarted;
    char err[4096], manifest[128];
    /* no journal: left as it is */
    write_text(journal, "{\"not\": \"a journal\"}\n");
    assert_int_equal(dk_verify_journal_open(journal, dir, &j, &restarted, err, sizeof err), DK_REFUSED);
    assert_null(j);
    assert_non_null(strstr(err, "is not a journal of damka verify"));
    assert_string_equal(read_text(journal), "{\"not\": \"a journal\"}\n");
    /* a journal of this manifest cut inside a table's line */
    unlink(journal);
    j = open_ok(&restarted);
    assert_int_equal(dk_verify_journal_add(j, V, M1, &F1, err, sizeof err), DK_OK);
    dk_verify_journal_close(j);
    char *text = strdup(read_text(journal));
    text[strlen(text) - 5] = 0;
    write_text(journal, text);
    free(text);
    assert_int_equal(dk_verify_journal_open(journal, dir, &j, &restarted, err, sizeof err), DK_REFUSED);
    assert_non_null(strstr(err, "a line cut short"));
    /* an empty name, a directory */
    assert_int_equal(dk_verify_journal_open("", dir, &j, &restarted, err, sizeof err), DK_REFUSED);
    assert_int_equal(dk_verify_journal_open(dir, dir, &j, &restarted, err, sizeof err), DK_REFUSED);
    assert_non_null(strstr(err, "not a file"));
    /* an empty file is an empty journal */
    write_text(journal, "");
    dk_verify_journal_close(open_ok(&restarted));
    /* no manifest.json: not a finished set */
    snprintf(manifest, sizeof manifest, "%s/manifest.json", dir);
    char *saved = strdup(read_text(manifest));
    unlink(manifest);
    assert_int_equal(dk_verify_journal_open(journal, dir, &j, &restarted, err, sizeof err), DK_REFUSED);
    assert_non_null(strstr(err, "--journal needs"));
    write_text(manifest, saved);
    free(saved);
}

static void test_write_fails(void **state)
{
    (void)state;
    char err[4096], gone[160];
    dk_verify_journal *j;
    bool restarted;
    snprintf(gone, sizeof gone, "%s/no/such/dir/journal", dir);
    assert_int_equal(dk_verify_journal_open(gone, dir, &j, &restarted, err, sizeof err), DK_OK);
    assert_int_equal(dk_verify_journal_add(j, V, M1, &F1, err, sizeof err), DK_IO);
    assert_non_null(strstr(err, "journal not written"));
    assert_int_equal(dk_verify_journal_tables(j), 0);
    assert_false(dk_verify_journal_passed(j, V, M1, &F1));
    dk_verify_journal_close(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded_then_found),
        cmocka_unit_test(test_other_manifest_starts_again),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_write_fails),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
