/* The journal of `damka verify --journal` (gen/run/verify_journal.h), read from a file anyone may
 * pass. The first input byte's low bit puts the right first line (that of tests/fuzz/compare's
 * manifest, $DAMKA_FUZZ_COMPARE if set) before the rest of the input, so that the fuzzer
 * reaches the tables' lines. Besides not crashing: a refusal is one line and leaves the file as
 * it was; a journal of another manifest holds no table; one of this manifest holds a table for
 * each line after the first; a table added is found after the file is read again, beside the
 * others. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../gen/run/verify_journal.h"
#include "support.h"

static const char *dir;
static char path[600], head[256];
static const dk_material M = {1, 2, 0, 2};
static const dk_table_files F = {{4096, 8192, 2048}, {0xdeadbeef, 0x01234567, 0x89abcdef}};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    dir = fuzz_data_dir("DAMKA_FUZZ_COMPARE", "tests/fuzz/compare");
    snprintf(path, sizeof path, "%s/journal", fuzz_tmpdir());
    /* the first line, as the journal writes it for this manifest */
    dk_verify_journal *j;
    bool restarted;
    char err[4096];
    remove(path);
    FUZZ_CHECK(dk_verify_journal_open(path, dir, &j, &restarted, err, sizeof err) == DK_OK, "%s", err);
    FUZZ_CHECK(dk_verify_journal_add(j, dk_variant_get(DK_BRAZILIAN), M, &F, err, sizeof err) == DK_OK, "%s", err);
    dk_verify_journal_close(j);
    size_t len;
    char *text = fuzz_read_file(path, &len);
    char *nl = memchr(text, '\n', len);
    FUZZ_CHECK(nl && (size_t)(nl - text) < sizeof head, "the journal's first line");
    memcpy(head, text, (size_t)(nl - text) + 1);
    free(text);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    bool with_head = data[0] & 1;
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f, "cannot write %s", path);
    if (with_head)
        fputs(head, f);
    fwrite(data + 1, 1, size - 1, f);
    FUZZ_CHECK(fclose(f) == 0, "cannot write %s", path);
    size_t len;
    char *before = fuzz_read_file(path, &len);

    const dk_variant *v = dk_variant_get(data[0] & 2 ? DK_INTERNATIONAL : DK_BRAZILIAN);
    dk_verify_journal *j;
    bool restarted;
    char err[4096] = "";
    int rc = dk_verify_journal_open(path, dir, &j, &restarted, err, sizeof err);
    FUZZ_CHECK(rc == DK_OK || rc == DK_REFUSED, "dk_verify_journal_open returned %d: %s", rc, err);
    if (rc != DK_OK) {
        FUZZ_CHECK(err[0] && !strchr(err, '\n'), "a refusal that is not one line: '%s'", err);
        size_t after_len;
        char *after = fuzz_read_file(path, &after_len);
        FUZZ_CHECK(after_len == len && memcmp(after, before, len) == 0, "a refused journal was changed");
        free(after);
        free(before);
        return 0;
    }
    int tables = dk_verify_journal_tables(j);
    if (restarted) {
        FUZZ_CHECK(tables == 0, "a journal of another manifest holds %d tables", tables);
    } else if (len > 0) {
        int lines = 0;
        for (size_t i = 0; i < len; i++)
            lines += before[i] == '\n';
        FUZZ_CHECK(tables == lines - 1, "a journal of %d lines after its first holds %d tables", lines - 1, tables);
    }
    free(before);
    bool had = dk_verify_journal_passed(j, v, M, &F);
    FUZZ_CHECK(dk_verify_journal_add(j, v, M, &F, err, sizeof err) == DK_OK, "cannot add a table: %s", err);
    dk_verify_journal_close(j);
    FUZZ_CHECK(dk_verify_journal_open(path, dir, &j, &restarted, err, sizeof err) == DK_OK,
               "the journal written does not read back: %s", err);
    FUZZ_CHECK(!restarted && dk_verify_journal_tables(j) == tables + 1 && dk_verify_journal_passed(j, v, M, &F),
               "read back, the journal holds %d tables (%d expected)%s", dk_verify_journal_tables(j), tables + 1,
               had ? "" : ", without the one added");
    dk_verify_journal_close(j);
    return 0;
}
