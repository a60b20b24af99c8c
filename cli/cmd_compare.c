/* damka compare: a directory of tables against a published manifest, table by table. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../gen/finish/manifest_compare.h"
#include "../rules/errors.h"
#include "cli.h"

static int cmd_compare(int argc, char **argv);

const cli_command cli_compare = {
    "compare", cmd_compare, "[--variant V] [--whole] [--quiet] MANIFEST DIR",
    "check a directory's tables against a published manifest",
    "Checks the tables of DIR against MANIFEST, the manifest.json of a published set (as it is,\n"
    "or compressed by zstd), table by table: for each table it lists that DIR holds, every byte of\n"
    "its files (their sizes and CRC-32C) and its statistics (counts, histograms, longest wins) must\n"
    "be the published ones. Tables it lists that DIR lacks are listed as absent, tables of DIR it\n"
    "does not list as not in the manifest. So a whole copy, a partial copy or a subset made again\n"
    "by `damka gen` (of some materials only) can be checked. One line a table, then the counts.\n"
    "Exit status 0 when every table of the manifest that DIR holds is the same (and with --whole,\n"
    "none is absent), 1 when one differs or cannot be read or DIR holds none of them, 2 when\n"
    "MANIFEST is not a manifest or DIR not a directory. `damka verify DIR` checks the values.\n",
    VARIANT_HELP "  --whole                a table of the manifest absent from DIR is a failure too\n"
                 "  --quiet                only the tables that differ (on stderr) and the exit status\n",
};

typedef struct printer {
    bool quiet;
} printer;

static void print_line(void *ctx, bool differs, const char *line)
{
    const printer *p = ctx;
    if (differs)
        cli_fail("compare: %s", line);
    else if (!p->quiet)
        printf("%s\n", line);
}

static int cmd_compare(int argc, char **argv)
{
    const dk_variant *v = NULL;
    const char *args[2] = {NULL, NULL};
    bool whole = false;
    printer p = {false};
    int status = 0, nargs = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_variant_option(argc, argv, &i, &v, &status)) {
            if (status)
                return status;
        } else if (strcmp(argv[i], "--whole") == 0) {
            whole = true;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            p.quiet = true;
        } else if (cli_is_option(argv[i])) {
            return cli_unknown_option(&cli_compare, argv[i]);
        } else if (nargs == 2) {
            return cli_usage_error(&cli_compare, "unexpected argument '%s'", argv[i]);
        } else {
            args[nargs++] = argv[i];
        }
    }
    if (nargs < 2)
        return cli_usage_error(&cli_compare, nargs ? "missing DIR" : "missing MANIFEST and DIR");
    struct stat st;
    if (stat(args[1], &st) != 0 || !S_ISDIR(st.st_mode))
        return cli_error("compare: %s is not a directory", args[1]);
    dk_compare_summary sum;
    char err[4096];
    if (dk_manifest_compare(args[0], args[1], v, print_line, &p, &sum, err, sizeof err) != DK_OK)
        return cli_error("compare: %s", err);
    if (!p.quiet)
        printf("%u tables the same, %u differ, %u absent, %u not in the manifest\n", sum.same, sum.differ,
               sum.absent, sum.extra);
    if (!sum.same && !sum.differ)
        return cli_fail("compare: %s holds no table of the manifest", args[1]);
    if (whole && sum.absent)
        cli_fail("compare: %u tables of the manifest are absent from %s", sum.absent, args[1]);
    return sum.differ || (whole && sum.absent) ? CLI_FAILED : CLI_OK;
}
