/* The .stats reader (dk_stats_load) and what `damka stats` makes of the files: the input is a
 * .stats file. What loads must print as JSON (its FENs needing no escaping there), save, and
 * load back to the same JSON; the directory listing (dk_manifest_print, text or JSON) must list
 * the file when it loads, and else refuse the directory with one line naming it (a published
 * manifest.json, which `damka compare` reads, is the `manifest` harness's input). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../gen/finish/manifest.h"
#include "../../gen/store/stats.h"
#include "support.h"

static char in_path[600], out_path[600];
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* the name damka stats looks for: any material's will do, the content names its own */
    snprintf(in_path, sizeof in_path, "%s/brazilian-1m1k-0m1k.stats", fuzz_tmpdir());
    snprintf(out_path, sizeof out_path, "%s/saved", fuzz_tmpdir());
    devnull = fopen("/dev/null", "w");
    FUZZ_CHECK(devnull, "cannot open /dev/null");
    return 0;
}

/* Whether s is printable ASCII without quotes or backslashes, as a FEN dk_fen_format writes
 * is: the loader refuses any other. */
static bool json_safe(const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c < 0x20 || *c > 0x7e || *c == '"' || *c == '\\')
            return false;
    return true;
}

/* The JSON of st, in a buffer the caller frees. */
static char *json(const dk_stats *st)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    FUZZ_CHECK(f, "out of memory");
    dk_json w;
    dk_json_start(&w, f);
    dk_stats_json(st, "brazilian-1m1k-0m1k", &w);
    FUZZ_CHECK(dk_json_finish(&w) == 0, "dk_stats_json wrote an incomplete document");
    fclose(f);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write_file(in_path, data, size);
    dk_stats st, again;
    bool loaded = dk_stats_load(&st, in_path) == 0;
    /* one listing per input (each looks for every material's file), text or JSON */
    char why[4096] = "";
    int found = dk_manifest_print(fuzz_tmpdir(), dk_variant_get(DK_BRAZILIAN), size & 1, devnull, why,
                                  sizeof why);
    FUZZ_CHECK(found == (loaded ? 1 : -1), "damka stats lists %d tables, the file %s", found,
               loaded ? "loads" : "does not load");
    FUZZ_CHECK(loaded || (strstr(why, in_path) && !strchr(why, '\n')),
               "damka stats refuses the file without naming it in one line: %s", why);
    if (!loaded)
        return 0;
    FUZZ_CHECK(json_safe(st.longest_fen) && json_safe(st.longest_dtc_fen),
               "loaded a FEN that dk_fen_format cannot have written: '%s' '%s'", st.longest_fen,
               st.longest_dtc_fen);
    char *first = json(&st);
    char err[512];
    FUZZ_CHECK(dk_stats_write(&st, out_path, err, sizeof err) == 0, "cannot save what was loaded: %s", err);
    FUZZ_CHECK(dk_stats_load(&again, out_path) == 0, "what was saved does not load");
    char *second = json(&again);
    FUZZ_CHECK(strcmp(first, second) == 0, "saved and loaded again, the JSON changes:\n%s\n%s",
               first, second);
    free(first);
    free(second);
    dk_stats_free(&st);
    dk_stats_free(&again);
    return 0;
}
