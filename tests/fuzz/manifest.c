/* `damka compare`'s reader of a published manifest.json (gen/finish/manifest_compare.h; JSON read
 * by gen/store/jsonread.c, a zstd frame decompressed first): the input is the manifest, compared
 * with the small set of tests/fuzz/compare (Brazilian up to 2 pieces with their .stats files;
 * $DAMKA_FUZZ_COMPARE if set). A published manifest is anyone's file. Besides not crashing and
 * not holding more than its bound: a refusal is one line; a comparison hands one line a table,
 * as many as its counts say, those flagged as differences being the tables that differ, and
 * counts no more tables of the set than it holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../gen/finish/manifest_compare.h"
#include "../../rules/errors.h"
#include "support.h"

static const char *dir;
static char in_path[600];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    dir = fuzz_data_dir("DAMKA_FUZZ_COMPARE", "tests/fuzz/compare");
    snprintf(in_path, sizeof in_path, "%s/published.json", fuzz_tmpdir());
    return 0;
}

typedef struct seen {
    unsigned lines, differing;
} seen;

static void on_line(void *ctx, bool differs, const char *line)
{
    seen *s = ctx;
    FUZZ_CHECK(line[0] && !strchr(line, '\n'), "a line of the comparison is empty or more than one: '%s'", line);
    FUZZ_CHECK(strncmp(line, "brazilian ", 10) == 0 || strncmp(line, "international ", 14) == 0 ||
                   strncmp(line, "russian ", 8) == 0,
               "a line that names no variant: '%s'", line);
    s->lines++;
    s->differing += differs;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write_file(in_path, data, size);
    seen s = {0, 0};
    dk_compare_summary sum;
    char err[4096] = "";
    int rc = dk_manifest_compare(in_path, dir, NULL, on_line, &s, &sum, err, sizeof err);
    FUZZ_CHECK(rc == DK_OK || rc == DK_FAILED, "dk_manifest_compare returned %d", rc);
    if (rc != DK_OK) {
        FUZZ_CHECK(err[0] && !strchr(err, '\n'), "a refusal that is not one line: '%s'", err);
        return 0;
    }
    FUZZ_CHECK(s.lines == sum.same + sum.differ + sum.absent + sum.extra,
               "%u lines for %u same, %u differing, %u absent, %u extra tables", s.lines, sum.same, sum.differ,
               sum.absent, sum.extra);
    FUZZ_CHECK(s.differing == sum.differ, "%u lines flagged as differences, %u tables differ", s.differing,
               sum.differ);
    FUZZ_CHECK(sum.same + sum.differ + sum.extra <= 4, "more tables found than the set's 4: %u same, %u differ, %u extra",
               sum.same, sum.differ, sum.extra);
    return 0;
}
